/**
 * The host side of the chat panel, one per window. It owns nothing of the chat itself (the
 * ChatSession in src/services does): it turns panel requests, commands and editor state into session
 * calls, and the session's turn events into panel messages, the status bar and the Context Layers
 * tree. The webview is UI; this decides.
 */
import { runBannerAction } from './panel/bannerActions';
import { PanelBanners } from './panel/panelBanners';
import type { RefusalActions } from './context/refusalActions';
import { ResolvedProviderCache } from './providers/resolvedProvider';
import * as vscode from 'vscode';
import { Disposable } from '../common/lifecycle';
import type { Rejection } from '../engine/isolation';
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
} from '../protocol/messages';
import type { ResponseOf, WebviewRequestKind, WebviewRequestOf } from '../protocol/requests';
import type { ChatSession } from '../services/chatSession';
import { TimeSlice } from '../services/timeSlice';
import type { TurnOutcome } from '../services/turnPipeline';
import { editorSpecs, uriSpec, type SpecOrRefusal } from './context/attachFromEditor';
import { attachedItems, type AttachedItem } from './context/attachedItems';
import type { ChatViewProvider, PanelHandler } from './panel/chatViewProvider';
import { PanelTurns } from './panel/panelTurns';
import { INITIAL_TURNS, panelRequestHandlers, type PanelFileActions, type PanelRequestHandlers } from './panel/panelRequests';
import { inContextView } from '../services/session/inContext';
import type { PanelComposerActions } from './panel/panelRequests';
import type { ProviderResolver, ResolvedProvider } from './providers/providerResolver';
import { SentRequestLog, type SentRequest, type WholeRequest } from './views/sentRequests';
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
  private readonly providers: ResolvedProviderCache;
  private lastText: string | undefined;
  /** The turn on screen: its streaming reply, its end, the prompt cache's expiry timer. */
  private readonly turns: PanelTurns;
  /** The store changed on disk while a turn streamed: look again when it ends. */
  private storeChangedDuringTurn = false;
  private readonly sent = new SentRequestLog();
  private readonly requests: PanelRequestHandlers;
  private readonly onDidChangeEmitter = this._register(new vscode.EventEmitter<void>());
  /** Fires after anything the Context Layers tree shows changed (turn, attach, pin, chat switch). */
  readonly onDidChange = this.onDidChangeEmitter.event;

  constructor(private readonly deps: ControllerDeps) {
    super();
    this.banners = new PanelBanners((message) => this.post(message));
    this.providers = new ResolvedProviderCache(
      () => deps.resolver.resolve(),
      (r) => {
        this.session.setModel(r.info);
        deps.statusBar.update(this.session.meter());
      },
    );
    this.turns = this._register(
      new PanelTurns({
        session: deps.session,
        sent: this.sent,
        log: deps.log,
        post: (message) => this.post(message),
        changed: () => this.onDidChangeEmitter.fire(),
        showBanner: (severity, message, actions) => this.showBanner(severity, message, actions),
        reportRefusals: (refused) => this.reportRefusals(refused),
        refreshPanel: () => this.refreshPanel(),
        refreshMeter: () => this.refreshMeter(),
        postChats: () => this.postChats(),
        ended: () => {
          if (this.storeChangedDuringTurn) void this.storeChanged();
        },
      }),
    );
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
    return this.turns.current ?? Promise.resolve(undefined);
  }

  // ------------------------------------------------------------------ provider and model

  /** The provider as the settings say now (kept until settings, keys or editor models change). */
  provider(): Promise<ResolvedProvider> {
    return this.providers.get();
  }

  /** Settings, keys or the editor's models changed: resolve again and refresh the panel. */
  async refreshProvider(): Promise<void> {
    this.providers.invalidate();
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
    return this.providers.current?.view;
  }

  // ------------------------------------------------------------------ panel

  async panelState(): Promise<PanelState> {
    const r = await this.provider().catch((e) => {
      this.deps.log.error(`provider: ${e instanceof Error ? e.message : String(e)}`);
      return undefined;
    });
    const { messages, hasOlder } = this.renderableMessages();
    messages.push(...this.turns.streamingMessages(this.session.activeChatId));
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
      preview: this.turns.preview,
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
      // The state carries the meter, not the "In context" row: a view loaded again (shown after
      // being hidden, or reloaded) would show an empty row until something changed.
      this.postInContext();
      this.deps.statusBar.update(state.meter);
      this.turns.armCacheExpiry();
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
    this.postInContext();
    this.deps.statusBar.update(meter);
    this.turns.armCacheExpiry();
  }

  /** What the next message carries besides the chips, from the same predicted request the meter shows. */
  private postInContext(): void {
    this.post({ type: 'inContext', inContext: inContextView(this.session.predictedEnvelope()?.ledger, this.session.chatItems()) });
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

  private bannerAction(bannerId: string, action: BannerAction): Promise<void> {
    return runBannerAction(
      {
        banners: this.banners,
        clear: (id) => this.clearBanners((b) => b.id === id),
        log: this.deps.log,
        retry: async () => {
          if (this.lastText !== undefined) await this.send(this.lastText);
        },
        refusals: this.deps.refusals,
      },
      bannerId,
      action,
    );
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
      if (this.busy || this.turns.streaming) {
        this.storeChangedDuringTurn = true;
        this.postChats();
        return;
      }
      this.storeChangedDuringTurn = false;
      const sync = this.session.syncWithDisk();
      if (sync.chat === 'reloaded' || sync.chat === 'removed') {
        this.turns.forgetPreview();
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
    await this.turns.current;
    this.session.newChat();
    this.turns.forgetPreview();
    this.clearBanners();
    await this.refreshPanel();
    await this.deps.view.reveal(true);
  }

  async switchChat(chatId: string): Promise<void> {
    if (chatId === this.session.activeChatId) return;
    this.stop();
    await this.turns.current;
    await this.session.store.preloadChat(chatId, new TimeSlice());
    this.session.openChat(chatId);
    this.turns.forgetPreview();
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
      await this.turns.current;
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
    if (this.busy || this.turns.streaming) throw new Error('A reply is still streaming. Stop it first.');
    if (text.trim().length === 0 && this.session.chips().length === 0) throw new Error('Type a message first.');
    this.lastText = text;
    // A workspace-chosen endpoint is asked about here, on the user's own send, never on a refresh.
    if (await this.deps.resolver.confirmPendingEndpoint()) await this.refreshProvider();
    const resolved = await this.provider();
    this.clearBanners((b) => b.severity === 'error');
    if (!resolved.provider) {
      await this.turns.showPreview(text, resolved);
      return;
    }
    this.turns.withdrawPreview();
    if (await this.syncBeforeTurn(text)) return;
    const chatId = this.session.activeChatId;
    const turn = this.session.engine.state.completedTurns + 1;
    const user: MessageView = { id: `${turn}:user`, turn, role: 'user', text, status: 'complete' };
    const labels = this.session.chips().map((c) => c.label);
    if (labels.length > 0) user.attachments = labels;
    this.turns.start(
      chatId,
      user,
      resolved,
      (signal, onEvent) => this.session.send(text, resolved.provider, resolved.info, signal, onEvent),
      text,
    );
  }

  async regenerate(): Promise<void> {
    if (this.busy || this.turns.streaming) throw new Error('A reply is still streaming. Stop it first.');
    const resolved = await this.provider();
    if (!resolved.provider) throw new Error(resolved.problem?.message ?? 'No model is configured.');
    if (await this.syncBeforeTurn(undefined)) return;
    const { messages } = this.session.messages({ last: 1 });
    const user = messages.find((m) => m.role === 'user');
    if (!user) throw new Error('There is no reply to regenerate.');
    const chatId = this.session.activeChatId;
    this.post({ type: 'removeTurn', chatId, turn: user.turn });
    this.turns.start(
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
