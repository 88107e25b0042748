"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.abortableSleep = exports.ToolCallAssembler = void 0;
exports.runStream = runStream;
/**
 * The stream loop shared by the LangChain providers: retries with backoff (honouring retry-after)
 * before any output, a stall/first-byte timeout, and cancellation that ends the stream at once.
 */
const errors_1 = require("./errors");
const types_1 = require("./types");
/** Assembles streamed tool-call chunks into calls (by index, in index order). */
class ToolCallAssembler {
    calls = new Map();
    seq = 0;
    /** Adds chunks; returns the calls whose name became known with them (for `toolCall` events). */
    add(chunks) {
        const started = [];
        for (const c of chunks) {
            let call = this.calls.get(c.index);
            if (!call) {
                call = { id: '', name: '', args: '' };
                this.calls.set(c.index, call);
            }
            const hadName = call.name.length > 0;
            if (c.id)
                call.id = c.id;
            if (c.name)
                call.name += c.name;
            if (c.args)
                call.args += c.args;
            if (!hadName && call.name.length > 0)
                started.push({ index: c.index, id: call.id, name: call.name });
        }
        return started;
    }
    get size() {
        return this.calls.size;
    }
    /** The finished calls; arguments that are not a JSON object are kept under `__invalid_json__`. */
    finish() {
        return [...this.calls.entries()]
            .sort((a, b) => a[0] - b[0])
            .filter(([, c]) => c.name.length > 0)
            .map(([, c]) => {
            let args;
            const text = c.args.trim();
            if (text.length === 0)
                args = {};
            else {
                try {
                    const parsed = JSON.parse(text);
                    args = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? parsed : { __invalid_json__: text };
                }
                catch {
                    args = { __invalid_json__: text };
                }
            }
            return { id: c.id || `call_strata_${++this.seq}`, name: c.name, args };
        });
    }
}
exports.ToolCallAssembler = ToolCallAssembler;
const abortableSleep = (ms, signal) => new Promise((resolve, reject) => {
    if (signal?.aborted)
        return reject(new types_1.ProviderError('aborted', 'Request cancelled.'));
    const onAbort = () => {
        clearTimeout(t);
        reject(new types_1.ProviderError('aborted', 'Request cancelled.'));
    };
    const t = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
});
exports.abortableSleep = abortableSleep;
const RETRYABLE = new Set(['rate-limited', 'server']);
async function* runStream(opts) {
    const policy = { ...types_1.DEFAULT_RETRY, ...opts.retry };
    const timeoutMs = opts.timeoutMs ?? types_1.DEFAULT_TIMEOUT_MS;
    const sleep = opts.sleep ?? exports.abortableSleep;
    const ext = opts.signal;
    const ctx = { ...opts.ctx, timeoutMs };
    for (let attempt = 1;; attempt++) {
        if (ext?.aborted)
            throw new types_1.ProviderError('aborted', 'Request cancelled.', { attempts: attempt });
        const ctrl = new AbortController();
        let timedOut = false;
        let timer;
        const arm = () => {
            if (timer)
                clearTimeout(timer);
            timer = setTimeout(() => {
                timedOut = true;
                ctrl.abort(new Error('timeout'));
            }, timeoutMs);
        };
        const onExtAbort = () => ctrl.abort(new Error('aborted'));
        ext?.addEventListener('abort', onExtAbort, { once: true });
        // Rejects as soon as this attempt is aborted (stop button or timeout), whatever the SDK does.
        let rejectAborted = () => { };
        const aborted = new Promise((_, reject) => (rejectAborted = reject));
        aborted.catch(() => { });
        ctrl.signal.addEventListener('abort', () => rejectAborted(ctrl.signal.reason), { once: true });
        let started = false;
        let completed = false;
        let iterator;
        let seq = 0;
        let text = '';
        let usage;
        let finishReason;
        const calls = new ToolCallAssembler();
        try {
            arm();
            iterator = opts.open(ctrl.signal)[Symbol.asyncIterator]();
            for (;;) {
                const r = await Promise.race([iterator.next(), aborted]);
                if (r.done)
                    break;
                arm();
                const p = r.value;
                if (p.usage)
                    usage = p.usage;
                if (p.finishReason)
                    finishReason = p.finishReason;
                if (p.text) {
                    started = true;
                    text += p.text;
                    if (timer)
                        clearTimeout(timer); // a slow consumer is not a stalled server
                    yield { type: 'text', text: p.text, seq: seq++ };
                    if (ctrl.signal.aborted)
                        await aborted; // aborted while the consumer held the chunk
                    arm();
                }
                if (p.toolCallChunks && p.toolCallChunks.length > 0) {
                    started = true;
                    for (const c of calls.add(p.toolCallChunks)) {
                        if (timer)
                            clearTimeout(timer);
                        yield { type: 'toolCall', index: c.index, id: c.id, name: c.name };
                        if (ctrl.signal.aborted)
                            await aborted;
                        arm();
                    }
                }
            }
            if (ctrl.signal.aborted)
                await aborted;
            completed = true;
        }
        catch (e) {
            let pe;
            if (ext?.aborted)
                pe = new types_1.ProviderError('aborted', 'Request cancelled.');
            else if (timedOut) {
                const where = (0, errors_1.safeOrigin)(ctx.baseURL);
                pe = new types_1.ProviderError('timeout', started
                    ? `The reply from ${where} stalled: no data for ${Math.round(timeoutMs / 1000)} s (request timeout). The partial reply was discarded.`
                    : `No response from ${where} within ${Math.round(timeoutMs / 1000)} s (request timeout).`);
            }
            else
                pe = (0, errors_1.toProviderError)(e, ctx);
            pe.attempts = attempt;
            const retry = !started && RETRYABLE.has(pe.code) && attempt < policy.maxAttempts;
            if (!retry)
                throw pe;
            const delayMs = pe.retryAfterMs ?? Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
            if (delayMs > policy.maxRetryAfterMs)
                throw pe;
            opts.onRetry?.({ attempt, delayMs, error: pe });
            await sleep(delayMs, ext);
            continue;
        }
        finally {
            if (timer)
                clearTimeout(timer);
            ext?.removeEventListener('abort', onExtAbort);
            if (!completed) {
                if (!ctrl.signal.aborted)
                    ctrl.abort(new Error('aborted'));
                // Let the SDK close its connection in the background; never wait for it.
                iterator?.return?.().catch(() => { });
            }
        }
        if (usage)
            yield { type: 'usage', usage };
        const toolCalls = calls.finish();
        yield toolCalls.length > 0 ? { type: 'done', text, usage, finishReason, attempts: attempt, toolCalls } : { type: 'done', text, usage, finishReason, attempts: attempt };
        return;
    }
}
//# sourceMappingURL=runner.js.map