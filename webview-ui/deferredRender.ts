import { renderMarkdownBatch } from './markdown';
import { fillDeferred, type MessageRecord } from './messages';

/** Deferred messages rendered per idle slice (one sanitizer pass each). */
const IDLE_BATCH = 12;

/**
 * Renders the markdown of messages that were built without it: at once when they come near the
 * viewport `root`, else while the panel is idle, newest first.
 */
export class DeferredRender {
  /** Deferred messages, in document order. */
  private readonly pending = new Set<MessageRecord>();
  private readonly nearViewport: IntersectionObserver;
  private idleScheduled = false;

  /** `recordOf` finds the message of an observed element; `rendered` hears of the messages just rendered. */
  constructor(
    root: HTMLElement,
    private readonly recordOf: (el: Element) => MessageRecord | undefined,
    private readonly rendered: (records: readonly MessageRecord[]) => void = () => undefined,
  ) {
    this.nearViewport = new IntersectionObserver((entries) => this.onNearViewport(entries), { root, rootMargin: '800px 0px' });
  }

  /** Messages just built without their markdown (`record.pending`). */
  add(records: readonly MessageRecord[]): void {
    for (const record of records) {
      this.pending.add(record);
      this.nearViewport.observe(record.el);
    }
    if (records.length > 0) this.scheduleIdle();
  }

  /** Renders every deferred message now (Find searches rendered text). */
  renderAll(): void {
    this.renderDeferred([...this.pending]);
  }

  /** The message is gone: nothing to render for it. */
  forget(record: MessageRecord): void {
    this.pending.delete(record);
    this.nearViewport.unobserve(record.el);
  }

  /** All messages are gone (a chat switch). */
  clear(): void {
    this.pending.clear();
    this.nearViewport.disconnect();
  }

  private onNearViewport(entries: IntersectionObserverEntry[]): void {
    const near: MessageRecord[] = [];
    for (const entry of entries) {
      if (!entry.isIntersecting) continue;
      const record = this.recordOf(entry.target);
      if (record && this.pending.has(record)) near.push(record);
    }
    this.renderDeferred(near);
  }

  /** Renders deferred messages while the panel is idle, newest first. */
  private scheduleIdle(): void {
    if (this.idleScheduled) return;
    this.idleScheduled = true;
    const run = (deadline?: IdleDeadline) => {
      this.idleScheduled = false;
      do {
        const newest = [...this.pending].slice(-IDLE_BATCH);
        if (newest.length === 0) return;
        this.renderDeferred(newest);
      } while (deadline && deadline.timeRemaining() > 8);
      if (this.pending.size > 0) this.scheduleIdle();
    };
    if (typeof requestIdleCallback === 'function') requestIdleCallback(run, { timeout: 1000 });
    else setTimeout(run, 50);
  }

  private renderDeferred(records: readonly MessageRecord[]): void {
    const todo = records.filter((r) => this.pending.has(r));
    if (todo.length === 0) return;
    const rendered = renderMarkdownBatch(todo.map((r) => r.view.text));
    todo.forEach((record, i) => {
      this.pending.delete(record);
      this.nearViewport.unobserve(record.el);
      if (record.pending) fillDeferred(record, rendered[i]);
    });
    this.rendered(todo);
  }
}
