"use strict";
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
Object.defineProperty(exports, "__esModule", { value: true });
exports.ProtocolError = exports.BANNER_ACTIONS = exports.LAYER_KEYS = exports.MAX_TITLE_CHARS = exports.MAX_CODE_CHARS = exports.MAX_INPUT_CHARS = exports.REQUEST_TIMEOUT_MS = exports.PROTOCOL_VERSION = void 0;
exports.parseWebviewRequest = parseWebviewRequest;
exports.parseWebviewToHostMessage = parseWebviewToHostMessage;
exports.parseHostToWebviewMessage = parseHostToWebviewMessage;
exports.PROTOCOL_VERSION = 2;
/** A webview request without a response after this long is failed on the webview side. */
exports.REQUEST_TIMEOUT_MS = 15_000;
/** Longest message text the host accepts from the panel (characters). */
exports.MAX_INPUT_CHARS = 1_000_000;
/** Longest code block the panel may ask to copy or insert (characters). */
exports.MAX_CODE_CHARS = 5_000_000;
/** Longest chat title (characters). */
exports.MAX_TITLE_CHARS = 200;
exports.LAYER_KEYS = ['L1', 'L2', 'L3', 'L4', 'L5'];
exports.BANNER_ACTIONS = ['setApiKey', 'openSettings', 'retry', 'selectModel', 'showLog', 'dismiss'];
function isRecord(value) {
    return typeof value === 'object' && value !== null && !Array.isArray(value);
}
const CHAT_ID = /^[a-z0-9][a-z0-9_-]{0,127}$/;
const CHIP_ID = /^[A-Za-z0-9:_.-]{1,128}$/;
const PROVIDERS = ['vscode-lm', 'openai', 'anthropic'];
const ATTACH = ['activeFile', 'selection', 'openEditors'];
function str(v, max, allowEmpty = true) {
    return typeof v === 'string' && v.length <= max && (allowEmpty || v.length > 0);
}
function int(v, min = 0, max = Number.MAX_SAFE_INTEGER) {
    return typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max;
}
function onlyKeys(v, keys) {
    for (const k of Object.keys(v))
        if (!keys.includes(k))
            return false;
    return true;
}
/** Why a webview message was rejected (for the log; never contains the message's text). */
class ProtocolError extends Error {
    name = 'ProtocolError';
}
exports.ProtocolError = ProtocolError;
/**
 * Validates one webview request; returns a fresh object holding only the checked fields, or a reason.
 * Unknown kinds, missing or extra fields, wrong types and oversized strings are all rejected.
 */
function parseWebviewRequest(value) {
    if (!isRecord(value))
        return new ProtocolError('request is not an object');
    const kind = value.kind;
    const bad = (why) => new ProtocolError(`${typeof kind === 'string' ? kind.slice(0, 40) : 'request'}: ${why}`);
    const shape = (keys) => onlyKeys(value, ['kind', ...keys]);
    switch (kind) {
        case 'send':
            if (!shape(['text']) || !str(value.text, exports.MAX_INPUT_CHARS))
                return bad(`text must be a string of at most ${exports.MAX_INPUT_CHARS} characters`);
            return { kind, text: value.text };
        case 'stop':
        case 'regenerate':
        case 'newChat':
        case 'listModels':
            if (!shape([]))
                return bad('takes no fields');
            return { kind };
        case 'switchChat':
        case 'deleteChat':
            if (!shape(['chatId']) || !str(value.chatId, 128) || !CHAT_ID.test(value.chatId))
                return bad('chatId is not a chat id');
            return { kind, chatId: value.chatId };
        case 'renameChat':
            if (!shape(['chatId', 'title']) || !str(value.chatId, 128) || !CHAT_ID.test(value.chatId))
                return bad('chatId is not a chat id');
            if (!str(value.title, exports.MAX_TITLE_CHARS) || value.title.trim().length === 0)
                return bad(`title must be 1–${exports.MAX_TITLE_CHARS} characters`);
            return { kind, chatId: value.chatId, title: value.title };
        case 'attach':
            if (!shape(['what']) || typeof value.what !== 'string' || !ATTACH.includes(value.what))
                return bad(`what must be one of ${ATTACH.join(', ')}`);
            return { kind, what: value.what };
        case 'removeChip':
            if (!shape(['chipId']) || !str(value.chipId, 128) || !CHIP_ID.test(value.chipId))
                return bad('chipId is not a chip id');
            return { kind, chipId: value.chipId };
        case 'pinChip':
            if (!shape(['chipId', 'pinned']) || !str(value.chipId, 128) || !CHIP_ID.test(value.chipId))
                return bad('chipId is not a chip id');
            if (typeof value.pinned !== 'boolean')
                return bad('pinned must be a boolean');
            return { kind, chipId: value.chipId, pinned: value.pinned };
        case 'selectModel': {
            if (!shape(['provider', 'model']))
                return bad('unexpected fields');
            if (value.provider === undefined && value.model === undefined)
                return { kind };
            if (typeof value.provider !== 'string' || !PROVIDERS.includes(value.provider))
                return bad(`provider must be one of ${PROVIDERS.join(', ')}`);
            if (!str(value.model, 200, false))
                return bad('model must be a non-empty string of at most 200 characters');
            return { kind, provider: value.provider, model: value.model };
        }
        case 'insertCode':
            if (!shape(['code']) || !str(value.code, exports.MAX_CODE_CHARS))
                return bad(`code must be a string of at most ${exports.MAX_CODE_CHARS} characters`);
            return { kind, code: value.code };
        case 'copy':
            if (!shape(['text']) || !str(value.text, exports.MAX_CODE_CHARS))
                return bad(`text must be a string of at most ${exports.MAX_CODE_CHARS} characters`);
            return { kind, text: value.text };
        case 'bannerAction':
            if (!shape(['bannerId', 'action']) || !str(value.bannerId, 128, false))
                return bad('bannerId must be a non-empty string');
            if (typeof value.action !== 'string' || !exports.BANNER_ACTIONS.includes(value.action))
                return bad(`action must be one of ${exports.BANNER_ACTIONS.join(', ')}`);
            return { kind, bannerId: value.bannerId, action: value.action };
        case 'loadOlder':
            if (!shape(['chatId', 'beforeTurn']) || !str(value.chatId, 128) || !CHAT_ID.test(value.chatId))
                return bad('chatId is not a chat id');
            if (!int(value.beforeTurn, 1))
                return bad('beforeTurn must be a positive integer');
            return { kind, chatId: value.chatId, beforeTurn: value.beforeTurn };
        default:
            return new ProtocolError(`unknown request kind ${JSON.stringify(typeof kind === 'string' ? kind.slice(0, 40) : kind)}`);
    }
}
/** Validates a message from the webview; a `ProtocolError` says why it was rejected. */
function parseWebviewToHostMessage(value) {
    if (!isRecord(value))
        return new ProtocolError('message is not an object');
    if (value.type === 'ready') {
        if (!onlyKeys(value, ['type']))
            return new ProtocolError('ready: takes no fields');
        return { type: 'ready' };
    }
    if (value.type === 'request') {
        if (!onlyKeys(value, ['type', 'requestId', 'request']))
            return new ProtocolError('request: unexpected fields');
        if (!int(value.requestId, 0))
            return new ProtocolError('request: requestId must be a non-negative integer');
        const request = parseWebviewRequest(value.request);
        if (request instanceof ProtocolError)
            return request;
        return { type: 'request', requestId: value.requestId, request };
    }
    return new ProtocolError(`unknown message type ${JSON.stringify(typeof value.type === 'string' ? value.type.slice(0, 40) : value.type)}`);
}
const HOST_TYPES = [
    'init', 'response', 'state', 'chats', 'chips', 'meter', 'model', 'banners', 'notices', 'turnStarted', 'chunk', 'turnEnded',
    'removeTurn', 'olderMessages', 'preview', 'setInput', 'focusInput', 'toolStep',
];
/**
 * The webview's check of what the host posts. The host is trusted, so this checks the envelope
 * (a known type and the fields the panel dereferences), not every nested field.
 */
function parseHostToWebviewMessage(value) {
    if (!isRecord(value) || typeof value.type !== 'string' || !HOST_TYPES.includes(value.type))
        return undefined;
    const m = value;
    switch (m.type) {
        case 'init':
            return int(m.protocolVersion) && typeof m.extensionVersion === 'string' && isPanelState(m.state) ? m : undefined;
        case 'state':
            return isPanelState(m.state) ? m : undefined;
        case 'response':
            return int(m.requestId) && typeof m.ok === 'boolean' && (m.ok || typeof m.error === 'string') ? m : undefined;
        case 'chunk':
            return typeof m.turnId === 'string' && typeof m.chatId === 'string' && int(m.seq) && typeof m.text === 'string' ? m : undefined;
        case 'toolStep':
            return typeof m.turnId === 'string' && typeof m.chatId === 'string' && isToolStep(m.step) ? m : undefined;
        case 'turnStarted':
            return typeof m.turnId === 'string' && isMessage(m.user) && isMessage(m.assistant) ? m : undefined;
        case 'turnEnded':
            return typeof m.turnId === 'string' && isMessage(m.assistant) && typeof m.kept === 'boolean' ? m : undefined;
        case 'olderMessages':
            return Array.isArray(m.messages) && m.messages.every(isMessage) && typeof m.hasOlder === 'boolean' ? m : undefined;
        case 'chats':
            return Array.isArray(m.chats) && typeof m.chatId === 'string' ? m : undefined;
        case 'chips':
            return Array.isArray(m.chips) ? m : undefined;
        case 'meter':
            return isRecord(m.meter) && int(m.meter.used) && int(m.meter.budget) ? m : undefined;
        case 'model':
            return isRecord(m.model) && typeof m.model.label === 'string' ? m : undefined;
        case 'banners':
            return Array.isArray(m.banners) ? m : undefined;
        case 'notices':
            return Array.isArray(m.notices) ? m : undefined;
        case 'removeTurn':
            return int(m.turn, 1) ? m : undefined;
        case 'preview':
            return m.preview === null || (isRecord(m.preview) && typeof m.preview.request === 'string') ? m : undefined;
        case 'setInput':
            return typeof m.text === 'string' ? m : undefined;
        case 'focusInput':
            return m;
    }
    return undefined;
}
const STEP_STATUSES = ['running', 'done', 'refused', 'error'];
function isToolStep(v) {
    return isRecord(v) && typeof v.id === 'string' && int(v.step, 1) && typeof v.name === 'string' && typeof v.label === 'string' && typeof v.args === 'string' && typeof v.status === 'string' && STEP_STATUSES.includes(v.status);
}
function isMessage(v) {
    return (isRecord(v) &&
        typeof v.id === 'string' &&
        int(v.turn) &&
        (v.role === 'user' || v.role === 'assistant') &&
        typeof v.text === 'string' &&
        typeof v.status === 'string' &&
        (v.toolSteps === undefined || (Array.isArray(v.toolSteps) && v.toolSteps.every(isToolStep))));
}
function isPanelState(v) {
    return (isRecord(v) &&
        typeof v.chatId === 'string' &&
        Array.isArray(v.chats) &&
        Array.isArray(v.messages) &&
        v.messages.every(isMessage) &&
        Array.isArray(v.chips) &&
        (v.meter === undefined || isRecord(v.meter)) &&
        isRecord(v.model) &&
        typeof v.busy === 'boolean');
}
//# sourceMappingURL=messages.js.map