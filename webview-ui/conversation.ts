import { MAX_CITATION_PATHS, type Citation } from '../src/protocol/citations';
import type { MessageView, ToolStepView } from '../src/protocol/messages';
import { blockIdOf, paintApplyState, parseBlockId, type BlockApplyState } from './applyState';
import { codeWrap, setCodeWrap } from './codeBlocks';
import { citationCandidates, citationOf, linkCitations } from './citationLinks';
import { DeferredRender } from './deferredRender';
import { h, icon, setAttrs } from './dom';
import { renderMarkdownBatch, type CodeBlock } from './markdown';
import { applyToolStep, createMessage, renderAssistantText, updateAssistantChrome, type MessageRecord } from './messages';
import { OlderMessages } from './olderMessages';
import { hasInlineSteps } from './replySegments';
import { RovingFocus } from './rovingFocus';
import { ScrollKeeper, type ScrollPosition } from './scrollKeeper';
import type { Tooltips } from './tooltip';

export type { ScrollPosition } from './scrollKeeper';

export interface ConversationHost {
  /** Ask the host for messages before `beforeTurn`; resolves false when the request failed. */
  loadOlder(beforeTurn: number): Promise<boolean>;
  copy(text: string, button: HTMLButtonElement): void;
  insert(code: string): void;
  /** A shell block into the terminal (not run). */
  insertTerminal(code: string): void;
  /** The user turned line wrapping in code blocks on or off (remembered). */
  codeWrapChanged(wrap: boolean): void;
  /** Apply a code block to a file (the host picks the target and shows the diff); `blockId` names it back in `applyState`. */
  apply(block: CodeBlock, blockId: string): void;
  /** Undo the applied change of a code block. */
  undoApply(blockId: string): void;
  /** The paths among `paths` the host lets become links; undefined when the request failed. */
  resolveCitations(paths: string[]): Promise<string[] | undefined>;
  openCitation(citation: Citation): void;
  regenerate(): void;
  /** "Set price…" under a reply whose model has no known price. */
  setPrice(): void;
  /** Where the user is scrolled (UI state; restored after the view is hidden and shown). */
  scrolled(position: ScrollPosition): void;
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

/**
 * Opening a chat renders the markdown of the newest messages at once (enough to fill any panel)
 * and of the others when they come near the viewport or when the panel is idle, newest first.
 */
const EAGER_MESSAGES = 24;
const EAGER_CHARS = 40_000;

/**
 * The scrolling conversation: messages in order, the streaming reply, lazy loading of older
 * messages, and the end-of-conversation slot (the request preview). The streaming reply touches
 * only its own message: chunks are applied in sequence order (duplicates ignored), the message's
 * markdown is re-rendered at most once per animation frame (the first chunk after a quiet frame at
 * once), and only the top-level blocks that changed are replaced.
 */
export class Conversation {
  readonly el: HTMLElement;
  private readonly list: HTMLElement;
  readonly tail: HTMLElement;
  private readonly empty: HTMLElement;
  private readonly records = new Map<string, MessageRecord>();
  private readonly streams = new Map<string, Stream>();
  private chatId = '';
  private busy = false;
  private readonly regenerateButton: HTMLButtonElement;
  private readonly jumpButton: HTMLButtonElement;
  private readonly older: OlderMessages;
  private readonly scroll: ScrollKeeper;
  private readonly deferredRender: DeferredRender;
  private readonly roving: RovingFocus;
  /** The host's word on code blocks' changes (Applied, Rejected, Undone), by block id; shown whenever the block is rendered. */
  private readonly applyStates = new Map<string, BlockApplyState>();
  /** The host's verdict on each cited path asked about (a link or not), for this chat. */
  private readonly citationVerdicts = new Map<string, boolean>();

  constructor(
    private readonly host: ConversationHost,
    private readonly tooltips: Tooltips,
    empty: HTMLElement,
  ) {
    this.list = h('div', { class: 'messages' });
    this.tail = h('div', { class: 'conversation-tail' });
    this.empty = empty;
    this.el = h('main', { class: 'conversation', 'data-testid': 'strata-conversation', tabindex: -1 }, this.list, this.empty, this.tail);
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
    this.older = new OlderMessages(this.el, {
      loadOlder: (beforeTurn) => this.host.loadOlder(beforeTurn),
      firstTurn: () => {
        const first = this.list.firstElementChild;
        return first ? this.recordOf(first)?.view.turn : undefined;
      },
      chatId: () => this.chatId,
    });
    this.el.prepend(this.older.row);
    this.jumpButton = h(
      'button',
      { type: 'button', class: 'jump-latest', 'data-testid': 'strata-jump-latest', 'data-action': 'jump-latest', title: 'Jump to Latest' },
      icon('arrow-down'),
      h('span', null, 'Latest'),
    );
    this.jumpButton.hidden = true;
    this.el.append(this.jumpButton);
    this.roving = new RovingFocus(this.list, 'article');

    this.el.addEventListener('scroll', () => this.onScroll(), { passive: true });
    this.el.addEventListener('click', (e) => this.onClick(e));
    this.scroll = new ScrollKeeper(
      this.el,
      this.list,
      this.empty,
      (item) => this.recordOf(item),
      (position) => this.host.scrolled(position),
    );
    this.deferredRender = new DeferredRender(
      this.el,
      (el) => this.recordOf(el),
      (records) => this.linkCitations(records),
    );
  }

  /** The message of a list item (or of any element carrying its id). */
  private recordOf(el: Element): MessageRecord | undefined {
    return this.records.get(el.getAttribute('data-message-id') ?? '');
  }

  /** The whole chat (init, chat switch). `restore` is where the user was, if it is this chat. */
  setMessages(chatId: string, messages: readonly MessageView[], hasOlder: boolean, restore?: ScrollPosition): void {
    this.chatId = chatId;
    this.streams.clear();
    this.records.clear();
    this.citationVerdicts.clear();
    this.deferredRender.clear();
    this.older.reset(hasOlder);
    this.list.replaceChildren(this.build(messages));
    this.adoptStreaming(messages);
    this.older.updateRow();
    this.updateEmpty();
    this.listChanged();
    const anchor = restore && !restore.atBottom && restore.anchorId ? this.records.get(restore.anchorId) : undefined;
    this.scroll.restore(anchor, restore?.anchorOffset ?? 0);
    // Another chat's messages: the button follows this one's position once it is laid out.
    requestAnimationFrame(() => (this.jumpButton.hidden = this.scroll.endInView));
    this.older.maybeLoad();
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
      if (m.role === 'assistant' && m.text.length > 0 && !hasInlineSteps(m.toolSteps)) {
        now.add(m);
        chars += m.text.length;
      }
    }
    const assistants = fresh.filter((m) => now.has(m));
    const rendered = renderMarkdownBatch(assistants.map((m) => m.text));
    const byId = new Map(assistants.map((m, i) => [m.id, rendered[i]]));
    const deferred: MessageRecord[] = [];
    for (const view of fresh) {
      if (view.role === 'assistant') this.adoptApplyStates(view);
      const record = createMessage(view, this.tooltips, view.role === 'assistant' && !now.has(view) ? 'defer' : byId.get(view.id));
      this.records.set(view.id, record);
      fragment.append(record.el);
      if (record.pending) deferred.push(record);
    }
    this.deferredRender.add(deferred);
    this.linkCitations(assistants.map((m) => this.records.get(m.id)));
    return fragment;
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
    this.older.loaded(hasOlder);
    const anchor = this.scroll.visibleAnchor();
    this.list.prepend(this.build(messages));
    this.older.updateRow();
    this.updateEmpty();
    this.listChanged();
    if (anchor) this.scroll.lockAnchor(anchor.record, anchor.offset);
    // Still nothing to scroll (a short chat)? Keep loading until the view fills or nothing is left.
    this.older.maybeLoad();
  }

  /** A turn began: the user's message and an empty streaming reply. */
  startTurn(chatId: string, turnId: string, user: MessageView, assistant: MessageView): void {
    if (chatId !== this.chatId) return;
    for (const id of [user.id, assistant.id]) this.removeRecord(id);
    this.list.append(this.build([user, assistant], true));
    const record = this.records.get(assistant.id);
    if (record) this.streams.set(turnId, this.newStream(record, assistant.text, 0));
    // Sending is an explicit act: show the new turn even if the user had scrolled up.
    this.scroll.revealEnd();
    this.updateEmpty();
    this.listChanged();
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
    applyToolStep(stream.record, step, stream.text);
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
    renderAssistantText(record, assistant.text);
    updateAssistantChrome(record, this.tooltips);
    this.listChanged();
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
    if (this.applyStates.size > 0) for (const r of done) this.paintApplyStates(r);
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

  /** The host decided a code block's change (or undid it): the block says so, now and whenever it is rendered again. */
  showApplyState(blockId: string, state: BlockApplyState): void {
    this.applyStates.set(blockId, state);
    const id = parseBlockId(blockId);
    const record = id && id.chatId === this.chatId ? this.records.get(id.messageId) : undefined;
    if (record && !record.pending) this.paintApplyStates(record);
  }

  /**
   * The host's saved states of a reply's code blocks (the chat opened again, the window reloaded),
   * painted as the live ones are. A reply that starts streaming (Regenerate) has none yet.
   */
  private adoptApplyStates(view: MessageView): void {
    const prefix = `${this.chatId}/${view.id}/`;
    if (view.status === 'streaming')
      for (const blockId of [...this.applyStates.keys()]) if (blockId.startsWith(prefix)) this.applyStates.delete(blockId);
    for (const a of view.applied ?? [])
      this.applyStates.set(blockIdOf(this.chatId, view.id, a.block), {
        state: a.state,
        accepted: a.accepted,
        total: a.total,
        undo: a.undo === true,
      });
  }

  private paintApplyStates(record: MessageRecord): void {
    for (const pre of Array.from(record.body.querySelectorAll('pre[data-code]'))) {
      const blockId = blockIdOf(this.chatId, record.view.id, Number(pre.getAttribute('data-code')));
      const state = this.applyStates.get(blockId);
      const block = pre.closest('.code-block');
      if (state && block) paintApplyState(block, blockId, state);
    }
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
    this.listChanged();
  }

  private removeRecord(id: string): void {
    const record = this.records.get(id);
    if (!record) return;
    record.el.remove();
    this.records.delete(id);
    this.deferredRender.forget(record);
  }

  setBusy(busy: boolean): void {
    this.busy = busy;
    this.updateLastActions();
  }

  /** Regenerate belongs to the last reply, when no turn is running. */
  /** After messages were added or removed: the list's tab stop, and Regenerate on the last reply. */
  private listChanged(): void {
    // A feed holds articles: an empty list is no feed (assistive technology would announce one).
    if (this.records.size > 0) setAttrs(this.list, { role: 'feed', 'aria-label': 'Conversation' });
    else setAttrs(this.list, { role: undefined, 'aria-label': undefined });
    this.roving.sync();
    this.updateLastActions();
  }

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
    this.empty.hidden = this.records.size > 0 || this.older.available || hasTail;
  }

  /** Scroll to the end and follow it again (after sending, or when the preview appears). */
  revealEnd(): void {
    this.scroll.revealEnd();
    this.jumpButton.hidden = true;
  }

  /**
   * A find hit (the element holding it) in the middle of the view, held there while the messages
   * around it are laid out; the end is no longer followed.
   */
  revealHit(el: Element): void {
    const item = el.closest('[data-message-id]');
    const record = item ? this.recordOf(item) : undefined;
    if (record) this.scroll.reveal(el, record);
    else el.scrollIntoView({ block: 'center' });
  }

  /** Find: every older message loaded and every message rendered. */
  async prepareFind(): Promise<void> {
    await this.older.loadAll();
    this.deferredRender.renderAll();
  }

  /** The bodies of the messages, in order (what Find searches). */
  messageBodies(): HTMLElement[] {
    return Array.from(this.list.children).flatMap((el) => {
      const record = this.recordOf(el);
      return record ? [record.body] : [];
    });
  }

  private onScroll(): void {
    this.scroll.onScroll();
    this.jumpButton.hidden = this.scroll.endInView;
    this.older.maybeLoad();
    this.scroll.saveSoon();
  }

  position(): ScrollPosition {
    return this.scroll.position();
  }

  private onClick(e: MouseEvent): void {
    const target = e.target instanceof Element ? e.target.closest<HTMLElement>('[data-action]') : null;
    if (!target || !this.el.contains(target)) return;
    const action = target.getAttribute('data-action');
    if (action === 'jump-latest') {
      this.revealEnd();
      this.jumpButton.hidden = true;
      return;
    }
    if (action === 'load-older') {
      this.older.retry();
      return;
    }
    if (action === 'regenerate') {
      this.host.regenerate();
      return;
    }
    if (action === 'set-price') {
      this.host.setPrice();
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
    if (action === 'wrap-code') {
      setCodeWrap(!codeWrap());
      this.host.codeWrapChanged(codeWrap());
      return;
    }
    if (action === 'undo-apply') {
      const blockId = target.getAttribute('data-block-id');
      if (blockId) this.host.undoApply(blockId);
      return;
    }
    if (action === 'copy-code' || action === 'insert-code' || action === 'apply-code' || action === 'terminal-code') {
      const pre = target.closest('.code-block')?.querySelector('pre[data-code]');
      const block = pre ? record.codes[Number(pre.getAttribute('data-code'))] : undefined;
      if (!block) return;
      if (action === 'copy-code') this.host.copy(block.code, target);
      else if (action === 'insert-code') this.host.insert(block.code);
      else if (action === 'terminal-code') this.host.insertTerminal(block.code);
      else this.host.apply(block, blockIdOf(this.chatId, record.view.id, Number(pre?.getAttribute('data-code'))));
    }
  }
}
