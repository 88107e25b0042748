import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-toolbar-button/index.js';
import type { MentionRef, MentionResult, MentionView, SlashHostCommand, SuggestionView } from '../src/protocol/mentions';
import { MAX_INPUT_CHARS, type AttachWhat, type ChipView, type LeftOutView, type ModelView } from '../src/protocol/messages';
import { ComposerCompletion, type Trigger } from './composerCompletion';
import { h, icon, iconButton } from './dom';
import { TextFitter } from './fitText';
import { formatInt, formatTokens } from '../src/common/numberFormat';
import type { RequestResult } from './ipc';
import type { Meter } from './meter';
import type { Tooltips } from './tooltip';
import { isRemovedChip, removedChipElement } from './removedChip';
import type { SlashCommand } from './slashCommands';
import { SuggestionChip } from './suggestionChip';

export interface ComposerHost {
  /** The host's answer: accepted, or why not. */
  send(text: string): Promise<RequestResult>;
  stop(): void;
  attach(what: AttachWhat): void;
  /** Takes the chip off the next message; the host keeps it in its place, with Undo, until a send. */
  removeChip(id: string): Promise<RequestResult>;
  /** Undo of `removeChip`. */
  restoreChip(id: string): Promise<RequestResult>;
  /** Forgets a chip taken off the next message (its Undo goes). */
  dismissRemovedChip(id: string): Promise<RequestResult>;
  pinChip(id: string, pinned: boolean): Promise<RequestResult>;
  /** The selection chip again, with the definitions it uses. */
  attachDefinitions(id: string): Promise<RequestResult>;
  draftChanged(text: string): void;
  /** The chat the panel shows (a send's answer may come after the user switched chats). */
  chat(): string | undefined;
  /** Keeps `text` as the draft of a chat the panel no longer shows. */
  park(chatId: string, text: string): void;
  openModels(anchor: HTMLElement): void;
  error(message: string): void;
  /** The `@` picker's entries for a query (the host lists and ranks them). */
  mentions(query: string): Promise<RequestResult<MentionView[]>>;
  /** Attach what a mention, the suggestion or a `/` template names (through the host's attach path). */
  attachMention(ref: MentionRef): Promise<RequestResult<MentionResult>>;
  slash(name: SlashHostCommand): void;
  newChat(): void;
}

/** The input's placeholder says what a message is about. */
function placeholderFor(chips: readonly ChipView[]): string {
  if (chips.length === 0) return 'Ask, @ to attach, / for commands';
  if (chips.length > 1) return `Ask about ${chips.length} attached items…`;
  const label = chips[0].label;
  return `Ask about ${label.slice(label.lastIndexOf('/') + 1)}…`;
}

export const isMac = /Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent);
export const ATTACH_SELECTION_KEYS = isMac ? '⌥⌘A' : 'Ctrl+Alt+A';

/**
 * The input area: the meter, the attachment chips, the textarea (Enter sends, Shift+Enter is a new
 * line, nothing is sent while an IME composition is open), attach buttons, the model picker, Send
 * and Stop.
 */
export class Composer {
  readonly el: HTMLElement;
  readonly input: HTMLTextAreaElement;
  private readonly chipList: HTMLElement;
  private readonly chipToggle: HTMLButtonElement;
  private readonly sendButton: HTMLElement;
  private readonly stopButton: HTMLElement;
  private readonly modelButton: HTMLButtonElement;
  private readonly modelLabel: HTMLElement;
  private readonly modelIcon: HTMLElement;
  private readonly fitter = new TextFitter();
  private readonly status: HTMLElement;
  private readonly suggestionChip: SuggestionChip;
  private readonly contextRow: HTMLElement;
  private readonly completion: ComposerCompletion;
  private busy = false;
  private composing = false;
  private chips: ChipView[] = [];
  /** The chips of the message being sent: they belong to that message, not to the next one. */
  private sentChipIds = new Set<string>();
  /** The user opened the collapsed chips (kept until the composer has no chips again). */
  private chipsExpanded = false;
  /** The chips of a message sent but not yet started: they leave with it when its turn starts. */
  private sendingChipIds: Set<string> | undefined;
  private releaseTimer: ReturnType<typeof setTimeout> | undefined;
  /** Where the keyboard goes once the host's chips arrive: Undo after ×, × after Undo. */
  private focusAfterRender: { chipId: string; testid: string } | undefined;
  private statusTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly autosize = !CSS.supports('field-sizing', 'content');

  constructor(
    private readonly host: ComposerHost,
    meter: Meter,
    draft: string,
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
      this.layoutChips();
    });
    // One wrapping row: the folded "N attached" button or the chips, then the suggestion, so a
    // suggestion takes the room left at the end of the row instead of a row of its own.
    this.contextRow = h('div', { class: 'context-row' }, this.chipToggle, this.chipList);
    this.contextRow.hidden = true;
    this.input = h('textarea', {
      class: 'input',
      rows: 1,
      'data-testid': 'strata-input',
      'aria-label': 'Message',
      // One line at a 300 px side bar (Enter and Shift+Enter are explained in the empty state and on Send).
      placeholder: placeholderFor([]),
      spellcheck: 'true',
    });
    this.input.value = draft;
    this.suggestionChip = new SuggestionChip(
      (s) => void this.includeSuggestion(s),
      () => this.showContextRow(),
    );
    this.contextRow.append(this.suggestionChip.el);
    this.completion = new ComposerCompletion(this.input, {
      mentions: (query) => this.host.mentions(query),
      pickMention: (mention, trigger) => void this.pickMention(mention, trigger),
      pickSlash: (command, trigger) => void this.pickSlash(command, trigger),
    });

    const attach = (what: AttachWhat, iconName: string, label: string, testid: string) => {
      const b = h('vscode-toolbar-button', { icon: iconName, label, title: label, 'data-testid': testid });
      b.addEventListener('click', () => this.host.attach(what));
      return b;
    };

    this.modelIcon = icon('sparkle');
    this.modelLabel = h('span', { class: 'model-label' }, 'Model');
    this.modelButton = h(
      'button',
      { type: 'button', class: 'model-btn', 'data-testid': 'strata-model', 'aria-haspopup': 'menu', 'aria-expanded': 'false' },
      this.modelIcon,
      this.modelLabel,
      icon('chevron-down', 'model-chevron'),
    );
    this.modelButton.addEventListener('click', () => this.host.openModels(this.modelButton));

    this.stopButton = h('vscode-button', {
      secondary: true,
      icon: 'debug-stop',
      'icon-only': true,
      'aria-label': 'Stop',
      title: 'Stop',
      'data-testid': 'strata-stop',
    });
    this.stopButton.hidden = true;
    this.stopButton.addEventListener('click', () => {
      if (this.busy) this.host.stop();
    });
    this.sendButton = h('vscode-button', {
      icon: 'send',
      'icon-only': true,
      'aria-label': 'Send',
      title: 'Send (Enter)',
      'data-testid': 'strata-send',
    });
    this.sendButton.addEventListener('click', () => void this.send());

    this.status = h('div', { class: 'composer-status', role: 'status', 'data-testid': 'strata-status' });
    this.status.hidden = true;

    const box = h(
      'div',
      { class: 'input-box' },
      this.completion.picker.el,
      this.contextRow,
      this.input,
      h(
        'div',
        { class: 'input-toolbar' },
        attach('activeFile', 'file-add', 'Attach Active File', 'strata-attach-file'),
        attach('selection', 'list-selection', `Attach Selection (${ATTACH_SELECTION_KEYS})`, 'strata-attach-selection'),
        attach('openEditors', 'files', 'Attach Open Editors', 'strata-attach-editors'),
        this.modelButton,
        h('span', { class: 'spacer' }),
        this.stopButton,
        this.sendButton,
      ),
    );
    this.el = h('footer', { class: 'composer' }, meter.row, meter.expired, box, this.status);

    this.input.addEventListener('keydown', (e) => this.onKeyDown(e));
    this.input.addEventListener('compositionstart', () => {
      this.composing = true;
    });
    // Some engines send the committing Enter's keydown right after compositionend.
    this.input.addEventListener('compositionend', () => setTimeout(() => (this.composing = false), 0));
    this.input.addEventListener('input', () => {
      this.host.draftChanged(this.input.value);
      this.refresh();
    });
    this.chipList.addEventListener('click', (e) => this.onChipClick(e));
    this.chipList.addEventListener('keydown', (e) => this.onChipKey(e));
    // A narrower side bar wraps the chips onto more rows.
    let lastWidth = 0;
    new ResizeObserver(() => {
      const width = this.el.clientWidth;
      if (width === lastWidth) return;
      lastWidth = width;
      // Laid out in the next frame: changing the observed element's height inside its own
      // notification would loop.
      requestAnimationFrame(() => this.layoutChips());
    }).observe(this.el);
    this.refresh();
  }

  private onKeyDown(e: KeyboardEvent): void {
    if (this.completion.handleKey(e)) return;
    if (e.key !== 'Enter' || e.shiftKey || e.altKey) return;
    // keyCode 229: the key went to an input method editor.
    if (e.isComposing || this.composing || e.keyCode === 229) return;
    e.preventDefault();
    void this.send();
  }

  async send(): Promise<void> {
    const text = this.input.value;
    if (this.busy || text.trim().length === 0) return;
    if (text.length > MAX_INPUT_CHARS) {
      this.showStatus(`The message is too long (${formatInt(text.length)} characters; at most ${formatInt(MAX_INPUT_CHARS)}).`);
      return;
    }
    const chat = this.host.chat();
    this.setText('');
    const sending = new Set(this.chips.map((c) => c.id));
    this.sendingChipIds = sending;
    this.focus();
    const result = await this.host.send(text);
    // Accepted: the turn started (its chips left with it) or ended already; refused: they stay.
    if (this.sendingChipIds === sending) this.sendingChipIds = undefined;
    if (result.ok) return;
    // Nothing typed is lost: a refused message comes back, to the chat it was written in.
    if (chat !== undefined && this.host.chat() !== chat) {
      this.host.park(chat, text);
      this.showStatus(`${result.error} The message was kept as the draft of the chat it was written in.`);
      return;
    }
    this.restoreText(text);
    this.showStatus(result.error);
  }

  /**
   * Puts a message that was not sent back into the input; what the user typed since stays after
   * it (a blank line between), so neither is lost.
   */
  restoreText(text: string): void {
    const typed = this.input.value;
    this.setText(typed.trim().length === 0 || typed === text ? text : `${text}\n\n${typed}`);
  }

  /** What the input holds. */
  text(): string {
    return this.input.value;
  }

  setText(text: string): void {
    this.input.value = text;
    this.host.draftChanged(text);
    this.refresh();
  }

  /** Puts `el` (the "In context" row) right above the input box. */
  mountAboveInput(el: HTMLElement): void {
    this.el.querySelector('.input-box')?.before(el);
  }

  focus(): void {
    this.input.focus();
  }

  setBusy(busy: boolean): void {
    const ended = this.busy && !busy;
    if (busy && !this.busy && this.sendingChipIds) {
      this.sentChipIds = this.sendingChipIds;
      this.sendingChipIds = undefined;
      this.renderChips();
    }
    this.busy = busy;
    // The host lists the chips right after a reply it kept (without the sent ones); a turn it did not
    // keep leaves them attached, so they come back if no list follows.
    if (ended && this.sentChipIds.size > 0) {
      this.releaseTimer = setTimeout(() => {
        this.releaseTimer = undefined;
        this.sentChipIds.clear();
        this.renderChips();
      }, 150);
    }
    this.refresh();
  }

  private refresh(): void {
    const canSend = !this.busy && this.input.value.trim().length > 0;
    this.sendButton.toggleAttribute('disabled', !canSend);
    this.sendButton.setAttribute('aria-disabled', String(!canSend));
    // Stop takes Send's place while a reply streams (one button where the eye already is).
    this.stopButton.hidden = !this.busy;
    this.sendButton.hidden = this.busy;
    this.el?.classList.toggle('busy', this.busy);
    if (this.autosize) {
      this.input.style.height = 'auto';
      this.input.style.height = `${Math.min(this.input.scrollHeight + 2, Math.round(window.innerHeight * 0.4))}px`;
    }
  }

  setModel(model: ModelView): void {
    const label = model.imitation && !/imitation/i.test(model.label) ? `Local imitation server · ${model.label}` : model.label;
    const text = label || (model.configured ? model.model : 'No model configured');
    // A narrow panel shortens the provider, then shows the model's name alone (the title has it all);
    // the button's name starts with what it shows.
    const cut = text.lastIndexOf(' · ');
    const name = text.slice(cut + 3);
    const shorter = model.imitation ? [`Imitation · ${name}`] : [];
    this.fitter.set(this.modelLabel, cut < 0 ? [text] : [text, ...shorter, name], (shown) =>
      this.modelButton.setAttribute('aria-label', `Model: ${shown === text ? text : `${shown} (${text})`}. Choose a model`),
    );
    this.modelIcon.className = `codicon codicon-${model.imitation ? 'beaker' : model.configured ? 'sparkle' : 'warning'}`;
    this.modelButton.classList.toggle('unconfigured', !model.configured);
    this.modelButton.setAttribute('data-imitation', String(model.imitation));
    this.modelButton.setAttribute('data-configured', String(model.configured));
    const title = `${text}${model.configured ? '' : ' — no provider is configured: Send shows the request that would go out'}\nChoose a model`;
    this.modelButton.title = title;
  }

  setChips(chips: readonly ChipView[]): void {
    this.chips = [...chips];
    if (this.releaseTimer !== undefined) {
      clearTimeout(this.releaseTimer);
      this.releaseTimer = undefined;
      this.sentChipIds.clear();
    }
    this.renderChips();
  }

  private renderChips(): void {
    const shown = this.chips.filter((c) => !this.sentChipIds.has(c.id));
    if (shown.length === 0) this.chipsExpanded = false;
    this.input.placeholder = placeholderFor(shown.filter((c) => !isRemovedChip(c)));
    const focused = this.focusedChipControl();
    this.chipList.replaceChildren(...shown.map((chip) => (isRemovedChip(chip) ? removedChipElement(chip) : this.chipElement(chip))));
    this.layoutChips();
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
    else if (focused && !this.chipList.contains(document.activeElement)) this.focus();
  }

  /** More than two rows of chips collapse behind one "N attached" button, so the conversation keeps its room. */
  private layoutChips(): void {
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
  private showContextRow(): void {
    this.contextRow.hidden = this.chipList.hidden && this.chipToggle.hidden && this.suggestionChip.el.hidden;
    this.contextRow.classList.toggle('folded', this.chipList.hidden && !this.chipToggle.hidden);
  }

  private chipElement(chip: ChipView): HTMLElement {
    const definitions = chip.definitions ?? [];
    const title = [
      chip.label,
      chip.detail,
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
    this.focus();
    void this.host.dismissRemovedChip(id).then((result) => {
      li.classList.remove('pending');
      if (!result.ok) this.host.error(result.error);
    });
  }

  /** The active editor offered for the next message (null: nothing offered). */
  setSuggestion(suggestion: SuggestionView | null): void {
    this.suggestionChip.set(suggestion);
  }

  private async includeSuggestion(suggestion: SuggestionView): Promise<void> {
    if (!suggestion.available) {
      this.showStatus(`${suggestion.detail} cannot be included: ${suggestion.reason ?? 'it is not in the workspace'}`);
      return;
    }
    const hadFocus = document.activeElement === this.suggestionChip.el;
    this.suggestionChip.pending();
    const result = await this.host.attachMention(suggestion.ref);
    this.suggestionChip.settled();
    if (!result.ok) this.showStatus(result.error);
    // The chip goes once it is attached: the keyboard carries on in the input.
    if (hadFocus) this.focus();
  }

  /** Takes `@query` or `/command` out of the input; the caret stays where it was. */
  private takeTrigger(trigger: Trigger): void {
    const text = this.input.value;
    this.setText(text.slice(0, trigger.start) + text.slice(trigger.end));
    this.input.setSelectionRange(trigger.start, trigger.start);
  }

  private async pickMention(mention: MentionView, trigger: Trigger): Promise<void> {
    this.takeTrigger(trigger);
    const result = await this.host.attachMention(mention.ref);
    if (!result.ok) {
      this.showStatus(result.error);
      return;
    }
    const insert = result.value.insertText;
    if (insert === undefined) return;
    // The problems snapshot goes where `@problems` was, on lines of its own.
    const text = this.input.value;
    const at = Math.min(trigger.start, text.length);
    const before = text.slice(0, at);
    const after = text.slice(at);
    const block = `${before.length > 0 && !before.endsWith('\n') ? '\n' : ''}${insert}\n`;
    this.setText(before + block + after);
    this.input.setSelectionRange(at + block.length, at + block.length);
    this.focus();
  }

  private async pickSlash(command: SlashCommand, trigger: Trigger): Promise<void> {
    this.takeTrigger(trigger);
    const action = command.action;
    switch (action.kind) {
      case 'newChat':
        this.host.newChat();
        return;
      case 'model':
        this.host.openModels(this.modelButton);
        return;
      case 'host':
        this.host.slash(action.name);
        return;
      case 'template': {
        const result = await this.host.attachMention({ kind: 'activeEditor' });
        if (!result.ok) this.showStatus(result.error);
        const labels = result.ok ? result.value.labels : [];
        const target = labels.length > 0 ? labels.map((l) => `\`${l}\``).join(', ') : 'the code';
        const rest = this.input.value.trim();
        const text = action.text(target) + (rest.length > 0 ? `\n\n${rest}` : '');
        this.setText(text);
        // Editable before sending: the caret waits at the end.
        this.input.setSelectionRange(text.length, text.length);
        this.focus();
        return;
      }
    }
  }

  showStatus(message: string): void {
    this.status.textContent = message;
    this.status.hidden = false;
    if (this.statusTimer !== undefined) clearTimeout(this.statusTimer);
    this.statusTimer = setTimeout(() => {
      this.status.hidden = true;
    }, 8000);
  }
}
