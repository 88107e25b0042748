import { h, icon } from './dom';

/** One row of the picker. */
export interface PickerItem {
  label: string;
  detail?: string;
  /** A codicon name. */
  icon: string;
  /** Indices of `label`'s characters to highlight (what the query matched). */
  matches?: readonly number[];
  /** For tests and styling: what kind of entry it is. */
  kind: string;
  /** Why choosing it would be refused ("20 MB (limit 8 MB)"): the row is marked with it; choosing it shows the refusal. */
  refused?: string;
}

let nextPickerId = 1;

/**
 * The `@` / `/` popup above the message input: a listbox the keyboard drives from the input (focus
 * stays in the input; the active option is named by `aria-activedescendant`, on the input and on
 * the listbox). The mouse picks with a click; a press on the list does not take the focus away.
 */
export class Picker {
  readonly el: HTMLElement;
  private readonly list: HTMLElement;
  private readonly note: HTMLElement;
  private items: PickerItem[] = [];
  private active = 0;
  private readonly idPrefix = `strata-picker-${nextPickerId++}`;

  constructor(
    private readonly input: HTMLTextAreaElement,
    private readonly onPick: (index: number) => void,
  ) {
    this.list = h('ul', { class: 'picker-list', role: 'listbox', id: `${this.idPrefix}-list`, 'aria-label': 'Suggestions' });
    this.note = h('div', { class: 'picker-note', role: 'status' });
    this.el = h('div', { class: 'picker', 'data-testid': 'strata-picker' }, this.list, this.note);
    this.el.hidden = true;
    this.el.addEventListener('mousedown', (e) => e.preventDefault());
    this.list.addEventListener('click', (e) => {
      const li = e.target instanceof Element ? e.target.closest<HTMLElement>('[role="option"]') : null;
      if (!li) return;
      const index = Number(li.getAttribute('data-index'));
      if (Number.isInteger(index)) this.onPick(index);
    });
    input.setAttribute('aria-autocomplete', 'list');
  }

  get isOpen(): boolean {
    return !this.el.hidden;
  }

  /** The number of options shown. */
  get size(): number {
    return this.items.length;
  }

  get activeIndex(): number {
    return this.active;
  }

  /** Shows `items` (the first active), or `note` alone when there are none. */
  show(items: readonly PickerItem[], note: string, label: string): void {
    this.items = [...items];
    this.active = 0;
    this.list.setAttribute('aria-label', label);
    this.list.replaceChildren(...this.items.map((item, i) => this.option(item, i)));
    this.list.hidden = this.items.length === 0;
    this.note.textContent = note;
    this.note.hidden = note.length === 0;
    this.el.hidden = false;
    this.input.setAttribute('aria-controls', this.list.id);
    this.markActive();
  }

  close(): void {
    if (this.el.hidden) return;
    this.el.hidden = true;
    this.items = [];
    this.list.replaceChildren();
    this.input.removeAttribute('aria-activedescendant');
    this.input.removeAttribute('aria-controls');
    this.list.removeAttribute('aria-activedescendant');
  }

  /** Moves the active option by `delta`, wrapping around. */
  move(delta: number): void {
    if (this.items.length === 0) return;
    this.active = (this.active + delta + this.items.length) % this.items.length;
    this.markActive();
  }

  private option(item: PickerItem, index: number): HTMLElement {
    const label = h('span', { class: 'picker-label' });
    const marks = new Set(item.matches ?? []);
    let run = '';
    let inMark = false;
    const flush = () => {
      if (run.length === 0) return;
      label.append(inMark ? h('span', { class: 'picker-match' }, run) : run);
      run = '';
    };
    for (let i = 0; i < item.label.length; i++) {
      const m = marks.has(i);
      if (m !== inMark) {
        flush();
        inMark = m;
      }
      run += item.label[i];
    }
    flush();
    return h(
      'li',
      {
        role: 'option',
        id: `${this.idPrefix}-${index}`,
        class: 'picker-option',
        'data-index': index,
        'data-kind': item.kind,
        'aria-selected': 'false',
        'data-refused': item.refused,
        title: `${item.detail ? `${item.label} — ${item.detail}` : item.label}${item.refused ? ` (not attachable: ${item.refused})` : ''}`,
      },
      icon(item.icon, 'picker-icon'),
      label,
      item.detail ? h('span', { class: 'picker-detail' }, item.detail) : null,
      // Shown, not hidden: the user sees the file is there and why it would not go out.
      item.refused
        ? h('span', { class: 'picker-refused', 'data-testid': 'strata-picker-refused' }, icon('warning'), h('span', null, item.refused))
        : null,
    );
  }

  private markActive(): void {
    const options = [...this.list.children] as HTMLElement[];
    options.forEach((li, i) => li.setAttribute('aria-selected', String(i === this.active)));
    const current = options[this.active];
    if (!current) {
      this.input.removeAttribute('aria-activedescendant');
      this.list.removeAttribute('aria-activedescendant');
      return;
    }
    this.input.setAttribute('aria-activedescendant', current.id);
    this.list.setAttribute('aria-activedescendant', current.id);
    current.scrollIntoView({ block: 'nearest' });
  }
}
