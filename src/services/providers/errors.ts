/**
 * Mapping of SDK / LangChain / socket errors to `ProviderError`, with messages that are clear
 * for a user and free of secrets.
 */
import { ProviderError, type ProviderErrorCode } from './types';

export interface ErrorContext {
  /** "OpenAI", "Anthropic", "OpenAI-compatible server". */
  provider: string;
  /** Where requests go; shown without credentials or path. */
  baseURL: string;
  model: string;
  /** Redacted from every message. */
  apiKey?: string;
  timeoutMs?: number;
}

/** `scheme://host[:port]` of a URL, without user info, path or query. */
export function safeOrigin(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}`;
  } catch {
    return '(invalid URL)';
  }
}

const SECRET_PATTERNS: RegExp[] = [
  /\bsk-[A-Za-z0-9_\-*.]{6,}/g, // OpenAI / Anthropic style keys, also partially masked ones
  /\bBearer\s+[^\s"',]+/gi,
  /(x-api-key|api[_-]?key|authorization)(["']?\s*[:=]\s*["']?)[^\s"',}]+/gi,
];

/** Removes the API key (and anything that looks like a key or credential) from a text. */
export function redact(text: string, apiKey?: string): string {
  let s = text;
  if (apiKey && apiKey.length >= 4) s = s.split(apiKey).join('[redacted]');
  s = s.replace(SECRET_PATTERNS[0], '[redacted]');
  s = s.replace(SECRET_PATTERNS[1], 'Bearer [redacted]');
  s = s.replace(SECRET_PATTERNS[2], (_m, k: string, sep: string) => `${k}${sep}[redacted]`);
  return s;
}

/** Parses `retry-after-ms`, or `retry-after` in seconds or as an HTTP date. */
export function parseRetryAfter(headers: unknown, now: number = Date.now()): number | undefined {
  const ms = header(headers, 'retry-after-ms');
  if (ms !== undefined) {
    const n = Number(ms);
    if (Number.isFinite(n) && n >= 0) return Math.round(n);
  }
  const ra = header(headers, 'retry-after');
  if (ra === undefined) return undefined;
  const trimmed = ra.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const date = Date.parse(trimmed);
  if (Number.isFinite(date)) return Math.max(0, date - now);
  return undefined;
}

function header(headers: unknown, name: string): string | undefined {
  if (!headers || typeof headers !== 'object') return undefined;
  const h = headers as { get?: (n: string) => string | null } & Record<string, unknown>;
  if (typeof h.get === 'function') {
    const v = h.get(name);
    return v === null || v === undefined ? undefined : String(v);
  }
  for (const k of Object.keys(h)) {
    if (k.toLowerCase() === name) {
      const v = h[k];
      return Array.isArray(v) ? String(v[0]) : v === undefined || v === null ? undefined : String(v);
    }
  }
  return undefined;
}

interface Facts {
  status?: number;
  headers?: unknown;
  names: string[];
  codes: string[];
  messages: string[];
  types: string[];
}

/** Walks an error and its `cause` / `error` chain collecting status, codes and messages. */
function facts(err: unknown): Facts {
  const f: Facts = { names: [], codes: [], messages: [], types: [] };
  const seen = new Set<unknown>();
  const visit = (e: unknown, depth: number): void => {
    if (!e || typeof e !== 'object' || seen.has(e) || depth > 6) {
      if (typeof e === 'string') f.messages.push(e);
      return;
    }
    seen.add(e);
    const o = e as Record<string, unknown>;
    if (typeof o.status === 'number' && f.status === undefined) f.status = o.status;
    if (o.response && typeof o.response === 'object') {
      const r = o.response as Record<string, unknown>;
      if (typeof r.status === 'number' && f.status === undefined) f.status = r.status;
    }
    if (o.headers && f.headers === undefined) f.headers = o.headers;
    if (typeof o.name === 'string') f.names.push(o.name);
    if (typeof o.code === 'string') f.codes.push(o.code);
    if (typeof o.errno === 'string') f.codes.push(o.errno);
    if (typeof o.type === 'string') f.types.push(o.type);
    if (typeof o.lc_error_code === 'string') f.codes.push(o.lc_error_code);
    if (typeof o.message === 'string') f.messages.push(o.message);
    if (e instanceof Error && e.constructor && e.constructor.name) f.names.push(e.constructor.name);
    visit(o.error, depth + 1);
    visit(o.cause, depth + 1);
  };
  visit(err, 0);
  return f;
}

// The last two are llama.cpp's server ("the request exceeds the available context size", type exceed_context_size_error).
const CONTEXT_RE =
  /context[_ ]length|maximum context|context window|prompt is too long|too many (input )?tokens|input is too long|reduce the length of the messages|exceeds? the (model'?s? )?(maximum|context)|available context size|exceed_context_size/i;
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNABORTED',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_CLOSED',
]);

/**
 * The message without LangChain's "Troubleshooting URL: …" tail. Cut at the marker by hand: a
 * pattern starting with `\s*` rescans a server's long run of spaces from every position in it.
 */
export function withoutTroubleshooting(message: string): string {
  const at = message.indexOf('Troubleshooting URL:');
  return at < 0 ? message : message.slice(0, at).trimEnd();
}

/** Short, redacted server detail (first message line that is not LangChain boilerplate). */
function detail(f: Facts, apiKey?: string): string {
  const m = f.messages.map((s) => withoutTroubleshooting(s).trim()).find((s) => s.length > 0 && !/^\d{3} status code/.test(s));
  if (!m) return '';
  const one = redact(m, apiKey).split('\n')[0];
  return one.length > 240 ? one.slice(0, 237) + '…' : one;
}

/** Classifies any error thrown while talking to a provider. */
export function toProviderError(err: unknown, ctx: ErrorContext): ProviderError {
  if (err instanceof ProviderError) return err;
  const f = facts(err);
  const where = safeOrigin(ctx.baseURL);
  const d = detail(f, ctx.apiKey);
  const withDetail = (s: string) => (d ? `${s} Server said: ${d}` : s);
  const all = f.messages.join('\n');
  const status = f.status;
  const mk = (code: ProviderErrorCode, message: string, extra: { retryAfterMs?: number } = {}) =>
    new ProviderError(code, redact(message, ctx.apiKey), { status, ...extra });

  if (f.names.some((n) => n === 'AbortError' || n === 'APIUserAbortError')) {
    return mk('aborted', 'Request cancelled.');
  }
  if (
    f.names.some((n) => n === 'ContextOverflowError') ||
    f.codes.includes('context_length_exceeded') ||
    ((status === 400 || status === 413 || status === undefined) && CONTEXT_RE.test(all))
  ) {
    return mk('context-length', withDetail(`The request is longer than ${ctx.model}'s context window.`));
  }
  if (status === 401 || status === 403) {
    return mk('bad-key', withDetail(`${ctx.provider} rejected the API key (HTTP ${status}). Set a valid key with "Strata: Set API Key".`));
  }
  if (status === 404) {
    return mk(
      'unknown-model',
      withDetail(
        `Model "${ctx.model}" was not found at ${where} (HTTP 404). Check the model name (Strata: Select Model) and the base URL (OpenAI-compatible servers usually end in /v1).`,
      ),
    );
  }
  if (status === 429) {
    const retryAfterMs = parseRetryAfter(f.headers);
    const wait = retryAfterMs !== undefined ? ` Try again in ${Math.max(1, Math.ceil(retryAfterMs / 1000))} s.` : ' Try again in a moment.';
    return mk('rate-limited', withDetail(`${ctx.provider} is rate-limiting requests (HTTP 429).${wait}`), { retryAfterMs });
  }
  if (status !== undefined && (status >= 500 || status === 408 || status === 409)) {
    const retryAfterMs = parseRetryAfter(f.headers);
    return mk('server', withDetail(`${ctx.provider} at ${where} had a server error (HTTP ${status}).`), { retryAfterMs });
  }
  if (f.types.includes('overloaded_error') || f.types.includes('api_error')) {
    return mk('server', withDetail(`${ctx.provider} reported an error while streaming the reply.`));
  }
  if (status !== undefined && status >= 400) {
    const hint = /prompt_cache_key/i.test(all)
      ? ' This server does not accept prompt_cache_key: turn off the "strata.promptCacheKey" setting.'
      : '';
    return mk('bad-request', withDetail(`${ctx.provider} refused the request (HTTP ${status}).${hint}`));
  }
  const code = f.codes.find((c) => NETWORK_CODES.has(c));
  if (code === 'ECONNREFUSED') return mk('network', `Cannot connect to ${where}: connection refused. Is the server running?`);
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return mk('network', `Cannot resolve ${where}: no network, or the host name is wrong.`);
  if (code || /\bterminated\b|socket hang up|other side closed|Connection error|fetch failed|network/i.test(all)) {
    return mk('network', `The connection to ${where} was lost${code ? ` (${code})` : ''}. Check your network and try again.`);
  }
  if (f.names.includes('SyntaxError') || /could not parse|unexpected (token|end)|JSON/i.test(all)) {
    return mk('bad-response', `${ctx.provider} at ${where} sent a response Strata could not read (malformed stream).`);
  }
  if (f.names.includes('TimeoutError') || f.names.includes('APIConnectionTimeoutError')) {
    return mk('timeout', `No response from ${where} within ${Math.round((ctx.timeoutMs ?? 0) / 1000)} s (request timeout).`);
  }
  return mk('bad-response', withDetail(`Unexpected error from ${ctx.provider} at ${where}.`));
}
