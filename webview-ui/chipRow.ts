/**
 * The chips of the next message above the input: each attached item with its tokens, Pin, Remove
 * (with Undo in place) and its definitions; more than two rows fold behind one "N attached" button;
 * the suggestion takes the room left at the end of the row. Sent chips leave the row when their turn
 * starts and come back if the host did not keep the turn.
 */
import type { SuggestionView } from '../src/protocol/mentions';
import type { ChipView, LeftOutView } from '../src/protocol/messages';
import { formatInt, formatTokens } from '../src/common/numberFormat';
import { h, icon, iconButton } from './dom';
import type { RequestResult } from './ipc';
import { isRemovedChip, removedChipElement } from './removedChip';
import { SuggestionChip } from './suggestionChip';
import type { Tooltips } from './tooltip';

export interface ChipRowHost {
  removeChip(id: string): Promise<RequestResult>;
  restoreChip(id: string): Promise<RequestResult>;
  dismissRemovedChip(id: string): Promise<RequestResult>;
  pinChip(id: string, pinned: boolean): Promise<RequestResult>;
  attachDefinitions(id: string): Promise<RequestResult>;
  error(message: string): void;
  /** The suggestion was clicked. */
  includeSuggestion(suggestion: SuggestionView): void;
  /** The input's placeholder for the chips shown. */
  placeholder(text: string): void;
  focusInput(): void;
}

/** The input's placeholder says what a message is about. */
export function placeholderFor(chips: readonly ChipView[]): string {
  if (chips.length === 0) return 'Ask, @ to attach, / for commands';
  if (chips.length > 1) return `Ask about ${chips.length} attached items…`;
  const label = chips[0].label;
  return `Ask about ${label.slice(label.lastIndexOf('/') + 1)}…`;
}

export class ChipRow {
  /** The row: the folded "N attached" button or the chips, then the suggestion. */
  readonly el: HTMLElement;
  readonly suggestion: SuggestionChip;
  private readonly chipList: HTMLElement;
  private readonly chipToggle: HTMLButtonElement;
  private chips: ChipView[] = [];
  /** Chips that left with the turn now running (hidden until the host lists the chips again). */
  private sentChipIds = new Set<string>();
  private chipsExpanded = false;
  /** The chips of a message being sent, until the host says whether the turn started. */
  private sendingChipIds: Set<string> | undefined;
  private releaseTimer: ReturnType<typeof setTimeout> | undefined;
  /** The control the keyboard goes to once the list is drawn again (Undo after ×, × after Undo). */
  private focusAfterRender: { chipId: string; testid: string } | undefined;

  constructor(
    private readonly host: ChipRowHost,
    private readonly tooltips?: Tooltips,
  ) {
    this.chipList = h('ul', { class: 'chips', 'aria-label': 'Attached to the next message', 'data-testid': 'strata-chips' });
    this.chipToggle = h('button', {
      type: 'button',
      class: 'chips-toggle',
      'data-testid': 'strata-chips-toggle',
      'aria-expanded': 'false',
    });
    this.chipToggle.hidden = true;
    this.chipToggle.addEventListener('click', () => {
      this.chipsExpanded = !this.chipsExpanded;
      this.layout();
    });
    // One wrapping row: the folded "N attached" button or the chips, then the suggestion, so a
    // suggestion takes the room left at the end of the row instead of a row of its own.
    this.el = h('div', { class: 'context-row' }, this.chipToggle, this.chipList);
    this.el.hidden = true;
    this.suggestion = new SuggestionChip(
      (s) => this.host.includeSuggestion(s),
      () => this.showContextRow(),
    );
    this.el.append(this.suggestion.el);
    this.chipList.addEventListener('click', (e) => void this.onChipClick(e));
    this.chipList.addEventListener('keydown', (e) => this.onChipKey(e));
  }

  /** A message is being sent with the chips shown now: the token `sendAnswered` takes back. */
  sending(): Set<string> {
    const sending = new Set(this.chips.map((c) => c.id));
    this.sendingChipIds = sending;
    return sending;
  }

  /** The host answered the send (accepted: the turn started or ended already; refused: the chips stay). */
  sendAnswered(sending: Set<string>): void {
    if (this.sendingChipIds === sending) this.sendingChipIds = undefined;
  }

  /** A turn started: the chips sent with it leave the row. */
  turnStarted(): void {
    if (!this.sendingChipIds) return;
    this.sentChipIds = this.sendingChipIds;
    this.sendingChipIds = undefined;
    this.render();
  }

  /**
   * A turn ended. The host lists the chips right after a reply it kept (without the sent ones); a
   * turn it did not keep leaves them attached, so they come back if no list follows.
   */
  turnEnded(): void {
    if (this.sentChipIds.size === 0) return;
    this.releaseTimer = setTimeout(() => {
      this.releaseTimer = undefined;
      this.sentChipIds.clear();
      this.render();
    }, 150);
  }

  /** The chips of the next message, as the host lists them. */
  set(chips: readonly ChipView[]): void {
    this.chips = [...chips];
    if (this.releaseTimer !== undefined) {
      clearTimeout(this.releaseTimer);
      this.releaseTimer = undefined;
      this.sentChipIds.clear();
    }
    this.render();
  }

  private render(): void {
    const shown = this.chips.filter((c) => !this.sentChipIds.has(c.id));
    if (shown.length === 0) this.chipsExpanded = false;
    this.host.placeholder(placeholderFor(shown.filter((c) => !isRemovedChip(c))));
    const focused = this.focusedChipControl();
    this.chipList.replaceChildren(...shown.map((chip) => (isRemovedChip(chip) ? removedChipElement(chip) : this.chipElement(chip))));
    this.layout();
    this.restoreFocus(focused);
  }

  /** The chip control the keyboard is on, as what finds it again once the list is drawn anew. */
  private focusedChipControl(): { chipId: string; testid: string } | undefined {
    const active = document.activeElement;
    if (!active || !this.chipList.contains(active)) return undefined;
    const chipId = active.closest('[data-chip-id]')?.getAttribute('data-chip-id');
    return { chipId: chipId ?? '', testid: active.getAttribute('data-testid') ?? '' };
  }

  /**
   * The keyboard stays with the chips when their list is drawn again: on the control asked for (Undo
   * after ×, × after Undo) once it is there, else on the one it was on, else in the input.
   */
  private restoreFocus(focused: { chipId: string; testid: string } | undefined): void {
    const find = (at: { chipId: string; testid: string } | undefined) =>
      at && !this.chipList.hidden
        ? this.chipList.querySelector<HTMLElement>(`[data-chip-id="${CSS.escape(at.chipId)}"] [data-testid="${CSS.escape(at.testid)}"]`)
        : null;
    const asked = find(this.focusAfterRender);
    // Asked for a chip that is gone (sent): nothing more to wait for.
    if (asked || (this.focusAfterRender && !this.chips.some((c) => c.id === this.focusAfterRender!.chipId)))
      this.focusAfterRender = undefined;
    const target = asked ?? find(focused);
    if (target) target.focus();
    else if (focused && !this.chipList.contains(document.activeElement)) this.host.focusInput();
  }

  /** More than two rows of chips collapse behind one "N attached" button, so the conversation keeps its room. */
  layout(): void {
    const items = [...this.chipList.children] as HTMLElement[];
    // The toggle is never hidden just to measure: hiding it would take the keyboard focus away.
    this.chipList.hidden = items.length === 0;
    this.showContextRow();
    const rows = items.length === 0 ? 0 : new Set(items.map((li) => li.offsetTop)).size;
    if (rows <= 2 && !this.chipsExpanded) {
      this.chipToggle.hidden = true;
      this.showContextRow();
      return;
    }
    const attached = this.chips.filter((c) => !this.sentChipIds.has(c.id) && !isRemovedChip(c));
    const tokens = attached.reduce((sum, c) => sum + c.tokens, 0);
    this.chipToggle.hidden = rows <= 2;
    this.chipToggle.replaceChildren(
      h('span', { class: 'chips-toggle-label' }, `${attached.length} attached`),
      h('span', { class: 'chip-tokens' }, formatTokens(tokens)),
      icon(this.chipsExpanded ? 'chevron-up' : 'chevron-down'),
    );
    this.chipToggle.setAttribute('aria-expanded', String(this.chipsExpanded));
    // Its name is what it shows ("3 attached 127k"); the exact count is in the title.
    this.chipToggle.title = `${this.chipsExpanded ? 'Hide' : 'Show'} the attached items (${formatInt(tokens)} tokens)`;
    this.chipList.hidden = !this.chipsExpanded && rows > 2;
    this.showContextRow();
  }

  /** The row takes no room while it has nothing to show. */
  showContextRow(): void {
    this.el.hidden = this.chipList.hidden && this.chipToggle.hidden && this.suggestion.el.hidden;
    this.el.classList.toggle('folded', this.chipList.hidden && !this.chipToggle.hidden);
  }

  private chipElement(chip: ChipView): HTMLElement {
    const definitions = chip.definitions ?? [];
    const title = [
      chip.label,
      chip.detail,
      chip.partial ? `first ${formatInt(chip.partial.lines)} lines of ${formatInt(chip.partial.of)}` : undefined,
      `${formatInt(chip.tokens)} tokens${chip.pinned ? ' · pinned (kept in every request)' : ''}`,
      ...definitions.map((d) => `+ ${d.symbol} (${d.label}, used by ${d.usedBy}): ${formatInt(d.tokens)} tokens`),
    ]
      .filter(Boolean)
      .join('\n');
    const pin = iconButton({
      icon: chip.pinned ? 'pinned' : 'pin',
      label: chip.pinned ? `Unpin ${chip.label}` : `Pin ${chip.label}`,
      testid: 'strata-chip-pin',
      action: 'pin',
      extraClass: 'chip-btn',
    });
    pin.setAttribute('aria-pressed', String(chip.pinned));
    return h(
      'li',
      {
        class: `chip${chip.pinned ? ' pinned' : ''}`,
        'data-testid': 'strata-chip',
        'data-chip-id': chip.id,
        'data-kind': chip.kind,
        'data-pinned': String(chip.pinned),
        title,
      },
      icon(chip.kind === 'selection' ? 'list-selection' : 'file', 'chip-icon'),
      h('span', { class: 'chip-label' }, chip.label),
      h('span', { class: 'chip-tokens', 'aria-label': `${formatInt(chip.tokens)} tokens` }, formatTokens(chip.tokens)),
      ...this.codeIntelParts(chip, definitions.length),
      pin,
      iconButton({ icon: 'close', label: `Remove ${chip.label}`, testid: 'strata-chip-remove', action: 'remove', extraClass: 'chip-btn' }),
    );
  }

  /**
   * A selection's "+N definitions" (and the action that finds them, while it has none), or a file's
   * (the declarations it imports from large modules); "· N left out" when some were; a file attached
   * as its outline says so.
   */
  private codeIntelParts(chip: ChipView, definitions: number): HTMLElement[] {
    const leftOut = chip.definitionsLeftOut ?? [];
    const parts: HTMLElement[] = [];
    if (chip.outline) parts.push(h('span', { class: 'chip-note', 'data-testid': 'strata-chip-outline' }, 'outline'));
    // The first lines of a file over the size limit: never shown as if it were the whole file.
    if (chip.partial)
      parts.push(
        h(
          'span',
          { class: 'chip-note chip-partial', 'data-testid': 'strata-chip-partial' },
          `first ${formatInt(chip.partial.lines)} lines of ${formatInt(chip.partial.of)}`,
        ),
      );
    if (definitions > 0)
      parts.push(
        h(
          'span',
          { class: 'chip-note', 'data-testid': 'strata-definitions-count' },
          `+${formatInt(definitions)} definition${definitions === 1 ? '' : 's'}`,
        ),
      );
    if (leftOut.length > 0) parts.push(this.leftOutNote(chip, leftOut));
    if (parts.length > 0 || chip.kind !== 'selection') return parts;
    return [
      iconButton({
        icon: 'symbol-method',
        label: `Attach the definitions ${chip.label} uses`,
        testid: 'strata-chip-definitions',
        action: 'definitions',
        extraClass: 'chip-btn',
      }),
    ];
  }

  /**
   * "· N left out": focusable, its name says what was left out and why, and hover or focus shows the
   * list (so the user can raise the budget or pin what is needed).
   */
  private leftOutNote(chip: ChipView, leftOut: readonly LeftOutView[]): HTMLElement {
    const n = formatInt(leftOut.length);
    const reasons = leftOut.map((l) => `${l.symbol} (${l.label}): ${l.reason}`);
    const note = h(
      'span',
      {
        class: 'chip-note chip-left-out',
        role: 'note',
        tabindex: 0,
        'data-testid': 'strata-definitions-left-out',
        'aria-label': `${n} left out of ${chip.label}'s definitions: ${reasons.join('; ')}`,
      },
      `· ${n} left out`,
    );
    const list = () =>
      h(
        'div',
        { class: 'left-out-tooltip' },
        h('div', null, `Left out (raise the definitions or imports budget in Settings, or pin what you need):`),
        h('ul', null, ...reasons.map((r) => h('li', null, r))),
      );
    if (this.tooltips) this.tooltips.register(note, list);
    else note.title = reasons.join('\n');
    return note;
  }

  private async onChipClick(e: MouseEvent): Promise<void> {
    const button = e.target instanceof Element ? e.target.closest<HTMLButtonElement>('button[data-action]') : null;
    const li = button?.closest<HTMLElement>('[data-chip-id]');
    if (!button || !li) return;
    const id = li.getAttribute('data-chip-id') ?? '';
    const chip = this.chips.find((c) => c.id === id);
    if (!chip) return;
    li.classList.add('pending');
    const action = button.getAttribute('data-action');
    // The control pressed goes when the chip is drawn again: the keyboard moves to its counterpart.
    if (action === 'remove' || action === 'undo')
      this.focusAfterRender = { chipId: id, testid: action === 'remove' ? 'strata-chip-undo' : 'strata-chip-remove' };
    const result =
      action === 'remove'
        ? await this.host.removeChip(id)
        : action === 'undo'
          ? await this.host.restoreChip(id)
          : action === 'definitions'
            ? await this.host.attachDefinitions(id)
            : await this.host.pinChip(id, !chip.pinned);
    // The host answers with a `chips` message; until then (or if it refused) the chip stays as it was.
    li.classList.remove('pending');
    if (result.ok) return;
    if (this.focusAfterRender?.chipId === id) this.focusAfterRender = undefined;
    this.host.error(result.error);
  }

  /** Escape on a chip taken off the next message forgets it (no Undo any more); the keyboard goes to the input. */
  private onChipKey(e: KeyboardEvent): void {
    if (e.key !== 'Escape' || e.defaultPrevented) return;
    const li = e.target instanceof Element ? e.target.closest<HTMLElement>('[data-testid="strata-chip-removed"]') : null;
    const id = li?.getAttribute('data-chip-id');
    if (!li || !id) return;
    // Taken here: this Escape does not also stop a streaming reply.
    e.preventDefault();
    li.classList.add('pending');
    this.host.focusInput();
    void this.host.dismissRemovedChip(id).then((result) => {
      li.classList.remove('pending');
      if (!result.ok) this.host.error(result.error);
    });
  }
}
