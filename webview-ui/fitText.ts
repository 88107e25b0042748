/**
 * Fits texts to their element's width without cutting a word or a number: each element shows the
 * first of its candidate texts that fits (its full text is in its title or tooltip), and is fitted
 * again when the panel is resized or the element's own box changes (its neighbours grew, or it was
 * laid out for the first time). What cannot fit even in its shortest form is clipped by CSS.
 */
export class TextFitter {
  private readonly candidates = new Map<HTMLElement, { texts: readonly string[]; shown?: (text: string) => void }>();
  /**
   * The panel's width alone misses a box that shrinks because a neighbour grew (toolbar buttons
   * upgrading, an icon appearing) or that was hidden when its text was set; a fit only ever settles
   * on a width it has already measured, so the observer's next call finds nothing to change. The
   * refit waits for the next frame: resizing an observed box inside the observer's own callback is
   * reported by the browser as a loop.
   */
  private readonly boxes = new ResizeObserver((entries) => {
    const targets = entries.map((entry) => entry.target as HTMLElement);
    requestAnimationFrame(() => {
      for (const el of targets) this.refit(el);
    });
  });

  constructor() {
    window.addEventListener('resize', () => {
      for (const el of [...this.candidates.keys()]) this.refit(el);
    });
  }

  /** Shows the first of `candidates` (longest first) that fits `el`; `shown` hears which, each time. */
  set(el: HTMLElement, candidates: readonly string[], shown?: (text: string) => void): void {
    if (!this.candidates.has(el)) this.boxes.observe(el);
    this.candidates.set(el, { texts: candidates, shown });
    this.fit(el);
  }

  private refit(el: HTMLElement): void {
    if (!this.candidates.has(el)) return;
    if (el.isConnected) {
      this.fit(el);
      return;
    }
    this.candidates.delete(el);
    this.boxes.unobserve(el);
  }

  private fit(el: HTMLElement): void {
    const { texts, shown } = this.candidates.get(el) ?? { texts: [] };
    for (const text of texts) {
      el.textContent = text;
      // Not laid out yet (hidden, or not in the document): the full text, fitted on the next resize.
      if (el.clientWidth === 0 || el.scrollWidth <= el.clientWidth) break;
    }
    shown?.(el.textContent ?? '');
  }
}
