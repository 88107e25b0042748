/**
 * Host ⇄ webview messages, declared once for both sides, each with a runtime check. What the
 * webview sends (`ready`, then requests) is in requests.ts; this file holds the view models and what
 * the host posts.
 *
 * - The webview is UI, not trust: the host validates everything it receives (requests.ts).
 * - The webview says `ready` first; the host posts nothing before it.
 * - The host answers each request with a `response` echoing its id: `{ok: true, value}` or
 *   `{ok: false, error}`. The webview times pending requests out (`REQUEST_TIMEOUT_MS`).
 * - Streaming replies arrive as `chunk` messages with a per-turn sequence number (0, 1, 2, …).
 * - The host decides; the webview renders the view models below and asks for changes.
 */

import type { ProviderName } from '../common/providerCatalog';
import { isObj } from '../common/guards';
import { isInt, isStr } from './fieldChecks';
import { isSuggestionView, type SuggestionView } from './mentions';

export const PROTOCOL_VERSION = 2;
/** A webview request without a response after this long is failed on the webview side. */
export const REQUEST_TIMEOUT_MS = 15_000;
/** Longest message text the host accepts from the panel (characters). */
export const MAX_INPUT_CHARS = 1_000_000;
/** Longest code block the panel may ask to copy or insert (characters). */
export const MAX_CODE_CHARS = 5_000_000;
/** Longest chat title (characters): a longer one (an imported chat's) is cut and ends with an ellipsis. */
export const MAX_TITLE_CHARS = 200;

// ------------------------------------------------------------------------------------- view models

export type LayerKey = 'L1' | 'L2' | 'L3' | 'L4' | 'L5';
export const LAYER_KEYS: readonly LayerKey[] = ['L1', 'L2', 'L3', 'L4', 'L5'];

/** Tokens per layer of one request, and how many of them the cache served (or is predicted to). */
export interface LayerBar {
  layers: Record<LayerKey, number>;
  /** Prompt tokens of the request (the sum of the layers). */
  total: number;
  /** Cached tokens: provider-reported when known, else the engine's prediction. */
  cached: number;
  /** Whether `cached` is what the provider reported (true) or the engine's prediction (false). */
  cachedReported: boolean;
  /**
   * The cached tokens per layer: the engine's per-item prediction, scaled to the reported total when
   * the provider reported one (the bar shades this part of each layer).
   */
  cachedByLayer?: Partial<Record<LayerKey, number>>;
}

/** One attachment chip in the composer (attached to the next message). */
export interface ChipView {
  /** Host-assigned, stable while the chip exists. */
  id: string;
  kind: 'file' | 'selection';
  /** `path` or `path:L12-30` (multi-root: `<folder>/<path>`; untitled: `untitled:Untitled-1`). */
  label: string;
  tokens: number;
  pinned: boolean;
  /** Longer description for the tooltip (full path, line count, "unsaved changes", …). */
  detail?: string;
  /** A selection attached with its definitions: the declarations it uses, sent with it ("+N definitions"). */
  definitions?: DefinitionView[];
  /** Declarations found but left out, each with why (the chip says "· N left out"; the reasons on hover and focus). */
  definitionsLeftOut?: LeftOutView[];
  /** A file too large for the imports budget, attached as its outline (symbols with line ranges). */
  outline?: boolean;
  /** The first lines of a file over the size limit: `lines` of the file's `of` (the chip says "first N lines of M"). */
  partial?: { lines: number; of: number };
  /**
   * Taken off the next message and kept in its place for Undo until the message is sent: `message`
   * says so and what it costs ("src/a.ts: removed from next message. Removing: …").
   */
  removed?: { message: string };
}

/** A declaration a selection uses, attached with it: a range of its file. */
export interface DefinitionView {
  /** `path:L12-30`. */
  label: string;
  /** The declaration's name. */
  symbol: string;
  /** The selection's identifier that uses it. */
  usedBy: string;
  tokens: number;
}

/** A declaration a chip's definitions left out: what did not fit, or a called function sent as its signature. */
export interface LeftOutView {
  /** `path:L12-30`. */
  label: string;
  symbol: string;
  /** Why: "812 tokens, 40 left of the 4000-token budget", "its body: …". */
  reason: string;
}

/** Longest text of a left-out declaration's field the panel accepts (a label, a name, a reason). */
export const MAX_LEFT_OUT_CHARS = 2000;

/** The panel's check of a chip: the fields it renders, and the left-out declarations it lists. */
export function isChipView(v: unknown): v is ChipView {
  return (
    isObj(v) &&
    typeof v.id === 'string' &&
    (v.kind === 'file' || v.kind === 'selection') &&
    typeof v.label === 'string' &&
    isInt(v.tokens) &&
    typeof v.pinned === 'boolean' &&
    (v.definitions === undefined || Array.isArray(v.definitions)) &&
    (v.definitionsLeftOut === undefined || (Array.isArray(v.definitionsLeftOut) && v.definitionsLeftOut.every(isLeftOutView))) &&
    (v.partial === undefined || (isObj(v.partial) && isInt(v.partial.lines) && isInt(v.partial.of)))
  );
}

function isLeftOutView(v: unknown): v is LeftOutView {
  return (
    isObj(v) &&
    isStr(v.label, MAX_LEFT_OUT_CHARS, false) &&
    isStr(v.symbol, MAX_LEFT_OUT_CHARS, false) &&
    isStr(v.reason, MAX_LEFT_OUT_CHARS, false)
  );
}

export type MessageStatus = 'complete' | 'streaming' | 'stopped' | 'error';

export interface UsageView {
  input: number;
  cacheRead: number;
  cacheWrite: number;
  output: number;
}

/**
 * One tool call of a turn, shown as a collapsible step in the assistant message: what the
 * model asked for and what it got back (size, and whether it was already in the context).
 */
export interface ToolStepView {
  /** The call id (stable within the turn). */
  id: string;
  /** The model step (1-based) that made the call. */
  step: number;
  /** The tool's name (`read_file`, `find_symbol`, …: src/services/tools/definitions.ts). */
  name: string;
  /** Short form of the call: `read_file src/a.ts:1-40`. */
  label: string;
  /** The arguments as the model sent them (JSON). */
  args: string;
  /** running: the tool runs; done: a result went back; refused: isolation or a limit said no; error: bad arguments. */
  status: 'running' | 'done' | 'refused' | 'error';
  /** One line about the result: "src/a.ts, 40 lines", "refused: excluded", "12 matches (truncated)". */
  summary?: string;
  /** Tokens the result added to the request. */
  resultTokens?: number;
  /** The result was a reference to a block the request already carried (nothing sent again). */
  reused?: boolean;
  /** Artifact version the result is (`file:src/a.ts@v2`), when it is one. */
  key?: string;
  /**
   * Cached tokens of the model request that carried this result: reported by the provider when it
   * does (`cachedReported`), else the engine's prediction.
   */
  cachedTokens?: number;
  cachedReported?: boolean;
  /**
   * Where in the reply's text the call happened (characters of `MessageView.text` written before
   * it): the panel shows the step there, between the text before and after it. Absent: above the text.
   */
  textOffset?: number;
}

export interface MessageView {
  /** `<turn>:user` or `<turn>:assistant`. */
  id: string;
  turn: number;
  role: 'user' | 'assistant';
  /** Markdown for the assistant (rendered sanitized), plain text for the user. */
  text: string;
  status: MessageStatus;
  /** User messages: labels of what was attached to that message. */
  attachments?: string[];
  /** Assistant messages: the layer tokens of the request that produced them. */
  bar?: LayerBar;
  /** Assistant messages: provider-reported usage. */
  usage?: UsageView;
  /** Assistant messages: `provider · model` that answered. */
  model?: string;
  /** Assistant messages with reported usage: what the request cost (or its tokens when no price is known). */
  cost?: CostView;
  /** Assistant messages with status `error`: what went wrong. */
  error?: string;
  /** Assistant messages: what the model did not see (an attachment cut to fit the window, a server's own cut). */
  notes?: string[];
  /** Assistant messages: the tool calls the model made before answering, in order. */
  toolSteps?: ToolStepView[];
  /**
   * A `streaming` assistant message inside `init`/`state` (the view was shown again mid-turn): the
   * `turnId` its coming `chunk`s carry and the `seq` of the first chunk not yet included in `text`,
   * so the panel keeps appending without gaps or repeats. Absent otherwise.
   */
  turnId?: string;
  nextSeq?: number;
  /**
   * Assistant messages: the code blocks whose change was decided (as saved), shown as `applyState`
   * shows them. `undo`: the host still holds what Undo needs (this window applied it); without it the
   * block says "Applied" with no Undo.
   */
  applied?: AppliedView[];
}

/** A code block's saved state (see `MessageView.applied`). */
export interface AppliedView {
  /** The block's number in the message (its `pre[data-code]`). */
  block: number;
  state: ApplyStateKind;
  accepted: number;
  total: number;
  undo?: boolean;
}

/** A reply's cost line ("$0.0123 · saved $0.0045 by cache"), in US dollars when a price is known. */
export interface CostView {
  text: string;
  usd?: number;
  savedUsd?: number;
}

export type MeterLevel = 'ok' | 'warn' | 'pruned' | 'over';

/** The always-visible context meter. */
export interface MeterView {
  /** Predicted prompt tokens of the next request (history + attached chips + an empty message). */
  used: number;
  /** Budget = contextWindow − reservedOutput − margin. */
  budget: number;
  contextWindow: number;
  reservedOutput: number;
  margin: number;
  warnPercent: number;
  compactPercent: number;
  targetPercent: number;
  /** Cached share (0…1) of the last request sent, when one was sent in this chat. */
  lastCachedShare?: number;
  /** ok; warn (amber, past warnPercent); pruned (red: pruning ran for the last request); over (red: over budget). */
  level: MeterLevel;
  /** The tokenizer is an estimate for this model (for example Anthropic models). */
  estimated: boolean;
  /** Where the context window came from: the user's `strata.models`, the server, Strata's table, or assumed. */
  windowSource?: 'user' | 'server' | 'table' | 'assumed';
  /** The next message's predicted prompt cost, for the tooltip. */
  nextCost?: string;
  /** Set while the provider's cache has likely expired: "cache likely expired — the next message costs ~$X (N tokens uncached)". */
  cacheExpired?: string;
  /** The chat's cost so far, beside the meter: "Chat $0.052 · saved $0.024" ("Chat: no price known" when no turn has a price). */
  chatCost?: string;
  /** No turn of the chat has a price: the panel offers "Set price…". */
  chatPriceMissing?: boolean;
}

/** An item the next message carries besides what is typed and the chips: an earlier attachment, a pinned item, an instructions file. */
export interface InContextItemView {
  /** Artifact id (`file:src/a.ts`, `sel:…`) for Pin and Remove; `instructions:<path>` for an instructions file. */
  ref: string;
  kind: 'file' | 'selection' | 'instructions';
  /** `path` or `path:L12-30`. */
  label: string;
  /** Tokens the next request spends on it (every version it holds), as Context Layers counts them. */
  tokens: number;
  pinned: boolean;
  /** What the next turn does to it (a Pin, Unpin or Remove not sent yet). */
  pending?: 'pin' | 'unpin' | 'detach';
}

/** The "In context" row above the input: what rides along with the next message. */
export interface InContextView {
  items: InContextItemView[];
  tokens: number;
}

export interface ChatSummaryView {
  id: string;
  title: string;
  turns: number;
  /** ISO time, display only. */
  updatedAt: string;
  /** What the chat's priced turns cost ("$0.42"; "+" when some turns have no price). */
  cost?: string;
}

/** A provider of the catalog (src/common/providerCatalog.ts), the editor's models, `auto`, or none configured. */
export type ProviderId = 'auto' | 'vscode-lm' | ProviderName | 'none';

export interface ModelView {
  provider: ProviderId;
  model: string;
  /** What the panel shows ("OpenAI · gpt-4o", "Local imitation server · gpt-4o"). */
  label: string;
  /** Strata can send: a provider is configured (and has a key or needs none). */
  configured: boolean;
  /** The provider is one of Strata's local imitation servers (`npm start -- --imitate`). */
  imitation: boolean;
}

export interface ModelOption {
  provider: Exclude<ProviderId, 'auto' | 'none'>;
  model: string;
  label: string;
  detail?: string;
}

/**
 * `editBaseUrl`: opens `strata.baseUrl` (a connection error); `attachOutline`, `attachHead`,
 * `raiseLimit`: what can be done about a file over the size limit (the banner's `path`).
 */
export type BannerAction =
  | 'setApiKey'
  | 'openSettings'
  | 'editBaseUrl'
  | 'retry'
  | 'selectModel'
  | 'showLog'
  | 'undo'
  | 'attachOutline'
  | 'attachHead'
  | 'raiseLimit'
  | 'dismiss';
export const BANNER_ACTIONS: readonly BannerAction[] = [
  'setApiKey',
  'openSettings',
  'editBaseUrl',
  'retry',
  'selectModel',
  'showLog',
  'undo',
  'attachOutline',
  'attachHead',
  'raiseLimit',
  'dismiss',
];

export interface BannerView {
  id: string;
  severity: 'error' | 'warning' | 'info';
  message: string;
  actions: BannerAction[];
  /** The setting (e.g. `strata.budget.warnPercent`) the banner's Open Settings opens; absent: all of Strata's. */
  setting?: string;
  /** The workspace path a refusal's actions (Attach Outline, Attach First Lines) act on. */
  path?: string;
}

/** Standing facts shown above the conversation (restricted mode, no folder open, …). */
export interface NoticeView {
  id: string;
  message: string;
}

export interface RequestPreviewView {
  /** The exact request that would be sent (provider-neutral messages, in the dump form). */
  request: string;
  promptTokens: number;
  /** How to configure a provider (markdown, sanitized by the webview like any other). */
  howTo: string;
}

/** Everything the panel shows; sent whole on `init` and on chat switch. */
export interface PanelState {
  chatId: string;
  chatTitle: string;
  chats: ChatSummaryView[];
  /** The newest messages of the chat, oldest first (older ones arrive with `olderMessages`). */
  messages: MessageView[];
  /** More messages exist before `messages[0]`. */
  hasOlder: boolean;
  chips: ChipView[];
  /**
   * Absent while the host counts a long chat it has just opened (the panel shows the messages first;
   * a `meter` message follows).
   */
  meter?: MeterView;
  model: ModelView;
  /** A turn is streaming (the panel shows Stop, disables Send). */
  busy: boolean;
  banners: BannerView[];
  notices: NoticeView[];
  /** The last "no provider" request preview, if it is still current. */
  preview?: RequestPreviewView;
}

export type AttachWhat = 'activeFile' | 'selection' | 'openEditors';

// --------------------------------------------------------------------------- host → webview

/** First message after `ready`. */
export interface InitMessage {
  readonly type: 'init';
  readonly protocolVersion: number;
  readonly extensionVersion: string;
  readonly state: PanelState;
  /** Each workspace tool's codicon (from the tools' registry), for the panel's tool steps. */
  readonly toolIcons?: Readonly<Record<string, string>>;
}

export type ResponseMessage =
  | { readonly type: 'response'; readonly requestId: number; readonly ok: true; readonly value?: unknown }
  | { readonly type: 'response'; readonly requestId: number; readonly ok: false; readonly error: string };

export type HostToWebviewMessage =
  | InitMessage
  | ResponseMessage
  /** The whole panel (chat switch, reload, new chat). */
  | { readonly type: 'state'; readonly state: PanelState }
  | { readonly type: 'chats'; readonly chats: ChatSummaryView[]; readonly chatId: string; readonly chatTitle: string }
  | { readonly type: 'chips'; readonly chips: ChipView[] }
  | { readonly type: 'meter'; readonly meter: MeterView }
  /** What the next message carries besides what is typed (posted with each meter). */
  | { readonly type: 'inContext'; readonly inContext: InContextView }
  | { readonly type: 'model'; readonly model: ModelView }
  | { readonly type: 'banners'; readonly banners: BannerView[] }
  | { readonly type: 'notices'; readonly notices: NoticeView[] }
  /** A turn began: the user's message (as it will be kept) and an empty streaming assistant message. */
  | {
      readonly type: 'turnStarted';
      readonly chatId: string;
      readonly turnId: string;
      readonly user: MessageView;
      readonly assistant: MessageView;
    }
  /** A piece of the streaming reply, appended to the assistant message of `turnId`. */
  | { readonly type: 'chunk'; readonly chatId: string; readonly turnId: string; readonly seq: number; readonly text: string }
  /** A tool call of the streaming turn started or got its result (added, or replaced by `step.id`). */
  | { readonly type: 'toolStep'; readonly chatId: string; readonly turnId: string; readonly step: ToolStepView }
  /**
   * The turn ended: the final assistant message (complete, stopped or error; its text is what the
   * chat keeps). A completed or stopped turn is persisted before this is sent. `user` is absent when
   * the turn was not kept (an error before anything was streamed): the panel then removes both messages.
   */
  | {
      readonly type: 'turnEnded';
      readonly chatId: string;
      readonly turnId: string;
      readonly assistant: MessageView;
      readonly kept: boolean;
    }
  /** Replace the last turn's messages (regenerate starts by removing them). */
  | { readonly type: 'removeTurn'; readonly chatId: string; readonly turn: number }
  | { readonly type: 'olderMessages'; readonly chatId: string; readonly messages: MessageView[]; readonly hasOlder: boolean }
  | { readonly type: 'preview'; readonly preview: RequestPreviewView | null }
  /**
   * Put text back into the input (a failed send, so nothing typed is lost). `chatId`: the chat it was
   * written in; when the panel shows another chat by then, it is kept as that chat's draft.
   */
  | { readonly type: 'setInput'; readonly text: string; readonly chatId?: string }
  | { readonly type: 'focusInput' }
  /** The active editor offered for the next message (null: nothing to offer, or the setting is `off`/`always`). */
  | { readonly type: 'suggestion'; readonly suggestion: SuggestionView | null }
  /**
   * A code block's change was decided in its diff or undone: the block shows "Applied · Undo"
   * (`accepted` of `total` changes), "Rejected" or "Undone". `blockId` is the one its applyCode carried.
   */
  | {
      readonly type: 'applyState';
      readonly blockId: string;
      readonly state: ApplyStateKind;
      readonly accepted: number;
      readonly total: number;
    };

export type ApplyStateKind = 'applied' | 'rejected' | 'undone';
const APPLY_STATES: readonly string[] = ['applied', 'rejected', 'undone'];

export type HostToWebviewType = HostToWebviewMessage['type'];

// ----------------------------------------------------------------------------------- checks

type Rec = Record<string, unknown>;

/** Why a webview message was rejected (for the log; never contains the message's text). */
export class ProtocolError extends Error {
  override readonly name = 'ProtocolError';
}

const HOST_TYPES: readonly HostToWebviewType[] = [
  'init',
  'response',
  'state',
  'chats',
  'chips',
  'meter',
  'inContext',
  'model',
  'banners',
  'notices',
  'turnStarted',
  'chunk',
  'turnEnded',
  'removeTurn',
  'olderMessages',
  'preview',
  'setInput',
  'focusInput',
  'toolStep',
  'suggestion',
  'applyState',
];

/**
 * The webview's check of what the host posts. The host is trusted, so this checks the envelope
 * (a known type and the fields the panel dereferences), not every nested field.
 */
export function parseHostToWebviewMessage(value: unknown): HostToWebviewMessage | undefined {
  if (!isObj(value) || typeof value.type !== 'string' || !(HOST_TYPES as readonly string[]).includes(value.type)) return undefined;
  const m = value as Rec & { type: HostToWebviewType };
  switch (m.type) {
    case 'init':
      return isInt(m.protocolVersion) &&
        typeof m.extensionVersion === 'string' &&
        isPanelState(m.state) &&
        (m.toolIcons === undefined || (isObj(m.toolIcons) && Object.values(m.toolIcons).every((v) => typeof v === 'string')))
        ? (m as unknown as HostToWebviewMessage)
        : undefined;
    case 'state':
      return isPanelState(m.state) ? (m as unknown as HostToWebviewMessage) : undefined;
    case 'response':
      return isInt(m.requestId) && typeof m.ok === 'boolean' && (m.ok || typeof m.error === 'string')
        ? (m as unknown as HostToWebviewMessage)
        : undefined;
    case 'chunk':
      return typeof m.turnId === 'string' && typeof m.chatId === 'string' && isInt(m.seq) && typeof m.text === 'string'
        ? (m as unknown as HostToWebviewMessage)
        : undefined;
    case 'toolStep':
      return typeof m.turnId === 'string' && typeof m.chatId === 'string' && isToolStep(m.step)
        ? (m as unknown as HostToWebviewMessage)
        : undefined;
    case 'turnStarted':
      return typeof m.turnId === 'string' && isMessage(m.user) && isMessage(m.assistant)
        ? (m as unknown as HostToWebviewMessage)
        : undefined;
    case 'turnEnded':
      return typeof m.turnId === 'string' && isMessage(m.assistant) && typeof m.kept === 'boolean'
        ? (m as unknown as HostToWebviewMessage)
        : undefined;
    case 'olderMessages':
      return Array.isArray(m.messages) && m.messages.every(isMessage) && typeof m.hasOlder === 'boolean'
        ? (m as unknown as HostToWebviewMessage)
        : undefined;
    case 'chats':
      return Array.isArray(m.chats) && typeof m.chatId === 'string' ? (m as unknown as HostToWebviewMessage) : undefined;
    case 'chips':
      return Array.isArray(m.chips) && m.chips.every(isChipView) ? (m as unknown as HostToWebviewMessage) : undefined;
    case 'inContext':
      return isInContextView(m.inContext) ? (m as unknown as HostToWebviewMessage) : undefined;
    case 'meter':
      return isObj(m.meter) && isInt(m.meter.used) && isInt(m.meter.budget) ? (m as unknown as HostToWebviewMessage) : undefined;
    case 'model':
      return isObj(m.model) && typeof m.model.label === 'string' ? (m as unknown as HostToWebviewMessage) : undefined;
    case 'banners':
      return Array.isArray(m.banners) ? (m as unknown as HostToWebviewMessage) : undefined;
    case 'notices':
      return Array.isArray(m.notices) ? (m as unknown as HostToWebviewMessage) : undefined;
    case 'removeTurn':
      return isInt(m.turn, 1) ? (m as unknown as HostToWebviewMessage) : undefined;
    case 'preview':
      return m.preview === null || (isObj(m.preview) && typeof m.preview.request === 'string')
        ? (m as unknown as HostToWebviewMessage)
        : undefined;
    case 'setInput':
      return typeof m.text === 'string' && (m.chatId === undefined || typeof m.chatId === 'string')
        ? (m as unknown as HostToWebviewMessage)
        : undefined;
    case 'focusInput':
      return m as unknown as HostToWebviewMessage;
    case 'suggestion':
      return m.suggestion === null || isSuggestionView(m.suggestion) ? (m as unknown as HostToWebviewMessage) : undefined;
    case 'applyState':
      return typeof m.blockId === 'string' &&
        typeof m.state === 'string' &&
        APPLY_STATES.includes(m.state) &&
        isInt(m.accepted) &&
        isInt(m.total) &&
        m.accepted <= m.total
        ? (m as unknown as HostToWebviewMessage)
        : undefined;
  }
  return undefined;
}

/** A tool step or a message as the panel accepts it (the host checks what it renders with the same rules). */
const STEP_STATUSES: readonly string[] = ['running', 'done', 'refused', 'error'];

export function isToolStep(v: unknown): v is ToolStepView {
  return (
    isObj(v) &&
    typeof v.id === 'string' &&
    isInt(v.step, 1) &&
    typeof v.name === 'string' &&
    typeof v.label === 'string' &&
    typeof v.args === 'string' &&
    typeof v.status === 'string' &&
    STEP_STATUSES.includes(v.status) &&
    (v.textOffset === undefined || isInt(v.textOffset))
  );
}

export function isMessage(v: unknown): v is MessageView {
  return (
    isObj(v) &&
    typeof v.id === 'string' &&
    isInt(v.turn) &&
    (v.role === 'user' || v.role === 'assistant') &&
    typeof v.text === 'string' &&
    typeof v.status === 'string' &&
    (v.toolSteps === undefined || (Array.isArray(v.toolSteps) && v.toolSteps.every(isToolStep))) &&
    (v.notes === undefined || (Array.isArray(v.notes) && v.notes.every((n) => typeof n === 'string'))) &&
    (v.applied === undefined || (Array.isArray(v.applied) && v.applied.every(isAppliedView)))
  );
}

function isAppliedView(v: unknown): v is AppliedView {
  return (
    isObj(v) &&
    isInt(v.block) &&
    typeof v.state === 'string' &&
    APPLY_STATES.includes(v.state) &&
    isInt(v.accepted) &&
    isInt(v.total) &&
    v.accepted <= v.total &&
    (v.undo === undefined || typeof v.undo === 'boolean')
  );
}

function isPanelState(v: unknown): v is PanelState {
  return (
    isObj(v) &&
    typeof v.chatId === 'string' &&
    Array.isArray(v.chats) &&
    Array.isArray(v.messages) &&
    v.messages.every(isMessage) &&
    Array.isArray(v.chips) &&
    v.chips.every(isChipView) &&
    (v.meter === undefined || isObj(v.meter)) &&
    isObj(v.model) &&
    typeof v.busy === 'boolean'
  );
}

const IN_CONTEXT_KINDS: readonly string[] = ['file', 'selection', 'instructions'];
const PENDING_OPS: readonly string[] = ['pin', 'unpin', 'detach'];

/** An `inContext` payload as the panel accepts it: every item whole (the row renders each field). */
export function isInContextView(v: unknown): v is InContextView {
  if (!isObj(v) || !isInt(v.tokens) || !Array.isArray(v.items)) return false;
  return v.items.every(
    (i) =>
      isObj(i) &&
      typeof i.ref === 'string' &&
      typeof i.kind === 'string' &&
      IN_CONTEXT_KINDS.includes(i.kind) &&
      typeof i.label === 'string' &&
      isInt(i.tokens) &&
      typeof i.pinned === 'boolean' &&
      (i.pending === undefined || (typeof i.pending === 'string' && PENDING_OPS.includes(i.pending))),
  );
}
