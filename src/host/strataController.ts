/**
 * The host side of the chat panel, one per window. It owns nothing of the chat itself (the
 * ChatSession in src/services does): it turns panel requests, commands and editor state into session
 * calls, and the session's turn events into panel messages, the status bar and the Context Layers
 * tree. The webview is UI; this decides.
 */
import { actionKeepsBanner, settingsQuery } from './settings/bannerSettings';
import { PanelBanners } from './panel/panelBanners';
import { BASE_URL_SETTING, notSentHowTo, providerErrorActions } from './providers/providerAdvice';
import type { RefusalActions } from './context/refusalActions';
import * as vscode from 'vscode';
import { Disposable } from '../common/lifecycle';
import type { Rejection } from '../engine/isolation';
import type { TurnEnvelope } from '../engine/engine';
import type {
  AttachWhat,
  BannerAction,
  BannerView,
  ChipView,
  HostToWebviewMessage,
  MeterView,
  MessageView,
  ModelView,
  NoticeView,
  PanelState,
  RequestPreviewView,
  ToolStepView,
} from '../protocol/messages';
import type { ResponseOf, WebviewRequestKind, WebviewRequestOf } from '../protocol/requests';
import type { ChatSession } from '../services/chatSession';
import { callLabel } from '../services/tools/definitions';
import { TimeSlice } from '../services/timeSlice';
import type { TurnEvent, TurnOutcome } from '../services/turnPipeline';
import { editorSpecs, uriSpec, type SpecOrRefusal } from './context/attachFromEditor';
import { attachedItems, type AttachedItem } from './context/attachedItems';
import type { ChatViewProvider, PanelHandler } from './panel/chatViewProvider';
import { INITIAL_TURNS, panelRequestHandlers, type PanelFileActions, type PanelRequestHandlers } from './panel/panelRequests';
import { inContextView } from '../services/session/inContext';
import type { PanelComposerActions } from './panel/panelRequests';
import type { ProviderResolver, ResolvedProvider } from './providers/providerResolver';
import { requestDump, SentRequestLog, type SentRequest, type WholeRequest } from './views/sentRequests';
import type { MeterStatusBar } from './views/statusBar';

export interface ControllerDeps {
  session: ChatSession;
  resolver: ProviderResolver;
  view: ChatViewProvider;
  statusBar: MeterStatusBar;
  log: vscode.LogOutputChannel;
  notices: () => NoticeView[];
  files: PanelFileActions;
  composer: PanelComposerActions;
  /** Refused attachments: banners, notifications while the panel is hidden, and what can be done instead. */
  refusals: Pick<RefusalActions, 'report' | 'perform'>;
}

const NO_MODEL: ModelView = { provider: 'none', model: '', label: 'No model configured', configured: false, imitation: false };

export class StrataController extends Disposable implements PanelHandler {
  private readonly banners: PanelBanners;
  private preview: RequestPreviewView | undefined;
  private resolved: ResolvedProvider | undefined;
  private resolving: Promise<ResolvedProvider> | undefined;
  private lastText: string | undefined;
  private turnCounter = 0;
  /** The turn streaming now: its panel id and the partial reply (for a panel re-created mid-turn). */
  private streaming:
    { chatId: string; turnId: string; user: MessageView; text: string; nextSeq: number; steps: ToolStepView[] } | undefined;
  private current: Promise<TurnOutcome | undefined> | undefined;
  /** The store changed on disk while a turn streamed: look again when it ends. */
  private storeChangedDuringTurn = false;
  private readonly sent = new SentRequestLog();
  private readonly requests: PanelRequestHandlers;
  private readonly onDidChangeEmitter = this._register(new vscode.EventEmitter<void>());
  private cacheExpiryTimer: ReturnType<typeof setTimeout> | undefined;
  /** Fires after anything the Context Layers tree shows changed (turn, attach, pin, chat switch). */
  readonly onDidChange = this.onDidChangeEmitter.event;

  constructor(private readonly deps: ControllerDeps) {
    super();
    this.banners = new PanelBanners((message) => this.post(message));
    this._register({ dispose: () => clearTimeout(this.cacheExpiryTimer) });
    this.requests = panelRequestHandlers({
      session: deps.session,
      files: deps.files,
      composer: deps.composer,
      send: (text) => this.send(text),
      stop: () => this.stop(),
      regenerate: () => this.regenerate(),
      newChat: () => this.newChat(),
      switchChat: (chatId) => this.switchChat(chatId),
      deleteChat: (chatId, confirm) => this.deleteChat(chatId, confirm),
      attach: (what) => this.attach(what),
      refreshProvider: () => this.refreshProvider(),
      bannerAction: (bannerId, action) => this.bannerAction(bannerId, action),
      modelOptions: () => deps.resolver.modelOptions(),
      chatsChanged: () => this.postChats(),
      chipsChanged: () => this.refreshChips(),
      post: (message) => this.post(message),
    });
  }

  get session(): ChatSession {
    return this.deps.session;
  }

  private post(message: HostToWebviewMessage): void {
    this.deps.view.post(message);
  }

  get busy(): boolean {
    return this.session.busy;
  }

  /** The turn in flight (tests and Retry await it). */
  whenTurnDone(): Promise<TurnOutcome | undefined> {
    return this.current ?? Promise.resolve(undefined);
  }

  // ------------------------------------------------------------------ provider and model

  /** The provider as the settings say now (cached until settings, keys or editor models change). */
  async provider(): Promise<ResolvedProvider> {
    if (this.resolved) return this.resolved;
    this.resolving ??= this.deps.resolver.resolve().then(
      (r) => {
        this.resolved = r;
        this.resolving = undefined;
        this.session.setModel(r.info);
        this.deps.statusBar.update(this.session.meter());
        return r;
      },
      (e) => {
        this.resolving = undefined;
        throw e;
      },
    );
    return this.resolving;
  }

  /** Settings, keys or the editor's models changed: resolve again and refresh the panel. */
  async refreshProvider(): Promise<void> {
    this.resolved = undefined;
    const r = await this.provider();
    this.post({ type: 'model', model: r.view });
    this.clearBanners((b) => b.actions.includes('setApiKey') || b.actions.includes('selectModel'));
    this.refreshMeter();
  }

  /** Something the tree shows changed outside a turn (compaction, a pin from a command). */
  notifyChanged(): void {
    this.onDidChangeEmitter.fire();
  }

  /** The model label currently shown. */
  currentModel(): ModelView | undefined {
    return this.resolved?.view;
  }

  // ------------------------------------------------------------------ panel

  async panelState(): Promise<PanelState> {
    const r = await this.provider().catch((e) => {
      this.deps.log.error(`provider: ${e instanceof Error ? e.message : String(e)}`);
      return undefined;
    });
    const { messages, hasOlder } = this.renderableMessages();
    if (this.streaming && this.streaming.chatId === this.session.activeChatId) {
      const s = this.streaming;
      const streamingReply: MessageView = {
        id: `${s.user.turn}:assistant`,
        turn: s.user.turn,
        role: 'assistant',
        text: s.text,
        status: 'streaming',
        turnId: s.turnId,
        nextSeq: s.nextSeq,
      };
      if (s.steps.length > 0) streamingReply.toolSteps = s.steps.map((v) => ({ ...v }));
      messages.push(s.user, streamingReply);
    }
    return {
      chatId: this.session.activeChatId,
      chatTitle: this.session.title,
      chats: this.session.chats(),
      messages,
      hasOlder,
      chips: this.session.composer.panelViews(),
      meter: this.session.meterIfReady(),
      model: r?.view ?? NO_MODEL,
      busy: this.busy,
      banners: this.banners.shown,
      notices: this.deps.notices(),
      preview: this.preview,
    };
  }

  /**
   * The active chat's last turns, or none and an error banner when they cannot be rendered: a chat
   * whose saved data is damaged opens as an empty chat with the reason, never as a panel stuck loading.
   */
  private renderableMessages(): { messages: MessageView[]; hasOlder: boolean } {
    try {
      return this.session.messages({ last: INITIAL_TURNS });
    } catch (e) {
      const why = e instanceof Error ? e.message : String(e);
      this.deps.log.error(`chat ${this.session.activeChatId}: cannot render its messages: ${why}`);
      this.showBanner('error', `This chat cannot be shown: its saved data is damaged (${why}). Start a new chat or delete this one.`);
      return { messages: [], hasOlder: false };
    }
  }

  /** Sends the whole panel again (chat switch, new chat, deleted chat). */
  async refreshPanel(): Promise<void> {
    const state = await this.panelState();
    const delivered = this.deps.view.postDelivered({ type: 'state', state });
    this.onDidChangeEmitter.fire();
    await delivered;
    this.statePosted(state);
  }

  /**
   * A panel state has left for the webview: a meter it did not carry (a long chat just opened) is
   * counted now and follows as a `meter` message; otherwise the status bar shows the one it carried.
   */
  statePosted(state: PanelState): void {
    if (state.meter) {
      this.deps.statusBar.update(state.meter);
      this.armCacheExpiry();
    } else
      void this.session.meterSliced(new TimeSlice()).then(
        (meter) => {
          if (!meter) return;
          this.showMeter(meter);
          // The tree shows the predicted next request only once it is counted.
          this.onDidChangeEmitter.fire();
        },
        (e) => this.deps.log.error(`the meter could not be built: ${(e as Error).message}`),
      );
  }

  refreshMeter(): void {
    this.showMeter(this.session.meter());
  }

  private showMeter(meter: MeterView): void {
    this.post({ type: 'meter', meter });
    this.post({ type: 'inContext', inContext: inContextView(this.session.predictedEnvelope()?.ledger, this.session.chatItems()) });
    this.deps.statusBar.update(meter);
    this.armCacheExpiry();
  }

  /** The meter and the tree say so when the open chat's prompt cache likely expires: a timer for that moment. */
  private armCacheExpiry(): void {
    clearTimeout(this.cacheExpiryTimer);
    this.cacheExpiryTimer = undefined;
    const at = this.session.chatCosts.expiresAt();
    if (at === undefined) return;
    // A little after the moment, so the session's clock has passed it too.
    this.cacheExpiryTimer = setTimeout(
      () => {
        this.cacheExpiryTimer = undefined;
        this.refreshMeter();
        this.onDidChangeEmitter.fire();
      },
      Math.max(0, at - Date.now()) + 100,
    );
  }

  /** The panel's chips (those taken off the next message too), the meter and the tree. */
  refreshChips(): void {
    this.post({ type: 'chips', chips: this.session.composer.panelViews() });
    this.refreshMeter();
    this.onDidChangeEmitter.fire();
  }

  private postChats(): void {
    this.post({ type: 'chats', chats: this.session.chats(), chatId: this.session.activeChatId, chatTitle: this.session.title });
  }

  /**
   * Shows a banner; its Open Settings opens `setting`, or else the setting the message names, or
   * else all of Strata's settings.
   */
  showBanner(severity: BannerView['severity'], message: string, actions: BannerAction[] = [], setting?: string, path?: string): string {
    return this.banners.show(severity, message, actions, setting, path);
  }

  clearBanners(pred?: (b: BannerView) => boolean): void {
    this.banners.clear(pred);
  }

  handle<K extends WebviewRequestKind>(request: WebviewRequestOf<K>): Promise<ResponseOf<K>> {
    return this.requests[request.kind](request);
  }

  private async bannerAction(bannerId: string, action: BannerAction): Promise<void> {
    const banner = this.banners.find(bannerId);
    if (!actionKeepsBanner(action)) this.clearBanners((b) => b.id === bannerId);
    switch (action) {
      case 'setApiKey':
        await vscode.commands.executeCommand('strata.setApiKey');
        return;
      case 'openSettings':
        await vscode.commands.executeCommand('workbench.action.openSettings', settingsQuery(banner?.setting));
        return;
      case 'selectModel':
        await vscode.commands.executeCommand('strata.selectModel');
        return;
      case 'showLog':
        this.deps.log.show(true);
        return;
      case 'retry':
        if (this.lastText !== undefined) await this.send(this.lastText);
        return;
      case 'undo':
        await vscode.commands.executeCommand('strata.undoPending', { bannerId });
        return;
      case 'editBaseUrl':
        await vscode.commands.executeCommand('workbench.action.openSettings', BASE_URL_SETTING);
        return;
      case 'attachOutline':
      case 'attachHead':
      case 'raiseLimit':
        await this.deps.refusals.perform(action, banner?.path);
        return;
      case 'dismiss':
        return;
    }
  }

  // ------------------------------------------------------------------ chats

  /**
   * The chat store folder changed on disk (another window of this folder saved a turn, renamed or
   * deleted a chat; this window's own saves land here too and change nothing). The active chat is
   * reloaded when it changed, and the panel gets a fresh `state` (and the tree refreshes); otherwise
   * only the chat list is sent. While this window streams a turn, only the list: the turn's save
   * settles a change to its chat, and the rest is looked at when the turn ends.
   */
  async storeChanged(): Promise<void> {
    try {
      if (this.busy || this.streaming) {
        this.storeChangedDuringTurn = true;
        this.postChats();
        return;
      }
      this.storeChangedDuringTurn = false;
      const sync = this.session.syncWithDisk();
      if (sync.chat === 'reloaded' || sync.chat === 'removed') {
        this.preview = undefined;
        if (sync.chat === 'removed') this.showBanner('info', 'The chat you had open was deleted in another window.');
        await this.refreshPanel();
      } else {
        this.postChats();
      }
    } catch (e) {
      this.deps.log.error(`following another window's change to the chats failed: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  /** Before a turn: the active chat as saved now (another window may have added turns). True: the send should not go ahead. */
  private async syncBeforeTurn(text: string | undefined): Promise<boolean> {
    const sync = this.session.syncWithDisk();
    if (sync.chat !== 'reloaded' && sync.chat !== 'removed') return false;
    await this.refreshPanel();
    if (sync.chat === 'reloaded') return false;
    this.showBanner(
      'warning',
      'The chat you had open was deleted in another window, so the message was not sent. It is back in the input.',
    );
    if (text !== undefined) this.post({ type: 'setInput', text });
    return true;
  }

  async newChat(): Promise<void> {
    this.stop();
    await this.current;
    this.session.newChat();
    this.preview = undefined;
    this.clearBanners();
    await this.refreshPanel();
    await this.deps.view.reveal(true);
  }

  async switchChat(chatId: string): Promise<void> {
    if (chatId === this.session.activeChatId) return;
    this.stop();
    await this.current;
    await this.session.store.preloadChat(chatId, new TimeSlice());
    this.session.openChat(chatId);
    this.preview = undefined;
    this.clearBanners();
    await this.refreshPanel();
  }

  async deleteChat(chatId: string, confirm: boolean): Promise<boolean> {
    const chat = this.session.chats().find((c) => c.id === chatId);
    if (!chat) throw new Error('That chat no longer exists.');
    if (confirm) {
      const yes = vscode.l10n.t('Delete');
      const pick = await vscode.window.showWarningMessage(
        vscode.l10n.t('Delete the chat "{0}" ({1} turns)? This cannot be undone.', chat.title, chat.turns),
        { modal: true },
        yes,
      );
      if (pick !== yes) return false;
    }
    if (chatId === this.session.activeChatId) {
      this.stop();
      await this.current;
    }
    this.session.deleteChat(chatId);
    this.sent.forget(chatId);
    await this.refreshPanel();
    return true;
  }

  // ------------------------------------------------------------------ attachments

  /** Attaches from the editor; refusals are shown with their reasons. Returns the chips added. */
  async attach(what: AttachWhat): Promise<ChipView[]> {
    return this.attachSpecs(editorSpecs(what));
  }

  async attachUris(uris: readonly vscode.Uri[]): Promise<ChipView[]> {
    return this.attachSpecs(uris.map(uriSpec));
  }

  /** The attach path: isolation through the session, chips, and refusals shown with their reasons. */
  async attachSpecs(specs: SpecOrRefusal[]): Promise<ChipView[]> {
    const added: ChipView[] = [];
    const refused: Rejection[] = [];
    const work = async () => {
      for (const s of specs) {
        if (!s.ok) {
          refused.push(s.rejection);
          continue;
        }
        const r = await this.session.attach(s.spec);
        if (r.ok) added.push(r.chip);
        else refused.push(r.rejection);
      }
    };
    if (specs.length > 3) {
      await vscode.window.withProgress(
        { location: { viewId: 'strata.chat' }, title: vscode.l10n.t('Attaching {0} files', specs.length) },
        work,
      );
    } else {
      await work();
    }
    this.showAttached(added, refused);
    return added;
  }

  /** Shows what an attach added (the chips) and refused (with the reasons). */
  showAttached(added: readonly ChipView[], refused: readonly Rejection[]): void {
    if (added.length > 0) {
      this.clearBanners((b) => b.severity === 'warning');
      this.refreshChips();
    }
    if (refused.length > 0) this.reportRefusals(refused);
  }

  private reportRefusals(refused: readonly Rejection[]): void {
    this.deps.refusals.report(refused);
  }

  /** Everything a pin / unpin / remove command can name: the chips, then the chat's items. */
  attachedItems(): AttachedItem[] {
    return attachedItems(this.session);
  }

  /** Pins or unpins a chip (by chip id) or an item of the chat (by artifact id or version key). */
  setPinned(ref: string, pinned: boolean): boolean {
    const ok = this.session.chips().some((c) => c.id === ref) ? this.session.pinChip(ref, pinned) : this.session.setItemPinned(ref, pinned);
    if (ok) this.refreshChips();
    return ok;
  }

  remove(ref: string): boolean {
    const ok = this.session.chips().some((c) => c.id === ref) ? this.session.removeChip(ref) : this.session.removeItem(ref);
    if (ok) this.refreshChips();
    return ok;
  }

  // ------------------------------------------------------------------ turns

  /**
   * Sends a message. Resolves once the turn has started (the panel shows it); the reply streams in
   * afterwards (`whenTurnDone`). With no provider, shows the exact request instead and sends nothing.
   */
  async send(text: string): Promise<void> {
    if (this.busy || this.streaming) throw new Error('A reply is still streaming. Stop it first.');
    if (text.trim().length === 0 && this.session.chips().length === 0) throw new Error('Type a message first.');
    this.lastText = text;
    // A workspace-chosen endpoint is asked about here, on the user's own send, never on a refresh.
    if (await this.deps.resolver.confirmPendingEndpoint()) await this.refreshProvider();
    const resolved = await this.provider();
    this.clearBanners((b) => b.severity === 'error');
    if (!resolved.provider) {
      await this.showPreview(text, resolved);
      return;
    }
    if (this.preview) {
      this.preview = undefined;
      this.post({ type: 'preview', preview: null });
    }
    if (await this.syncBeforeTurn(text)) return;
    const chatId = this.session.activeChatId;
    const turn = this.session.engine.state.completedTurns + 1;
    const user: MessageView = { id: `${turn}:user`, turn, role: 'user', text, status: 'complete' };
    const labels = this.session.chips().map((c) => c.label);
    if (labels.length > 0) user.attachments = labels;
    this.startTurn(
      chatId,
      user,
      resolved,
      (signal, onEvent) => this.session.send(text, resolved.provider, resolved.info, signal, onEvent),
      text,
    );
  }

  async regenerate(): Promise<void> {
    if (this.busy || this.streaming) throw new Error('A reply is still streaming. Stop it first.');
    const resolved = await this.provider();
    if (!resolved.provider) throw new Error(resolved.problem?.message ?? 'No model is configured.');
    if (await this.syncBeforeTurn(undefined)) return;
    const { messages } = this.session.messages({ last: 1 });
    const user = messages.find((m) => m.role === 'user');
    if (!user) throw new Error('There is no reply to regenerate.');
    const chatId = this.session.activeChatId;
    this.post({ type: 'removeTurn', chatId, turn: user.turn });
    this.startTurn(
      chatId,
      user,
      resolved,
      (signal, onEvent) => this.session.regenerate(resolved.provider, resolved.info, signal, onEvent),
      undefined,
      true,
    );
  }

  stop(): void {
    this.session.stop();
  }

  private startTurn(
    chatId: string,
    user: MessageView,
    resolved: ResolvedProvider,
    run: (signal: AbortSignal, onEvent: (e: TurnEvent) => void) => Promise<TurnOutcome>,
    text: string | undefined,
    regenerating = false,
  ): void {
    const turnId = `t${++this.turnCounter}`;
    const assistant: MessageView = {
      id: `${user.turn}:assistant`,
      turn: user.turn,
      role: 'assistant',
      text: '',
      status: 'streaming',
      turnId,
      nextSeq: 0,
      model: resolved.view.label,
    };
    this.streaming = { chatId, turnId, user, text: '', nextSeq: 0, steps: [] };
    const showStep = (view: ToolStepView) => {
      const steps = this.streaming?.turnId === turnId ? this.streaming.steps : undefined;
      if (steps) {
        const i = steps.findIndex((v) => v.id === view.id);
        if (i >= 0) steps[i] = view;
        else steps.push(view);
      }
      post({ type: 'toolStep', chatId, turnId, step: view });
    };
    const post = (m: HostToWebviewMessage) => {
      // A chat the user switched away from finishes in the store, not on screen.
      if (this.session.activeChatId === chatId) this.post(m);
    };
    post({ type: 'turnStarted', chatId, turnId, user, assistant });
    setReplyStreaming(true);
    let envelope: TurnEnvelope | undefined;
    const controller = new AbortController();
    const onEvent = (e: TurnEvent) => {
      switch (e.type) {
        case 'built':
          envelope = e.envelope;
          // The tree shows the request in flight at once.
          this.sent.record({
            chatId,
            turn: e.envelope.turn,
            envelope: e.envelope,
            status: 'streaming',
            model: resolved.view.label,
            provider: resolved.view.provider,
          });
          this.onDidChangeEmitter.fire();
          break;
        case 'text':
          if (this.streaming?.turnId === turnId) {
            this.streaming.text += e.text;
            this.streaming.nextSeq = e.seq + 1;
          }
          post({ type: 'chunk', chatId, turnId, seq: e.seq, text: e.text });
          break;
        case 'toolCall':
          showStep({
            id: e.id,
            step: e.step,
            name: e.name,
            label: callLabel({ name: e.name, args: e.args ?? {} }),
            args: e.args ? JSON.stringify(e.args) : '',
            status: 'running',
          });
          break;
        case 'toolResult':
          showStep(e.view);
          this.deps.log.info(
            `[${chatId}] tool ${e.view.label}: ${e.view.summary ?? e.view.status}; ${e.outcome.mode}${e.outcome.key ? ` ${e.outcome.key}` : ''}, ${e.outcome.tokens} tokens`,
          );
          break;
        default:
          break;
      }
    };
    this.current = run(controller.signal, onEvent)
      .then((outcome) => {
        this.finishTurn(outcome, { chatId, turnId, user, resolved, envelope: outcome.envelope ?? envelope, text, regenerating, post });
        return outcome;
      })
      .catch((e: unknown) => {
        // The session refused to start (busy, nothing to regenerate): nothing was kept.
        const message = e instanceof Error ? e.message : String(e);
        post({ type: 'turnEnded', chatId, turnId, assistant: { ...assistant, status: 'error', error: message }, kept: false });
        this.showBanner('error', message, ['showLog']);
        if (regenerating) void this.refreshPanel();
        return undefined;
      })
      .finally(() => {
        if (this.streaming?.turnId === turnId) this.streaming = undefined;
        this.current = undefined;
        setReplyStreaming(false);
        this.refreshMeter();
        this.postChats();
        this.onDidChangeEmitter.fire();
        if (this.storeChangedDuringTurn) void this.storeChanged();
      });
  }

  private finishTurn(
    outcome: TurnOutcome,
    t: {
      chatId: string;
      turnId: string;
      user: MessageView;
      resolved: ResolvedProvider;
      envelope: TurnEnvelope | undefined;
      text: string | undefined;
      regenerating: boolean;
      post: (m: HostToWebviewMessage) => void;
    },
  ): void {
    const { chatId, turnId, post } = t;
    // The turn is over: a panel state sent from here on must not show it as streaming as well.
    if (this.streaming?.turnId === turnId) this.streaming = undefined;
    const saved = outcome.status === 'done' || outcome.status === 'stopped' ? outcome.saved : undefined;
    if (t.envelope && outcome.status !== 'blocked') {
      const usage = outcome.status === 'done' || outcome.status === 'stopped' ? outcome.usage : undefined;
      this.sent.record({
        chatId,
        turn: saved?.turn ?? t.envelope.turn,
        envelope: t.envelope,
        status: outcome.status,
        usage,
        model: t.resolved.view.label,
        provider: t.resolved.view.provider,
      });
    }
    if (outcome.rejections.length > 0) this.reportRefusals(outcome.rejections);
    const kept = outcome.status === 'done' || (outcome.status === 'stopped' && outcome.kept);
    if (kept) {
      const last =
        this.session.activeChatId === chatId ? this.session.messages({ last: 1 }).messages.find((m) => m.role === 'assistant') : undefined;
      const assistant: MessageView = last ?? {
        id: `${t.user.turn}:assistant`,
        turn: t.user.turn,
        role: 'assistant',
        text: outcome.status === 'done' || outcome.status === 'stopped' ? outcome.reply : '',
        status: outcome.status === 'stopped' ? 'stopped' : 'complete',
      };
      post({ type: 'turnEnded', chatId, turnId, assistant, kept: true });
      post({ type: 'chips', chips: this.session.composer.panelViews() });
      if (saved?.rebased) {
        // The other window's turns go before this one: the panel shows the chat as saved.
        const n = saved.rebased.otherTurns;
        this.showBanner(
          'info',
          `Another window added ${n === 1 ? 'a turn' : `${n} turns`} to this chat while this reply streamed. Your turn was saved after ${n === 1 ? 'it' : 'them'} (turn ${saved.turn}); the reply was written without ${n === 1 ? 'it' : 'them'}.`,
        );
        void this.refreshPanel();
      }
      return;
    }
    const base: MessageView = { id: `${t.user.turn}:assistant`, turn: t.user.turn, role: 'assistant', text: '', status: 'error' };
    switch (outcome.status) {
      case 'stopped':
        post({ type: 'turnEnded', chatId, turnId, assistant: { ...base, status: 'stopped' }, kept: false });
        break;
      case 'error': {
        post({ type: 'turnEnded', chatId, turnId, assistant: { ...base, error: outcome.error.message }, kept: false });
        if (outcome.error.code === 'chat-changed') {
          // The session reloaded the chat as saved; the message goes back into the input below.
          this.showBanner(
            'warning',
            `${outcome.error.message} Your message is back in the input: send it again to ask with the chat as it is now.`,
            ['retry'],
          );
          void this.refreshPanel();
        } else {
          this.showProviderError(outcome.error.message, outcome.error.code);
        }
        break;
      }
      case 'blocked':
        post({ type: 'turnEnded', chatId, turnId, assistant: { ...base, error: outcome.message }, kept: false });
        this.showBanner('error', outcome.message, ['openSettings']);
        break;
      case 'preview':
        post({ type: 'turnEnded', chatId, turnId, assistant: { ...base, status: 'stopped' }, kept: false });
        break;
      default:
        break;
    }
    // Nothing typed is lost: the message goes back into the input.
    if (t.text !== undefined) post({ type: 'setInput', text: t.text, chatId });
    // A failed regeneration leaves the old reply: show the chat as it is.
    if (t.regenerating) void this.refreshPanel();
  }

  private showProviderError(message: string, code: string): void {
    if (code === 'aborted') return;
    this.showBanner('error', message, providerErrorActions(code, this.resolved?.view.provider !== 'vscode-lm'));
  }

  private async showPreview(text: string, resolved: ResolvedProvider): Promise<void> {
    const outcome = await this.session.send(text, undefined, resolved.info);
    if (outcome.status === 'blocked') {
      this.showBanner('error', outcome.message, ['openSettings']);
      return;
    }
    if (outcome.rejections.length > 0) this.reportRefusals(outcome.rejections);
    if (!outcome.envelope) {
      this.showBanner('error', 'The request could not be built.', ['showLog']);
      return;
    }
    this.sent.record({
      chatId: this.session.activeChatId,
      turn: outcome.envelope.turn,
      envelope: outcome.envelope,
      status: 'preview',
      model: resolved.view.label,
      provider: 'none',
    });
    const problem = resolved.problem?.message ?? 'No model is configured.';
    this.preview = {
      request: requestDump(outcome.envelope),
      promptTokens: outcome.envelope.totalTokens,
      howTo: notSentHowTo(problem),
    };
    this.post({ type: 'preview', preview: this.preview });
    this.post({ type: 'setInput', text });
    this.showBanner('info', problem, [resolved.problem?.action ?? 'selectModel', 'openSettings']);
    this.refreshMeter();
    this.onDidChangeEmitter.fire();
  }

  // ------------------------------------------------------------------ requests sent

  /** Requests of the active chat sent (or previewed) in this window, by turn. */
  sentRequests(): ReadonlyMap<number, SentRequest> {
    return this.sent.of(this.session.activeChatId);
  }

  /** The last request of the active chat that went out (or was previewed), if this window made it. */
  lastSent(): WholeRequest | undefined {
    return this.sent.last(this.session.activeChatId);
  }
}

/** Enables "Stop the Reply" and its keybinding only while a reply streams. */
function setReplyStreaming(streaming: boolean): void {
  void vscode.commands.executeCommand('setContext', 'strataReplyStreaming', streaming);
}
