/**
 * A popup anchored to a button (chat list, model menu): opens below or above the anchor, closes on
 * Escape (focus returns to the anchor), on a click outside, and when another popover opens.
 */
export class Popover {
  private static open: Popover | undefined;
  private onDocPointer = (e: Event) => {
    const t = e.target;
    if (t instanceof Node && (this.el.contains(t) || this.anchor.contains(t))) return;
    this.close(false);
  };
  private onKey = (e: KeyboardEvent) => {
    if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      this.close(true);
    }
  };

  constructor(
    readonly el: HTMLElement,
    private readonly anchor: HTMLElement,
    private readonly onClose?: () => void,
  ) {
    el.hidden = true;
    el.classList.add('popover');
  }

  get isOpen(): boolean {
    return !this.el.hidden;
  }

  show(): void {
    if (Popover.open && Popover.open !== this) Popover.open.close(false);
    Popover.open = this;
    this.el.hidden = false;
    this.anchor.setAttribute('aria-expanded', 'true');
    document.addEventListener('mousedown', this.onDocPointer, true);
    this.el.addEventListener('keydown', this.onKey);
    this.place();
  }

  /** Keeps the popup inside the window: below the anchor when it fits, else above. */
  place(): void {
    if (this.el.hidden) return;
    const r = this.anchor.getBoundingClientRect();
    const vh = document.documentElement.clientHeight;
    const vw = document.documentElement.clientWidth;
    const below = vh - r.bottom - 8;
    const above = r.top - 8;
    const height = this.el.scrollHeight;
    this.el.style.maxHeight = `${Math.max(120, Math.min(Math.max(below, above), vh * 0.7))}px`;
    const h = Math.min(height, parseFloat(this.el.style.maxHeight));
    const top = below >= h || below >= above ? r.bottom + 2 : r.top - 2 - h;
    this.el.style.top = `${Math.round(Math.max(4, top))}px`;
    const width = this.el.offsetWidth;
    this.el.style.left = `${Math.round(Math.max(4, Math.min(r.left, vw - width - 4)))}px`;
  }

  close(returnFocus: boolean): void {
    if (this.el.hidden) return;
    this.el.hidden = true;
    if (Popover.open === this) Popover.open = undefined;
    this.anchor.setAttribute('aria-expanded', 'false');
    document.removeEventListener('mousedown', this.onDocPointer, true);
    this.el.removeEventListener('keydown', this.onKey);
    if (returnFocus) this.anchor.focus();
    this.onClose?.();
  }
}
