/**
 * Host ⇄ webview messages (DESIGN §6), declared once for both sides, each with a runtime check.
 *
 * - The webview is UI, not trust: the host validates every inbound message with
 *   `parseWebviewToHostMessage` and rejects (and logs) anything malformed or forged, never acting on it.
 * - The webview says `ready` first; the host posts nothing before it.
 * - Everything else the webview sends is a `request` with an id; the host answers each with a
 *   `response` echoing the id: `{ok: true, value}` or `{ok: false, error}`. The webview times pending
 *   requests out (`REQUEST_TIMEOUT_MS`).
 * - Streaming replies arrive as `chunk` messages with a per-turn sequence number (0, 1, 2, …).
 * - The host decides; the webview renders the view models below and asks for changes.
 */

export const PROTOCOL_VERSION = 2;
/** A webview request without a response after this long is failed on the webview side. */
export const REQUEST_TIMEOUT_MS = 15_000;
/** Longest message text the host accepts from the panel (characters). */
export const MAX_INPUT_CHARS = 1_000_000;
/** Longest code block the panel may ask to copy or insert (characters). */
export const MAX_CODE_CHARS = 5_000_000;
/** Longest chat title (characters). */
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
}

export type MessageStatus = 'complete' | 'streaming' | 'stopped' | 'error';

export interface UsageView {
  input: number;
  cacheRead: number;
  cacheWrite: number;
  output: number;
}

/**
 * One tool call of a turn (issue 11), shown as a collapsible step in the assistant message: what the
 * model asked for and what it got back (size, and whether it was already in the context).
 */
export interface ToolStepView {
  /** The call id (stable within the turn). */
  id: string;
  /** The model step (1-based) that made the call. */
  step: number;
  /** read_file, list_files, search_text, get_diagnostics, get_selection. */
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
  /** Assistant messages with status `error`: what went wrong. */
  error?: string;
  /** Assistant messages: the tool calls the model made before answering, in order (issue 11). */
  toolSteps?: ToolStepView[];
  /**
   * A `streaming` assistant message inside `init`/`state` (the view was shown again mid-turn): the
   * `turnId` its coming `chunk`s carry and the `seq` of the first chunk not yet included in `text`,
   * so the panel keeps appending without gaps or repeats. Absent otherwise.
   */
  turnId?: string;
  nextSeq?: number;
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
}

export interface ChatSummaryView {
  id: string;
  title: string;
  turns: number;
  /** ISO time, display only. */
  updatedAt: string;
}

export type ProviderId = 'auto' | 'vscode-lm' | 'openai' | 'anthropic' | 'none';

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

export type BannerAction = 'setApiKey' | 'openSettings' | 'retry' | 'selectModel' | 'showLog' | 'dismiss';
export const BANNER_ACTIONS: readonly BannerAction[] = ['setApiKey', 'openSettings', 'retry', 'selectModel', 'showLog', 'dismiss'];

export interface BannerView {
  id: string;
  severity: 'error' | 'warning' | 'info';
  message: string;
  actions: BannerAction[];
}

/** Standing facts shown above the conversation (restricted mode, no folder open, …). */
export interface NoticeView {
  id: string;
  message: string;
}

export interface RequestPreviewView {
  /** The exact request that would be sent (provider-neutral messages, DESIGN §9 dump format). */
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

// --------------------------------------------------------------------------- webview → host

/** The webview's script has loaded and listens; the host posts nothing before this. */
export interface ReadyMessage {
  readonly type: 'ready';
}

export type AttachWhat = 'activeFile' | 'selection' | 'openEditors';

export type WebviewRequest =
  | { kind: 'send'; text: string }
  | { kind: 'stop' }
  | { kind: 'regenerate' }
  | { kind: 'newChat' }
  | { kind: 'switchChat'; chatId: string }
  | { kind: 'renameChat'; chatId: string; title: string }
  | { kind: 'deleteChat'; chatId: string }
  | { kind: 'attach'; what: AttachWhat }
  | { kind: 'removeChip'; chipId: string }
  | { kind: 'pinChip'; chipId: string; pinned: boolean }
  /** Without provider/model: the host opens its model quick pick. */
  | { kind: 'selectModel'; provider?: ModelOption['provider']; model?: string }
  /** Answered with `value: ModelOption[]` (the models the picker offers). */
  | { kind: 'listModels' }
  | { kind: 'insertCode'; code: string }
  | { kind: 'copy'; text: string }
  | { kind: 'bannerAction'; bannerId: string; action: BannerAction }
  /** Messages of `chatId` before turn `beforeTurn` (lazy loading on scroll). */
  | { kind: 'loadOlder'; chatId: string; beforeTurn: number };

export type WebviewRequestKind = WebviewRequest['kind'];

export interface RequestMessage {
  readonly type: 'request';
  readonly requestId: number;
  readonly request: WebviewRequest;
}

export type WebviewToHostMessage = ReadyMessage | RequestMessage;

// --------------------------------------------------------------------------- host → webview

/** First message after `ready`. */
export interface InitMessage {
  readonly type: 'init';
  readonly protocolVersion: number;
  readonly extensionVersion: string;
  readonly state: PanelState;
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
  | { readonly type: 'focusInput' };

export type HostToWebviewType = HostToWebviewMessage['type'];

// ----------------------------------------------------------------------------------- checks

type Rec = Record<string, unknown>;

function isRecord(value: unknown): value is Rec {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const CHAT_ID = /^[a-z0-9][a-z0-9_-]{0,127}$/;
const CHIP_ID = /^[A-Za-z0-9:_.-]{1,128}$/;
const PROVIDERS: readonly string[] = ['vscode-lm', 'openai', 'anthropic'];
const ATTACH: readonly string[] = ['activeFile', 'selection', 'openEditors'];

function str(v: unknown, max: number, allowEmpty = true): v is string {
  return typeof v === 'string' && v.length <= max && (allowEmpty || v.length > 0);
}

function int(v: unknown, min = 0, max = Number.MAX_SAFE_INTEGER): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max;
}

function onlyKeys(v: Rec, keys: readonly string[]): boolean {
  for (const k of Object.keys(v)) if (!keys.includes(k)) return false;
  return true;
}

/** Why a webview message was rejected (for the log; never contains the message's text). */
export class ProtocolError extends Error {
  override readonly name = 'ProtocolError';
}

/**
 * Validates one webview request; returns a fresh object holding only the checked fields, or a reason.
 * Unknown kinds, missing or extra fields, wrong types and oversized strings are all rejected.
 */
export function parseWebviewRequest(value: unknown): WebviewRequest | ProtocolError {
  if (!isRecord(value)) return new ProtocolError('request is not an object');
  const kind = value.kind;
  const bad = (why: string) => new ProtocolError(`${typeof kind === 'string' ? kind.slice(0, 40) : 'request'}: ${why}`);
  const shape = (keys: readonly string[]) => onlyKeys(value, ['kind', ...keys]);
  switch (kind) {
    case 'send':
      if (!shape(['text']) || !str(value.text, MAX_INPUT_CHARS))
        return bad(`text must be a string of at most ${MAX_INPUT_CHARS} characters`);
      return { kind, text: value.text };
    case 'stop':
    case 'regenerate':
    case 'newChat':
    case 'listModels':
      if (!shape([])) return bad('takes no fields');
      return { kind };
    case 'switchChat':
    case 'deleteChat':
      if (!shape(['chatId']) || !str(value.chatId, 128) || !CHAT_ID.test(value.chatId)) return bad('chatId is not a chat id');
      return { kind, chatId: value.chatId };
    case 'renameChat':
      if (!shape(['chatId', 'title']) || !str(value.chatId, 128) || !CHAT_ID.test(value.chatId)) return bad('chatId is not a chat id');
      if (!str(value.title, MAX_TITLE_CHARS) || value.title.trim().length === 0)
        return bad(`title must be 1–${MAX_TITLE_CHARS} characters`);
      return { kind, chatId: value.chatId, title: value.title };
    case 'attach':
      if (!shape(['what']) || typeof value.what !== 'string' || !ATTACH.includes(value.what))
        return bad(`what must be one of ${ATTACH.join(', ')}`);
      return { kind, what: value.what as AttachWhat };
    case 'removeChip':
      if (!shape(['chipId']) || !str(value.chipId, 128) || !CHIP_ID.test(value.chipId)) return bad('chipId is not a chip id');
      return { kind, chipId: value.chipId };
    case 'pinChip':
      if (!shape(['chipId', 'pinned']) || !str(value.chipId, 128) || !CHIP_ID.test(value.chipId)) return bad('chipId is not a chip id');
      if (typeof value.pinned !== 'boolean') return bad('pinned must be a boolean');
      return { kind, chipId: value.chipId, pinned: value.pinned };
    case 'selectModel': {
      if (!shape(['provider', 'model'])) return bad('unexpected fields');
      if (value.provider === undefined && value.model === undefined) return { kind };
      if (typeof value.provider !== 'string' || !PROVIDERS.includes(value.provider))
        return bad(`provider must be one of ${PROVIDERS.join(', ')}`);
      if (!str(value.model, 200, false)) return bad('model must be a non-empty string of at most 200 characters');
      return { kind, provider: value.provider as ModelOption['provider'], model: value.model };
    }
    case 'insertCode':
      if (!shape(['code']) || !str(value.code, MAX_CODE_CHARS)) return bad(`code must be a string of at most ${MAX_CODE_CHARS} characters`);
      return { kind, code: value.code };
    case 'copy':
      if (!shape(['text']) || !str(value.text, MAX_CODE_CHARS)) return bad(`text must be a string of at most ${MAX_CODE_CHARS} characters`);
      return { kind, text: value.text };
    case 'bannerAction':
      if (!shape(['bannerId', 'action']) || !str(value.bannerId, 128, false)) return bad('bannerId must be a non-empty string');
      if (typeof value.action !== 'string' || !(BANNER_ACTIONS as readonly string[]).includes(value.action))
        return bad(`action must be one of ${BANNER_ACTIONS.join(', ')}`);
      return { kind, bannerId: value.bannerId, action: value.action as BannerAction };
    case 'loadOlder':
      if (!shape(['chatId', 'beforeTurn']) || !str(value.chatId, 128) || !CHAT_ID.test(value.chatId)) return bad('chatId is not a chat id');
      if (!int(value.beforeTurn, 1)) return bad('beforeTurn must be a positive integer');
      return { kind, chatId: value.chatId, beforeTurn: value.beforeTurn };
    default:
      return new ProtocolError(`unknown request kind ${JSON.stringify(typeof kind === 'string' ? kind.slice(0, 40) : kind)}`);
  }
}

/** Validates a message from the webview; a `ProtocolError` says why it was rejected. */
export function parseWebviewToHostMessage(value: unknown): WebviewToHostMessage | ProtocolError {
  if (!isRecord(value)) return new ProtocolError('message is not an object');
  if (value.type === 'ready') {
    if (!onlyKeys(value, ['type'])) return new ProtocolError('ready: takes no fields');
    return { type: 'ready' };
  }
  if (value.type === 'request') {
    if (!onlyKeys(value, ['type', 'requestId', 'request'])) return new ProtocolError('request: unexpected fields');
    if (!int(value.requestId, 0)) return new ProtocolError('request: requestId must be a non-negative integer');
    const request = parseWebviewRequest(value.request);
    if (request instanceof ProtocolError) return request;
    return { type: 'request', requestId: value.requestId, request };
  }
  return new ProtocolError(`unknown message type ${JSON.stringify(typeof value.type === 'string' ? value.type.slice(0, 40) : value.type)}`);
}

const HOST_TYPES: readonly HostToWebviewType[] = [
  'init',
  'response',
  'state',
  'chats',
  'chips',
  'meter',
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
];

/**
 * The webview's check of what the host posts. The host is trusted, so this checks the envelope
 * (a known type and the fields the panel dereferences), not every nested field.
 */
export function parseHostToWebviewMessage(value: unknown): HostToWebviewMessage | undefined {
  if (!isRecord(value) || typeof value.type !== 'string' || !(HOST_TYPES as readonly string[]).includes(value.type)) return undefined;
  const m = value as Rec & { type: HostToWebviewType };
  switch (m.type) {
    case 'init':
      return int(m.protocolVersion) && typeof m.extensionVersion === 'string' && isPanelState(m.state)
        ? (m as unknown as HostToWebviewMessage)
        : undefined;
    case 'state':
      return isPanelState(m.state) ? (m as unknown as HostToWebviewMessage) : undefined;
    case 'response':
      return int(m.requestId) && typeof m.ok === 'boolean' && (m.ok || typeof m.error === 'string')
        ? (m as unknown as HostToWebviewMessage)
        : undefined;
    case 'chunk':
      return typeof m.turnId === 'string' && typeof m.chatId === 'string' && int(m.seq) && typeof m.text === 'string'
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
      return Array.isArray(m.chips) ? (m as unknown as HostToWebviewMessage) : undefined;
    case 'meter':
      return isRecord(m.meter) && int(m.meter.used) && int(m.meter.budget) ? (m as unknown as HostToWebviewMessage) : undefined;
    case 'model':
      return isRecord(m.model) && typeof m.model.label === 'string' ? (m as unknown as HostToWebviewMessage) : undefined;
    case 'banners':
      return Array.isArray(m.banners) ? (m as unknown as HostToWebviewMessage) : undefined;
    case 'notices':
      return Array.isArray(m.notices) ? (m as unknown as HostToWebviewMessage) : undefined;
    case 'removeTurn':
      return int(m.turn, 1) ? (m as unknown as HostToWebviewMessage) : undefined;
    case 'preview':
      return m.preview === null || (isRecord(m.preview) && typeof m.preview.request === 'string')
        ? (m as unknown as HostToWebviewMessage)
        : undefined;
    case 'setInput':
      return typeof m.text === 'string' && (m.chatId === undefined || typeof m.chatId === 'string')
        ? (m as unknown as HostToWebviewMessage)
        : undefined;
    case 'focusInput':
      return m as unknown as HostToWebviewMessage;
  }
  return undefined;
}

const STEP_STATUSES: readonly string[] = ['running', 'done', 'refused', 'error'];

function isToolStep(v: unknown): v is ToolStepView {
  return (
    isRecord(v) &&
    typeof v.id === 'string' &&
    int(v.step, 1) &&
    typeof v.name === 'string' &&
    typeof v.label === 'string' &&
    typeof v.args === 'string' &&
    typeof v.status === 'string' &&
    STEP_STATUSES.includes(v.status)
  );
}

function isMessage(v: unknown): v is MessageView {
  return (
    isRecord(v) &&
    typeof v.id === 'string' &&
    int(v.turn) &&
    (v.role === 'user' || v.role === 'assistant') &&
    typeof v.text === 'string' &&
    typeof v.status === 'string' &&
    (v.toolSteps === undefined || (Array.isArray(v.toolSteps) && v.toolSteps.every(isToolStep)))
  );
}

function isPanelState(v: unknown): v is PanelState {
  return (
    isRecord(v) &&
    typeof v.chatId === 'string' &&
    Array.isArray(v.chats) &&
    Array.isArray(v.messages) &&
    v.messages.every(isMessage) &&
    Array.isArray(v.chips) &&
    (v.meter === undefined || isRecord(v.meter)) &&
    isRecord(v.model) &&
    typeof v.busy === 'boolean'
  );
}
