/** What the keyboard can reach by Tab. */
const FOCUSABLE = 'button, a[href], summary, input, textarea, select, [tabindex]';

function tabbable(el: Element): el is HTMLElement {
  if (!(el instanceof HTMLElement) || el.tabIndex < 0 || el.hidden || (el as HTMLButtonElement).disabled) return false;
  if (el.closest('[hidden], [inert]')) return false;
  // A summary's details (or anything inside a closed details but its summary) is not reachable.
  const closed = el.parentElement?.closest('details:not([open])');
  if (closed && !(el.tagName === 'SUMMARY' && el.parentElement === closed)) return false;
  return el.getClientRects().length > 0;
}

/**
 * One tab stop for a list of messages (the ARIA feed pattern): the list is reached by Tab once,
 * on the message last visited (the newest at first); the arrow keys, Page Up/Down, Home and End
 * move between messages; Enter goes into a message's actions (Copy, Insert, Apply, its tool steps and
 * links), Tab and Shift+Tab move among them, and Escape goes back to the message. Tab on a message
 * leaves the list (a reply with many code blocks does not stand between the user and the input), as
 * does Tab from a message's last action. The messages' contents keep
 * their natural tab order in the DOM (streaming replaces them often); the keys are routed here.
 */
export class RovingFocus {
  private active: HTMLElement | undefined;
  /** A pointer is pressed inside the list: the focus it moves is the user's, not the Tab order's. */
  private pointer = false;

  constructor(
    private readonly list: HTMLElement,
    private readonly itemSelector: string,
  ) {
    list.addEventListener('keydown', (e) => this.onKeyDown(e));
    list.addEventListener('focusin', (e) => this.onFocusIn(e));
    list.addEventListener('pointerdown', () => (this.pointer = true), true);
    document.addEventListener('pointerup', () => (this.pointer = false), true);
  }

  private items(): HTMLElement[] {
    return Array.from(this.list.querySelectorAll<HTMLElement>(`:scope > ${this.itemSelector}`));
  }

  private itemOf(node: EventTarget | null): HTMLElement | undefined {
    if (!(node instanceof Element)) return undefined;
    const item = node.closest<HTMLElement>(this.itemSelector);
    return item && item.parentElement === this.list ? item : undefined;
  }

  /** After messages were added or removed: exactly one message is the list's tab stop. */
  sync(): void {
    const items = this.items();
    if (!this.active || !this.active.isConnected || this.active.parentElement !== this.list) this.active = items[items.length - 1];
    for (const item of items) item.tabIndex = item === this.active ? 0 : -1;
  }

  private moveTo(item: HTMLElement | undefined): void {
    if (!item) return;
    if (this.active && this.active !== item) this.active.tabIndex = -1;
    this.active = item;
    item.tabIndex = 0;
    item.focus({ preventScroll: true });
    item.scrollIntoView({ block: 'nearest' });
  }

  private controls(item: HTMLElement): HTMLElement[] {
    return Array.from(item.querySelectorAll(FOCUSABLE)).filter(tabbable);
  }

  /** The first element the keyboard reaches after (or before) the list. */
  private leave(forward: boolean): void {
    const all = Array.from(document.querySelectorAll(FOCUSABLE)).filter(tabbable);
    const outside = all.filter((el) => !this.list.contains(el));
    const target = forward
      ? outside.find((el) => this.list.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING)
      : [...outside].reverse().find((el) => this.list.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_PRECEDING);
    target?.focus();
  }

  private onKeyDown(e: KeyboardEvent): void {
    if (e.defaultPrevented || e.isComposing || e.altKey || e.ctrlKey || e.metaKey) return;
    const item = this.itemOf(e.target);
    if (!item) return;
    const onItem = e.target === item;
    if (onItem) {
      const items = this.items();
      const i = items.indexOf(item);
      const page = Math.max(1, Math.round(this.list.parentElement!.clientHeight / Math.max(1, item.offsetHeight)));
      const to: Record<string, number> = {
        ArrowDown: i + 1,
        ArrowUp: i - 1,
        PageDown: i + page,
        PageUp: i - page,
        Home: 0,
        End: items.length - 1,
      };
      if (e.key in to && !e.shiftKey) {
        e.preventDefault();
        this.moveTo(items[Math.min(items.length - 1, Math.max(0, to[e.key]))]);
        return;
      }
      if (e.key === 'Enter' && !e.shiftKey) {
        e.preventDefault();
        this.controls(item)[0]?.focus();
      } else if (e.key === 'Tab') {
        e.preventDefault();
        this.leave(!e.shiftKey);
      }
      return;
    }
    if (e.key === 'Escape') {
      e.preventDefault();
      this.moveTo(item);
      return;
    }
    if (e.key === 'Tab') {
      const controls = this.controls(item);
      const i = controls.indexOf(e.target as HTMLElement);
      if (i < 0) return;
      e.preventDefault();
      if (e.shiftKey) (i === 0 ? item : controls[i - 1]).focus();
      else if (i === controls.length - 1) this.leave(true);
      else controls[i + 1].focus();
    }
  }

  /** Tab from outside lands on the list's one stop, not on the first control of the first message. */
  private onFocusIn(e: FocusEvent): void {
    const item = this.itemOf(e.target);
    if (!item) return;
    const from = e.relatedTarget instanceof Node ? e.relatedTarget : null;
    const fromOutside = !from || !this.list.contains(from);
    if (this.pointer || !fromOutside || e.target === item) {
      if (item !== this.active) {
        if (this.active) this.active.tabIndex = -1;
        this.active = item;
        item.tabIndex = 0;
      }
      return;
    }
    this.sync();
    this.active?.focus({ preventScroll: false });
  }
}
