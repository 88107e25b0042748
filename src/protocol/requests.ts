/**
 * What the webview asks of the host. Each request kind has its fields and the value its `response`
 * carries in one map, so the host's handler and the webview's client are typed per kind:
 *
 * - The webview says `ready` first; everything else it sends is a `request` with an id.
 * - The host checks every inbound message with `parseWebviewToHostMessage` and rejects (and logs)
 *   anything malformed or forged, never acting on it.
 * - The webview checks each answer it reads (`parseResponseValue`) where it arrives; the values of
 *   the other kinds it drops unread.
 */
import { PROVIDER_NAMES } from '../common/providerCatalog';
import { CHAT_ID } from '../common/chatId';
import { isObj } from '../common/guards';
import { MAX_CITATION_PATH_CHARS, MAX_CITATION_PATHS, parseCitation, parseCitationPaths, type Citation } from './citations';
import { hasOnlyKeys, isInt, isStr } from './fieldChecks';
import {
  MAX_MENTION_QUERY_CHARS,
  parseMentionRef,
  parseMentionResult,
  parseMentionViews,
  SLASH_HOST_COMMANDS,
  type MentionRef,
  type MentionResult,
  type MentionView,
  type SlashHostCommand,
} from './mentions';
import {
  BANNER_ACTIONS,
  MAX_CODE_CHARS,
  MAX_INPUT_CHARS,
  MAX_TITLE_CHARS,
  ProtocolError,
  type AttachWhat,
  type BannerAction,
  type ChipView,
  type ModelOption,
} from './messages';

type NoFields = Record<never, never>;

/** Longest history search the host accepts (characters). */
export const MAX_SEARCH_CHARS = 200;

/** A chat the history search found; `excerpt`: the text around the first match, when the title did not match. */
export interface ChatSearchHit {
  chatId: string;
  excerpt?: string;
}

/** The history search's answer; `complete` is false when the time bound cut the search short. */
export interface ChatSearchResult {
  hits: ChatSearchHit[];
  complete: boolean;
}

/** Every request kind: the fields it carries (`params`) and the value the host answers with (`response`). */
export interface WebviewRequestMap {
  send: { params: { text: string }; response: void };
  stop: { params: NoFields; response: void };
  regenerate: { params: NoFields; response: void };
  newChat: { params: NoFields; response: void };
  switchChat: { params: { chatId: string }; response: void };
  renameChat: { params: { chatId: string; title: string }; response: void };
  /**
   * Answered with whether the chat was deleted. `confirm`: the host asks the user first (and
   * decides); without it the panel has asked already.
   */
  deleteChat: { params: { chatId: string; confirm?: boolean }; response: boolean };
  /** The chats whose title or text holds `query` (case-insensitive), most recent first. */
  searchChats: { params: { query: string }; response: ChatSearchResult };
  /** Answered with the chips added. */
  attach: { params: { what: AttachWhat }; response: ChipView[] };
  /** Takes the chip off the next message; it stays in its place, marked, with Undo until the message is sent. */
  removeChip: { params: { chipId: string }; response: void };
  /** Undo: a chip taken off the next message goes back on it, in its place. */
  restoreChip: { params: { chipId: string }; response: void };
  /** Forgets a chip taken off the next message (its Undo goes). */
  dismissRemovedChip: { params: { chipId: string }; response: void };
  pinChip: { params: { chipId: string; pinned: boolean }; response: void };
  /** A selection chip again, with the definitions it uses; answered with its chip. */
  attachDefinitions: { params: { chipId: string }; response: ChipView[] };
  /** Without provider/model: the host opens its model quick pick. */
  selectModel: { params: { provider?: ModelOption['provider']; model?: string }; response: void };
  /** Answered with the models the picker offers. */
  listModels: { params: NoFields; response: ModelOption[] };
  insertCode: { params: { code: string }; response: void };
  /** A shell block into the terminal, not run: the user reads it there and presses Enter. */
  insertTerminal: { params: { code: string }; response: void };
  /**
   * Apply a reply's code block to a file: the host picks the target (from the fence's info string,
   * the line above the block, the attached files, or by asking), merges, and shows the diff.
   */
  applyCode: { params: { code: string; info: string; lineAbove: string; blockId?: string }; response: void };
  /** Undo an applied code block's change (the host checks the file is as Accept left it). */
  undoApply: { params: { blockId: string }; response: void };
  /** Answered with the paths that are files in the workspace, not excluded (only these become links). */
  resolveCitations: { params: { paths: string[] }; response: string[] };
  /** Open a cited file at its lines (the host checks the path again). */
  openCitation: { params: Citation; response: void };
  copy: { params: { text: string }; response: void };
  bannerAction: { params: { bannerId: string; action: BannerAction }; response: void };
  /** Messages of `chatId` before turn `beforeTurn` (lazy loading on scroll); they arrive as `olderMessages`. */
  loadOlder: { params: { chatId: string; beforeTurn: number }; response: void };
  /** Answered with the `@` picker's entries for `query` (files the isolation excludes are never listed). */
  mentions: { params: { query: string }; response: MentionView[] };
  /** Attach what an `@` entry, the suggestion chip or a `/` template names (refusals come as a banner). */
  attachMention: { params: { ref: MentionRef }; response: MentionResult };
  /** Add Context…: the host opens its quick pick of files, symbols, a folder and Git changes, and attaches what is picked. */
  addContext: { params: NoFields; response: void };
  /** Run a `/` command the host owns (`/compact`, `/cost`). */
  slashCommand: { params: { name: SlashHostCommand }; response: void };
  /** Pin, Unpin, Remove or Undo on an item of the "In context" row (an attachment of an earlier turn, by artifact id). */
  inContextItem: { params: { ref: string; action: InContextAction }; response: void };
  /** Open the Settings editor at one of the settings the panel offers to edit ("Set price…"). */
  openSetting: { params: { setting: PanelSetting }; response: void };
}

export type InContextAction = 'pin' | 'unpin' | 'remove' | 'undo';
export const IN_CONTEXT_ACTIONS: readonly InContextAction[] = ['pin', 'unpin', 'remove', 'undo'];
/** An artifact id as the row names one: a file, a selection or an untitled document (see src/engine). */
const ARTIFACT_ID = /^(?:file|sel|untitled):[^\r\n]+$/;
export const MAX_ARTIFACT_ID_CHARS = 1200;

/** The settings the panel may open by name: a fixed list, so a message cannot steer the Settings editor elsewhere. */
export const PANEL_SETTINGS = ['strata.prices', 'strata.baseUrl'] as const;
export type PanelSetting = (typeof PANEL_SETTINGS)[number];

export type WebviewRequestKind = keyof WebviewRequestMap;

/** The request of one kind, as sent: `{kind, ...params}`. */
export type WebviewRequestOf<K extends WebviewRequestKind> = { kind: K } & WebviewRequestMap[K]['params'];

export type WebviewRequest = { [K in WebviewRequestKind]: WebviewRequestOf<K> }[WebviewRequestKind];

/** The value the host answers a request of kind `K` with. */
export type ResponseOf<K extends WebviewRequestKind> = WebviewRequestMap[K]['response'];

/** The webview's script has loaded and listens; the host posts nothing before this. */
export interface ReadyMessage {
  readonly type: 'ready';
}

export interface RequestMessage {
  readonly type: 'request';
  readonly requestId: number;
  readonly request: WebviewRequest;
}

/** The user is typing in the composer (at most one every `TYPING_NOTICE_MS`): the host counts it as activity. */
export interface TypingMessage {
  readonly type: 'typing';
}

/** Ten minutes of inactivity stop keep-warm: a notice every half minute of typing is plenty, and costs nothing. */
export const TYPING_NOTICE_MS = 30_000;

export type WebviewToHostMessage = ReadyMessage | RequestMessage | TypingMessage;

// ----------------------------------------------------------------------------------- checks

const CHIP_ID = /^[A-Za-z0-9:_.-]{1,128}$/;
/** A chat's code block: `<chatId>/<messageId>/<block number>` (see webview-ui/applyState.ts). */
export const BLOCK_ID = /^[a-z0-9][a-z0-9_-]{0,127}\/[A-Za-z0-9:_.-]{1,64}\/\d{1,4}$/;
const PROVIDERS: readonly string[] = ['vscode-lm', ...PROVIDER_NAMES];
const ATTACH: readonly string[] = ['activeFile', 'selection', 'openEditors'];
const MAX_FENCE_INFO_CHARS = 200;
const MAX_LINE_ABOVE_CHARS = 1000;

/**
 * Validates one webview request; returns a fresh object holding only the checked fields, or a reason.
 * Unknown kinds, missing or extra fields, wrong types and oversized strings are all rejected.
 */
export function parseWebviewRequest(value: unknown): WebviewRequest | ProtocolError {
  if (!isObj(value)) return new ProtocolError('request is not an object');
  const kind = value.kind;
  const bad = (why: string) => new ProtocolError(`${typeof kind === 'string' ? kind.slice(0, 40) : 'request'}: ${why}`);
  const shape = (keys: readonly string[]) => hasOnlyKeys(value, ['kind', ...keys]);
  switch (kind) {
    case 'send':
      if (!shape(['text']) || !isStr(value.text, MAX_INPUT_CHARS))
        return bad(`text must be a string of at most ${MAX_INPUT_CHARS} characters`);
      return { kind, text: value.text };
    case 'stop':
    case 'regenerate':
    case 'newChat':
    case 'listModels':
    case 'addContext':
      if (!shape([])) return bad('takes no fields');
      return { kind };
    case 'switchChat':
      if (!shape(['chatId']) || !isStr(value.chatId, 128) || !CHAT_ID.test(value.chatId)) return bad('chatId is not a chat id');
      return { kind, chatId: value.chatId };
    case 'deleteChat':
      if (!shape(['chatId', 'confirm']) || !isStr(value.chatId, 128) || !CHAT_ID.test(value.chatId)) return bad('chatId is not a chat id');
      if (value.confirm !== undefined && typeof value.confirm !== 'boolean') return bad('confirm must be a boolean');
      return value.confirm === true ? { kind, chatId: value.chatId, confirm: true } : { kind, chatId: value.chatId };
    case 'searchChats':
      if (!shape(['query']) || !isStr(value.query, MAX_SEARCH_CHARS))
        return bad(`query must be a string of at most ${MAX_SEARCH_CHARS} characters`);
      return { kind, query: value.query };
    case 'renameChat':
      if (!shape(['chatId', 'title']) || !isStr(value.chatId, 128) || !CHAT_ID.test(value.chatId)) return bad('chatId is not a chat id');
      if (!isStr(value.title, MAX_TITLE_CHARS) || value.title.trim().length === 0)
        return bad(`title must be 1–${MAX_TITLE_CHARS} characters`);
      return { kind, chatId: value.chatId, title: value.title };
    case 'attach':
      if (!shape(['what']) || typeof value.what !== 'string' || !ATTACH.includes(value.what))
        return bad(`what must be one of ${ATTACH.join(', ')}`);
      return { kind, what: value.what as AttachWhat };
    case 'removeChip':
    case 'restoreChip':
    case 'dismissRemovedChip':
    case 'attachDefinitions':
      if (!shape(['chipId']) || !isStr(value.chipId, 128) || !CHIP_ID.test(value.chipId)) return bad('chipId is not a chip id');
      return { kind, chipId: value.chipId };
    case 'pinChip':
      if (!shape(['chipId', 'pinned']) || !isStr(value.chipId, 128) || !CHIP_ID.test(value.chipId)) return bad('chipId is not a chip id');
      if (typeof value.pinned !== 'boolean') return bad('pinned must be a boolean');
      return { kind, chipId: value.chipId, pinned: value.pinned };
    case 'selectModel': {
      if (!shape(['provider', 'model'])) return bad('unexpected fields');
      if (value.provider === undefined && value.model === undefined) return { kind };
      if (typeof value.provider !== 'string' || !PROVIDERS.includes(value.provider))
        return bad(`provider must be one of ${PROVIDERS.join(', ')}`);
      if (!isStr(value.model, 200, false)) return bad('model must be a non-empty string of at most 200 characters');
      return { kind, provider: value.provider as ModelOption['provider'], model: value.model };
    }
    case 'insertCode':
    case 'insertTerminal':
      if (!shape(['code']) || !isStr(value.code, MAX_CODE_CHARS))
        return bad(`code must be a string of at most ${MAX_CODE_CHARS} characters`);
      return { kind, code: value.code };
    case 'applyCode':
      if (!shape(['code', 'info', 'lineAbove', 'blockId']) || !isStr(value.code, MAX_CODE_CHARS))
        return bad(`code must be a string of at most ${MAX_CODE_CHARS} characters`);
      if (!isStr(value.info, MAX_FENCE_INFO_CHARS) || !isStr(value.lineAbove, MAX_LINE_ABOVE_CHARS))
        return bad(`info and lineAbove must be strings of at most ${MAX_FENCE_INFO_CHARS} and ${MAX_LINE_ABOVE_CHARS} characters`);
      if (value.blockId === undefined) return { kind, code: value.code, info: value.info, lineAbove: value.lineAbove };
      if (!isStr(value.blockId, 200, false) || !BLOCK_ID.test(value.blockId)) return bad('blockId is not a code block id');
      return { kind, code: value.code, info: value.info, lineAbove: value.lineAbove, blockId: value.blockId };
    case 'undoApply':
      if (!shape(['blockId']) || !isStr(value.blockId, 200, false) || !BLOCK_ID.test(value.blockId))
        return bad('blockId is not a code block id');
      return { kind, blockId: value.blockId };
    case 'resolveCitations':
      if (!shape(['paths']) || !Array.isArray(value.paths) || value.paths.length > MAX_CITATION_PATHS)
        return bad(`paths must be an array of at most ${MAX_CITATION_PATHS} paths`);
      if (!value.paths.every((p) => isStr(p, MAX_CITATION_PATH_CHARS, false)))
        return bad(`each path must be a non-empty string of at most ${MAX_CITATION_PATH_CHARS} characters`);
      return { kind, paths: [...(value.paths as string[])] };
    case 'openCitation': {
      if (!shape(['path', 'startLine', 'endLine'])) return bad('unexpected fields');
      const citation = parseCitation(value);
      if (!citation) return bad('path must be a non-empty string and the lines 1-based, start ≤ end');
      return { kind, ...citation };
    }
    case 'copy':
      if (!shape(['text']) || !isStr(value.text, MAX_CODE_CHARS))
        return bad(`text must be a string of at most ${MAX_CODE_CHARS} characters`);
      return { kind, text: value.text };
    case 'bannerAction':
      if (!shape(['bannerId', 'action']) || !isStr(value.bannerId, 128, false)) return bad('bannerId must be a non-empty string');
      if (typeof value.action !== 'string' || !(BANNER_ACTIONS as readonly string[]).includes(value.action))
        return bad(`action must be one of ${BANNER_ACTIONS.join(', ')}`);
      return { kind, bannerId: value.bannerId, action: value.action as BannerAction };
    case 'loadOlder':
      if (!shape(['chatId', 'beforeTurn']) || !isStr(value.chatId, 128) || !CHAT_ID.test(value.chatId))
        return bad('chatId is not a chat id');
      if (!isInt(value.beforeTurn, 1)) return bad('beforeTurn must be a positive integer');
      return { kind, chatId: value.chatId, beforeTurn: value.beforeTurn };
    case 'mentions':
      if (!shape(['query']) || !isStr(value.query, MAX_MENTION_QUERY_CHARS))
        return bad(`query must be a string of at most ${MAX_MENTION_QUERY_CHARS} characters`);
      return { kind, query: value.query };
    case 'attachMention': {
      if (!shape(['ref'])) return bad('takes only ref');
      const ref = parseMentionRef(value.ref);
      if (typeof ref === 'string') return bad(ref);
      return { kind, ref };
    }
    case 'slashCommand':
      if (!shape(['name']) || typeof value.name !== 'string' || !(SLASH_HOST_COMMANDS as readonly string[]).includes(value.name))
        return bad(`name must be one of ${SLASH_HOST_COMMANDS.join(', ')}`);
      return { kind, name: value.name as SlashHostCommand };
    case 'inContextItem':
      if (!shape(['ref', 'action']) || !isStr(value.ref, MAX_ARTIFACT_ID_CHARS, false) || !ARTIFACT_ID.test(value.ref))
        return bad('ref is not an artifact id');
      if (typeof value.action !== 'string' || !(IN_CONTEXT_ACTIONS as readonly string[]).includes(value.action))
        return bad(`action must be one of ${IN_CONTEXT_ACTIONS.join(', ')}`);
      return { kind, ref: value.ref, action: value.action as InContextAction };
    case 'openSetting':
      if (!shape(['setting']) || typeof value.setting !== 'string' || !(PANEL_SETTINGS as readonly string[]).includes(value.setting))
        return bad(`setting must be one of ${PANEL_SETTINGS.join(', ')}`);
      return { kind, setting: value.setting as PanelSetting };
    default:
      return new ProtocolError(`unknown request kind ${JSON.stringify(typeof kind === 'string' ? kind.slice(0, 40) : kind)}`);
  }
}

/** Validates a message from the webview; a `ProtocolError` says why it was rejected. */
export function parseWebviewToHostMessage(value: unknown): WebviewToHostMessage | ProtocolError {
  if (!isObj(value)) return new ProtocolError('message is not an object');
  if (value.type === 'ready') {
    if (!hasOnlyKeys(value, ['type'])) return new ProtocolError('ready: takes no fields');
    return { type: 'ready' };
  }
  if (value.type === 'typing') {
    if (!hasOnlyKeys(value, ['type'])) return new ProtocolError('typing: takes no fields');
    return { type: 'typing' };
  }
  if (value.type === 'request') {
    if (!hasOnlyKeys(value, ['type', 'requestId', 'request'])) return new ProtocolError('request: unexpected fields');
    if (!isInt(value.requestId, 0)) return new ProtocolError('request: requestId must be a non-negative integer');
    const request = parseWebviewRequest(value.request);
    if (request instanceof ProtocolError) return request;
    return { type: 'request', requestId: value.requestId, request };
  }
  return new ProtocolError(`unknown message type ${JSON.stringify(typeof value.type === 'string' ? value.type.slice(0, 40) : value.type)}`);
}

/** The `listModels` answer: a list of model options (anything else is refused). */
export function parseModelOptions(value: unknown): ModelOption[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const out: ModelOption[] = [];
  for (const v of value) {
    if (!isObj(v)) return undefined;
    if (typeof v.provider !== 'string' || !PROVIDERS.includes(v.provider) || typeof v.model !== 'string' || typeof v.label !== 'string')
      return undefined;
    out.push({
      provider: v.provider as ModelOption['provider'],
      model: v.model,
      label: v.label,
      detail: typeof v.detail === 'string' ? v.detail : undefined,
    });
  }
  return out;
}

/** The `searchChats` answer: chat ids and excerpts (anything else is refused). */
export function parseChatSearchResult(value: unknown): ChatSearchResult | undefined {
  if (!isObj(value) || !Array.isArray(value.hits) || typeof value.complete !== 'boolean') return undefined;
  const hits: ChatSearchHit[] = [];
  for (const v of value.hits) {
    if (!isObj(v) || !isStr(v.chatId, 128) || !CHAT_ID.test(v.chatId)) return undefined;
    if (v.excerpt !== undefined && !isStr(v.excerpt, 1000)) return undefined;
    hits.push(v.excerpt === undefined ? { chatId: v.chatId } : { chatId: v.chatId, excerpt: v.excerpt });
  }
  return { hits, complete: value.complete };
}

/** The answers the webview reads, each with its check and what it says when the check fails. */
const RESPONSE_CHECKS = {
  listModels: { parse: parseModelOptions, refused: 'The extension sent an unexpected model list.' },
  resolveCitations: { parse: parseCitationPaths, refused: 'The extension sent an unexpected list of paths.' },
  mentions: { parse: parseMentionViews, refused: 'The extension sent an unexpected list of mentions.' },
  attachMention: { parse: parseMentionResult, refused: 'The extension sent an unexpected answer to the mention.' },
  searchChats: { parse: parseChatSearchResult, refused: 'The extension sent an unexpected search result.' },
} satisfies { [K in WebviewRequestKind]?: { parse(value: unknown): ResponseOf<K> | undefined; refused: string } };

type CheckedKind = keyof typeof RESPONSE_CHECKS;

/** What the webview gets of a response of kind `K`: the checked value, or nothing for the kinds it does not read. */
export type PanelResponseOf<K extends WebviewRequestKind> = K extends CheckedKind ? ResponseOf<K> : undefined;

/** The webview's check of an answer's value: the checked value, or why it was refused. */
export function parseResponseValue<K extends WebviewRequestKind>(kind: K, value: unknown): PanelResponseOf<K> | ProtocolError {
  if (!Object.hasOwn(RESPONSE_CHECKS, kind)) return undefined as PanelResponseOf<K>;
  const check = RESPONSE_CHECKS[kind as CheckedKind];
  const parsed = check.parse(value);
  return parsed === undefined ? new ProtocolError(check.refused) : (parsed as PanelResponseOf<K>);
}
