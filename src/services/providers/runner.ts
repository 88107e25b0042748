/**
 * The stream loop shared by the LangChain providers: retries with backoff (honouring retry-after)
 * before any output, a stall/first-byte timeout, and cancellation that ends the stream at once.
 */
import { safeOrigin, toProviderError, type ErrorContext } from './errors';
import { DEFAULT_RETRY, DEFAULT_TIMEOUT_MS, ProviderError, type ProviderUsage, type RetryPolicy, type StreamEvent } from './types';
import type { ToolCall } from '../tools/definitions';

/** A piece of a streamed tool call: the first one of a call carries its id and name, later ones argument text. */
export interface ToolCallChunk {
  /** Which call of the message (the API's index). */
  index: number;
  id?: string;
  name?: string;
  /** A piece of the arguments' JSON text. */
  args?: string;
}

/** One piece read from a provider stream. `usage` is a full snapshot (latest wins). */
export interface RawPiece {
  text?: string;
  usage?: ProviderUsage;
  finishReason?: string;
  toolCallChunks?: ToolCallChunk[];
}

/** Assembles streamed tool-call chunks into calls (by index, in index order). */
export class ToolCallAssembler {
  private readonly calls = new Map<number, { id: string; name: string; args: string }>();
  private seq = 0;

  /** Adds chunks; returns the calls whose name became known with them (for `toolCall` events). */
  add(chunks: readonly ToolCallChunk[]): { index: number; id: string; name: string }[] {
    const started: { index: number; id: string; name: string }[] = [];
    for (const c of chunks) {
      let call = this.calls.get(c.index);
      if (!call) {
        call = { id: '', name: '', args: '' };
        this.calls.set(c.index, call);
      }
      const hadName = call.name.length > 0;
      if (c.id) call.id = c.id;
      if (c.name) call.name += c.name;
      if (c.args) call.args += c.args;
      if (!hadName && call.name.length > 0) started.push({ index: c.index, id: call.id, name: call.name });
    }
    return started;
  }

  get size(): number {
    return this.calls.size;
  }

  /** The finished calls; arguments that are not a JSON object are kept under `__invalid_json__`. */
  finish(): ToolCall[] {
    return [...this.calls.entries()]
      .sort((a, b) => a[0] - b[0])
      .filter(([, c]) => c.name.length > 0)
      .map(([, c]) => {
        let args: Record<string, unknown>;
        const text = c.args.trim();
        if (text.length === 0) args = {};
        else {
          try {
            const parsed = JSON.parse(text) as unknown;
            args =
              typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
                ? (parsed as Record<string, unknown>)
                : { __invalid_json__: text };
          } catch {
            args = { __invalid_json__: text };
          }
        }
        return { id: c.id || `call_strata_${++this.seq}`, name: c.name, args };
      });
  }
}

export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

export const abortableSleep: Sleep = (ms, signal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(new ProviderError('aborted', 'Request cancelled.'));
    const onAbort = () => {
      clearTimeout(t);
      reject(new ProviderError('aborted', 'Request cancelled.'));
    };
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });

export interface RunOptions {
  /** Opens one attempt; must stop when `signal` aborts. */
  open: (signal: AbortSignal) => AsyncIterable<RawPiece>;
  signal?: AbortSignal;
  timeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  sleep?: Sleep;
  ctx: ErrorContext;
  /** Called before each retry (for logs / the UI's "retrying in N s"). */
  onRetry?: (info: { attempt: number; delayMs: number; error: ProviderError }) => void;
}

const RETRYABLE = new Set(['rate-limited', 'server']);

export async function* runStream(opts: RunOptions): AsyncGenerator<StreamEvent> {
  const policy: RetryPolicy = { ...DEFAULT_RETRY, ...opts.retry };
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const sleep = opts.sleep ?? abortableSleep;
  const ext = opts.signal;
  const ctx: ErrorContext = { ...opts.ctx, timeoutMs };

  for (let attempt = 1; ; attempt++) {
    if (ext?.aborted) throw new ProviderError('aborted', 'Request cancelled.', { attempts: attempt });
    const ctrl = new AbortController();
    let timedOut = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const arm = () => {
      if (timer) clearTimeout(timer);
      timer = setTimeout(() => {
        timedOut = true;
        ctrl.abort(new Error('timeout'));
      }, timeoutMs);
    };
    const onExtAbort = () => ctrl.abort(new Error('aborted'));
    ext?.addEventListener('abort', onExtAbort, { once: true });
    // Rejects as soon as this attempt is aborted (stop button or timeout), whatever the SDK does.
    let rejectAborted: (e: unknown) => void = () => {};
    const aborted = new Promise<never>((_, reject) => (rejectAborted = reject));
    aborted.catch(() => {});
    ctrl.signal.addEventListener('abort', () => rejectAborted(ctrl.signal.reason), { once: true });

    let started = false;
    let completed = false;
    let iterator: AsyncIterator<RawPiece> | undefined;
    let seq = 0;
    let text = '';
    let usage: ProviderUsage | undefined;
    let finishReason: string | undefined;
    const calls = new ToolCallAssembler();
    try {
      arm();
      iterator = opts.open(ctrl.signal)[Symbol.asyncIterator]();
      for (;;) {
        const r = await Promise.race([iterator.next(), aborted]);
        if (r.done) break;
        arm();
        const p = r.value;
        if (p.usage) usage = p.usage;
        if (p.finishReason) finishReason = p.finishReason;
        if (p.text) {
          started = true;
          text += p.text;
          if (timer) clearTimeout(timer); // a slow consumer is not a stalled server
          yield { type: 'text', text: p.text, seq: seq++ };
          if (ctrl.signal.aborted) await aborted; // aborted while the consumer held the chunk
          arm();
        }
        if (p.toolCallChunks && p.toolCallChunks.length > 0) {
          started = true;
          for (const c of calls.add(p.toolCallChunks)) {
            if (timer) clearTimeout(timer);
            yield { type: 'toolCall', index: c.index, id: c.id, name: c.name };
            if (ctrl.signal.aborted) await aborted;
            arm();
          }
        }
      }
      if (ctrl.signal.aborted) await aborted;
      completed = true;
    } catch (e) {
      let pe: ProviderError;
      if (ext?.aborted) pe = new ProviderError('aborted', 'Request cancelled.');
      else if (timedOut) {
        const where = safeOrigin(ctx.baseURL);
        pe = new ProviderError(
          'timeout',
          started
            ? `The reply from ${where} stalled: no data for ${Math.round(timeoutMs / 1000)} s (request timeout). The partial reply was discarded.`
            : `No response from ${where} within ${Math.round(timeoutMs / 1000)} s (request timeout).`,
        );
      } else pe = toProviderError(e, ctx);
      pe.attempts = attempt;
      const retry = !started && RETRYABLE.has(pe.code) && attempt < policy.maxAttempts;
      if (!retry) throw pe;
      const delayMs = pe.retryAfterMs ?? Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
      if (delayMs > policy.maxRetryAfterMs) throw pe;
      opts.onRetry?.({ attempt, delayMs, error: pe });
      await sleep(delayMs, ext);
      continue;
    } finally {
      if (timer) clearTimeout(timer);
      ext?.removeEventListener('abort', onExtAbort);
      if (!completed) {
        if (!ctrl.signal.aborted) ctrl.abort(new Error('aborted'));
        // Let the SDK close its connection in the background; never wait for it.
        iterator?.return?.().catch(() => {});
      }
    }
    if (usage) yield { type: 'usage', usage };
    const toolCalls = calls.finish();
    yield toolCalls.length > 0
      ? { type: 'done', text, usage, finishReason, attempts: attempt, toolCalls }
      : { type: 'done', text, usage, finishReason, attempts: attempt };
    return;
  }
}
