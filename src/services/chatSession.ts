/**
 * The chat of one window's workspace: its chat store, the active chat's engine (behind the turn
 * pipeline), the model and the settings, and the turns. Its collaborators under `session/` hold the
 * composer's attachment chips, the pending pin / unpin / remove of items already in the chat, the
 * context meter, the chat's saved token counts, and the views the panel shows. The host creates one
 * per window with the store folder, a WorkspacePort over the editor, a tokenizer factory, a settings
 * getter and a log function; it hands in a `ChatProvider` per send (LangChain is only ever imported
 * by the host, lazily: this module imports provider *types* only).
 *
 * Every turn goes through `TurnPipeline`, the same code the replay and the benchmark run. A reloaded
 * window opening the same store and chat renders a byte-identical next request, so a reload costs the
 * provider's prompt cache nothing.
 *
 * Two windows on one folder share the store. The session knows which saved state its chat is (its
 * `ChatBase`); `syncWithDisk` (called when the store folder changes, and before each send) reloads the
 * chat when another window saved to it, keeping the composer. A save racing with the other window is
 * settled by the pipeline (rebuilt after the other window's turns, or refused as `chat-changed`, after
 * which the chat is reloaded here).
 */
import { NODE_HASHER } from './nodeHasher';
import { LONG_INPUT, PromptContextEngine, type EngineOptions, type TurnEnvelope } from '../engine/engine';
import type { NewArtifactInput } from '../engine/artifacts';
import type { Rejection } from '../engine/isolation';
import type { ChatMessage, IHasher } from '../engine/types';
import type { ChatSummaryView, ChipView, MessageView, MeterView } from '../protocol/messages';
import { ChatStore, ChatStoreError, type ChatBase, type ChatStoreOptions, type TurnMeta } from './store/chatStore';
import { compareEngineMeta, engineMeta } from '../engine/stateCodec';
import { modelInfo, type ModelInfo } from './modelInfo';
import { SessionModel } from './session/sessionModel';
import type { ChatProvider } from './providers/types';
import type { EncodingName } from './tokenizer';
import { TurnPipeline, type TurnEvent, type TurnOutcome } from './turnPipeline';
import { turnRequestFromStored, type TurnRequest } from './turn/turnRequest';
import { isFinal, turnSendOptions } from './session/turnSendOptions';
import { nextRequest, predictedInput, type NextRequestParts } from './session/nextRequest';
import { followDiskAfterFailedSave, savedMetas, syncWithDisk, type DiskSync, type SyncedChat } from './session/diskSync';
import { AppliedBlocks } from './session/appliedBlocks';
import type { AttachmentSpec, WorkspacePort } from './workspacePort';
import { ComposerChips, type ChipExtras } from './session/composerChips';
import { CodeIntelAttach } from './session/codeIntelAttach';
import { ContextMeter } from './session/contextMeter';
import { ChatCosts, LISTED_TOTAL_READS } from './session/chatCosts';
import { DEFAULT_PRICING } from './pricing/chatCost';
import { messageViews } from './session/messageViews';
import { PendingOperations, type ChatItemView } from './session/pendingOperations';
import { TokenCountTracker, type SessionTokenizer } from './session/tokenCountTracker';
import { TimeSlice } from './timeSlice';
import { engineSettings, resolvedSettings, type ResolvedSettings, type SessionSettings, type ToolSettings } from './session/engineSettings';

export type { SessionSettings, ToolSettings };
export type { DiskSync };

export interface ChatSessionOptions {
  /** The workspace's chat store folder (`ExtensionContext.storageUri`). */
  storeRoot: string;
  port: WorkspacePort;
  tokenizer: (encoding: EncodingName) => SessionTokenizer;
  settings: () => SessionSettings;
  log?: (line: string) => void;
  /** The model until `setModel` says otherwise (default: an unknown model with the conservative limits). */
  model?: ModelInfo;
  store?: ChatStoreOptions;
  /** Default: node:crypto sha256 (the engine's pure-JS one is ~10× slower on big files). */
  hasher?: IHasher;
  /** New chat ids (tests pin them). Default: `chat-<time>-<random>`. */
  newChatId?: () => string;
  /** Run the invariants checker on every turn and log violations (debug builds). */
  check?: boolean;
  /** The clock the cache-expiry prediction reads (tests pass a fake one). Default: `Date.now`. */
  now?: () => number;
}

function defaultChatId(): string {
  return `chat-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
}

export class ChatSession {
  readonly store: ChatStore;
  private readonly opts: ChatSessionOptions;
  /** The model and settings in force, and a change waiting for the end of a turn. */
  private readonly models: SessionModel;
  private chatId: string;
  /** Title for a chat not saved yet (renamed before its first turn). */
  private pendingTitle: string | undefined;
  private pipeline: TurnPipeline;
  /** Metadata of each completed turn of the active chat, in order. */
  private metas: TurnMeta[] = [];
  /** The saved state the active chat's engine state is (turn count 0 and '' for a chat not saved yet). */
  private base: ChatBase = { turns: 0, stateHash: '' };
  /** The composer's chips; one taken off the next message stays here, for Undo, until the message is sent. */
  readonly composer = new ComposerChips(() => this.contextMeter.invalidate());
  /** The code blocks' states (Applied, Rejected): saved with the chat, Undo only where the host can. */
  readonly blocks = new AppliedBlocks(() => ({ store: this.store, chatId: this.chatId, metas: this.metas }));
  private readonly pending = new PendingOperations();
  private running: { controller: AbortController; done?: Promise<TurnOutcome> } | undefined;
  private readonly contextMeter = new ContextMeter({
    engine: () => this.engine,
    nextInput: () => predictedInput(this.nextParts()),
    lastMeta: () => this.metas[this.metas.length - 1],
    tokenizerEstimated: () => this.model.tokenizerEstimated,
    windowSource: () => this.model.windowSource,
    streaming: () => !!this.running,
    built: (engine) => this.tokenCounts.meterBuilt(this.chatId, engine.options.tokenizer as SessionTokenizer),
    withCost: (view, next) => this.costs.meter(view, next),
  });
  private readonly tokenCounts: TokenCountTracker;
  private readonly costs: ChatCosts;
  /** Chips found through code intelligence: a selection with its definitions, files with their imports. */
  readonly codeIntel = new CodeIntelAttach(this.composer, () => ({ port: this.opts.port, tokenizer: this.engine.options.tokenizer }));
  private last: { chatId: string; turn: number; messages: ChatMessage[] } | undefined;

  private constructor(opts: ChatSessionOptions, chatId?: string) {
    this.opts = opts;
    this.models = new SessionModel(
      {
        settings: () => this.opts.settings(),
        busy: () => !!this.running,
        engine: () => this.engine,
        renewEngine: () => (this.pipeline.engine = this.newEngine(this.chatId, this.engine.state)),
        changed: () => this.contextMeter.invalidate(),
        log: (l) => this.log(l),
      },
      opts.model ?? modelInfo('none', 'unknown'),
    );
    this.store = ChatStore.open(opts.storeRoot, opts.store);
    this.tokenCounts = new TokenCountTracker(this.store, (l) => this.log(l));
    const active = () => ({ chatId: this.chatId, provider: this.model.provider, label: this.model.label, lastMeta: this.metas.at(-1) });
    const pricing = () => this.opts.settings().pricing ?? DEFAULT_PRICING;
    const metasOf = (id: string) => (id === this.chatId ? this.metas : this.store.turnMetas(id));
    this.costs = new ChatCosts({ pricing, active, turnMetas: metasOf, log: (l) => this.log(l) }, opts.now);
    for (const w of this.store.warnings) this.log(w);
    const initial = chatId && this.store.hasChat(chatId) ? chatId : this.store.listChats()[0]?.id;
    this.chatId = initial ?? this.freshId();
    this.pipeline = new TurnPipeline({
      engine: this.newEngine(this.chatId),
      port: opts.port,
      check: opts.check,
      warm: (t, s) => this.warm(t, s),
      log: (l) => this.log(l),
    });
    this.attachStore();
    if (initial) {
      try {
        this.openChat(initial);
      } catch (e) {
        // A damaged chat (moved aside by the store) must not keep the panel from opening.
        this.log(`chat ${initial} could not be opened: ${(e as Error).message}`);
        this.switchTo(this.freshId(), undefined);
      }
    }
  }

  /** Opens the store and the chat to show: `chatId` when it exists, else the most recent, else a new one. */
  static open(opts: ChatSessionOptions, chatId?: string): ChatSession {
    return new ChatSession(opts, chatId);
  }

  // ------------------------------------------------------------------ chats

  get activeChatId(): string {
    return this.chatId;
  }

  /** The active chat's title. */
  get title(): string {
    return this.store.listChats().find((c) => c.id === this.chatId)?.title ?? this.pendingTitle ?? 'New chat';
  }

  /** A turn is streaming. */
  get busy(): boolean {
    return !!this.running;
  }

  get engine(): PromptContextEngine {
    return this.pipeline.engine;
  }

  /** The chat list (most recent first); a new chat not saved yet comes first. */
  chats(): ChatSummaryView[] {
    const reads = { left: LISTED_TOTAL_READS };
    const list: ChatSummaryView[] = this.store
      .listChats()
      .map((c) => this.costs.summary(c, c.id === this.chatId ? this.metas : undefined, reads));
    if (!list.some((c) => c.id === this.chatId))
      list.unshift({ id: this.chatId, title: this.pendingTitle ?? 'New chat', turns: 0, updatedAt: '' });
    return list;
  }

  /** Starts a new chat (the current one stays in the list). An empty unsaved chat is reused. */
  newChat(): string {
    this.assertIdle();
    // A chip's Undo belongs to the chat it was taken off in: a new chat starts without it.
    this.composer.dismissTakenOff();
    if (this.engine.state.completedTurns === 0 && !this.store.hasChat(this.chatId)) return this.chatId;
    this.switchTo(this.freshId(), undefined);
    return this.chatId;
  }

  /** Shows chat `id` (its state exactly as saved; nothing is re-read until the next turn). */
  openChat(id: string): void {
    this.assertIdle();
    const loaded = this.store.loadChat(id);
    for (const w of loaded.warnings) this.log(w);
    this.switchTo(id, loaded);
  }

  renameChat(id: string, title: string): void {
    const clean = title.replace(/\s+/g, ' ').trim();
    if (clean.length === 0) throw new ChatStoreError('invalid-title', 'a chat title cannot be empty');
    if (id === this.chatId && !this.store.hasChat(id)) {
      this.pendingTitle = clean.slice(0, 200);
      return;
    }
    this.store.renameChat(id, clean);
  }

  /** Deletes chat `id`; deleting the active chat opens the most recent other one (or a new chat). */
  deleteChat(id: string): void {
    if (id === this.chatId) this.assertIdle();
    if (this.store.hasChat(id) || this.store.listChats().some((c) => c.id === id)) this.store.deleteChat(id);
    else if (id !== this.chatId) throw new ChatStoreError('not-found', `there is no chat ${id} in this workspace`);
    if (id !== this.chatId) return;
    const next = this.store.listChats()[0]?.id;
    if (next) this.openChat(next);
    else this.switchTo(this.freshId(), undefined);
  }

  /**
   * Another window may have changed this workspace's chats. When the active chat's file is no longer
   * the state shown here, reloads it (only what was appended is read; snapshots already in memory are
   * not read again) and keeps the composer: chips, pending pin / unpin / remove, Compact now. A chat
   * deleted (or found damaged) elsewhere is replaced by the most recent other one. While a turn
   * streams nothing is reloaded: its save detects the change.
   */
  syncWithDisk(): DiskSync {
    if (this.running) return { chat: 'busy' };
    return syncWithDisk(this.synced());
  }

  /** The active chat as a sync with the disk sees it. */
  private synced(): SyncedChat {
    return {
      store: this.store,
      id: this.chatId,
      base: this.base,
      state: () => this.engine.state,
      switchTo: (id, loaded, reload) => this.switchTo(id, loaded, reload),
      openChat: (id) => this.openChat(id),
      openNew: () => this.switchTo(this.freshId(), undefined),
      log: (l) => this.log(l),
    };
  }

  /** `reload`: the same chat as saved now (another window saved to it): the composer and its pending operations stay. */
  private switchTo(id: string, loaded: ReturnType<ChatStore['loadChat']> | undefined, reload = false): void {
    this.chatId = id;
    this.pendingTitle = undefined;
    this.metas = loaded ? loaded.turns.slice() : [];
    this.base = loaded ? { ...loaded.base } : { turns: 0, stateHash: '' };
    if (!reload) {
      this.pending.reset();
      this.composer.dismissTakenOff();
      this.last = undefined;
    }
    const engine = this.newEngine(id, loaded?.state);
    if (loaded) this.tokenCounts.openedFromDisk();
    if (loaded?.engine && !reload) {
      const diff = compareEngineMeta(loaded.engine, engineMeta(engine.options));
      if (diff.length > 0)
        this.log(
          `chat ${id}: the settings differ from the ones its last turn used (${diff.join('; ')}); the next request follows the current settings`,
        );
    }
    this.pipeline.engine = engine;
    this.attachStore();
    this.contextMeter.invalidate();
  }

  private attachStore(): void {
    const chatId = this.chatId;
    this.pipeline.persist = {
      store: this.store,
      chatId,
      title: () => (chatId === this.chatId ? this.pendingTitle : undefined),
      base: () => this.baseOf(chatId),
    };
  }

  private baseOf(chatId: string): ChatBase | undefined {
    return chatId === this.chatId ? { ...this.base } : undefined;
  }

  private freshId(): string {
    const make = this.opts.newChatId ?? defaultChatId;
    for (let i = 0; i < 100; i++) {
      const id = make();
      if (!this.store.hasChat(id)) return id;
    }
    throw new Error('could not find a free chat id');
  }

  // ------------------------------------------------------------------ engine, model, settings

  private settings(): ResolvedSettings {
    return resolvedSettings(this.opts.settings());
  }

  private engineOptions(chatId: string): EngineOptions {
    const { tools, ...rest } = engineSettings(this.settings(), this.model);
    return {
      conversationId: chatId,
      tokenizer: this.opts.tokenizer(this.model.encoding),
      hasher: this.opts.hasher ?? NODE_HASHER,
      ...rest,
      ...(tools ? { tools: true } : {}),
    };
  }

  private newEngine(chatId: string, state?: ReturnType<ChatStore['loadChat']>['state']): PromptContextEngine {
    const options = this.engineOptions(chatId);
    this.tokenCounts.track(chatId, options.tokenizer as SessionTokenizer);
    return new PromptContextEngine(options, state);
  }

  /** The model in force. */
  get modelInfo(): ModelInfo {
    return this.model;
  }

  private get model(): ModelInfo {
    return this.models.current;
  }

  /**
   * Switches the model: new limits at once (the meter follows); a different encoding gets a new
   * tokenizer. While a reply streams, the switch waits for the end of the turn.
   */
  setModel(given: ModelInfo): void {
    this.models.set(given);
  }

  /**
   * Settings changed (layout, policy, instructions, thresholds, reserved output): the engine follows
   * from the next request on. Returns the error message of invalid thresholds (then the defaults apply).
   */
  settingsChanged(): string | undefined {
    return this.models.settingsChanged();
  }

  /** Counts `text` in slices that yield, so a later `count` of it is a memo hit. */
  warm(text: string, signal?: AbortSignal): Promise<void> {
    const tok = this.engine.options.tokenizer as SessionTokenizer;
    return tok.warm ? tok.warm(text, signal) : Promise.resolve();
  }

  // ------------------------------------------------------------------ composer chips

  chips(): ChipView[] {
    return this.composer.views();
  }

  /**
   * Attaches a file or a selection to the next message: resolved (isolated and read) now; a
   * selection's snapshot is final, a file is read again when the message is sent. Big content is
   * counted, and the meter that shows it built, without holding the event loop.
   */
  async attach(spec: AttachmentSpec, signal?: AbortSignal): Promise<{ ok: true; chip: ChipView } | { ok: false; rejection: Rejection }> {
    const r = await this.opts.port.resolve(spec);
    if (!r.ok) return r;
    return { ok: true, chip: await this.attachInput(spec, r.input, {}, signal) };
  }

  /**
   * Puts an input the workspace port already resolved and checked on the next message, as `attach`
   * does: a large file's first lines (`extras.partial`) or its outline (`extras.outline`).
   */
  async attachInput(spec: AttachmentSpec, input: NewArtifactInput, extras: ChipExtras = {}, signal?: AbortSignal): Promise<ChipView> {
    await this.warm(input.content, signal);
    const tokens = this.engine.options.tokenizer.count(input.content);
    const chip = this.composer.put(spec, input, tokens, extras);
    this.contextMeter.invalidate();
    // The meter that follows builds the new block (megabytes to hash and count for a large file):
    // built here in slices, the meter shown next is the one kept.
    if (input.content.length >= LONG_INPUT) await this.contextMeter.currentSliced(new TimeSlice(undefined, signal));
    return chip;
  }

  removeChip(id: string): boolean {
    if (!this.composer.remove(id)) return false;
    this.contextMeter.invalidate();
    return true;
  }

  pinChip(id: string, pinned: boolean): boolean {
    if (!this.composer.setPinned(id, pinned)) return false;
    this.contextMeter.invalidate();
    return true;
  }

  clearChips(): void {
    this.composer.reset();
    this.contextMeter.invalidate();
  }

  // ------------------------------------------------------------------ items already in the chat

  /** The attachments of the active chat (newest version of each), with what the next turn does to them. */
  chatItems(): ChatItemView[] {
    return this.pending.itemViews(this.engine.state);
  }

  /** Pins or unpins an item already in the chat from the next turn on (the meter shows it at once). */
  setItemPinned(id: string, pinned: boolean): boolean {
    if (!this.pending.setPinned(this.engine.state, id, pinned)) return false;
    this.contextMeter.invalidate();
    return true;
  }

  /** Removes an item from the chat from the next turn on (a reported cut, `detach` in the request). */
  removeItem(id: string): boolean {
    if (!this.pending.remove(this.engine.state, id)) return false;
    this.contextMeter.invalidate();
    return true;
  }

  /** Forgets a pending pin / unpin / remove. */
  cancelItemOp(id: string): void {
    if (this.pending.cancel(id)) this.contextMeter.invalidate();
  }

  /** Compact now: the next request is cut down to the target percent of the budget. */
  compactNow(): MeterView {
    this.pending.requestCompaction();
    this.contextMeter.invalidate();
    return this.meter();
  }

  // ------------------------------------------------------------------ the next request

  /** What the next request is made of: the chat's state, the chips, the pending operations. */
  private nextParts(): NextRequestParts {
    return {
      state: this.engine.state,
      composer: this.composer,
      pending: this.pending,
      targetPercent: () => this.settings().thresholds.targetPercent,
    };
  }

  /**
   * The context meter: the predicted next request (history + chips + pending operations + an empty
   * message), built and abandoned. While a turn streams, the last value.
   */
  meter(): MeterView {
    return this.contextMeter.current();
  }

  /**
   * The meter when it is at hand: the last one while nothing changed, or a new one for a chat short
   * enough to count at once; undefined for a long chat not counted yet in this window (its first
   * build renders, and perhaps prunes, its whole history: the panel shows the messages first).
   */
  meterIfReady(): MeterView | undefined {
    return this.contextMeter.ifReady();
  }

  /** The meter, built giving the event loop a turn every few ms (undefined: superseded meanwhile, see `ContextMeter.currentSliced`). */
  meterSliced(slice: TimeSlice): Promise<MeterView | undefined> {
    return this.contextMeter.currentSliced(slice);
  }

  /** The active chat's costs: per turn, its total, the prompt cache's expiry. */
  get chatCosts(): ChatCosts {
    return this.costs;
  }

  /** The predicted next request the meter shows (history + chips + pending operations + an empty message). */
  predictedEnvelope(): TurnEnvelope | undefined {
    return this.contextMeter.predictedEnvelope();
  }

  /** Metadata of each completed turn of the active chat, oldest first (the Context Layers "Requests"). */
  turnMetas(): readonly TurnMeta[] {
    return this.metas;
  }

  // ------------------------------------------------------------------ turns

  /**
   * Sends `text` with the chips and pending operations through the turn pipeline. `provider`
   * undefined: a preview (the exact request; nothing sent or kept). Events reach `onEvent` as they
   * happen; the session's own state (messages, chips, meter) is updated before the final event.
   * A kept turn (done, or stopped after some text) clears the chips and pending operations.
   */
  send(
    text: string,
    provider: ChatProvider | undefined,
    model?: ModelInfo,
    signal?: AbortSignal,
    onEvent?: (e: TurnEvent) => void,
  ): Promise<TurnOutcome> {
    this.assertIdle();
    if (model) this.setModel(model);
    return this.runTurn(nextRequest(this.nextParts(), text), provider, signal, onEvent, { fromComposer: true });
  }

  /**
   * Regenerate: runs the last turn again — same text, attachments (selection snapshots as they were)
   * and operations — on the state before it; with an unchanged workspace the request is byte-identical.
   * The new reply replaces the old one in the store only once it is complete (or stopped with text);
   * on an error the old turn stays. Without a provider: the preview of that request. Chips and pending
   * operations are left for the next message.
   */
  regenerate(
    provider: ChatProvider | undefined,
    model?: ModelInfo,
    signal?: AbortSignal,
    onEvent?: (e: TurnEvent) => void,
  ): Promise<TurnOutcome> {
    this.assertIdle();
    if (model) this.setModel(model);
    const n = this.engine.state.completedTurns;
    if (n === 0 || !this.store.hasChat(this.chatId)) throw new Error('There is no reply to regenerate.');
    const request = turnRequestFromStored(this.engine.state, n, this.metas[n - 1], (l) => this.log(l));
    const before = this.store.loadChat(this.chatId, { throughTurn: n - 1 });
    const engine = new PromptContextEngine(this.engine.options, before.state);
    return this.runTurn(request, provider, signal, onEvent, {
      fromComposer: false,
      regenerate: { engine, previous: this.engine, turn: n },
    });
  }

  /** Stops the streaming turn (what streamed so far is kept, marked stopped). */
  stop(): void {
    this.running?.controller.abort();
  }

  private runTurn(
    request: TurnRequest,
    provider: ChatProvider | undefined,
    signal: AbortSignal | undefined,
    onEvent: ((e: TurnEvent) => void) | undefined,
    how: { fromComposer: boolean; regenerate?: { engine: PromptContextEngine; previous: PromptContextEngine; turn: number } },
  ): Promise<TurnOutcome> {
    const controller = new AbortController();
    const forward = () => controller.abort();
    if (signal?.aborted) controller.abort();
    else signal?.addEventListener('abort', forward, { once: true });
    const s = this.settings();
    const chatId = this.chatId;
    if (how.regenerate) {
      this.pipeline.engine = how.regenerate.engine;
      this.pipeline.persist = { store: this.store, chatId, replaceLast: true, base: () => this.baseOf(chatId) };
    }
    // Busy from here: with an in-memory port and a scripted provider the whole turn may complete
    // (and settle) before `run` even returns its promise.
    const token: { controller: AbortController; done?: Promise<TurnOutcome> } = { controller };
    this.running = token;
    let settled = false;
    const settle = (outcome: TurnOutcome) => {
      if (settled) return;
      settled = true;
      if (this.running === token) this.running = undefined;
      this.settle(outcome, how, chatId);
    };
    const cacheExpired = provider ? this.costs.expiredAtSend() : undefined;
    const done = this.pipeline
      .run(
        request,
        provider,
        turnSendOptions({
          model: this.model,
          settings: s,
          engine: this.engine,
          port: this.opts.port,
          provider,
          cacheExpired,
          chatId,
          signal: controller.signal,
          onEvent: (ev) => {
            if (isFinal(ev)) settle(ev.outcome);
            onEvent?.(ev);
          },
        }),
      )
      .then((outcome) => {
        settle(outcome);
        return outcome;
      })
      .finally(() => signal?.removeEventListener('abort', forward));
    token.done = done;
    return done;
  }

  /** The session's state after a turn, set before the final event reaches the host. */
  private settle(
    outcome: TurnOutcome,
    how: { fromComposer: boolean; regenerate?: { previous: PromptContextEngine; turn: number } },
    chatId: string,
  ): void {
    const kept = outcome.status === 'done' || (outcome.status === 'stopped' && outcome.kept);
    if (how.regenerate) {
      this.attachStore();
      if (kept && outcome.meta) this.metas[how.regenerate.turn - 1] = outcome.meta;
      else if (!kept) this.pipeline.engine = how.regenerate.previous;
    } else if (kept && outcome.meta) {
      // Rebuilt after another window's turns: the metas of those turns come from the disk too.
      if (outcome.saved?.rebased) this.metas = savedMetas(this.store, chatId, (l) => this.log(l)) ?? [...this.metas, outcome.meta];
      else this.metas.push(outcome.meta);
    }
    if (kept && outcome.saved && chatId === this.chatId) {
      this.base = { ...outcome.saved.base };
      this.tokenCounts.save(chatId, this.engine.options.tokenizer as SessionTokenizer);
    }
    if (kept) {
      if (outcome.envelope) this.last = { chatId, turn: outcome.saved?.turn ?? outcome.envelope.turn, messages: outcome.envelope.messages };
      if (how.fromComposer) {
        this.composer.reset();
        this.pending.reset();
      } else this.pending.compactionDone();
      this.pendingTitle = undefined;
    }
    if (outcome.status === 'error' && (outcome.error.code === 'persist-failed' || outcome.error.code === 'chat-changed'))
      followDiskAfterFailedSave(this.synced(), chatId, outcome.error.code);
    if (outcome.violations.length > 0)
      this.log(
        `turn ${outcome.envelope?.turn}: invariant violations: ${outcome.violations.map((v) => `${v.rule}: ${v.detail}`).join('; ')}`,
      );
    this.models.turnEnded(kept ? outcome.meta?.serverCut : undefined);
    this.contextMeter.invalidate();
  }

  /** The exact messages of the last request sent in this chat during this session ("Show Last Request"). */
  lastRequest(): { turn: number; messages: ChatMessage[] } | undefined {
    return this.last && this.last.chatId === this.chatId ? { turn: this.last.turn, messages: this.last.messages } : undefined;
  }

  /** Waits for the streaming turn, if any (deactivate, tests). */
  async idle(): Promise<void> {
    await this.running?.done?.catch(() => undefined);
  }

  private assertIdle(): void {
    if (this.running) throw new Error('A reply is still streaming: stop it first.');
  }

  // ------------------------------------------------------------------ messages

  /**
   * The messages of the active chat as the panel shows them, oldest first: the `last` N turns (two
   * messages each) before turn `beforeTurn` (default: after the last turn). Cost: O(turns returned).
   */
  messages(opts: { last?: number; beforeTurn?: number } = {}): { messages: MessageView[]; hasOlder: boolean } {
    return messageViews(this.engine.state, this.metas, { ...opts, undoable: this.blocks.undoable() }, (m) => this.costs.messageCost(m));
  }

  private log(line: string): void {
    this.opts.log?.(line);
  }
}
