/**
 * Local imitation servers for the OpenAI chat-completions and Anthropic messages APIs (real HTTP on
 * 127.0.0.1, port 0 by default). Usage (including cached tokens) is computed with the same token
 * counting and prefix-cache rules as the simulation (src/services/cacheModel.ts), so a
 * test can compare the provider-reported usage with the engine's prediction exactly.
 *
 * Replies: `queueReply()` (one per chat request, in order), else the `x-imitation-reply` request
 * header (URI-encoded), else `replyFor`, else `defaultReply`. A reply is a text, or a scripted
 * response `{ text?, toolCalls? }`: the model says `text` (optional) and then calls the tools,
 * streamed in each API's wire format (OpenAI `tool_calls` deltas with argument pieces, finish
 * reason `tool_calls`; Anthropic `tool_use` blocks with `input_json_delta` pieces, stop reason
 * `tool_use`). Requests carrying tool calls and results (OpenAI `tool` messages, Anthropic
 * `tool_use` / `tool_result` blocks) are recorded as provider-neutral messages with `toolCalls` /
 * `toolCallId` and counted with the request token rule (docs/design.md#replay); the tool
 * definitions sent are recorded in `tools`. Faults: `injectFault(fault, times)` applies to the next
 * `times` chat requests; `faultEvery(n, f)` to every n-th one.
 *
 * Identification: every response carries `x-strata-imitation: 1`, and the OpenAI imitation's
 * `GET /v1/models` lists its models with `owned_by: "strata-imitation"`, so the extension can label
 * a loopback base URL answered by these servers as the local imitation, not a real model.
 */
import * as http from 'http';
import type { AddressInfo, Socket } from 'net';
import type { ChatMessage, TextBlock } from '../../src/engine/types';
import { AnthropicCacheModel, OpenAICacheModel, requestTokens, type TokenEncoder } from '../../src/services/cacheModel';
import { getTokenizer } from '../../src/services/tokenizer';

export type Encoding = 'o200k_base' | 'cl100k_base';

/** Header on every imitation response (and `owned_by` of the OpenAI imitation's models). */
export const IMITATION_HEADER = 'x-strata-imitation';
export const IMITATION_OWNER = 'strata-imitation';

/** A tool call the imitation model makes (`id` defaults to `call_<n>` / `toolu_<n>`). */
export interface ScriptedToolCall {
  id?: string;
  name: string;
  args: Record<string, unknown>;
}

/** What the imitation model answers: a text, or text (optional) followed by tool calls. */
export type ScriptedResponse = string | { text?: string; toolCalls?: ScriptedToolCall[] };

/** What a `replyFor` callback sees of one chat request. */
export interface ReplyContext {
  model: string;
  messages: ChatMessage[];
  /** Names of the tools the request offers. */
  tools: string[];
  /** Prompt tokens as counted for usage, and how many of them the simulated cache served. */
  promptTokens: number;
  cachedTokens: number;
}

export type Fault =
  | { kind: 'rate-limit'; retryAfter?: string; retryAfterMs?: string }
  | { kind: 'server-error'; status?: number }
  | { kind: 'overloaded' }
  | { kind: 'bad-key' }
  | { kind: 'unknown-model' }
  | { kind: 'context-length' }
  /** Sends `afterChunks` text deltas (default 2), then resets the connection. */
  | { kind: 'reset'; afterChunks?: number }
  /** Sends `afterChunks` text deltas (default 1), then an event whose JSON is cut off, then ends. */
  | { kind: 'malformed'; afterChunks?: number }
  /** Sends headers and `afterChunks` deltas (default 0), then nothing for `ms` (default 60 s). */
  | { kind: 'stall'; afterChunks?: number; ms?: number };

export interface ImitationOptions {
  host?: string;
  port?: number;
  /** Token encoding for usage (default o200k_base), or an explicit tokenizer. */
  encoding?: Encoding;
  tokenizer?: TokenEncoder & { count?(text: string): number };
  defaultReply?: string;
  /** The reply computed from the request; used after queued replies and the header, instead of `defaultReply`. */
  replyFor?: (request: ReplyContext) => ScriptedResponse;
  /** Code points per text delta (default 6). */
  deltaChars?: number;
  /** Pause between deltas (default 0). */
  chunkDelayMs?: number;
  /** When set, requests must carry this key (else 401). */
  apiKey?: string;
  /** When set, other models get 404. */
  models?: string[];
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body?: unknown;
  /** The request body exactly as it arrived (byte comparisons). */
  rawBody?: string;
  /** The request as provider-neutral messages (what the usage was computed from). */
  messages?: ChatMessage[];
  fault?: Fault['kind'];
  /** The text the imitation model answered with. */
  reply?: string;
  /** The tool calls it made (with the ids it gave them). */
  toolCalls?: { id: string; name: string; args: Record<string, unknown> }[];
  /** The names of the tools the request offered (absent: none). */
  tools?: string[];
  usage?: { input: number; cacheRead: number; cacheWrite: number; output: number };
  /** The prompt was cut from the front: the tokens sent and the tokens the server kept (and reported). */
  cut?: { sent: number; kept: number };
  /** Ollama's native chat: the `num_ctx` the request ran with. */
  numCtx?: number;
  /** Set when the client went away before the response ended. */
  clientClosedAt?: number;
  /** The streamed text deltas, each with the time (Date.now()) it was written to the socket. */
  deltas?: { text: string; sentAt: number }[];
  receivedAt: number;
}

/** The extension's own tokenizer (src/services/tokenizer.ts): the same counting as the engine. */
function defaultTokenizer(encoding: Encoding): TokenEncoder & { count?(text: string): number } {
  return getTokenizer(encoding);
}

function splitDeltas(text: string, n: number): string[] {
  const cps = Array.from(text);
  const out: string[] = [];
  for (let i = 0; i < cps.length; i += n) out.push(cps.slice(i, i + n).join(''));
  return out;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export abstract class ImitationServerBase {
  abstract readonly kind: 'openai' | 'anthropic';
  readonly requests: RecordedRequest[] = [];
  protected readonly server: http.Server;
  protected readonly sockets = new Set<Socket>();
  protected readonly tokenizer: TokenEncoder & { count?(text: string): number };
  private readonly replies: ScriptedResponse[] = [];
  private toolCallCount = 0;
  private readonly faults: Fault[] = [];
  private periodic?: { every: number; fault: Fault };
  private chatCount = 0;
  private port = 0;
  protected readonly timers = new Set<ReturnType<typeof setTimeout>>();

  constructor(protected readonly opts: ImitationOptions) {
    this.tokenizer = opts.tokenizer ?? defaultTokenizer(opts.encoding ?? 'o200k_base');
    this.server = http.createServer((req, res) => void this.handle(req, res));
    this.server.on('connection', (s: Socket) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
  }

  async listen(): Promise<this> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.opts.port ?? 0, this.opts.host ?? '127.0.0.1', () => resolve());
    });
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  /** http://127.0.0.1:PORT */
  get origin(): string {
    return `http://${this.opts.host ?? '127.0.0.1'}:${this.port}`;
  }

  /** The base URL to configure in a client. */
  abstract get url(): string;

  queueReply(...replies: ScriptedResponse[]): void {
    this.replies.push(...replies);
  }

  /** Replies still queued. */
  get queuedReplies(): number {
    return this.replies.length;
  }

  /** A scripted response with every call given an id (`prefix` + a per-server counter when absent). */
  protected scripted(
    r: ScriptedResponse,
    prefix: string,
  ): { text: string; toolCalls: { id: string; name: string; args: Record<string, unknown> }[] } {
    if (typeof r === 'string') return { text: r, toolCalls: [] };
    return {
      text: r.text ?? '',
      toolCalls: (r.toolCalls ?? []).map((c) => ({ id: c.id ?? `${prefix}${++this.toolCallCount}`, name: c.name, args: c.args })),
    };
  }

  injectFault(fault: Fault, times = 1): void {
    for (let i = 0; i < times; i++) this.faults.push(fault);
  }

  /** Every n-th chat request (n, 2n, …, counted from now) gets `fault`; `undefined` clears it. */
  faultEvery(n: number | undefined, fault?: Fault): void {
    this.periodic = n && fault ? { every: n, fault } : undefined;
    this.chatCount = 0;
  }

  /** Forgets everything the prompt caches remember. */
  abstract resetCache(): void;

  /** Chat requests only (not GET /models). */
  get chatRequests(): RecordedRequest[] {
    return this.requests.filter((r) => r.method === 'POST');
  }

  async close(): Promise<void> {
    for (const t of this.timers) clearTimeout(t);
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  protected nextFault(): Fault | undefined {
    this.chatCount++;
    const f = this.faults.shift();
    if (f) return f;
    if (this.periodic && this.chatCount % this.periodic.every === 0) return this.periodic.fault;
    return undefined;
  }

  protected nextReply(req: http.IncomingMessage, context: ReplyContext): ScriptedResponse {
    const q = this.replies.shift();
    if (q !== undefined) return q;
    const h = req.headers['x-imitation-reply'];
    if (typeof h === 'string') {
      try {
        return decodeURIComponent(h);
      } catch {
        return h;
      }
    }
    if (this.opts.replyFor) return this.opts.replyFor(context);
    return this.opts.defaultReply ?? 'This is a streamed reply from the Strata imitation server.';
  }

  protected countText(text: string): number {
    return this.tokenizer.count ? this.tokenizer.count(text) : this.tokenizer.encode(text).length;
  }

  protected json(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    const s = JSON.stringify(body);
    res.writeHead(status, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(s),
      [IMITATION_HEADER]: '1',
      ...headers,
    });
    res.end(s);
  }

  protected sse(res: http.ServerResponse): void {
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      [IMITATION_HEADER]: '1',
    });
    res.flushHeaders();
  }

  /**
   * Writes `pieces` in order with the configured delay; stops early if the client went away.
   * Pieces `deltas.first` … `deltas.first + deltas.texts.length - 1` are text deltas: each one's
   * send time is recorded in `rec.deltas` (for latency measurements).
   */
  protected async writeAll(
    res: http.ServerResponse,
    pieces: string[],
    deltas?: { rec: RecordedRequest; first: number; texts: string[] },
  ): Promise<boolean> {
    for (const [i, p] of pieces.entries()) {
      if (res.destroyed || res.writableEnded) return false;
      res.write(p);
      if (deltas && i >= deltas.first && i < deltas.first + deltas.texts.length) {
        (deltas.rec.deltas ??= []).push({ text: deltas.texts[i - deltas.first], sentAt: Date.now() });
      }
      if (this.opts.chunkDelayMs) await sleep(this.opts.chunkDelayMs);
    }
    return !res.destroyed;
  }

  protected async reset(res: http.ServerResponse): Promise<void> {
    await sleep(50); // let the client read what was sent: an RST discards unread data
    const s = res.socket as (Socket & { resetAndDestroy?: () => void }) | null;
    if (s?.resetAndDestroy) s.resetAndDestroy();
    else s?.destroy();
  }

  protected stall(res: http.ServerResponse, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this.timers.delete(t);
        if (!res.writableEnded) res.end();
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

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const rec: RecordedRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, receivedAt: Date.now() };
    this.requests.push(rec);
    res.on('close', () => {
      if (!res.writableFinished) rec.clientClosedAt = Date.now();
    });
    try {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const raw = Buffer.concat(chunks).toString('utf8');
      if (raw) rec.rawBody = raw;
      if (raw) {
        try {
          rec.body = JSON.parse(raw);
        } catch {
          return this.badRequest(res, 'The request body is not valid JSON.');
        }
      }
      await this.route(req, res, rec);
    } catch (e) {
      if (!res.headersSent) this.json(res, 500, { error: { message: String(e) } });
      else res.destroy();
    }
  }

  protected abstract route(req: http.IncomingMessage, res: http.ServerResponse, rec: RecordedRequest): Promise<void>;
  protected abstract badRequest(res: http.ServerResponse, message: string): void;
}

/* ================================================================================================
 * OpenAI chat completions
 * ============================================================================================== */

export class OpenAIImitationServer extends ImitationServerBase {
  readonly kind = 'openai' as const;
  /** One cache per prompt_cache_key ('' = requests without a key). */
  private caches = new Map<string, OpenAICacheModel>();

  get url(): string {
    return `${this.origin}/v1`;
  }

  resetCache(): void {
    this.caches.clear();
  }

  /** The body of `GET /v1/models` (a server that says more about its models than OpenAI does). */
  protected listModels?(): unknown;

  /**
   * What the server does with a prompt of `promptTokens` tokens: runs all of it (`kept`), runs its
   * tail (a silent cut from the front), or refuses it with an error response. The OpenAI API runs it all.
   */
  protected admit(_body: Record<string, unknown>, promptTokens: number): { kept: number } | { status: number; body: unknown } {
    return { kept: promptTokens };
  }

  protected badRequest(res: http.ServerResponse, message: string): void {
    this.json(res, 400, { error: { message, type: 'invalid_request_error', param: null, code: null } });
  }

  private error(
    res: http.ServerResponse,
    status: number,
    message: string,
    type: string,
    code: string | null,
    headers: Record<string, string> = {},
  ): void {
    this.json(res, status, { error: { message, type, param: null, code } }, headers);
  }

  protected async route(req: http.IncomingMessage, res: http.ServerResponse, rec: RecordedRequest): Promise<void> {
    const path = (req.url ?? '').split('?')[0].replace(/\/+$/, '');
    if (req.method === 'GET' && path === '/v1/models') {
      if (this.listModels) return this.json(res, 200, this.listModels());
      const ids = this.opts.models ?? ['imitation-gpt'];
      return this.json(res, 200, {
        object: 'list',
        data: ids.map((id) => ({ id, object: 'model', created: 0, owned_by: IMITATION_OWNER })),
      });
    }
    if (req.method !== 'POST' || path !== '/v1/chat/completions') {
      return this.error(res, 404, `Unknown request URL: ${req.method} ${path}.`, 'invalid_request_error', 'unknown_url');
    }
    const auth = req.headers.authorization ?? '';
    const body = rec.body as
      | {
          model?: unknown;
          messages?: unknown;
          stream?: unknown;
          stream_options?: { include_usage?: unknown };
          prompt_cache_key?: unknown;
          tools?: unknown;
        }
      | undefined;
    if (!body || typeof body.model !== 'string' || !Array.isArray(body.messages))
      return this.badRequest(res, "Missing required parameter: 'model' or 'messages'.");
    const fault = this.nextFault();
    rec.fault = fault?.kind;
    const presented = auth.replace(/^Bearer\s+/i, '');
    if (fault?.kind === 'bad-key' || (this.opts.apiKey !== undefined && presented !== this.opts.apiKey)) {
      // Like a careless server, this one echoes the key it was given: the client must not show it.
      return this.error(
        res,
        401,
        `Incorrect API key provided: ${presented}. You can find your API key at https://platform.openai.com/account/api-keys.`,
        'invalid_request_error',
        'invalid_api_key',
      );
    }
    if (fault?.kind === 'unknown-model' || (this.opts.models && !this.opts.models.includes(body.model))) {
      return this.error(
        res,
        404,
        `The model \`${body.model}\` does not exist or you do not have access to it.`,
        'invalid_request_error',
        'model_not_found',
      );
    }
    if (fault?.kind === 'rate-limit') {
      const h: Record<string, string> = {};
      if (fault.retryAfter !== undefined) h['retry-after'] = fault.retryAfter;
      if (fault.retryAfterMs !== undefined) h['retry-after-ms'] = fault.retryAfterMs;
      if (!h['retry-after'] && !h['retry-after-ms']) h['retry-after'] = '1';
      return this.error(res, 429, 'Rate limit reached for requests per min. Please try again later.', 'requests', 'rate_limit_exceeded', h);
    }
    if (fault?.kind === 'server-error' || fault?.kind === 'overloaded') {
      return this.error(
        res,
        fault.kind === 'overloaded' ? 503 : (fault.status ?? 500),
        'The server had an error while processing your request.',
        'server_error',
        null,
      );
    }
    let messages: ChatMessage[];
    let tools: string[] | undefined;
    try {
      messages = (body.messages as Record<string, unknown>[]).map(openaiMessage);
      tools = openaiTools(body.tools);
    } catch (e) {
      return this.badRequest(res, (e as Error).message);
    }
    rec.messages = messages;
    if (tools) rec.tools = tools;
    const counted = requestTokens(messages, this.tokenizer).tokens;
    const admitted = this.admit(body as Record<string, unknown>, counted.length);
    if ('status' in admitted) return this.json(res, admitted.status, admitted.body);
    // A server that cuts the prompt runs (and counts) only the tokens it kept.
    const tokens = admitted.kept < counted.length ? counted.slice(counted.length - admitted.kept) : counted;
    if (admitted.kept < counted.length) rec.cut = { sent: counted.length, kept: admitted.kept };
    if (fault?.kind === 'context-length') {
      return this.error(
        res,
        400,
        `This model's maximum context length is 128000 tokens. However, your messages resulted in ${tokens.length + 128000} tokens. Please reduce the length of the messages.`,
        'invalid_request_error',
        'context_length_exceeded',
      );
    }
    const key = typeof body.prompt_cache_key === 'string' ? body.prompt_cache_key : '';
    let cache = this.caches.get(key);
    if (!cache) this.caches.set(key, (cache = new OpenAICacheModel()));
    const { cached } = cache.observe(tokens);
    const scripted = this.scripted(
      this.nextReply(req, { model: body.model, messages, tools: tools ?? [], promptTokens: tokens.length, cachedTokens: cached }),
      'call_',
    );
    if (scripted.toolCalls.length > 0 && !tools)
      return this.badRequest(res, 'The imitation model was scripted to call a tool, but the request offers no tools.');
    const reply = scripted.text;
    rec.reply = reply;
    if (scripted.toolCalls.length > 0) rec.toolCalls = scripted.toolCalls;
    const wireCalls = scripted.toolCalls.map((c) => ({
      id: c.id,
      type: 'function',
      function: { name: c.name, arguments: JSON.stringify(c.args) },
    }));
    const output = this.countText(reply + (scripted.toolCalls.length > 0 ? JSON.stringify(scripted.toolCalls) : ''));
    const usage = {
      prompt_tokens: tokens.length,
      completion_tokens: output,
      total_tokens: tokens.length + output,
      prompt_tokens_details: { cached_tokens: cached, audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0 },
    };
    rec.usage = { input: tokens.length, cacheRead: cached, cacheWrite: 0, output };
    const id = `chatcmpl-imitation-${this.requests.length}`;
    const base = { id, object: 'chat.completion.chunk', created: 0, model: body.model, system_fingerprint: 'fp_imitation' };
    const finishReason = wireCalls.length > 0 ? 'tool_calls' : 'stop';

    if (body.stream !== true) {
      const message: Record<string, unknown> = { role: 'assistant', content: wireCalls.length > 0 && reply === '' ? null : reply };
      if (wireCalls.length > 0) message.tool_calls = wireCalls;
      return this.json(res, 200, {
        id,
        object: 'chat.completion',
        created: 0,
        model: body.model,
        choices: [{ index: 0, message, finish_reason: finishReason, logprobs: null }],
        usage,
      });
    }

    const deltas = splitDeltas(reply, this.opts.deltaChars ?? 6);
    const ev = (o: unknown) => `data: ${JSON.stringify(o)}\n\n`;
    const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
      ev({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] });
    this.sse(res);
    const head = [chunk({ role: 'assistant', content: wireCalls.length > 0 && reply === '' ? null : '' })];
    if (fault?.kind === 'reset' || fault?.kind === 'malformed' || fault?.kind === 'stall') {
      const n = fault.afterChunks ?? (fault.kind === 'reset' ? 2 : fault.kind === 'malformed' ? 1 : 0);
      await this.writeAll(res, [...head, ...deltas.slice(0, n).map((d) => chunk({ content: d }))], {
        rec,
        first: head.length,
        texts: deltas.slice(0, n),
      });
      if (fault.kind === 'reset') return this.reset(res);
      if (fault.kind === 'malformed') {
        res.end(`data: {"id":"${id}","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"tru\n\n`);
        return;
      }
      return this.stall(res, fault.ms ?? 60_000);
    }
    // Tool calls: a first delta with the id and name, then the arguments in pieces.
    const callChunks: string[] = [];
    wireCalls.forEach((c, index) => {
      callChunks.push(chunk({ tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.function.name, arguments: '' } }] }));
      for (const piece of splitDeltas(c.function.arguments, this.opts.deltaChars ?? 6))
        callChunks.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
    });
    const body2 = [...head, ...deltas.map((d) => chunk({ content: d })), ...callChunks, chunk({}, finishReason)];
    if (body.stream_options?.include_usage) body2.push(ev({ ...base, choices: [], usage }));
    body2.push('data: [DONE]\n\n');
    if (await this.writeAll(res, body2, { rec, first: head.length, texts: deltas })) res.end();
  }
}

/** The tool names an OpenAI request offers (undefined: no `tools`). */
function openaiTools(tools: unknown): string[] | undefined {
  if (tools === undefined) return undefined;
  if (!Array.isArray(tools)) throw new Error('tools: must be an array.');
  return tools.map((t: { type?: unknown; function?: { name?: unknown; parameters?: unknown } }, i) => {
    if (!t || t.type !== 'function' || !t.function || typeof t.function.name !== 'string')
      throw new Error(`tools[${i}]: expected {"type": "function", "function": {"name", …}}.`);
    return t.function.name;
  });
}

function textOfContent(content: unknown, where: string): TextBlock[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (content === null || content === undefined) return [];
  if (!Array.isArray(content)) throw new Error(`${where}: content must be a string or an array of content parts.`);
  return content.map((p: { type?: unknown; text?: unknown; cache_control?: unknown }) => {
    if (!p || p.type !== 'text' || typeof p.text !== 'string')
      throw new Error(`${where}: only text content parts are supported by the imitation server.`);
    return p.cache_control ? { type: 'text', text: p.text, cacheBreakpoint: true } : { type: 'text', text: p.text };
  });
}

function openaiMessage(m: Record<string, unknown>, i: number): ChatMessage {
  const role = m.role === 'developer' ? 'system' : m.role;
  if (role === 'tool') {
    if (typeof m.tool_call_id !== 'string') throw new Error(`messages[${i}]: a tool message needs tool_call_id.`);
    return {
      role: 'tool',
      toolCallId: m.tool_call_id,
      content: textOfContent(m.content, `messages[${i}]`).map((b) => ({ type: 'text', text: b.text })),
    };
  }
  if (role !== 'system' && role !== 'user' && role !== 'assistant')
    throw new Error(`messages[${i}].role: unsupported role ${JSON.stringify(m.role)}.`);
  // Breakpoints mean nothing to OpenAI: drop any.
  const out: ChatMessage = { role, content: textOfContent(m.content, `messages[${i}]`).map((b) => ({ type: 'text', text: b.text })) };
  if (role === 'assistant' && m.tool_calls !== undefined) {
    if (!Array.isArray(m.tool_calls)) throw new Error(`messages[${i}].tool_calls: must be an array.`);
    out.toolCalls = m.tool_calls.map((c: { id?: unknown; type?: unknown; function?: { name?: unknown; arguments?: unknown } }, j) => {
      if (
        !c ||
        typeof c.id !== 'string' ||
        c.type !== 'function' ||
        !c.function ||
        typeof c.function.name !== 'string' ||
        typeof c.function.arguments !== 'string'
      ) {
        throw new Error(`messages[${i}].tool_calls[${j}]: expected {"id", "type": "function", "function": {"name", "arguments"}}.`);
      }
      let args: unknown;
      try {
        args = JSON.parse(c.function.arguments);
      } catch {
        throw new Error(`messages[${i}].tool_calls[${j}].function.arguments: not valid JSON.`);
      }
      return { id: c.id, name: c.function.name, args: args as Record<string, unknown> };
    });
    // A call without words is sent with `content: ""` (or null): no text block (`"content": []`).
    if (out.content.length === 1 && out.content[0].text === '') out.content = [];
  }
  return out;
}

/* ================================================================================================
 * Anthropic messages
 * ============================================================================================== */

export class AnthropicImitationServer extends ImitationServerBase {
  readonly kind = 'anthropic' as const;
  /** Anthropic's cache is per organisation, keyed by exact prefix: one model for the whole server. */
  private cache = new AnthropicCacheModel();

  get url(): string {
    return this.origin;
  }

  resetCache(): void {
    this.cache = new AnthropicCacheModel();
  }

  protected badRequest(res: http.ServerResponse, message: string): void {
    this.error(res, 400, 'invalid_request_error', message);
  }

  private error(res: http.ServerResponse, status: number, type: string, message: string, headers: Record<string, string> = {}): void {
    this.json(
      res,
      status,
      { type: 'error', error: { type, message } },
      { 'request-id': `req_imitation_${this.requests.length}`, ...headers },
    );
  }

  protected async route(req: http.IncomingMessage, res: http.ServerResponse, rec: RecordedRequest): Promise<void> {
    const path = (req.url ?? '').split('?')[0].replace(/\/+$/, '');
    if (req.method === 'GET' && path === '/v1/models') {
      const ids = this.opts.models ?? ['imitation-claude'];
      return this.json(res, 200, {
        data: ids.map((id) => ({ type: 'model', id, display_name: id, created_at: '2025-01-01T00:00:00Z' })),
        has_more: false,
      });
    }
    if (req.method !== 'POST' || path !== '/v1/messages')
      return this.error(res, 404, 'not_found_error', `Not found: ${req.method} ${path}`);
    const body = rec.body as
      { model?: unknown; messages?: unknown; system?: unknown; stream?: unknown; max_tokens?: unknown; tools?: unknown } | undefined;
    const fault = this.nextFault();
    rec.fault = fault?.kind;
    const key = req.headers['x-api-key'];
    if (fault?.kind === 'bad-key' || (this.opts.apiKey !== undefined && key !== this.opts.apiKey)) {
      return this.error(res, 401, 'authentication_error', `invalid x-api-key: ${String(key)}`);
    }
    if (!body || typeof body.model !== 'string' || !Array.isArray(body.messages)) return this.badRequest(res, 'model: Field required');
    if (typeof body.max_tokens !== 'number') return this.badRequest(res, 'max_tokens: Field required');
    if (fault?.kind === 'unknown-model' || (this.opts.models && !this.opts.models.includes(body.model))) {
      return this.error(res, 404, 'not_found_error', `model: ${body.model}`);
    }
    if (fault?.kind === 'rate-limit') {
      const h: Record<string, string> = {};
      if (fault.retryAfter !== undefined) h['retry-after'] = fault.retryAfter;
      if (!h['retry-after']) h['retry-after'] = '1';
      return this.error(res, 429, 'rate_limit_error', 'Number of request tokens has exceeded your per-minute rate limit.', h);
    }
    if (fault?.kind === 'server-error') return this.error(res, fault.status ?? 500, 'api_error', 'Internal server error');
    if (fault?.kind === 'overloaded') return this.error(res, 529, 'overloaded_error', 'Overloaded');
    let messages: ChatMessage[];
    let tools: string[] | undefined;
    try {
      messages = [];
      if (body.system !== undefined) {
        const sys = textOfContent(body.system, 'system');
        if (sys.length > 0) messages.push({ role: 'system', content: sys });
      }
      (body.messages as { role?: unknown; content?: unknown }[]).forEach((m, i) => messages.push(...anthropicMessages(m, i)));
      tools = anthropicTools(body.tools);
    } catch (e) {
      return this.badRequest(res, (e as Error).message);
    }
    const blocks = messages.flatMap((m) => m.content);
    if (blocks.some((b) => b.text.length === 0)) return this.badRequest(res, 'messages: text content blocks must be non-empty');
    const bpCount = blocks.filter((b) => b.cacheBreakpoint).length;
    if (bpCount > 4) return this.badRequest(res, `A maximum of 4 blocks with cache_control may be provided. Found ${bpCount}.`);
    rec.messages = messages;
    if (tools) rec.tools = tools;
    const { tokens, breakpointOffsets } = requestTokens(messages, this.tokenizer);
    if (fault?.kind === 'context-length') {
      return this.badRequest(res, `prompt is too long: ${tokens.length + 200000} tokens > 200000 maximum`);
    }
    const { read, write, plain } = this.cache.observe(tokens, breakpointOffsets);
    const scripted = this.scripted(
      this.nextReply(req, { model: body.model, messages, tools: tools ?? [], promptTokens: tokens.length, cachedTokens: read }),
      'toolu_',
    );
    if (scripted.toolCalls.length > 0 && !tools)
      return this.badRequest(res, 'The imitation model was scripted to call a tool, but the request offers no tools.');
    const reply = scripted.text;
    rec.reply = reply;
    if (scripted.toolCalls.length > 0) rec.toolCalls = scripted.toolCalls;
    const output = this.countText(reply + (scripted.toolCalls.length > 0 ? JSON.stringify(scripted.toolCalls) : ''));
    rec.usage = { input: tokens.length, cacheRead: read, cacheWrite: write, output };
    const id = `msg_imitation_${this.requests.length}`;
    const usageStart = { input_tokens: plain, cache_creation_input_tokens: write, cache_read_input_tokens: read, output_tokens: 1 };
    const stopReason = scripted.toolCalls.length > 0 ? 'tool_use' : 'end_turn';
    const hasText = reply.length > 0 || scripted.toolCalls.length === 0;

    if (body.stream !== true) {
      const content: unknown[] = hasText ? [{ type: 'text', text: reply }] : [];
      for (const c of scripted.toolCalls) content.push({ type: 'tool_use', id: c.id, name: c.name, input: c.args });
      return this.json(res, 200, {
        id,
        type: 'message',
        role: 'assistant',
        model: body.model,
        content,
        stop_reason: stopReason,
        stop_sequence: null,
        usage: { ...usageStart, output_tokens: output },
      });
    }
    const ev = (type: string, o: unknown) => `event: ${type}\ndata: ${JSON.stringify(o)}\n\n`;
    const delta = (d: string) =>
      ev('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: d } });
    const head = [
      ev('message_start', {
        type: 'message_start',
        message: {
          id,
          type: 'message',
          role: 'assistant',
          model: body.model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: usageStart,
        },
      }),
      ...(hasText ? [ev('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } })] : []),
      ev('ping', { type: 'ping' }),
    ];
    const deltas = splitDeltas(reply, this.opts.deltaChars ?? 6);
    this.sse(res);
    if (fault?.kind === 'reset' || fault?.kind === 'malformed' || fault?.kind === 'stall') {
      const n = fault.afterChunks ?? (fault.kind === 'reset' ? 2 : fault.kind === 'malformed' ? 1 : 0);
      await this.writeAll(res, [...head, ...deltas.slice(0, n).map(delta)], { rec, first: head.length, texts: deltas.slice(0, n) });
      if (fault.kind === 'reset') return this.reset(res);
      if (fault.kind === 'malformed') {
        res.end('event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"tru\n\n');
        return;
      }
      return this.stall(res, fault.ms ?? 60_000);
    }
    // Tool calls: one tool_use block each, its input streamed as JSON pieces.
    const toolEvents: string[] = [];
    scripted.toolCalls.forEach((c, i) => {
      const index = (hasText ? 1 : 0) + i;
      toolEvents.push(
        ev('content_block_start', {
          type: 'content_block_start',
          index,
          content_block: { type: 'tool_use', id: c.id, name: c.name, input: {} },
        }),
      );
      for (const piece of splitDeltas(JSON.stringify(c.args), this.opts.deltaChars ?? 6)) {
        toolEvents.push(
          ev('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: piece } }),
        );
      }
      toolEvents.push(ev('content_block_stop', { type: 'content_block_stop', index }));
    });
    const all = [
      ...head,
      ...deltas.map(delta),
      ...(hasText ? [ev('content_block_stop', { type: 'content_block_stop', index: 0 })] : []),
      ...toolEvents,
      ev('message_delta', {
        type: 'message_delta',
        delta: { stop_reason: stopReason, stop_sequence: null },
        usage: { output_tokens: output },
      }),
      ev('message_stop', { type: 'message_stop' }),
    ];
    if (await this.writeAll(res, all, { rec, first: head.length, texts: deltas })) res.end();
  }
}

/** The tool names an Anthropic request offers (undefined: no `tools`). */
function anthropicTools(tools: unknown): string[] | undefined {
  if (tools === undefined) return undefined;
  if (!Array.isArray(tools)) throw new Error('tools: Input should be a valid list');
  return tools.map((t: { name?: unknown; input_schema?: unknown }, i) => {
    if (!t || typeof t.name !== 'string' || typeof t.input_schema !== 'object')
      throw new Error(`tools.${i}: expected {"name", "input_schema", …}`);
    return t.name;
  });
}

/**
 * One Anthropic message as provider-neutral messages: assistant `tool_use` blocks become `toolCalls`;
 * a user message's `tool_result` blocks become one `tool` message each, in order.
 */
function anthropicMessages(m: { role?: unknown; content?: unknown }, i: number): ChatMessage[] {
  if (m.role !== 'user' && m.role !== 'assistant') throw new Error(`messages.${i}.role: Input should be 'user' or 'assistant'`);
  const where = `messages.${i}.content`;
  if (!Array.isArray(m.content)) return [{ role: m.role, content: textOfContent(m.content, where) }];
  const out: ChatMessage[] = [];
  let current: ChatMessage | undefined;
  const flush = () => {
    if (current) out.push(current);
    current = undefined;
  };
  (m.content as Record<string, unknown>[]).forEach((p, j) => {
    if (p && p.type === 'tool_use' && m.role === 'assistant') {
      if (typeof p.id !== 'string' || typeof p.name !== 'string' || typeof p.input !== 'object' || p.input === null)
        throw new Error(`${where}.${j}: a tool_use block needs id, name and input`);
      current ??= { role: 'assistant', content: [] };
      (current.toolCalls ??= []).push({ id: p.id, name: p.name, args: p.input as Record<string, unknown> });
      return;
    }
    if (p && p.type === 'tool_result' && m.role === 'user') {
      if (typeof p.tool_use_id !== 'string') throw new Error(`${where}.${j}: a tool_result block needs tool_use_id`);
      flush();
      const content = textOfContent(p.content ?? '', `${where}.${j}.content`);
      if (p.cache_control && content.length > 0) content[content.length - 1] = { ...content[content.length - 1], cacheBreakpoint: true };
      out.push({ role: 'tool', toolCallId: p.tool_use_id, content });
      return;
    }
    if (current && (current.role !== m.role || current.toolCalls)) flush();
    current ??= { role: m.role as 'user' | 'assistant', content: [] };
    current.content.push(...textOfContent([p], `${where}.${j}`));
  });
  flush();
  return out;
}

export async function startOpenAIImitation(opts: ImitationOptions = {}): Promise<OpenAIImitationServer> {
  return new OpenAIImitationServer(opts).listen();
}

export async function startAnthropicImitation(opts: ImitationOptions = {}): Promise<AnthropicImitationServer> {
  return new AnthropicImitationServer(opts).listen();
}

export interface ImitationPair {
  openai: OpenAIImitationServer;
  anthropic: AnthropicImitationServer;
  close(): Promise<void>;
}

export async function startImitationServers(
  opts: ImitationOptions & { openaiPort?: number; anthropicPort?: number } = {},
): Promise<ImitationPair> {
  const openai = await startOpenAIImitation({ ...opts, port: opts.openaiPort ?? opts.port });
  const anthropic = await startAnthropicImitation({ ...opts, port: opts.anthropicPort ?? (opts.port ? opts.port + 1 : 0) });
  return { openai, anthropic, close: async () => void (await Promise.all([openai.close(), anthropic.close()])) };
}
