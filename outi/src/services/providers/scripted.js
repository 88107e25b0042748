"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.ScriptedProvider = void 0;
/**
 * A provider that streams scripted replies: the replay and the benchmark run every turn of a
 * trajectory through the turn pipeline with it (the reply is the trajectory's `reply`), and tests use
 * it to script stops and failures without a server. No network, no LangChain.
 *
 * Its stream is both an async iterable (what `ChatProvider` promises) and a plain iterable, so the
 * pipeline's synchronous driver (`TurnPipeline.runSync`) can consume it without promises.
 */
const types_1 = require("./types");
/** Streams `reply` (a fixed text, a queue, or a function of the request). */
class ScriptedProvider {
    source;
    options;
    kind = 'scripted';
    label = 'Scripted replies';
    supportsTools = true;
    queue = [];
    constructor(source, options = {}) {
        this.source = source;
        this.options = options;
    }
    /** Replies for the next requests, in order (used before `source`). */
    push(...replies) {
        this.queue.push(...replies);
        return this;
    }
    stream(req) {
        const next = this.queue.shift() ?? this.source?.(req);
        if (next === undefined)
            throw new Error('ScriptedProvider: no scripted reply left');
        const reply = typeof next === 'string' ? { text: next } : next;
        this.options.onRequest?.(req);
        const events = () => scriptedEvents(reply, req, this.options);
        return {
            [Symbol.iterator]: events,
            [Symbol.asyncIterator]: () => {
                const it = events();
                return {
                    next: () => Promise.resolve().then(() => it.next()),
                    return: (v) => Promise.resolve(it.return(v)),
                };
            },
        };
    }
}
exports.ScriptedProvider = ScriptedProvider;
function* scriptedEvents(reply, req, options) {
    const aborted = () => new types_1.ProviderError('aborted', 'Request cancelled.');
    if (req.signal?.aborted)
        throw aborted();
    const size = options.chunkChars && options.chunkChars > 0 ? options.chunkChars : Math.max(1, reply.text.length);
    const chunks = [];
    for (let i = 0; i < reply.text.length; i += size)
        chunks.push(reply.text.slice(i, i + size));
    let sent = 0;
    for (const text of chunks) {
        if (reply.fail && sent === (reply.failAfterChunks ?? 0))
            throw reply.fail;
        yield { type: 'text', text, seq: sent };
        options.onChunk?.(sent);
        sent++;
        if (req.signal?.aborted)
            throw aborted();
    }
    if (reply.fail)
        throw reply.fail;
    const calls = reply.toolCalls && reply.toolCalls.length > 0 && req.tools && req.tools.length > 0 ? reply.toolCalls : undefined;
    if (calls) {
        for (const [index, c] of calls.entries()) {
            yield { type: 'toolCall', index, id: c.id, name: c.name };
            if (req.signal?.aborted)
                throw aborted();
        }
    }
    if (reply.usage)
        yield { type: 'usage', usage: reply.usage };
    yield calls
        ? { type: 'done', text: reply.text, usage: reply.usage, finishReason: 'tool_calls', attempts: 1, toolCalls: calls.map((c) => ({ id: c.id, name: c.name, args: c.args })) }
        : { type: 'done', text: reply.text, usage: reply.usage, finishReason: 'stop', attempts: 1 };
}
//# sourceMappingURL=scripted.js.map