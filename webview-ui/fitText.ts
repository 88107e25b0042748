/**
 * Fits texts to their element's width without cutting a word or a number: each element shows the
 * first of its candidate texts that fits (its full text is in its title or tooltip), and is fitted
 * again when the panel is resized. What cannot fit even in its shortest form is clipped by CSS.
 */
export class TextFitter {
  private readonly candidates = new Map<HTMLElement, { texts: readonly string[]; shown?: (text: string) => void }>();

  constructor() {
    window.addEventListener('resize', () => {
      for (const el of [...this.candidates.keys()]) {
        if (el.isConnected) this.fit(el);
        else this.candidates.delete(el);
      }
    });
  }

  /** Shows the first of `candidates` (longest first) that fits `el`; `shown` hears which, each time. */
  set(el: HTMLElement, candidates: readonly string[], shown?: (text: string) => void): void {
    this.candidates.set(el, { texts: candidates, shown });
    this.fit(el);
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
