"use strict";
var __createBinding = (this && this.__createBinding) || (Object.create ? (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    var desc = Object.getOwnPropertyDescriptor(m, k);
    if (!desc || ("get" in desc ? !m.__esModule : desc.writable || desc.configurable)) {
      desc = { enumerable: true, get: function() { return m[k]; } };
    }
    Object.defineProperty(o, k2, desc);
}) : (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    o[k2] = m[k];
}));
var __setModuleDefault = (this && this.__setModuleDefault) || (Object.create ? (function(o, v) {
    Object.defineProperty(o, "default", { enumerable: true, value: v });
}) : function(o, v) {
    o["default"] = v;
});
var __importStar = (this && this.__importStar) || (function () {
    var ownKeys = function(o) {
        ownKeys = Object.getOwnPropertyNames || function (o) {
            var ar = [];
            for (var k in o) if (Object.prototype.hasOwnProperty.call(o, k)) ar[ar.length] = k;
            return ar;
        };
        return ownKeys(o);
    };
    return function (mod) {
        if (mod && mod.__esModule) return mod;
        var result = {};
        if (mod != null) for (var k = ownKeys(mod), i = 0; i < k.length; i++) if (k[i] !== "default") __createBinding(result, mod, k[i]);
        __setModuleDefault(result, mod);
        return result;
    };
})();
Object.defineProperty(exports, "__esModule", { value: true });
exports.AnthropicImitationServer = exports.OpenAIImitationServer = exports.IMITATION_OWNER = exports.IMITATION_HEADER = void 0;
exports.startOpenAIImitation = startOpenAIImitation;
exports.startAnthropicImitation = startAnthropicImitation;
exports.startImitationServers = startImitationServers;
/**
 * Local imitation servers for the OpenAI chat-completions and Anthropic messages APIs (real HTTP on
 * 127.0.0.1, port 0 by default). Usage (including cached tokens) is computed with the same token
 * counting and prefix-cache rules as the simulation (src/services/cacheModel.ts, DESIGN §9), so a
 * test can compare the provider-reported usage with the engine's prediction exactly.
 *
 * Replies: `queueReply()` (one per chat request, in order), else the `x-imitation-reply` request
 * header (URI-encoded), else `replyFor`, else `defaultReply`. A reply is a text, or a scripted
 * response `{ text?, toolCalls? }`: the model says `text` (optional) and then calls the tools, streamed
 * in each API's wire format (OpenAI `tool_calls` deltas with argument pieces, finish reason
 * `tool_calls`; Anthropic `tool_use` blocks with `input_json_delta` pieces, stop reason `tool_use`).
 * Requests carrying tool calls and results (OpenAI `tool` messages, Anthropic `tool_use` /
 * `tool_result` blocks) are recorded as provider-neutral messages with `toolCalls` / `toolCallId`
 * (DESIGN §9) and counted with the §9 rule; the tool definitions sent are recorded in `tools`.
 * Faults: `injectFault(fault, times)` applies to the next `times` chat requests; `faultEvery(n, f)`
 * to every n-th one.
 *
 * Identification: every response carries `x-strata-imitation: 1`, and the OpenAI imitation's
 * `GET /v1/models` lists its models with `owned_by: "strata-imitation"`, so the extension can label
 * a loopback base URL answered by these servers as the local imitation, not a real model.
 */
const http = __importStar(require("http"));
const cacheModel_1 = require("../../src/services/cacheModel");
const tokenizer_1 = require("../../src/services/tokenizer");
/** Header on every imitation response (and `owned_by` of the OpenAI imitation's models). */
exports.IMITATION_HEADER = 'x-strata-imitation';
exports.IMITATION_OWNER = 'strata-imitation';
/** The extension's own tokenizer (src/services/tokenizer.ts): the same counting as the engine. */
function defaultTokenizer(encoding) {
    return (0, tokenizer_1.getTokenizer)(encoding);
}
function splitDeltas(text, n) {
    const cps = Array.from(text);
    const out = [];
    for (let i = 0; i < cps.length; i += n)
        out.push(cps.slice(i, i + n).join(''));
    return out;
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
class ImitationServerBase {
    opts;
    requests = [];
    server;
    sockets = new Set();
    tokenizer;
    replies = [];
    toolCallCount = 0;
    faults = [];
    periodic;
    chatCount = 0;
    port = 0;
    timers = new Set();
    constructor(opts) {
        this.opts = opts;
        this.tokenizer = opts.tokenizer ?? defaultTokenizer(opts.encoding ?? 'o200k_base');
        this.server = http.createServer((req, res) => void this.handle(req, res));
        this.server.on('connection', (s) => {
            this.sockets.add(s);
            s.on('close', () => this.sockets.delete(s));
        });
    }
    async listen() {
        await new Promise((resolve, reject) => {
            this.server.once('error', reject);
            this.server.listen(this.opts.port ?? 0, this.opts.host ?? '127.0.0.1', () => resolve());
        });
        this.port = this.server.address().port;
        return this;
    }
    /** http://127.0.0.1:PORT */
    get origin() {
        return `http://${this.opts.host ?? '127.0.0.1'}:${this.port}`;
    }
    queueReply(...replies) {
        this.replies.push(...replies);
    }
    /** Replies still queued. */
    get queuedReplies() {
        return this.replies.length;
    }
    /** A scripted response with every call given an id (`prefix` + a per-server counter when absent). */
    scripted(r, prefix) {
        if (typeof r === 'string')
            return { text: r, toolCalls: [] };
        return { text: r.text ?? '', toolCalls: (r.toolCalls ?? []).map((c) => ({ id: c.id ?? `${prefix}${++this.toolCallCount}`, name: c.name, args: c.args })) };
    }
    injectFault(fault, times = 1) {
        for (let i = 0; i < times; i++)
            this.faults.push(fault);
    }
    /** Every n-th chat request (n, 2n, …, counted from now) gets `fault`; `undefined` clears it. */
    faultEvery(n, fault) {
        this.periodic = n && fault ? { every: n, fault } : undefined;
        this.chatCount = 0;
    }
    /** Chat requests only (not GET /models). */
    get chatRequests() {
        return this.requests.filter((r) => r.method === 'POST');
    }
    async close() {
        for (const t of this.timers)
            clearTimeout(t);
        for (const s of this.sockets)
            s.destroy();
        await new Promise((resolve) => this.server.close(() => resolve()));
    }
    nextFault() {
        this.chatCount++;
        const f = this.faults.shift();
        if (f)
            return f;
        if (this.periodic && this.chatCount % this.periodic.every === 0)
            return this.periodic.fault;
        return undefined;
    }
    nextReply(req, context) {
        const q = this.replies.shift();
        if (q !== undefined)
            return q;
        const h = req.headers['x-imitation-reply'];
        if (typeof h === 'string') {
            try {
                return decodeURIComponent(h);
            }
            catch {
                return h;
            }
        }
        if (this.opts.replyFor)
            return this.opts.replyFor(context);
        return this.opts.defaultReply ?? 'This is a streamed reply from the Strata imitation server.';
    }
    countText(text) {
        return this.tokenizer.count ? this.tokenizer.count(text) : this.tokenizer.encode(text).length;
    }
    json(res, status, body, headers = {}) {
        const s = JSON.stringify(body);
        res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(s), [exports.IMITATION_HEADER]: '1', ...headers });
        res.end(s);
    }
    sse(res) {
        res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive', [exports.IMITATION_HEADER]: '1' });
        res.flushHeaders();
    }
    /**
     * Writes `pieces` in order with the configured delay; stops early if the client went away.
     * Pieces `deltas.first` … `deltas.first + deltas.texts.length - 1` are text deltas: each one's
     * send time is recorded in `rec.deltas` (for latency measurements).
     */
    async writeAll(res, pieces, deltas) {
        for (const [i, p] of pieces.entries()) {
            if (res.destroyed || res.writableEnded)
                return false;
            res.write(p);
            if (deltas && i >= deltas.first && i < deltas.first + deltas.texts.length) {
                (deltas.rec.deltas ??= []).push({ text: deltas.texts[i - deltas.first], sentAt: Date.now() });
            }
            if (this.opts.chunkDelayMs)
                await sleep(this.opts.chunkDelayMs);
        }
        return !res.destroyed;
    }
    async reset(res) {
        await sleep(50); // let the client read what was sent: an RST discards unread data
        const s = res.socket;
        if (s?.resetAndDestroy)
            s.resetAndDestroy();
        else
            s?.destroy();
    }
    stall(res, ms) {
        return new Promise((resolve) => {
            const t = setTimeout(() => {
                this.timers.delete(t);
                if (!res.writableEnded)
                    res.end();
                resolve();
            }, ms);
            this.timers.add(t);
            res.on('close', () => {
                clearTimeout(t);
                this.timers.delete(t);
                resolve();
            });
        });
    }
    async handle(req, res) {
        const rec = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, receivedAt: Date.now() };
        this.requests.push(rec);
        res.on('close', () => {
            if (!res.writableFinished)
                rec.clientClosedAt = Date.now();
        });
        try {
            const chunks = [];
            for await (const c of req)
                chunks.push(c);
            const raw = Buffer.concat(chunks).toString('utf8');
            if (raw)
                rec.rawBody = raw;
            if (raw) {
                try {
                    rec.body = JSON.parse(raw);
                }
                catch {
                    return this.badRequest(res, 'The request body is not valid JSON.');
                }
            }
            await this.route(req, res, rec);
        }
        catch (e) {
            if (!res.headersSent)
                this.json(res, 500, { error: { message: String(e) } });
            else
                res.destroy();
        }
    }
}
/* ================================================================================================
 * OpenAI chat completions
 * ============================================================================================== */
class OpenAIImitationServer extends ImitationServerBase {
    kind = 'openai';
    /** One cache per prompt_cache_key ('' = requests without a key). */
    caches = new Map();
    get url() {
        return `${this.origin}/v1`;
    }
    resetCache() {
        this.caches.clear();
    }
    badRequest(res, message) {
        this.json(res, 400, { error: { message, type: 'invalid_request_error', param: null, code: null } });
    }
    error(res, status, message, type, code, headers = {}) {
        this.json(res, status, { error: { message, type, param: null, code } }, headers);
    }
    async route(req, res, rec) {
        const path = (req.url ?? '').split('?')[0].replace(/\/+$/, '');
        if (req.method === 'GET' && path === '/v1/models') {
            const ids = this.opts.models ?? ['imitation-gpt'];
            return this.json(res, 200, { object: 'list', data: ids.map((id) => ({ id, object: 'model', created: 0, owned_by: exports.IMITATION_OWNER })) });
        }
        if (req.method !== 'POST' || path !== '/v1/chat/completions') {
            return this.error(res, 404, `Unknown request URL: ${req.method} ${path}.`, 'invalid_request_error', 'unknown_url');
        }
        const auth = req.headers.authorization ?? '';
        const body = rec.body;
        if (!body || typeof body.model !== 'string' || !Array.isArray(body.messages))
            return this.badRequest(res, "Missing required parameter: 'model' or 'messages'.");
        const fault = this.nextFault();
        rec.fault = fault?.kind;
        const presented = auth.replace(/^Bearer\s+/i, '');
        if (fault?.kind === 'bad-key' || (this.opts.apiKey !== undefined && presented !== this.opts.apiKey)) {
            // Like a careless server, this one echoes the key it was given: the client must not show it.
            return this.error(res, 401, `Incorrect API key provided: ${presented}. You can find your API key at https://platform.openai.com/account/api-keys.`, 'invalid_request_error', 'invalid_api_key');
        }
        if (fault?.kind === 'unknown-model' || (this.opts.models && !this.opts.models.includes(body.model))) {
            return this.error(res, 404, `The model \`${body.model}\` does not exist or you do not have access to it.`, 'invalid_request_error', 'model_not_found');
        }
        if (fault?.kind === 'rate-limit') {
            const h = {};
            if (fault.retryAfter !== undefined)
                h['retry-after'] = fault.retryAfter;
            if (fault.retryAfterMs !== undefined)
                h['retry-after-ms'] = fault.retryAfterMs;
            if (!h['retry-after'] && !h['retry-after-ms'])
                h['retry-after'] = '1';
            return this.error(res, 429, 'Rate limit reached for requests per min. Please try again later.', 'requests', 'rate_limit_exceeded', h);
        }
        if (fault?.kind === 'server-error' || fault?.kind === 'overloaded') {
            return this.error(res, fault.kind === 'overloaded' ? 503 : fault.status ?? 500, 'The server had an error while processing your request.', 'server_error', null);
        }
        let messages;
        let tools;
        try {
            messages = body.messages.map(openaiMessage);
            tools = openaiTools(body.tools);
        }
        catch (e) {
            return this.badRequest(res, e.message);
        }
        rec.messages = messages;
        if (tools)
            rec.tools = tools;
        const { tokens } = (0, cacheModel_1.requestTokens)(messages, this.tokenizer);
        if (fault?.kind === 'context-length') {
            return this.error(res, 400, `This model's maximum context length is 128000 tokens. However, your messages resulted in ${tokens.length + 128000} tokens. Please reduce the length of the messages.`, 'invalid_request_error', 'context_length_exceeded');
        }
        const key = typeof body.prompt_cache_key === 'string' ? body.prompt_cache_key : '';
        let cache = this.caches.get(key);
        if (!cache)
            this.caches.set(key, (cache = new cacheModel_1.OpenAICacheModel()));
        const { cached } = cache.observe(tokens);
        const scripted = this.scripted(this.nextReply(req, { model: body.model, messages, tools: tools ?? [], promptTokens: tokens.length, cachedTokens: cached }), 'call_');
        if (scripted.toolCalls.length > 0 && !tools)
            return this.badRequest(res, 'The imitation model was scripted to call a tool, but the request offers no tools.');
        const reply = scripted.text;
        rec.reply = reply;
        if (scripted.toolCalls.length > 0)
            rec.toolCalls = scripted.toolCalls;
        const wireCalls = scripted.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.args) } }));
        const output = this.countText(reply + (scripted.toolCalls.length > 0 ? JSON.stringify(scripted.toolCalls) : ''));
        const usage = { prompt_tokens: tokens.length, completion_tokens: output, total_tokens: tokens.length + output, prompt_tokens_details: { cached_tokens: cached, audio_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0 } };
        rec.usage = { input: tokens.length, cacheRead: cached, cacheWrite: 0, output };
        const id = `chatcmpl-imitation-${this.requests.length}`;
        const base = { id, object: 'chat.completion.chunk', created: 0, model: body.model, system_fingerprint: 'fp_imitation' };
        const finishReason = wireCalls.length > 0 ? 'tool_calls' : 'stop';
        if (body.stream !== true) {
            const message = { role: 'assistant', content: wireCalls.length > 0 && reply === '' ? null : reply };
            if (wireCalls.length > 0)
                message.tool_calls = wireCalls;
            return this.json(res, 200, { id, object: 'chat.completion', created: 0, model: body.model, choices: [{ index: 0, message, finish_reason: finishReason, logprobs: null }], usage });
        }
        const deltas = splitDeltas(reply, this.opts.deltaChars ?? 6);
        const ev = (o) => `data: ${JSON.stringify(o)}\n\n`;
        const chunk = (delta, finish = null) => ev({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] });
        this.sse(res);
        const head = [chunk({ role: 'assistant', content: wireCalls.length > 0 && reply === '' ? null : '' })];
        if (fault?.kind === 'reset' || fault?.kind === 'malformed' || fault?.kind === 'stall') {
            const n = fault.afterChunks ?? (fault.kind === 'reset' ? 2 : fault.kind === 'malformed' ? 1 : 0);
            await this.writeAll(res, [...head, ...deltas.slice(0, n).map((d) => chunk({ content: d }))], { rec, first: head.length, texts: deltas.slice(0, n) });
            if (fault.kind === 'reset')
                return this.reset(res);
            if (fault.kind === 'malformed') {
                res.end(`data: {"id":"${id}","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"tru\n\n`);
                return;
            }
            return this.stall(res, fault.ms ?? 60_000);
        }
        // Tool calls: a first delta with the id and name, then the arguments in pieces.
        const callChunks = [];
        wireCalls.forEach((c, index) => {
            callChunks.push(chunk({ tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.function.name, arguments: '' } }] }));
            for (const piece of splitDeltas(c.function.arguments, this.opts.deltaChars ?? 6))
                callChunks.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
        });
        const body2 = [...head, ...deltas.map((d) => chunk({ content: d })), ...callChunks, chunk({}, finishReason)];
        if (body.stream_options?.include_usage)
            body2.push(ev({ ...base, choices: [], usage }));
        body2.push('data: [DONE]\n\n');
        if (await this.writeAll(res, body2, { rec, first: head.length, texts: deltas }))
            res.end();
    }
}
exports.OpenAIImitationServer = OpenAIImitationServer;
/** The tool names an OpenAI request offers (undefined: no `tools`). */
function openaiTools(tools) {
    if (tools === undefined)
        return undefined;
    if (!Array.isArray(tools))
        throw new Error('tools: must be an array.');
    return tools.map((t, i) => {
        if (!t || t.type !== 'function' || !t.function || typeof t.function.name !== 'string')
            throw new Error(`tools[${i}]: expected {"type": "function", "function": {"name", …}}.`);
        return t.function.name;
    });
}
function textOfContent(content, where) {
    if (typeof content === 'string')
        return [{ type: 'text', text: content }];
    if (content === null || content === undefined)
        return [];
    if (!Array.isArray(content))
        throw new Error(`${where}: content must be a string or an array of content parts.`);
    return content.map((p) => {
        if (!p || p.type !== 'text' || typeof p.text !== 'string')
            throw new Error(`${where}: only text content parts are supported by the imitation server.`);
        return p.cache_control ? { type: 'text', text: p.text, cacheBreakpoint: true } : { type: 'text', text: p.text };
    });
}
function openaiMessage(m, i) {
    const role = m.role === 'developer' ? 'system' : m.role;
    if (role === 'tool') {
        if (typeof m.tool_call_id !== 'string')
            throw new Error(`messages[${i}]: a tool message needs tool_call_id.`);
        return { role: 'tool', toolCallId: m.tool_call_id, content: textOfContent(m.content, `messages[${i}]`).map((b) => ({ type: 'text', text: b.text })) };
    }
    if (role !== 'system' && role !== 'user' && role !== 'assistant')
        throw new Error(`messages[${i}].role: unsupported role ${JSON.stringify(m.role)}.`);
    // Breakpoints mean nothing to OpenAI: drop any.
    const out = { role, content: textOfContent(m.content, `messages[${i}]`).map((b) => ({ type: 'text', text: b.text })) };
    if (role === 'assistant' && m.tool_calls !== undefined) {
        if (!Array.isArray(m.tool_calls))
            throw new Error(`messages[${i}].tool_calls: must be an array.`);
        out.toolCalls = m.tool_calls.map((c, j) => {
            if (!c || typeof c.id !== 'string' || c.type !== 'function' || !c.function || typeof c.function.name !== 'string' || typeof c.function.arguments !== 'string') {
                throw new Error(`messages[${i}].tool_calls[${j}]: expected {"id", "type": "function", "function": {"name", "arguments"}}.`);
            }
            let args;
            try {
                args = JSON.parse(c.function.arguments);
            }
            catch {
                throw new Error(`messages[${i}].tool_calls[${j}].function.arguments: not valid JSON.`);
            }
            return { id: c.id, name: c.function.name, args: args };
        });
        // A call without words is sent with `content: ""` (or null): no text block (DESIGN §9, `"content": []`).
        if (out.content.length === 1 && out.content[0].text === '')
            out.content = [];
    }
    return out;
}
/* ================================================================================================
 * Anthropic messages
 * ============================================================================================== */
class AnthropicImitationServer extends ImitationServerBase {
    kind = 'anthropic';
    /** Anthropic's cache is per organisation, keyed by exact prefix: one model for the whole server. */
    cache = new cacheModel_1.AnthropicCacheModel();
    get url() {
        return this.origin;
    }
    resetCache() {
        this.cache = new cacheModel_1.AnthropicCacheModel();
    }
    badRequest(res, message) {
        this.error(res, 400, 'invalid_request_error', message);
    }
    error(res, status, type, message, headers = {}) {
        this.json(res, status, { type: 'error', error: { type, message } }, { 'request-id': `req_imitation_${this.requests.length}`, ...headers });
    }
    async route(req, res, rec) {
        const path = (req.url ?? '').split('?')[0].replace(/\/+$/, '');
        if (req.method === 'GET' && path === '/v1/models') {
            const ids = this.opts.models ?? ['imitation-claude'];
            return this.json(res, 200, { data: ids.map((id) => ({ type: 'model', id, display_name: id, created_at: '2025-01-01T00:00:00Z' })), has_more: false });
        }
        if (req.method !== 'POST' || path !== '/v1/messages')
            return this.error(res, 404, 'not_found_error', `Not found: ${req.method} ${path}`);
        const body = rec.body;
        const fault = this.nextFault();
        rec.fault = fault?.kind;
        const key = req.headers['x-api-key'];
        if (fault?.kind === 'bad-key' || (this.opts.apiKey !== undefined && key !== this.opts.apiKey)) {
            return this.error(res, 401, 'authentication_error', `invalid x-api-key: ${String(key)}`);
        }
        if (!body || typeof body.model !== 'string' || !Array.isArray(body.messages))
            return this.badRequest(res, 'model: Field required');
        if (typeof body.max_tokens !== 'number')
            return this.badRequest(res, 'max_tokens: Field required');
        if (fault?.kind === 'unknown-model' || (this.opts.models && !this.opts.models.includes(body.model))) {
            return this.error(res, 404, 'not_found_error', `model: ${body.model}`);
        }
        if (fault?.kind === 'rate-limit') {
            const h = {};
            if (fault.retryAfter !== undefined)
                h['retry-after'] = fault.retryAfter;
            if (!h['retry-after'])
                h['retry-after'] = '1';
            return this.error(res, 429, 'rate_limit_error', 'Number of request tokens has exceeded your per-minute rate limit.', h);
        }
        if (fault?.kind === 'server-error')
            return this.error(res, fault.status ?? 500, 'api_error', 'Internal server error');
        if (fault?.kind === 'overloaded')
            return this.error(res, 529, 'overloaded_error', 'Overloaded');
        let messages;
        let tools;
        try {
            messages = [];
            if (body.system !== undefined) {
                const sys = textOfContent(body.system, 'system');
                if (sys.length > 0)
                    messages.push({ role: 'system', content: sys });
            }
            body.messages.forEach((m, i) => messages.push(...anthropicMessages(m, i)));
            tools = anthropicTools(body.tools);
        }
        catch (e) {
            return this.badRequest(res, e.message);
        }
        const blocks = messages.flatMap((m) => m.content);
        if (blocks.some((b) => b.text.length === 0))
            return this.badRequest(res, 'messages: text content blocks must be non-empty');
        const bpCount = blocks.filter((b) => b.cacheBreakpoint).length;
        if (bpCount > 4)
            return this.badRequest(res, `A maximum of 4 blocks with cache_control may be provided. Found ${bpCount}.`);
        rec.messages = messages;
        if (tools)
            rec.tools = tools;
        const { tokens, breakpointOffsets } = (0, cacheModel_1.requestTokens)(messages, this.tokenizer);
        if (fault?.kind === 'context-length') {
            return this.badRequest(res, `prompt is too long: ${tokens.length + 200000} tokens > 200000 maximum`);
        }
        const { read, write, plain } = this.cache.observe(tokens, breakpointOffsets);
        const scripted = this.scripted(this.nextReply(req, { model: body.model, messages, tools: tools ?? [], promptTokens: tokens.length, cachedTokens: read }), 'toolu_');
        if (scripted.toolCalls.length > 0 && !tools)
            return this.badRequest(res, 'The imitation model was scripted to call a tool, but the request offers no tools.');
        const reply = scripted.text;
        rec.reply = reply;
        if (scripted.toolCalls.length > 0)
            rec.toolCalls = scripted.toolCalls;
        const output = this.countText(reply + (scripted.toolCalls.length > 0 ? JSON.stringify(scripted.toolCalls) : ''));
        rec.usage = { input: tokens.length, cacheRead: read, cacheWrite: write, output };
        const id = `msg_imitation_${this.requests.length}`;
        const usageStart = { input_tokens: plain, cache_creation_input_tokens: write, cache_read_input_tokens: read, output_tokens: 1 };
        const stopReason = scripted.toolCalls.length > 0 ? 'tool_use' : 'end_turn';
        const hasText = reply.length > 0 || scripted.toolCalls.length === 0;
        if (body.stream !== true) {
            const content = hasText ? [{ type: 'text', text: reply }] : [];
            for (const c of scripted.toolCalls)
                content.push({ type: 'tool_use', id: c.id, name: c.name, input: c.args });
            return this.json(res, 200, { id, type: 'message', role: 'assistant', model: body.model, content, stop_reason: stopReason, stop_sequence: null, usage: { ...usageStart, output_tokens: output } });
        }
        const ev = (type, o) => `event: ${type}\ndata: ${JSON.stringify(o)}\n\n`;
        const delta = (d) => ev('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: d } });
        const head = [
            ev('message_start', {
                type: 'message_start',
                message: { id, type: 'message', role: 'assistant', model: body.model, content: [], stop_reason: null, stop_sequence: null, usage: usageStart },
            }),
            ...(hasText ? [ev('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } })] : []),
            ev('ping', { type: 'ping' }),
        ];
        const deltas = splitDeltas(reply, this.opts.deltaChars ?? 6);
        this.sse(res);
        if (fault?.kind === 'reset' || fault?.kind === 'malformed' || fault?.kind === 'stall') {
            const n = fault.afterChunks ?? (fault.kind === 'reset' ? 2 : fault.kind === 'malformed' ? 1 : 0);
            await this.writeAll(res, [...head, ...deltas.slice(0, n).map(delta)], { rec, first: head.length, texts: deltas.slice(0, n) });
            if (fault.kind === 'reset')
                return this.reset(res);
            if (fault.kind === 'malformed') {
                res.end('event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"tru\n\n');
                return;
            }
            return this.stall(res, fault.ms ?? 60_000);
        }
        // Tool calls: one tool_use block each, its input streamed as JSON pieces.
        const toolEvents = [];
        scripted.toolCalls.forEach((c, i) => {
            const index = (hasText ? 1 : 0) + i;
            toolEvents.push(ev('content_block_start', { type: 'content_block_start', index, content_block: { type: 'tool_use', id: c.id, name: c.name, input: {} } }));
            for (const piece of splitDeltas(JSON.stringify(c.args), this.opts.deltaChars ?? 6)) {
                toolEvents.push(ev('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: piece } }));
            }
            toolEvents.push(ev('content_block_stop', { type: 'content_block_stop', index }));
        });
        const all = [
            ...head,
            ...deltas.map(delta),
            ...(hasText ? [ev('content_block_stop', { type: 'content_block_stop', index: 0 })] : []),
            ...toolEvents,
            ev('message_delta', { type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: output } }),
            ev('message_stop', { type: 'message_stop' }),
        ];
        if (await this.writeAll(res, all, { rec, first: head.length, texts: deltas }))
            res.end();
    }
}
exports.AnthropicImitationServer = AnthropicImitationServer;
/** The tool names an Anthropic request offers (undefined: no `tools`). */
function anthropicTools(tools) {
    if (tools === undefined)
        return undefined;
    if (!Array.isArray(tools))
        throw new Error('tools: Input should be a valid list');
    return tools.map((t, i) => {
        if (!t || typeof t.name !== 'string' || typeof t.input_schema !== 'object')
            throw new Error(`tools.${i}: expected {"name", "input_schema", …}`);
        return t.name;
    });
}
/**
 * One Anthropic message as provider-neutral messages: assistant `tool_use` blocks become `toolCalls`;
 * a user message's `tool_result` blocks become one `tool` message each (DESIGN §9), in order.
 */
function anthropicMessages(m, i) {
    if (m.role !== 'user' && m.role !== 'assistant')
        throw new Error(`messages.${i}.role: Input should be 'user' or 'assistant'`);
    const where = `messages.${i}.content`;
    if (!Array.isArray(m.content))
        return [{ role: m.role, content: textOfContent(m.content, where) }];
    const out = [];
    let current;
    const flush = () => {
        if (current)
            out.push(current);
        current = undefined;
    };
    m.content.forEach((p, j) => {
        if (p && p.type === 'tool_use' && m.role === 'assistant') {
            if (typeof p.id !== 'string' || typeof p.name !== 'string' || typeof p.input !== 'object' || p.input === null)
                throw new Error(`${where}.${j}: a tool_use block needs id, name and input`);
            current ??= { role: 'assistant', content: [] };
            (current.toolCalls ??= []).push({ id: p.id, name: p.name, args: p.input });
            return;
        }
        if (p && p.type === 'tool_result' && m.role === 'user') {
            if (typeof p.tool_use_id !== 'string')
                throw new Error(`${where}.${j}: a tool_result block needs tool_use_id`);
            flush();
            const content = textOfContent(p.content ?? '', `${where}.${j}.content`);
            if (p.cache_control && content.length > 0)
                content[content.length - 1] = { ...content[content.length - 1], cacheBreakpoint: true };
            out.push({ role: 'tool', toolCallId: p.tool_use_id, content });
            return;
        }
        if (current && (current.role !== m.role || current.toolCalls))
            flush();
        current ??= { role: m.role, content: [] };
        current.content.push(...textOfContent([p], `${where}.${j}`));
    });
    flush();
    return out;
}
async function startOpenAIImitation(opts = {}) {
    return new OpenAIImitationServer(opts).listen();
}
async function startAnthropicImitation(opts = {}) {
    return new AnthropicImitationServer(opts).listen();
}
async function startImitationServers(opts = {}) {
    const openai = await startOpenAIImitation({ ...opts, port: opts.openaiPort ?? opts.port });
    const anthropic = await startAnthropicImitation({ ...opts, port: opts.anthropicPort ?? (opts.port ? opts.port + 1 : 0) });
    return { openai, anthropic, close: async () => void (await Promise.all([openai.close(), anthropic.close()])) };
}
//# sourceMappingURL=imitationServers.js.map