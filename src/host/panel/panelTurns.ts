/**
 * A turn as the panel sees it: the reply streaming now (kept so a panel re-created mid-turn shows
 * it), the session's turn events turned into panel messages and requests-sent records, the end of
 * the turn (kept, stopped, failed, refused) with its banners, and the timer that refreshes the meter
 * when the open chat's prompt cache likely expires; without a model, the request shown instead of
 * sent. The controller decides when a turn starts; this runs it on screen.
 */
import * as vscode from 'vscode';
import type { IDisposable } from '../../common/lifecycle';
import type { TurnEnvelope } from '../../engine/engine';
import type { Rejection } from '../../engine/isolation';
import type {
  BannerAction,
  BannerView,
  HostToWebviewMessage,
  MessageView,
  RequestPreviewView,
  ToolStepView,
} from '../../protocol/messages';
import type { ChatSession } from '../../services/chatSession';
import { callLabel } from '../../services/tools/definitions';
import type { TurnEvent, TurnOutcome } from '../../services/turnPipeline';
import { notSentHowTo, providerErrorActions } from '../providers/providerAdvice';
import type { ResolvedProvider } from '../providers/providerResolver';
import { requestDump, type SentRequestLog } from '../views/sentRequests';

/** What a turn on screen needs from the controller. */
export interface PanelTurnsDeps {
  session: ChatSession;
  sent: SentRequestLog;
  log: vscode.LogOutputChannel;
  post(message: HostToWebviewMessage): void;
  /** Something the Context Layers tree shows changed. */
  changed(): void;
  showBanner(severity: BannerView['severity'], message: string, actions?: BannerAction[]): string;
  reportRefusals(refused: readonly Rejection[]): void;
  refreshPanel(): Promise<void>;
  refreshMeter(): void;
  postChats(): void;
  /** Every turn's last step, kept or not (the controller looks at what changed meanwhile). */
  ended(): void;
}

/** How a turn ends on screen: what `start` knew when it began. */
interface TurnOnScreen {
  chatId: string;
  turnId: string;
  user: MessageView;
  resolved: ResolvedProvider;
  envelope: TurnEnvelope | undefined;
  text: string | undefined;
  regenerating: boolean;
  post: (m: HostToWebviewMessage) => void;
}

export class PanelTurns implements IDisposable {
  private turnCounter = 0;
  /** The turn streaming now: its panel id and the partial reply (for a panel re-created mid-turn). */
  private streamingTurn:
    { chatId: string; turnId: string; user: MessageView; text: string; nextSeq: number; steps: ToolStepView[] } | undefined;
  private currentTurn: Promise<TurnOutcome | undefined> | undefined;
  private cacheExpiryTimer: ReturnType<typeof setTimeout> | undefined;
  /** The request shown instead of sent (no model configured), until the next send or chat switch. */
  private shownPreview: RequestPreviewView | undefined;

  constructor(private readonly deps: PanelTurnsDeps) {}

  dispose(): void {
    clearTimeout(this.cacheExpiryTimer);
  }

  /** A turn is on screen (from its start to the end of its last step). */
  get streaming(): boolean {
    return !!this.streamingTurn;
  }

  /** The turn in flight, if any. */
  get current(): Promise<TurnOutcome | undefined> | undefined {
    return this.currentTurn;
  }

  /** The request preview the panel shows, if any (the panel state carries it). */
  get preview(): RequestPreviewView | undefined {
    return this.shownPreview;
  }

  /** Another chat is shown: its panel state carries no preview. */
  forgetPreview(): void {
    this.shownPreview = undefined;
  }

  /** A message is sent: the preview the panel shows goes. */
  withdrawPreview(): void {
    if (this.shownPreview) {
      this.shownPreview = undefined;
      this.deps.post({ type: 'preview', preview: null });
    }
  }

  /** Without a model: the exact request `text` would send, shown in the panel; nothing is sent. */
  async showPreview(text: string, resolved: ResolvedProvider): Promise<void> {
    const { session } = this.deps;
    const outcome = await session.send(text, undefined, resolved.info);
    if (outcome.status === 'blocked') {
      this.deps.showBanner('error', outcome.message, ['openSettings']);
      return;
    }
    if (outcome.rejections.length > 0) this.deps.reportRefusals(outcome.rejections);
    if (!outcome.envelope) {
      this.deps.showBanner('error', 'The request could not be built.', ['showLog']);
      return;
    }
    this.deps.sent.record({
      chatId: session.activeChatId,
      turn: outcome.envelope.turn,
      envelope: outcome.envelope,
      status: 'preview',
      model: resolved.view.label,
      provider: 'none',
    });
    const problem = resolved.problem?.message ?? 'No model is configured.';
    this.shownPreview = {
      request: requestDump(outcome.envelope),
      promptTokens: outcome.envelope.totalTokens,
      howTo: notSentHowTo(problem),
    };
    this.deps.post({ type: 'preview', preview: this.shownPreview });
    this.deps.post({ type: 'setInput', text });
    this.deps.showBanner('info', problem, [resolved.problem?.action ?? 'selectModel', 'openSettings']);
    this.deps.refreshMeter();
    this.deps.changed();
  }

  /** The streaming turn's user message and partial reply, when it belongs to chat `chatId`. */
  streamingMessages(chatId: string): MessageView[] {
    const s = this.streamingTurn;
    if (!s || s.chatId !== chatId) return [];
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
    return [s.user, streamingReply];
  }

  /**
   * Runs a turn on screen: `run` is the session's send or regenerate. `text`: the message typed
   * (back into the input when nothing is kept); `regenerating`: a failed regeneration shows the chat
   * as it is again.
   */
  start(
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
    this.streamingTurn = { chatId, turnId, user, text: '', nextSeq: 0, steps: [] };
    const showStep = (view: ToolStepView) => {
      const steps = this.streamingTurn?.turnId === turnId ? this.streamingTurn.steps : undefined;
      if (steps) {
        const i = steps.findIndex((v) => v.id === view.id);
        if (i >= 0) steps[i] = view;
        else steps.push(view);
      }
      post({ type: 'toolStep', chatId, turnId, step: view });
    };
    const post = (m: HostToWebviewMessage) => {
      // A chat the user switched away from finishes in the store, not on screen.
      if (this.deps.session.activeChatId === chatId) this.deps.post(m);
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
          this.deps.sent.record({
            chatId,
            turn: e.envelope.turn,
            envelope: e.envelope,
            status: 'streaming',
            model: resolved.view.label,
            provider: resolved.view.provider,
          });
          this.deps.changed();
          break;
        case 'text':
          if (this.streamingTurn?.turnId === turnId) {
            this.streamingTurn.text += e.text;
            this.streamingTurn.nextSeq = e.seq + 1;
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
    this.currentTurn = run(controller.signal, onEvent)
      .then((outcome) => {
        this.finish(outcome, { chatId, turnId, user, resolved, envelope: outcome.envelope ?? envelope, text, regenerating, post });
        return outcome;
      })
      .catch((e: unknown) => {
        // The session refused to start (busy, nothing to regenerate): nothing was kept.
        const message = e instanceof Error ? e.message : String(e);
        post({ type: 'turnEnded', chatId, turnId, assistant: { ...assistant, status: 'error', error: message }, kept: false });
        this.deps.showBanner('error', message, ['showLog']);
        if (regenerating) void this.deps.refreshPanel();
        return undefined;
      })
      .finally(() => {
        if (this.streamingTurn?.turnId === turnId) this.streamingTurn = undefined;
        this.currentTurn = undefined;
        setReplyStreaming(false);
        this.deps.refreshMeter();
        this.deps.postChats();
        this.deps.changed();
        this.deps.ended();
      });
  }

  private finish(outcome: TurnOutcome, t: TurnOnScreen): void {
    const { chatId, turnId, post } = t;
    const { session } = this.deps;
    // The turn is over: a panel state sent from here on must not show it as streaming as well.
    if (this.streamingTurn?.turnId === turnId) this.streamingTurn = undefined;
    const saved = outcome.status === 'done' || outcome.status === 'stopped' ? outcome.saved : undefined;
    if (t.envelope && outcome.status !== 'blocked') {
      const usage = outcome.status === 'done' || outcome.status === 'stopped' ? outcome.usage : undefined;
      this.deps.sent.record({
        chatId,
        turn: saved?.turn ?? t.envelope.turn,
        envelope: t.envelope,
        status: outcome.status,
        usage,
        model: t.resolved.view.label,
        provider: t.resolved.view.provider,
      });
    }
    if (outcome.rejections.length > 0) this.deps.reportRefusals(outcome.rejections);
    const kept = outcome.status === 'done' || (outcome.status === 'stopped' && outcome.kept);
    if (kept) {
      const last = session.activeChatId === chatId ? session.messages({ last: 1 }).messages.find((m) => m.role === 'assistant') : undefined;
      const assistant: MessageView = last ?? {
        id: `${t.user.turn}:assistant`,
        turn: t.user.turn,
        role: 'assistant',
        text: outcome.status === 'done' || outcome.status === 'stopped' ? outcome.reply : '',
        status: outcome.status === 'stopped' ? 'stopped' : 'complete',
      };
      post({ type: 'turnEnded', chatId, turnId, assistant, kept: true });
      post({ type: 'chips', chips: session.composer.panelViews() });
      if (saved?.rebased) {
        // The other window's turns go before this one: the panel shows the chat as saved.
        const n = saved.rebased.otherTurns;
        this.deps.showBanner(
          'info',
          `Another window added ${n === 1 ? 'a turn' : `${n} turns`} to this chat while this reply streamed. Your turn was saved after ${n === 1 ? 'it' : 'them'} (turn ${saved.turn}); the reply was written without ${n === 1 ? 'it' : 'them'}.`,
        );
        void this.deps.refreshPanel();
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
          this.deps.showBanner(
            'warning',
            `${outcome.error.message} Your message is back in the input: send it again to ask with the chat as it is now.`,
            ['retry'],
          );
          void this.deps.refreshPanel();
        } else {
          this.showProviderError(outcome.error.message, outcome.error.code, t.resolved);
        }
        break;
      }
      case 'blocked':
        post({ type: 'turnEnded', chatId, turnId, assistant: { ...base, error: outcome.message }, kept: false });
        this.deps.showBanner('error', outcome.message, ['openSettings']);
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
    if (t.regenerating) void this.deps.refreshPanel();
  }

  private showProviderError(message: string, code: string, resolved: ResolvedProvider): void {
    if (code === 'aborted') return;
    // The editor's own models have no base URL to edit.
    this.deps.showBanner('error', message, providerErrorActions(code, resolved.view.provider !== 'vscode-lm'));
  }

  /** The meter and the tree say so when the open chat's prompt cache likely expires: a timer for that moment. */
  armCacheExpiry(): void {
    clearTimeout(this.cacheExpiryTimer);
    this.cacheExpiryTimer = undefined;
    const at = this.deps.session.chatCosts.expiresAt();
    if (at === undefined) return;
    // A little after the moment, so the session's clock has passed it too.
    this.cacheExpiryTimer = setTimeout(
      () => {
        this.cacheExpiryTimer = undefined;
        this.deps.refreshMeter();
        this.deps.changed();
      },
      Math.max(0, at - Date.now()) + 100,
    );
  }
}

/** Enables "Stop the Reply" and its keybinding only while a reply streams. */
function setReplyStreaming(streaming: boolean): void {
  void vscode.commands.executeCommand('setContext', 'strataReplyStreaming', streaming);
}
