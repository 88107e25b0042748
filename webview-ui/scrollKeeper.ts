import type { MessageRecord } from './messages';

export interface ScrollPosition {
  atBottom: boolean;
  anchorId?: string;
  anchorOffset?: number;
}

/** A message and its top relative to the top of the viewport (px). */
export interface ScrollAnchor {
  record: MessageRecord;
  offset: number;
}

/** Within this many px of the end counts as "at the bottom" (the stream is followed). */
const BOTTOM_SLACK = 24;

/**
 * Keeps the conversation's scroll position: follows the end while the user is there, tells the
 * user's scrolls from the ones layout causes, holds a message in place while the layout above it
 * settles, and reports where the user is scrolled.
 */
export class ScrollKeeper {
  private stick = true;
  /** Until when a scroll event counts as the user's (see the constructor). */
  private userScrollUntil = 0;
  /** The content and viewport heights at the last scroll we saw or made. */
  private lastScrollHeight = 0;
  private lastClientHeight = 0;
  private saveTimer: ReturnType<typeof setTimeout> | undefined;
  /**
   * Keeps a message at a given offset from the top of the viewport while the layout settles
   * (messages off screen are laid out lazily, so heights above it change after a restore or a
   * prepend). Released by the user's next scroll gesture, or after a short while.
   */
  private anchorLock: { record: MessageRecord; offset: number; until: number } | undefined;

  /**
   * `el` is the scrolling viewport, `list` the messages in it; `empty` is the empty state (shown
   * when there is no end to follow); `recordOf` finds the message of a list item.
   */
  constructor(
    private readonly el: HTMLElement,
    private readonly list: HTMLElement,
    private readonly empty: HTMLElement,
    private readonly recordOf: (item: Element) => MessageRecord | undefined,
    private readonly scrolled: (position: ScrollPosition) => void,
  ) {
    // Follow the end while the user is there: any growth of the list (streaming text, fonts,
    // lazily laid-out messages) keeps the bottom in view; this runs after layout, before paint.
    // The viewport changes size too (banners appear, the input grows): same rule.
    const resized = new ResizeObserver(() => {
      if (this.stick) this.scrollToBottom();
      else this.applyAnchorLock();
      this.noteGeometry();
    });
    resized.observe(this.list);
    resized.observe(this.el);
    // A scroll the user asked for (wheel, touch, scrollbar, keys) may leave the bottom; scrolls that
    // layout causes (lazily laid-out messages, scroll anchoring) must not stop the follow.
    const intent = () => {
      this.anchorLock = undefined;
      this.userScrollUntil = performance.now() + 1000;
    };
    for (const type of ['wheel', 'touchstart', 'touchmove', 'mousedown', 'keydown'] as const)
      this.el.addEventListener(type, intent, { passive: true });
    this.el.addEventListener('focusin', intent);
  }

  /** A new chat is shown: hold `anchor` where the user was, else follow the end. */
  restore(anchor: MessageRecord | undefined, offset: number): void {
    this.anchorLock = undefined;
    if (anchor) {
      this.stick = false;
      this.lockAnchor(anchor, offset);
    } else {
      this.revealEnd();
    }
  }

  /** Scroll to the end and follow it again. */
  revealEnd(): void {
    this.stick = true;
    this.scrollToBottom();
  }

  /**
   * Scrolls `target` (inside `record`'s message) to the middle of the view and holds that message
   * there while the layout around it settles: messages laid out lazily change height as they come
   * into view, and neither following the end nor an earlier hold may pull the view away from it.
   */
  reveal(target: Element, record: MessageRecord): void {
    this.stick = false;
    this.anchorLock = undefined;
    target.scrollIntoView({ block: 'center' });
    this.lockAnchor(record, this.offsetOf(record));
  }

  /** The message to hold in place while content is added above it; none while following the end. */
  visibleAnchor(): ScrollAnchor | undefined {
    const record = this.stick ? undefined : this.firstVisible();
    return record ? { record, offset: this.offsetOf(record) } : undefined;
  }

  lockAnchor(record: MessageRecord, offset: number): void {
    this.anchorLock = { record, offset, until: performance.now() + 1500 };
    this.applyAnchorLock();
  }

  /** Whether the view follows the end of the conversation (it is at the bottom). */
  get following(): boolean {
    return this.stick;
  }

  /** Whether the end is in view: following it, or the whole conversation fits (nothing to jump to). */
  get endInView(): boolean {
    return this.stick || this.el.scrollHeight - this.el.scrollTop - this.el.clientHeight <= BOTTOM_SLACK;
  }

  /** A scroll event: follow the end again at the bottom, keep following when layout moved the view. */
  onScroll(): void {
    const height = this.el.scrollHeight;
    const viewport = this.el.clientHeight;
    const distance = height - this.el.scrollTop - viewport;
    // Layout moved the view (the content or the viewport changed size: lazily laid-out messages,
    // scroll anchoring, a banner appearing) unless the user was scrolling just now: keep following.
    const fromLayout = (height !== this.lastScrollHeight || viewport !== this.lastClientHeight) && performance.now() > this.userScrollUntil;
    this.noteGeometry();
    if (distance <= BOTTOM_SLACK) this.stick = true;
    else if (fromLayout && this.stick) this.scrollToBottom();
    else this.stick = false;
  }

  /** Reports the position once scrolling pauses. */
  saveSoon(): void {
    if (this.saveTimer !== undefined) clearTimeout(this.saveTimer);
    this.saveTimer = setTimeout(() => this.scrolled(this.position()), 150);
  }

  position(): ScrollPosition {
    if (this.stick) return { atBottom: true };
    const anchor = this.firstVisible();
    if (!anchor) return { atBottom: false };
    return { atBottom: false, anchorId: anchor.view.id, anchorOffset: Math.round(this.offsetOf(anchor)) };
  }

  private scrollToBottom(): void {
    // The empty state reads from its top (its first step first); there is no end to follow yet.
    this.el.scrollTop = this.empty.hidden ? this.el.scrollHeight : 0;
    this.noteGeometry();
  }

  private noteGeometry(): void {
    this.lastScrollHeight = this.el.scrollHeight;
    this.lastClientHeight = this.el.clientHeight;
  }

  /** A message's top relative to the top of the viewport (px). */
  private offsetOf(record: MessageRecord): number {
    return record.el.getBoundingClientRect().top - this.el.getBoundingClientRect().top;
  }

  private applyAnchorLock(): void {
    const lock = this.anchorLock;
    if (!lock) return;
    if (performance.now() > lock.until || !lock.record.el.isConnected) {
      this.anchorLock = undefined;
      return;
    }
    const delta = this.offsetOf(lock.record) - lock.offset;
    if (Math.abs(delta) >= 0.5) this.el.scrollTop += delta;
  }

  /** The first message whose bottom is inside the viewport (binary search over document order). */
  private firstVisible(): MessageRecord | undefined {
    const items = this.list.children;
    if (items.length === 0) return undefined;
    const top = this.el.getBoundingClientRect().top;
    let lo = 0;
    let hi = items.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (items[mid].getBoundingClientRect().bottom <= top) lo = mid + 1;
      else hi = mid;
    }
    return this.recordOf(items[lo]);
  }
}
