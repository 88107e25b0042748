import { h, iconButton } from './dom';

export interface FindSource {
  /** Loads every older message and renders every deferred one; resolves when the text is all there. */
  prepare(): Promise<void>;
  /** The message bodies to search, in document order. */
  bodies(): HTMLElement[];
  /** The conversation's element (its changes are searched again). */
  root(): HTMLElement;
  /** Scrolls `el` (the element holding the current hit) into the middle of the view and keeps it there. */
  reveal(el: Element): void;
}

const HIGHLIGHT = 'strata-find';
const CURRENT = 'strata-find-current';

/** Lower case where that keeps the length (offsets in the folded text are offsets in the text). */
function fold(text: string): string {
  let out = '';
  for (const c of text) {
    const l = c.toLowerCase();
    out += l.length === c.length ? l : c;
  }
  return out;
}

/** The text nodes of a message body that are read (not a code block's header, not tool steps). */
function textNodes(body: HTMLElement): Text[] {
  const nodes: Text[] = [];
  const walker = document.createTreeWalker(body, NodeFilter.SHOW_TEXT, {
    acceptNode: (n) => (n.parentElement?.closest('.code-header, .tool-steps') ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT),
  });
  for (let n = walker.nextNode(); n; n = walker.nextNode()) nodes.push(n as Text);
  return nodes;
}

/** Every case-insensitive occurrence of `query` in `body` as a range (indexOf: linear in the text). */
function rangesIn(body: HTMLElement, query: string): Range[] {
  const nodes = textNodes(body);
  const starts: number[] = [];
  let text = '';
  for (const n of nodes) {
    starts.push(text.length);
    text += n.data;
  }
  const hay = fold(text);
  const ranges: Range[] = [];
  const locate = (offset: number): [Text, number] => {
    let lo = 0;
    let hi = nodes.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return [nodes[lo], offset - starts[lo]];
  };
  for (let at = hay.indexOf(query); at >= 0 && query.length > 0; at = hay.indexOf(query, at + query.length)) {
    const range = document.createRange();
    const [startNode, startOffset] = locate(at);
    const [endNode, endOffset] = locate(at + query.length - 1);
    range.setStart(startNode, startOffset);
    range.setEnd(endNode, endOffset + 1);
    ranges.push(range);
  }
  return ranges;
}

/**
 * Find in the conversation (Ctrl+F / Cmd+F in the panel; Enter, F3 next, Shift+Enter, Shift+F3
 * previous; Escape closes): a hit count, every message searched, older ones loaded first, hits
 * marked with the CSS Custom Highlight API (the messages' DOM is not touched).
 */
export class FindBar {
  readonly el: HTMLElement;
  private readonly input: HTMLInputElement;
  private readonly count: HTMLElement;
  private hits: Range[] = [];
  private current = -1;
  private prepared = false;
  /** The one preparation under way (searches that start meanwhile wait for it too). */
  private preparing: Promise<void> | undefined;
  /** A search that was to go to its first hit was superseded before it did: the next one goes there. */
  private revealPending = false;
  private ticket = 0;
  private readonly observer: MutationObserver;
  private refreshTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly source: FindSource) {
    this.input = h('input', {
      type: 'text',
      class: 'find-input',
      placeholder: 'Find in chat',
      'aria-label': 'Find in chat',
      'data-testid': 'strata-find',
      spellcheck: 'false',
    });
    this.count = h('span', { class: 'find-count', role: 'status', 'aria-live': 'polite', 'data-testid': 'strata-find-count' });
    this.el = h(
      'div',
      { class: 'find-bar', role: 'search', 'aria-label': 'Find in chat' },
      this.input,
      this.count,
      iconButton({ icon: 'arrow-up', label: 'Previous Match (Shift+F3)', testid: 'strata-find-prev', action: 'find-prev' }),
      iconButton({ icon: 'arrow-down', label: 'Next Match (F3)', testid: 'strata-find-next', action: 'find-next' }),
      iconButton({ icon: 'close', label: 'Close (Escape)', testid: 'strata-find-close', action: 'find-close' }),
    );
    this.el.hidden = true;
    this.input.addEventListener('input', () => void this.search(true));
    this.input.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') {
        e.preventDefault();
        this.step(e.shiftKey ? -1 : 1);
      } else if (e.key === 'Escape') {
        e.preventDefault();
        e.stopPropagation();
        this.close();
      }
    });
    this.el.addEventListener('click', (e) => {
      const action = e.target instanceof Element ? e.target.closest('[data-action]')?.getAttribute('data-action') : null;
      if (action === 'find-prev') this.step(-1);
      else if (action === 'find-next') this.step(1);
      else if (action === 'find-close') this.close();
    });
    // Ctrl+F here is the panel's, not the editor's Find (the event goes no further than the panel).
    document.addEventListener('keydown', (e) => {
      const mod = e.ctrlKey || e.metaKey;
      if (mod && !e.altKey && !e.shiftKey && e.key.toLowerCase() === 'f') {
        e.preventDefault();
        e.stopPropagation();
        this.open();
      } else if (e.key === 'F3' && !this.el.hidden) {
        e.preventDefault();
        e.stopPropagation();
        this.step(e.shiftKey ? -1 : 1);
      }
    });
    this.observer = new MutationObserver(() => {
      if (this.refreshTimer !== undefined) clearTimeout(this.refreshTimer);
      this.refreshTimer = setTimeout(() => void this.search(false), 150);
    });
  }

  get isOpen(): boolean {
    return !this.el.hidden;
  }

  /** Opens the bar (with `query`, when given) and goes to the first hit. */
  open(query?: string): Promise<void> {
    const wasHidden = this.el.hidden;
    this.el.hidden = false;
    if (wasHidden) this.observer.observe(this.source.root(), { childList: true, subtree: true, characterData: true });
    if (query !== undefined) this.input.value = query;
    this.input.focus();
    this.input.select();
    return this.search(true);
  }

  close(): void {
    this.el.hidden = true;
    this.revealPending = false;
    this.observer.disconnect();
    this.hits = [];
    this.current = -1;
    this.paint();
    this.source.root().focus({ preventScroll: true });
  }

  /** A chat switch: its text is another's. */
  reset(): void {
    this.prepared = false;
    this.preparing = undefined;
    if (!this.el.hidden) void this.search(false);
  }

  /** The hits now (for the tests and the count). */
  hitCount(): number {
    return this.hits.length;
  }

  private async search(reveal: boolean): Promise<void> {
    const ticket = ++this.ticket;
    // The messages changing while the first search waits for the older ones starts another search
    // (without going to a hit): the one superseded hands its "go to the first hit" on.
    if (reveal) this.revealPending = true;
    const query = fold(this.input.value);
    if (query.length === 0) {
      this.revealPending = false;
      this.hits = [];
      this.current = -1;
      this.paint();
      return;
    }
    if (!this.prepared) {
      this.count.textContent = 'Searching…';
      let run = this.preparing;
      if (!run) {
        const started = this.source.prepare();
        run = started.finally(() => {
          if (this.preparing === run) this.preparing = undefined;
        });
        this.preparing = run;
      }
      await run;
      this.prepared = true;
      if (ticket !== this.ticket) return;
    }
    const go = this.revealPending;
    this.revealPending = false;
    const previous = this.hits[this.current];
    this.hits = this.source.bodies().flatMap((b) => rangesIn(b, query));
    if (go || !previous) this.current = this.hits.length > 0 ? 0 : -1;
    else this.current = Math.min(Math.max(0, this.current), this.hits.length - 1);
    this.paint();
    if (go) this.reveal();
  }

  private step(delta: number): void {
    if (this.hits.length === 0) return;
    this.current = (this.current + delta + this.hits.length) % this.hits.length;
    this.paint();
    this.reveal();
  }

  private reveal(): void {
    const hit = this.hits[this.current];
    const el = hit?.startContainer.parentElement;
    if (el) this.source.reveal(el);
  }

  private paint(): void {
    const registry = typeof CSS !== 'undefined' ? CSS.highlights : undefined;
    const query = this.input.value;
    this.count.textContent = query.length === 0 ? '' : this.hits.length === 0 ? 'No results' : `${this.current + 1} of ${this.hits.length}`;
    if (!registry) return;
    if (this.hits.length === 0) {
      registry.delete(HIGHLIGHT);
      registry.delete(CURRENT);
      return;
    }
    registry.set(HIGHLIGHT, new Highlight(...this.hits));
    const current = this.hits[this.current];
    if (current) registry.set(CURRENT, new Highlight(current));
    else registry.delete(CURRENT);
  }
}
