import type { InContextItemView, InContextView } from '../src/protocol/messages';
import type { InContextAction } from '../src/protocol/requests';
import { countText, formatInt, formatTokens } from '../src/common/numberFormat';
import { h, icon } from './dom';

export interface InContextHost {
  act(ref: string, action: InContextAction): void;
}

const PENDING_TEXT: Record<NonNullable<InContextItemView['pending']>, string> = {
  pin: 'pinned from next message',
  unpin: 'unpinned from next message',
  detach: 'removed from next message',
};

function baseName(label: string): string {
  const cut = label.lastIndexOf('/');
  return cut < 0 ? label : label.slice(cut + 1);
}

/** "3 files", "2 files, 1 selection", "1 instructions file". */
function summary(items: readonly InContextItemView[]): string {
  const shown = items.filter((i) => i.pending !== 'detach');
  const files = shown.filter((i) => i.kind === 'file').length;
  const selections = shown.filter((i) => i.kind === 'selection').length;
  const instructions = shown.filter((i) => i.kind === 'instructions').length;
  const parts: string[] = [];
  if (files > 0) parts.push(countText(files, 'file'));
  if (selections > 0) parts.push(countText(selections, 'selection'));
  if (instructions > 0) parts.push(countText(instructions, 'instructions file', 'instructions files'));
  return parts.length > 0 ? parts.join(', ') : 'nothing else';
}

/**
 * "In context: 3 files · 8.8k ▾" above the input: what the next message carries besides what is
 * typed and the chips — attachments of earlier turns still in the chat, pinned items, instructions
 * files — from the host (the same predicted request Context Layers shows). Opened, it lists each
 * item with its tokens, Pin / Unpin and Remove; a Remove shows in place with Undo until the message
 * is sent, as a chip's does.
 */
export class InContextRow {
  readonly el: HTMLElement;
  private readonly toggle: HTMLButtonElement;
  private readonly list: HTMLElement;
  private view: InContextView = { items: [], tokens: 0 };
  private open = false;

  constructor(private readonly host: InContextHost) {
    this.list = h('ul', { class: 'in-context-list', id: 'strata-in-context-list', 'aria-label': 'In context for the next message' });
    this.list.hidden = true;
    this.toggle = h('button', {
      type: 'button',
      class: 'in-context-toggle',
      'data-testid': 'strata-in-context-toggle',
      'aria-expanded': 'false',
      'aria-controls': 'strata-in-context-list',
    });
    this.toggle.addEventListener('click', () => {
      this.open = !this.open;
      this.render();
    });
    this.list.addEventListener('click', (e) => {
      const b = e.target instanceof Element ? e.target.closest<HTMLButtonElement>('button[data-action]') : null;
      const li = b?.closest<HTMLElement>('li[data-ref]');
      if (!b || !li) return;
      b.disabled = true;
      this.host.act(li.getAttribute('data-ref') ?? '', b.getAttribute('data-action') as InContextAction);
    });
    this.list.addEventListener('keydown', (e) => {
      if (e.key !== 'Escape') return;
      e.preventDefault();
      this.open = false;
      this.render();
      this.toggle.focus();
    });
    this.el = h('div', { class: 'in-context', 'data-testid': 'strata-in-context' }, this.toggle, this.list);
    this.el.hidden = true;
  }

  set(view: InContextView): void {
    const focused = this.el.contains(document.activeElement) ? document.activeElement?.getAttribute('data-focus-key') : undefined;
    this.view = view;
    this.render();
    // The keyboard stays where it was: on the same item's action, or on the toggle.
    if (focused) (this.el.querySelector<HTMLElement>(`[data-focus-key="${CSS.escape(focused)}"]`) ?? this.toggle).focus();
  }

  private render(): void {
    const items = this.view.items;
    // Instructions files alone are part of every chat's System layer (Context Layers lists them):
    // the row takes its line when something the user attached or pinned rides along, and then
    // lists the instructions files with it.
    this.el.hidden = !items.some((i) => i.kind !== 'instructions');
    const text = `In context: ${summary(items)} · ${formatTokens(this.view.tokens)}`;
    this.toggle.replaceChildren(
      icon('layers', 'in-context-icon'),
      h('span', { class: 'in-context-text' }, text),
      icon(this.open ? 'chevron-up' : 'chevron-down', 'in-context-chevron'),
    );
    this.toggle.setAttribute('aria-expanded', String(this.open));
    // Starts with what it shows, so speech input can name it by its visible text.
    this.toggle.setAttribute(
      'aria-label',
      `${text} (${formatInt(this.view.tokens)} tokens the next message carries besides what you type)`,
    );
    this.toggle.title =
      'What the next message carries besides what you type: attachments of earlier turns, pinned items, instructions files.';
    this.list.hidden = !this.open;
    this.list.replaceChildren(...items.map((i) => this.itemElement(i)));
  }

  private itemElement(i: InContextItemView): HTMLElement {
    const glyph = i.kind === 'instructions' ? 'book' : i.kind === 'selection' ? 'list-selection' : 'file';
    const name = baseName(i.label);
    const removed = i.pending === 'detach';
    const button = (action: InContextAction, label: string, aria: string) =>
      h(
        'button',
        {
          type: 'button',
          class: 'in-context-action',
          'data-action': action,
          'data-testid': `strata-in-context-${action}`,
          'data-focus-key': `${i.ref}|${action}`,
          'aria-label': aria,
        },
        label,
      );
    const actions = h('span', { class: 'in-context-actions' });
    if (i.kind !== 'instructions') {
      if (removed) actions.append(button('undo', 'Undo', `Undo — put ${i.label} back on the next message`));
      else {
        actions.append(
          i.pinned ? button('unpin', 'Unpin', `Unpin ${i.label}`) : button('pin', 'Pin', `Pin ${i.label}: never pruned`),
          button('remove', 'Remove', `Remove ${i.label} from the next message on`),
        );
      }
    }
    const note = removed ? 'removed from next message' : i.pending ? PENDING_TEXT[i.pending] : i.pinned ? 'pinned' : '';
    return h(
      'li',
      {
        class: `in-context-item${removed ? ' removed' : ''}`,
        'data-ref': i.ref,
        'data-kind': i.kind,
        'data-testid': 'strata-in-context-item',
        title: `${i.label}: ${formatInt(i.tokens)} tokens${note ? ` · ${note}` : ''}`,
      },
      icon(glyph, 'in-context-item-icon'),
      h('span', { class: 'in-context-name' }, name),
      h('span', { class: 'in-context-tokens', 'aria-label': `${formatInt(i.tokens)} tokens` }, formatTokens(i.tokens)),
      note ? h('span', { class: 'in-context-note' }, note) : null,
      actions,
    );
  }
}
