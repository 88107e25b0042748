/**
 * Fits texts to their element's width without cutting a word or a number: each element shows the
 * first of its candidate texts that fits (its full text is in its title or tooltip), and is fitted
 * again when the panel is resized or the room around it changes. What cannot fit even in its
 * shortest form is clipped by CSS.
 */
export class TextFitter {
  private readonly candidates = new Map<HTMLElement, { texts: readonly string[]; shown?: (text: string) => void }>();
  /**
   * The panel's width alone misses the room that changes inside it: a neighbour that grows or shrinks
   * (toolbar buttons upgrading, Stop taking Send's place and leaving it), a box laid out for the
   * first time. The element, its parent and their neighbours are watched, and any change refits
   * every element on the next frame (resizing a watched box inside the observer's own callback is
   * reported by the browser as a loop); a fit only ever settles on a width it has already measured,
   * so the observer's next call finds nothing to change.
   */
  private readonly boxes = new ResizeObserver(() => {
    if (this.pending) return;
    this.pending = true;
    requestAnimationFrame(() => {
      this.pending = false;
      for (const el of [...this.candidates.keys()]) this.refit(el);
    });
  });
  private pending = false;

  constructor() {
    window.addEventListener('resize', () => {
      for (const el of [...this.candidates.keys()]) this.refit(el);
    });
  }

  /** Shows the first of `candidates` (longest first) that fits `el`; `shown` hears which, each time. */
  set(el: HTMLElement, candidates: readonly string[], shown?: (text: string) => void): void {
    if (!this.candidates.has(el)) for (const box of watched(el)) this.boxes.observe(box);
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
    for (const box of watched(el)) this.boxes.unobserve(box);
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

/** The boxes whose size changes the room `el` has: itself, its neighbours, its parent's neighbours. */
function watched(el: HTMLElement): Element[] {
  const parent = el.parentElement;
  const boxes = new Set<Element>([el]);
  for (const box of [...(parent?.children ?? []), ...(parent?.parentElement?.children ?? [])]) boxes.add(box);
  return [...boxes];
}
