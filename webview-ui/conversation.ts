import { MAX_CITATION_PATHS, type Citation } from '../src/protocol/citations';
import type { MessageView, ToolStepView } from '../src/protocol/messages';
import { citationCandidates, citationOf, linkCitations } from './citationLinks';
import { h, icon } from './dom';
import { renderMarkdownBatch, type CodeBlock } from './markdown';
import {
  applyToolStep,
  createMessage,
  fillDeferred,
  renderAssistantText,
  renderToolSteps,
  updateAssistantChrome,
  type MessageRecord,
} from './messages';
import type { Tooltips } from './tooltip';

export interface ConversationHost {
  /** Ask the host for messages before `beforeTurn`; resolves false when the request failed. */
  loadOlder(beforeTurn: number): Promise<boolean>;
  copy(text: string, button: HTMLButtonElement): void;
  insert(code: string): void;
  /** Apply a code block to a file (the host picks the target and shows the diff). */
  apply(block: CodeBlock): void;
  /** The paths among `paths` the host lets become links; undefined when the request failed. */
  resolveCitations(paths: string[]): Promise<string[] | undefined>;
  openCitation(citation: Citation): void;
  regenerate(): void;
  /** Where the user is scrolled (UI state; restored after the view is hidden and shown). */
  scrolled(position: ScrollPosition): void;
}

export interface ScrollPosition {
  atBottom: boolean;
  anchorId?: string;
  anchorOffset?: number;
}

interface Stream {
  record: MessageRecord;
  text: string;
  /** The next chunk sequence number to apply; lower ones are duplicates. */
  nextSeq: number;
  /** Chunks that arrived ahead of a gap, applied once the gap fills. */
  early: Map<number, string>;
  /** A render is due at the next animation frame. */
  dirty: boolean;
  frameRequested: boolean;
}

/** Within this many px of the end counts as "at the bottom" (the stream is followed). */
const BOTTOM_SLACK = 24;
/** Older messages are requested when the top is closer than this (px). */
const LOAD_OLDER_MARGIN = 400;
/**
 * Opening a chat renders the markdown of the newest messages at once (enough to fill any panel)
 * and of the others when they come near the viewport or when the panel is idle, newest first.
 */
const EAGER_MESSAGES = 24;
const EAGER_CHARS = 40_000;
/** Deferred messages rendered per idle slice (one sanitizer pass each). */
const IDLE_BATCH = 12;

/**
 * The scrolling conversation: messages in order, the streaming reply, lazy loading of older
 * messages, and the end-of-conversation slot (the request preview). The streaming reply touches
 * only its own message: chunks are applied in sequence order (duplicates ignored), the message's
 * markdown is re-rendered at most once per animation frame (the first chunk after a quiet frame at
 * once), and only the top-level blocks that changed are replaced.
 */
export class Conversation {
  readonly el: HTMLElement;
  private readonly olderRow: HTMLElement;
  private readonly list: HTMLElement;
  readonly tail: HTMLElement;
  private readonly empty: HTMLElement;
  private readonly records = new Map<string, MessageRecord>();
  private readonly streams = new Map<string, Stream>();
  private chatId = '';
  private hasOlder = false;
  private loadingOlder = false;
  private olderFailed = false;
  private stick = true;
  /** Until when a scroll event counts as the user's (see the constructor). */
  private userScrollUntil = 0;
  /** The content and viewport heights at the last scroll we saw or made. */
  private lastScrollHeight = 0;
  private lastClientHeight = 0;
  private busy = false;
  private readonly regenerateButton: HTMLButtonElement;
  private scrollSaveTimer: ReturnType<typeof setTimeout> | undefined;
  /** Deferred messages, rendered newest first when idle, or at once when they near the viewport. */
  private readonly deferred = new Set<MessageRecord>();
  private readonly nearViewport: IntersectionObserver;
  private idleScheduled = false;
  /**
   * Keeps a message at a given offset from the top of the viewport while the layout settles
   * (messages off screen are laid out lazily, so heights above it change after a restore or a
   * prepend). Released by the user's next scroll gesture, or after a short while.
   */
  private anchorLock: { record: MessageRecord; offset: number; until: number } | undefined;
  /** The host's verdict on each cited path asked about (a link or not), for this chat. */
  private readonly citationVerdicts = new Map<string, boolean>();

  constructor(
    private readonly host: ConversationHost,
    private readonly tooltips: Tooltips,
    empty: HTMLElement,
  ) {
    this.olderRow = h('div', { class: 'older-row' });
    this.list = h('div', { class: 'messages', role: 'feed', 'aria-label': 'Conversation' });
    this.tail = h('div', { class: 'conversation-tail' });
    this.empty = empty;
    this.el = h(
      'main',
      { class: 'conversation', 'data-testid': 'strata-conversation', tabindex: -1 },
      this.olderRow,
      this.list,
      this.empty,
      this.tail,
    );
    this.regenerateButton = h(
      'button',
      {
        type: 'button',
        class: 'icon-btn',
        'aria-label': 'Regenerate Reply',
        title: 'Regenerate Reply',
        'data-testid': 'strata-regenerate',
        'data-action': 'regenerate',
      },
      icon('refresh'),
    );

    this.el.addEventListener('scroll', () => this.onScroll(), { passive: true });
    this.el.addEventListener('click', (e) => this.onClick(e));
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
    this.nearViewport = new IntersectionObserver((entries) => this.onNearViewport(entries), { root: this.el, rootMargin: '800px 0px' });
  }

  /** The whole chat (init, chat switch). `restore` is where the user was, if it is this chat. */
  setMessages(chatId: string, messages: readonly MessageView[], hasOlder: boolean, restore?: ScrollPosition): void {
    this.chatId = chatId;
    this.streams.clear();
    this.records.clear();
    this.citationVerdicts.clear();
    this.deferred.clear();
    this.nearViewport.disconnect();
    this.hasOlder = hasOlder;
    this.loadingOlder = false;
    this.olderFailed = false;
    this.list.replaceChildren(this.build(messages));
    this.adoptStreaming(messages);
    this.updateOlderRow();
    this.updateEmpty();
    this.updateLastActions();
    this.anchorLock = undefined;
    const anchor = restore && !restore.atBottom && restore.anchorId ? this.records.get(restore.anchorId) : undefined;
    if (anchor) {
      this.stick = false;
      this.lockAnchor(anchor, restore?.anchorOffset ?? 0);
    } else {
      this.stick = true;
      this.scrollToBottom();
    }
    this.maybeLoadOlder();
  }

  /**
   * Builds message elements. Assistant markdown is rendered in one sanitizer pass for the newest
   * messages (`eager`: all of them); older ones are deferred (see EAGER_MESSAGES).
   */
  private build(messages: readonly MessageView[], eager = false): DocumentFragment {
    const fragment = document.createDocumentFragment();
    const fresh = messages.filter((m) => !this.records.has(m.id));
    const now = new Set<MessageView>();
    let chars = 0;
    for (let i = fresh.length - 1; i >= 0; i--) {
      const m = fresh[i];
      if (!eager && (now.size >= EAGER_MESSAGES || chars >= EAGER_CHARS)) break;
      if (m.role === 'assistant' && m.text.length > 0) {
        now.add(m);
        chars += m.text.length;
      }
    }
    const assistants = fresh.filter((m) => now.has(m));
    const rendered = renderMarkdownBatch(assistants.map((m) => m.text));
    const byId = new Map(assistants.map((m, i) => [m.id, rendered[i]]));
    const deferred: MessageRecord[] = [];
    for (const view of fresh) {
      const record = createMessage(view, this.tooltips, view.role === 'assistant' && !now.has(view) ? 'defer' : byId.get(view.id));
      this.records.set(view.id, record);
      fragment.append(record.el);
      if (record.pending) deferred.push(record);
    }
    for (const record of deferred) {
      this.deferred.add(record);
      this.nearViewport.observe(record.el);
    }
    this.linkCitations(assistants.map((m) => this.records.get(m.id)));
    if (deferred.length > 0) this.scheduleIdle();
    return fragment;
  }

  private onNearViewport(entries: IntersectionObserverEntry[]): void {
    const near: MessageRecord[] = [];
    for (const entry of entries) {
      if (!entry.isIntersecting) continue;
      const record = this.records.get(entry.target.getAttribute('data-message-id') ?? '');
      if (record && this.deferred.has(record)) near.push(record);
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
        const newest = [...this.deferred].slice(-IDLE_BATCH);
        if (newest.length === 0) return;
        this.renderDeferred(newest);
      } while (deadline && deadline.timeRemaining() > 8);
      if (this.deferred.size > 0) this.scheduleIdle();
    };
    if (typeof requestIdleCallback === 'function') requestIdleCallback(run, { timeout: 1000 });
    else setTimeout(run, 50);
  }

  private renderDeferred(records: readonly MessageRecord[]): void {
    const todo = records.filter((r) => this.deferred.has(r));
    if (todo.length === 0) return;
    const rendered = renderMarkdownBatch(todo.map((r) => r.view.text));
    todo.forEach((record, i) => {
      this.deferred.delete(record);
      this.nearViewport.unobserve(record.el);
      if (record.pending) fillDeferred(record, rendered[i]);
    });
    this.linkCitations(todo);
  }

  /**
   * A streaming message in a fresh state (the view was reloaded mid-turn) keeps receiving chunks
   * when the host says which turn it belongs to and how many chunks its text already holds.
   */
  private adoptStreaming(messages: readonly MessageView[]): void {
    for (const m of messages) {
      if (m.role !== 'assistant' || m.status !== 'streaming' || m.turnId === undefined) continue;
      const record = this.records.get(m.id);
      if (record) this.streams.set(m.turnId, this.newStream(record, m.text, m.nextSeq ?? 0));
    }
  }

  private newStream(record: MessageRecord, text: string, nextSeq: number): Stream {
    return { record, text, nextSeq, early: new Map(), dirty: false, frameRequested: false };
  }

  prependOlder(chatId: string, messages: readonly MessageView[], hasOlder: boolean): void {
    if (chatId !== this.chatId) return;
    this.loadingOlder = false;
    this.hasOlder = hasOlder;
    const anchor = this.stick ? undefined : this.firstVisible();
    const offset = anchor ? this.offsetOf(anchor) : 0;
    this.list.prepend(this.build(messages));
    this.updateOlderRow();
    this.updateEmpty();
    this.updateLastActions();
    if (anchor) this.lockAnchor(anchor, offset);
    // Still nothing to scroll (a short chat)? Keep loading until the view fills or nothing is left.
    this.maybeLoadOlder();
  }

  /** A turn began: the user's message and an empty streaming reply. */
  startTurn(chatId: string, turnId: string, user: MessageView, assistant: MessageView): void {
    if (chatId !== this.chatId) return;
    for (const id of [user.id, assistant.id]) this.removeRecord(id);
    this.list.append(this.build([user, assistant], true));
    const record = this.records.get(assistant.id);
    if (record) this.streams.set(turnId, this.newStream(record, assistant.text, 0));
    // Sending is an explicit act: show the new turn even if the user had scrolled up.
    this.stick = true;
    this.scrollToBottom();
    this.updateEmpty();
    this.updateLastActions();
  }

  /** Appends a chunk in sequence order; a duplicate (seq already applied or queued) is ignored. */
  applyChunk(chatId: string, turnId: string, seq: number, text: string): void {
    if (chatId !== this.chatId) return;
    const stream = this.streams.get(turnId);
    if (!stream || seq < stream.nextSeq || stream.early.has(seq)) return;
    if (seq > stream.nextSeq) {
      stream.early.set(seq, text);
      return;
    }
    stream.text += text;
    stream.nextSeq++;
    for (let next = stream.early.get(stream.nextSeq); next !== undefined; next = stream.early.get(stream.nextSeq)) {
      stream.early.delete(stream.nextSeq);
      stream.text += next;
      stream.nextSeq++;
    }
    this.scheduleRender(stream);
  }

  /** A tool call of the streaming turn started or finished: its step is added or replaced. */
  applyToolStep(chatId: string, turnId: string, step: ToolStepView): void {
    if (chatId !== this.chatId) return;
    const stream = this.streams.get(turnId);
    if (!stream || !stream.record.el.isConnected) return;
    applyToolStep(stream.record, step);
  }

  /** Leading edge at once, then at most one render per animation frame while chunks keep coming. */
  private scheduleRender(stream: Stream): void {
    if (stream.frameRequested) {
      stream.dirty = true;
      return;
    }
    this.renderStream(stream);
    stream.frameRequested = true;
    requestAnimationFrame(() => {
      stream.frameRequested = false;
      if (stream.dirty) this.renderStream(stream);
    });
  }

  private renderStream(stream: Stream): void {
    stream.dirty = false;
    if (!stream.record.el.isConnected) return;
    renderAssistantText(stream.record, stream.text);
  }

  /** The turn ended: its final message replaces the streamed text; a turn not kept disappears. */
  endTurn(chatId: string, turnId: string, assistant: MessageView, kept: boolean): void {
    if (chatId !== this.chatId) return;
    const stream = this.streams.get(turnId);
    this.streams.delete(turnId);
    const record = this.records.get(assistant.id) ?? stream?.record;
    if (!record) return;
    if (!kept) {
      this.removeTurn(chatId, record.view.turn);
      return;
    }
    if (stream) stream.dirty = false;
    record.view = assistant;
    renderToolSteps(record);
    renderAssistantText(record, assistant.text);
    updateAssistantChrome(record, this.tooltips);
    this.updateLastActions();
    this.linkCitations([record]);
  }

  /**
   * Turns the citations of finished replies into links, for the paths the host validates (one
   * request for all the paths not asked about yet in this chat).
   */
  private linkCitations(records: readonly (MessageRecord | undefined)[]): void {
    const done = records.filter(
      (r): r is MessageRecord => r !== undefined && r.view.role === 'assistant' && r.view.status !== 'streaming' && !r.pending,
    );
    const found = done.map((r) => ({ record: r, paths: citationCandidates(r.body) })).filter((f) => f.paths.length > 0);
    if (found.length === 0) return;
    const unknown = [...new Set(found.flatMap((f) => f.paths))].filter((p) => !this.citationVerdicts.has(p)).slice(0, MAX_CITATION_PATHS);
    const chatId = this.chatId;
    const link = () => {
      const allowed = new Set([...this.citationVerdicts].filter(([, ok]) => ok).map(([p]) => p));
      for (const f of found) if (f.record.el.isConnected && f.record.view.status !== 'streaming') linkCitations(f.record.body, allowed);
    };
    if (unknown.length === 0) {
      link();
      return;
    }
    void this.host.resolveCitations(unknown).then((allowed) => {
      if (!allowed || chatId !== this.chatId) return;
      const ok = new Set(allowed);
      for (const p of unknown) this.citationVerdicts.set(p, ok.has(p));
      link();
    });
  }

  removeTurn(chatId: string, turn: number): void {
    if (chatId !== this.chatId) return;
    for (const [id, record] of [...this.records]) {
      if (record.view.turn === turn) this.removeRecord(id);
    }
    for (const [turnId, stream] of [...this.streams]) {
      if (stream.record.view.turn === turn) this.streams.delete(turnId);
    }
    this.updateEmpty();
    this.updateLastActions();
  }

  private removeRecord(id: string): void {
    const record = this.records.get(id);
    if (!record) return;
    record.el.remove();
    this.records.delete(id);
    this.deferred.delete(record);
    this.nearViewport.unobserve(record.el);
  }

  setBusy(busy: boolean): void {
    this.busy = busy;
    this.updateLastActions();
  }

  /** Regenerate belongs to the last reply, when no turn is running. */
  private updateLastActions(): void {
    const last = this.list.lastElementChild;
    const record = last ? this.records.get(last.getAttribute('data-message-id') ?? '') : undefined;
    if (!record || record.view.role !== 'assistant' || this.busy || record.view.status === 'streaming' || !record.actions) {
      this.regenerateButton.remove();
      return;
    }
    if (this.regenerateButton.parentElement !== record.actions) record.actions.append(this.regenerateButton);
  }

  updateEmpty(): void {
    const hasTail = this.tail.childElementCount > 0;
    this.empty.hidden = this.records.size > 0 || this.hasOlder || hasTail;
  }

  /** Scroll to the end and follow it again (after sending, or when the preview appears). */
  revealEnd(): void {
    this.stick = true;
    this.scrollToBottom();
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

  private lockAnchor(record: MessageRecord, offset: number): void {
    this.anchorLock = { record, offset, until: performance.now() + 1500 };
    this.applyAnchorLock();
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

  private onScroll(): void {
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
    this.maybeLoadOlder();
    if (this.scrollSaveTimer !== undefined) clearTimeout(this.scrollSaveTimer);
    this.scrollSaveTimer = setTimeout(() => this.host.scrolled(this.position()), 150);
  }

  position(): ScrollPosition {
    if (this.stick) return { atBottom: true };
    const anchor = this.firstVisible();
    if (!anchor) return { atBottom: false };
    return { atBottom: false, anchorId: anchor.view.id, anchorOffset: Math.round(this.offsetOf(anchor)) };
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
    return this.records.get(items[lo].getAttribute('data-message-id') ?? '');
  }

  private maybeLoadOlder(): void {
    if (!this.hasOlder || this.loadingOlder || this.olderFailed) return;
    if (this.el.scrollTop > LOAD_OLDER_MARGIN && this.el.scrollHeight > this.el.clientHeight) return;
    void this.loadOlder();
  }

  private async loadOlder(): Promise<void> {
    const first = this.list.firstElementChild;
    const firstRecord = first ? this.records.get(first.getAttribute('data-message-id') ?? '') : undefined;
    const beforeTurn = firstRecord?.view.turn;
    if (beforeTurn === undefined || beforeTurn < 1) {
      this.hasOlder = false;
      this.updateOlderRow();
      return;
    }
    this.loadingOlder = true;
    this.olderFailed = false;
    this.updateOlderRow();
    const chatId = this.chatId;
    const ok = await this.host.loadOlder(beforeTurn);
    if (!ok && chatId === this.chatId && this.loadingOlder) {
      this.loadingOlder = false;
      this.olderFailed = true;
      this.updateOlderRow();
    }
  }

  private updateOlderRow(): void {
    const row = this.olderRow;
    row.hidden = !this.hasOlder;
    if (!this.hasOlder) {
      row.replaceChildren();
      return;
    }
    if (this.loadingOlder) {
      row.replaceChildren(
        h(
          'span',
          { class: 'older-loading', role: 'status', 'data-testid': 'strata-loading-older' },
          icon('loading', 'codicon-modifier-spin'),
          'Loading earlier messages…',
        ),
      );
      return;
    }
    row.replaceChildren(
      h(
        'button',
        { type: 'button', class: 'link-btn', 'data-testid': 'strata-load-older', 'data-action': 'load-older' },
        this.olderFailed ? 'Could not load earlier messages. Retry' : 'Load earlier messages',
      ),
    );
  }

  private onClick(e: MouseEvent): void {
    const target = e.target instanceof Element ? e.target.closest<HTMLElement>('[data-action]') : null;
    if (!target || !this.el.contains(target)) return;
    const action = target.getAttribute('data-action');
    if (action === 'load-older') {
      this.olderFailed = false;
      void this.loadOlder();
      return;
    }
    if (action === 'regenerate') {
      this.host.regenerate();
      return;
    }
    if (action === 'open-citation') {
      const citation = citationOf(target);
      if (citation) this.host.openCitation(citation);
      return;
    }
    const article = target.closest('article');
    const record = article ? this.records.get(article.getAttribute('data-message-id') ?? '') : undefined;
    if (!record || !(target instanceof HTMLButtonElement)) return;
    if (action === 'copy-reply') {
      this.host.copy(record.view.text, target);
      return;
    }
    if (action === 'copy-code' || action === 'insert-code' || action === 'apply-code') {
      const pre = target.closest('.code-block')?.querySelector('pre[data-code]');
      const block = pre ? record.codes[Number(pre.getAttribute('data-code'))] : undefined;
      if (!block) return;
      if (action === 'copy-code') this.host.copy(block.code, target);
      else if (action === 'insert-code') this.host.insert(block.code);
      else this.host.apply(block);
    }
  }
}
