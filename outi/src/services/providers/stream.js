"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.collectReply = collectReply;
exports.streamWithPruneRetry = streamWithPruneRetry;
/**
 * Stream helpers that need no LangChain: the turn pipeline and the summarizer import them without
 * loading the LangChain providers (the host loads those lazily, on the first send).
 */
const types_1 = require("./types");
/** Consumes a stream; `onText` sees each piece in order. Resolves only on `done`. */
async function collectReply(events, onText) {
    for await (const ev of events) {
        if (ev.type === 'text')
            onText?.(ev.text, ev.seq);
        else if (ev.type === 'done')
            return { text: ev.text, usage: ev.usage, finishReason: ev.finishReason, attempts: ev.attempts };
    }
    throw new types_1.ProviderError('bad-response', 'The reply ended without completing.');
}
/**
 * DESIGN §5 "prune harder": runs `build(false)`; when the provider answers context-length (always
 * before any output), calls `build(true)` (the caller rebuilds the envelope at target 50%) and
 * retries once. A second context-length error is reported as is.
 */
async function* streamWithPruneRetry(provider, build) {
    let started = false;
    try {
        for await (const ev of provider.stream(await build(false))) {
            if (ev.type === 'text')
                started = true;
            yield ev;
        }
        return;
    }
    catch (e) {
        if (started || !types_1.ProviderError.is(e, 'context-length'))
            throw e;
    }
    const req = await build(true);
    yield { type: 'pruned-harder' };
    yield* provider.stream(req);
}
//# sourceMappingURL=stream.js.map