"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.STOPPED_REPLY = exports.TurnPipeline = exports.PRUNE_HARDER_PERCENT = exports.TOOL_LIMIT_REPLY = exports.STEP_TEXT_SEPARATOR = void 0;
exports.storedRequest = storedRequest;
exports.formatTurnReport = formatTurnReport;
exports.toStepInput = toStepInput;
/**
 * One turn, one implementation (issue 9, "One turn pipeline, two workspaces"): resolve this turn's
 * attachments through the workspace port (isolation on each) → isolation again for everything about
 * to be sent → freshness → `buildTurn` (pruning inside) → the provider's stream (a context-length error
 * prunes harder and retries once) → `completeTurn` → the chat store → done. The extension, the replay
 * and the benchmark all run turns through this class; they differ only in the port (editor or
 * memory), the provider (a real one or `ScriptedProvider`) and whether a store is given.
 *
 * The turn is written once, as a generator of steps, and driven two ways: `run` awaits what the port
 * and the provider return (the extension), `runSync` requires them to answer synchronously (the
 * replay and the benchmark, whose public APIs are synchronous). Same steps, same order, same bytes.
 *
 * Outcomes: `done` (committed and persisted before the `done` event), `stopped` (Stop: the text the
 * user saw is committed, persisted and marked stopped; with nothing streamed yet the turn is dropped),
 * `error` (nothing committed or persisted; the provider's error code), `blocked` (the essentials alone
 * exceed the budget: nothing sent), `preview` (no provider: the exact request is returned, nothing
 * committed).
 *
 * Another window saving to the same chat while a reply streams (two windows on one folder share the
 * chat store): the append names the saved state the turn was built on (`PersistTarget.base`), and the
 * store refuses it when the chat has moved on. When the other window only added turns, the turn is
 * rebuilt on top of them — same input (the attachments and file contents as read for this turn), same
 * reply — and saved after them, once (`saved.rebased`; the turn's meta says so). The reply was written
 * without those turns, which is what the user saw happen; nothing is lost and nothing is saved twice.
 * When the other window replaced or removed a turn this one followed (Regenerate), deleted the chat,
 * or the rebuilt turn no longer fits, nothing is saved: `error` with code `chat-changed`, and the
 * caller reloads the chat and offers to send the message again.
 */
const engine_1 = require("../engine/engine");
const invariants_1 = require("../engine/invariants");
const definitions_1 = require("./tools/definitions");
const hash_1 = require("../common/hash");
const steps_1 = require("../common/steps");
const cacheModel_1 = require("./cacheModel");
const chatStore_1 = require("./chatStore");
const types_1 = require("./providers/types");
/** Between the texts of two model steps of one turn, as streamed and as shown. */
exports.STEP_TEXT_SEPARATOR = '\n\n';
/** The reply recorded when the model ended a tool loop without a word. */
exports.TOOL_LIMIT_REPLY = '(The model answered with tool calls only.)';
/** DESIGN §5: after a context-length error, cut to this percent of the budget and retry once. */
exports.PRUNE_HARDER_PERCENT = 50;
const now = () => performance.now();
const round = (ms) => Math.round(ms * 1000) / 1000;
function labelOf(input) {
    return input.range ? `${input.uri}#L${input.range.startLine}-L${input.range.endLine}` : input.uri;
}
class TurnPipeline {
    /** The active chat's engine (replaced by the caller on a reload, or here when a save fails). */
    engine;
    port;
    persist;
    options;
    constructor(options) {
        this.engine = options.engine;
        this.port = options.port;
        this.persist = options.persist;
        this.options = options;
    }
    /** Runs one turn, awaiting the port and the provider. Never throws: failures are `error` outcomes. */
    async run(request, provider, send) {
        return (0, steps_1.runSteps)(this.steps(request, provider, send, true));
    }
    /**
     * Runs one turn synchronously: the port and the provider must answer without promises
     * (`MemoryWorkspace`, `ScriptedProvider`). The replay and the benchmark use it.
     */
    runSync(request, provider, send) {
        return (0, steps_1.runStepsSync)(this.steps(request, provider, send, false), 'TurnPipeline.runSync: the workspace port or the provider answered with a promise; use run()');
    }
    *steps(request, provider, send, async) {
        const t0 = now();
        const engine = this.engine;
        const emit = (event) => {
            try {
                send.onEvent?.(event);
            }
            catch (e) {
                this.options.log?.(`turn event handler failed: ${e.message}`);
            }
        };
        const state = { buildMs: 0, violations: [], prunedHarder: false, firstTokenMs: undefined, usage: undefined };
        let envelope;
        let input;
        const rejections = [];
        const tools = { shownText: false, requests: [], views: [], stepUsage: [], timings: [], appends: [] };
        const finish = (o, errorCode) => {
            const report = this.report(envelope, o.status, state, now() - t0, errorCode, provider?.kind);
            if (tools.requests.length > 0) {
                report.toolSteps = tools.requests.length;
                report.toolTokens = tools.views.reduce((n, v) => n + (v.resultTokens ?? 0), 0);
                report.stepMs = tools.timings;
            }
            const outcome = { ...o, envelope, input, buildMs: state.buildMs, violations: state.violations, rejections: envelope?.rejections ?? rejections, report, requests: tools.requests, toolSteps: tools.views };
            this.options.log?.(formatTurnReport(report));
            emit({ type: outcome.status, outcome });
            return outcome;
        };
        const fail = (error) => {
            engine.abandonTurn();
            return finish({ status: 'error', error }, error.code);
        };
        try {
            // 1. This turn's attachments: specs are resolved (isolated and read) now; snapshots are rechecked.
            const attachments = [];
            for (const a of request.attachments ?? []) {
                if (a.kind === 'snapshot') {
                    const bad = yield* (0, steps_1.wait)(this.port.recheck(a.input.uri, a.label ?? labelOf(a.input)));
                    if (bad)
                        rejections.push(bad);
                    else
                        attachments.push(a.input);
                    continue;
                }
                const r = yield* (0, steps_1.wait)(this.port.resolve(a));
                if (r.ok)
                    attachments.push(r.input);
                else
                    rejections.push(r.rejection);
            }
            // 2. Isolation again for the recoverable files already in the chat: one that now fails (a
            //    symlink out, newly excluded, too large) is detached, reported, and not re-read.
            const detach = [...(request.detach ?? [])];
            const sources = [];
            for (const src of engine.recoverableSources()) {
                const bad = yield* (0, steps_1.wait)(this.port.recheck(src.uri, src.uri));
                if (!bad) {
                    sources.push(src);
                    continue;
                }
                rejections.push(bad);
                if (!detach.some((d) => d.kind === 'file' && d.uri === src.uri))
                    detach.push({ kind: 'file', uri: src.uri });
            }
            // 3. Freshness.
            const fresh = sources.length > 0 ? yield* (0, steps_1.wait)(this.port.readFresh(sources)) : new Map();
            // Count big new content ahead of the synchronous build, yielding to the event loop.
            if (async && this.options.warm) {
                for (const a of attachments)
                    yield* (0, steps_1.wait)(this.options.warm(a.content, send.signal));
                for (const v of fresh.values())
                    if (v !== null)
                        yield* (0, steps_1.wait)(this.options.warm(v, send.signal));
            }
            // 4. Build (pruning inside).
            input = {
                userText: request.userText,
                attachments,
                fresh,
                pin: [...(request.pin ?? [])],
                unpin: [...(request.unpin ?? [])],
                detach,
                rejections: [...rejections, ...(request.rejections ?? [])],
            };
            if (request.targetPercentOverride !== undefined)
                input.targetPercentOverride = request.targetPercentOverride;
            envelope = this.build(engine, input, false, state, emit);
            if (envelope.blocked) {
                engine.abandonTurn();
                return finish({ status: 'blocked', message: envelope.blocked.message }, 'blocked');
            }
            if (!provider) {
                engine.abandonTurn();
                return finish({ status: 'preview' });
            }
            // 5. The provider (prune harder once after a context-length error, always before any output),
            //    and the tool loop (issue 11): while the model calls tools, run them and send the request
            //    again with the calls and results appended — every request a pure append of the one before.
            const loop = send.tools && send.tools.definitions.length > 0 && provider.supportsTools !== false ? send.tools : undefined;
            const maxSteps = loop ? Math.max(1, loop.maxSteps) : 0;
            let streamed = '';
            let seq = 0;
            let doneText;
            let toolRounds = 0;
            let toolTokens = 0;
            const steps = tools;
            for (;;) {
                const req = {
                    messages: envelope.messages,
                    model: send.model,
                    conversationId: send.conversationId ?? engine.options.conversationId,
                    maxOutputTokens: send.maxOutputTokens,
                };
                if (loop)
                    req.tools = loop.definitions;
                if (send.signal)
                    req.signal = send.signal;
                if (send.timeoutMs !== undefined)
                    req.timeoutMs = send.timeoutMs;
                const tSend = now();
                let calls = [];
                streamed = '';
                state.usage = undefined;
                try {
                    const stream = provider.stream(req);
                    const sync = stream[Symbol.iterator];
                    const it = typeof sync === 'function' ? sync.call(stream) : stream[Symbol.asyncIterator]();
                    let completed = false;
                    try {
                        for (;;) {
                            const r = (yield* (0, steps_1.wait)(it.next()));
                            if (r.done)
                                break;
                            const ev = r.value;
                            if (ev.type === 'text') {
                                if (ev.text.length === 0)
                                    continue;
                                state.firstTokenMs ??= now() - tSend;
                                // Text of an earlier step and this one's are shown as separate paragraphs.
                                if (streamed.length === 0 && steps.shownText)
                                    emit({ type: 'text', text: exports.STEP_TEXT_SEPARATOR, seq: seq++ });
                                streamed += ev.text;
                                steps.shownText = true;
                                emit({ type: 'text', text: ev.text, seq: seq++ });
                            }
                            else if (ev.type === 'usage') {
                                state.usage = ev.usage;
                                emit({ type: 'usage', usage: ev.usage });
                            }
                            else if (ev.type === 'toolCall') {
                                if (loop)
                                    emit({ type: 'toolCall', step: toolRounds + 1, id: ev.id, name: ev.name });
                            }
                            else {
                                doneText = ev.text;
                                if (ev.usage)
                                    state.usage = ev.usage;
                                if (ev.toolCalls && loop)
                                    calls = ev.toolCalls;
                                completed = true;
                                break;
                            }
                        }
                    }
                    finally {
                        if (!completed) {
                            const closing = it.return?.();
                            if ((0, steps_1.isThenable)(closing))
                                Promise.resolve(closing).catch(() => { });
                        }
                    }
                    if (doneText === undefined)
                        throw new types_1.ProviderError('bad-response', `${provider.label} ended the reply without completing it.`);
                }
                catch (e) {
                    const pe = types_1.ProviderError.is(e) ? e : new types_1.ProviderError(send.signal?.aborted ? 'aborted' : 'bad-response', e?.message ?? String(e));
                    if (pe.code === 'aborted' || send.signal?.aborted)
                        return this.stopped(engine, streamed, envelope, input, { ...send, providerKind: provider?.kind }, state, request, emit, finish, steps);
                    if (pe.code === 'context-length' && streamed.length === 0 && !state.prunedHarder && steps.requests.length === 0) {
                        state.prunedHarder = true;
                        const harder = { ...input, targetPercentOverride: Math.min(exports.PRUNE_HARDER_PERCENT, input.targetPercentOverride ?? exports.PRUNE_HARDER_PERCENT) };
                        envelope = this.build(engine, harder, true, state, emit);
                        input = harder;
                        if (envelope.blocked) {
                            engine.abandonTurn();
                            return finish({ status: 'blocked', message: envelope.blocked.message }, 'blocked');
                        }
                        continue;
                    }
                    return fail({ code: pe.code, message: pe.message, ...(pe.retryAfterMs !== undefined ? { retryAfterMs: pe.retryAfterMs } : {}) });
                }
                if (!loop || calls.length === 0)
                    break;
                // Past the step limit the calls are answered with a note, and the next answer ends the turn.
                if (toolRounds > maxSteps)
                    break;
                toolRounds++;
                steps.stepUsage.push(state.usage);
                const tStep = now();
                const over = toolRounds > maxSteps;
                const inputs = [];
                const results = [];
                for (const call of calls) {
                    emit({ type: 'toolCall', step: toolRounds, id: call.id, name: call.name, args: call.args });
                    if (over) {
                        inputs.push({ callId: call.id, tool: call.name, note: `[${call.name} was not run: the limit of ${maxSteps} tool steps in one turn was reached (strata.tools.maxSteps). Answer with what you have.]` });
                        results.push(undefined);
                        continue;
                    }
                    const result = yield* loop.executor.execute(call, send.signal);
                    if (send.signal?.aborted)
                        return this.stopped(engine, streamed, envelope, input, { ...send, providerKind: provider?.kind }, state, request, emit, finish, steps);
                    inputs.push(toStepInput(result));
                    results.push(result);
                }
                const tAppend = now();
                const stepInput = { text: doneText ?? '', calls, results: inputs };
                const stepLimits = { maxTokens: Math.max(0, loop.maxTurnTokens - toolTokens) };
                const appended = engine.appendToolStep(stepInput, stepLimits);
                steps.appends.push({ step: stepInput, limits: stepLimits });
                steps.timings.push({ toolsMs: round(tAppend - tStep), appendMs: round(now() - tAppend) });
                steps.requests.push(envelope);
                envelope = appended.envelope;
                appended.outcomes.forEach((o, i) => {
                    toolTokens += o.tokens;
                    const view = stepView(toolRounds, calls[i], results[i], o);
                    steps.views.push(view);
                    emit({ type: 'toolResult', step: toolRounds, view, outcome: o });
                });
                state.violations = this.options.check ? (0, invariants_1.checkEnvelope)(envelope, envelope.budget, { hasher: { sha256Hex: hash_1.sha256Hex }, ...engine.checkContext(), blocked: false }) : [];
                emit({ type: 'built', envelope, buildMs: 0, pruneHarder: false, violations: state.violations });
                if (send.signal?.aborted)
                    return this.stopped(engine, '', envelope, input, { ...send, providerKind: provider?.kind }, state, request, emit, finish, steps);
            }
            // 6. Complete, persist, done.
            fillStepCache(tools, envelope, state.usage, provider.kind);
            const reply = send.recordReply ?? (doneText && doneText.length > 0 ? doneText : steps.requests.length > 0 ? exports.TOOL_LIMIT_REPLY : (doneText ?? ''));
            const saved = this.commit(engine, reply, envelope, input, { ...send, providerKind: provider?.kind }, false, state, request, steps);
            if (!saved.ok)
                return finish({ status: 'error', error: saved.error }, saved.error.code);
            if (saved.bytes !== undefined)
                emit({ type: 'persisted', turn: saved.saved?.turn ?? envelope.turn, bytes: saved.bytes });
            return finish({ status: 'done', reply, ...(state.usage ? { usage: state.usage } : {}), ...(saved.meta ? { meta: saved.meta } : {}), ...(saved.saved ? { saved: saved.saved } : {}) });
        }
        catch (e) {
            const aborted = e?.name === 'AbortError' || send.signal?.aborted;
            if (aborted) {
                engine.abandonTurn();
                return finish({ status: 'stopped', kept: false, reply: '' });
            }
            return fail({ code: 'internal', message: `The turn failed: ${e?.message ?? String(e)}` });
        }
    }
    /** Stop: what streamed is the reply (committed, persisted, marked stopped); nothing streamed → dropped. */
    stopped(engine, streamed, envelope, input, send, state, request, emit, finish, tools) {
        // Nothing the user saw (no text, no tool step): the turn is dropped. Otherwise what streamed in the
        // last model call is the reply, after the tool steps already in the request.
        if (streamed.length === 0 && !(tools && tools.requests.length > 0)) {
            engine.abandonTurn();
            return finish({ status: 'stopped', kept: false, reply: '' });
        }
        const reply = streamed.length > 0 ? streamed : exports.STOPPED_REPLY;
        if (tools)
            fillStepCache(tools, envelope, state.usage, send.providerKind);
        const saved = this.commit(engine, reply, envelope, input, send, true, state, request, tools);
        if (!saved.ok)
            return finish({ status: 'error', error: saved.error }, saved.error.code);
        if (saved.bytes !== undefined)
            emit({ type: 'persisted', turn: saved.saved?.turn ?? envelope.turn, bytes: saved.bytes });
        return finish({ status: 'stopped', kept: true, reply, ...(state.usage ? { usage: state.usage } : {}), ...(saved.meta ? { meta: saved.meta } : {}), ...(saved.saved ? { saved: saved.saved } : {}) });
    }
    build(engine, input, pruneHarder, state, emit) {
        const t0 = now();
        const envelope = engine.buildTurn(input);
        state.buildMs = now() - t0;
        state.violations = this.options.check ? (0, invariants_1.checkEnvelope)(envelope, envelope.budget, { hasher: { sha256Hex: hash_1.sha256Hex }, ...engine.checkContext(), blocked: !!envelope.blocked }) : [];
        emit({ type: 'built', envelope, buildMs: state.buildMs, pruneHarder, violations: state.violations });
        return envelope;
    }
    /**
     * Commits the pending turn and appends it to the store. A failed save puts the engine back to the
     * state before the turn, so memory and disk agree. Another window's turns saved meanwhile: the turn
     * is rebuilt on top of them (see the file comment).
     */
    commit(engine, reply, envelope, input, send, stopped, state, request, tools) {
        const before = engine.state;
        engine.completeTurn(reply);
        const target = this.persist;
        if (!target)
            return { ok: true };
        const record = (e, base, rebased) => ({
            state: e.state,
            engine: e.options,
            envelope,
            usage: state.usage,
            model: send.modelLabel,
            provider: send.providerKind,
            stopped,
            request: storedRequest(request, e.options.hasher ?? { sha256Hex: hash_1.sha256Hex }),
            title: target.title?.(),
            ...(base ? { base } : {}),
            ...(target.replaceLast ? { replaceLast: true } : {}),
            ...(rebased ? { rebased } : {}),
            ...(tools && tools.views.length > 0 ? { toolSteps: tools.views } : {}),
        });
        const done = (r, rebased) => {
            for (const w of r.warnings)
                this.options.log?.(w);
            return { ok: true, bytes: r.bytes, meta: r.meta, saved: { turn: r.turn, base: r.base, ...(rebased ? { rebased } : {}) } };
        };
        const giveBack = () => {
            this.engine = new engine_1.PromptContextEngine(engine.options, before);
        };
        try {
            return done(target.store.appendTurn(target.chatId, record(engine, target.base?.())));
        }
        catch (e) {
            const conflict = e instanceof chatStore_1.ChatStoreError ? e.conflict : undefined;
            if (conflict?.reason === 'appended' && !target.replaceLast && input) {
                const r = this.rebuildOnTop(target, engine, before, input, reply, record, tools?.appends ?? []);
                if (r.ok)
                    return done(r.result, r.rebased);
                giveBack();
                return { ok: false, error: r.error };
            }
            giveBack();
            if (conflict)
                return { ok: false, error: { code: 'chat-changed', message: chatChangedMessage(conflict.reason, !!target.replaceLast) } };
            return { ok: false, error: { code: 'persist-failed', message: `The reply could not be saved, so the turn was not kept: ${e.message}` } };
        }
    }
    /**
     * Another window saved turns after the state this turn was built on: build the same input on the
     * chat as saved now, complete it with the same reply, and append it there — all under the store
     * lock, so no third save can slip in between (the other window waits for one build).
     */
    rebuildOnTop(target, engine, before, input, reply, record, toolSteps) {
        const builtAfterTurn = before.completedTurns;
        try {
            return target.store.exclusive(() => {
                const fresh = target.store.loadChat(target.chatId, { reuse: engine.state });
                const rebuilt = new engine_1.PromptContextEngine(engine.options, fresh.state);
                const env = rebuilt.buildTurn(input);
                if (env.blocked) {
                    rebuilt.abandonTurn();
                    return { ok: false, error: { code: 'chat-changed', message: `Another window saved turns to this chat while this reply streamed, and the reply no longer fits after them (${env.blocked.message}), so it was not saved. The chat now shows what is saved.` } };
                }
                // The model's tool calls and what they returned are part of the turn: appended again on top.
                for (const a of toolSteps)
                    rebuilt.appendToolStep(a.step, a.limits);
                rebuilt.completeTurn(reply);
                const result = target.store.appendTurn(target.chatId, record(rebuilt, fresh.base, { builtAfterTurn }));
                this.engine = rebuilt;
                const rebased = { builtAfterTurn, otherTurns: fresh.base.turns - builtAfterTurn };
                this.options.log?.(`[${engine.options.conversationId}] another window saved ${rebased.otherTurns} turn(s) after turn ${builtAfterTurn} while this reply streamed; the turn was saved after them as turn ${result.turn}`);
                return { ok: true, result, rebased };
            });
        }
        catch (e) {
            const c = e instanceof chatStore_1.ChatStoreError ? e.conflict : undefined;
            if (c)
                return { ok: false, error: { code: 'chat-changed', message: chatChangedMessage(c.reason, false) } };
            return { ok: false, error: { code: 'persist-failed', message: `The reply could not be saved, so the turn was not kept: ${e.message}` } };
        }
    }
    report(env, status, state, totalMs, errorCode, providerKind) {
        const r = {
            conversationId: this.engine.options.conversationId,
            turn: env?.turn ?? this.engine.state.completedTurns + 1,
            status,
            layout: this.engine.options.layout,
            layerHashes: {},
            layerTokens: {},
            promptTokens: env?.totalTokens ?? 0,
            prefixBreak: env?.prefixBreak ?? false,
            // As the provider reports it (OpenAI's 128-token steps), so the log compares like with like.
            predictedCached: (0, cacheModel_1.providerCachePrediction)(providerKind, env?.ledger.cachedTokens ?? 0),
            cuts: env?.pruned.length ?? 0,
            rejections: env?.rejections.length ?? 0,
            buildMs: round(state.buildMs),
            totalMs: round(totalMs),
            prunedHarder: state.prunedHarder,
        };
        for (const l of env?.layers ?? []) {
            r.layerHashes[l.id] = l.hash.slice(0, 12);
            r.layerTokens[l.id] = l.tokens;
        }
        if (env)
            r.prefixHash = env.prefixHash.slice(0, 12);
        if (env?.prefixBreakReason)
            r.prefixBreakReason = env.prefixBreakReason;
        if (state.usage) {
            r.reportedCached = state.usage.cacheRead;
            r.reportedCacheWrite = state.usage.cacheWrite;
            r.reportedInput = state.usage.input;
        }
        if (state.firstTokenMs !== undefined)
            r.firstTokenMs = round(state.firstTokenMs);
        if (errorCode)
            r.errorCode = errorCode;
        return r;
    }
}
exports.TurnPipeline = TurnPipeline;
/** What the user is told when another window's change keeps a turn from being saved. */
function chatChangedMessage(reason, regenerating) {
    if (reason === 'missing')
        return 'This chat was deleted in another window while the reply streamed, so the reply was not saved.';
    if (regenerating)
        return 'This chat was changed in another window while the new reply streamed, so it was not saved: the turn it would have replaced is no longer the last one. The chat now shows what is saved.';
    return 'This chat was changed in another window while the reply streamed (a turn this one followed was regenerated or removed there), so the reply was not saved. The chat now shows what is saved.';
}
function storedRef(r) {
    return r.range ? { kind: r.kind, uri: r.uri, range: { startLine: r.range.startLine, endLine: r.range.endLine } } : { kind: r.kind, uri: r.uri };
}
/** A turn request in the chat store's form (snapshots named by content hash). */
function storedRequest(req, hasher) {
    const out = {
        attachments: (req.attachments ?? []).map((a) => {
            if (a.kind !== 'snapshot')
                return { ...a };
            const i = a.input;
            return {
                kind: 'snapshot',
                uri: i.uri,
                ...(i.range ? { range: { startLine: i.range.startLine, endLine: i.range.endLine } } : {}),
                contentHash: hasher.sha256Hex(i.content),
                ...(i.requestedEndLine !== undefined ? { requestedEndLine: i.requestedEndLine } : {}),
                ...(a.label ? { label: a.label } : {}),
            };
        }),
    };
    if (req.pin?.length)
        out.pin = req.pin.map(storedRef);
    if (req.unpin?.length)
        out.unpin = req.unpin.map(storedRef);
    if (req.detach?.length)
        out.detach = req.detach.map(storedRef);
    if (req.targetPercentOverride !== undefined)
        out.targetPercentOverride = req.targetPercentOverride;
    return out;
}
/** The turn report as one log line. */
function formatTurnReport(r) {
    const layers = ['L1', 'L2', 'L3', 'L4', 'L5'].map((id) => `${id} ${r.layerHashes[id] ?? '-'} (${r.layerTokens[id] ?? 0})`).join(', ');
    const cache = `cached ${r.predictedCached} predicted / ${r.reportedCached !== undefined ? `${r.reportedCached} reported` : 'not reported'}`;
    const prefix = r.prefixBreak ? `prefix changed${r.prefixBreakReason ? ` (${r.prefixBreakReason})` : ''}` : 'prefix kept';
    const times = `build ${r.buildMs.toFixed(1)} ms${r.firstTokenMs !== undefined ? `, first token ${r.firstTokenMs.toFixed(0)} ms` : ''}, total ${r.totalMs.toFixed(0)} ms`;
    const tools = r.toolSteps ? `${r.toolSteps} tool step(s), ${r.toolTokens ?? 0} tokens of results, steps ${(r.stepMs ?? []).map((t) => `${t.toolsMs.toFixed(1)}+${t.appendMs.toFixed(1)}`).join(', ')} ms (tools+append)` : '';
    const extra = [tools, r.prunedHarder ? 'pruned harder after a context-length error' : '', r.cuts ? `${r.cuts} cut(s)` : '', r.rejections ? `${r.rejections} rejection(s)` : '', r.errorCode ? `error ${r.errorCode}` : '']
        .filter(Boolean)
        .join('; ');
    return `[${r.conversationId}] turn ${r.turn} ${r.status}: ${layers}; prompt ${r.promptTokens}, ${cache}; ${prefix}; ${times}${extra ? `; ${extra}` : ''}`;
}
/** The reply recorded when the user stopped a tool loop before the model said anything in its last call. */
exports.STOPPED_REPLY = '(Stopped by the user.)';
/** An executor result as the engine's step input. */
function toStepInput(result) {
    const out = { callId: result.call.id, tool: result.call.name };
    const o = result.output;
    if (o.kind === 'text')
        out.note = o.text;
    else {
        out.artifact = o.input;
        if (o.whole)
            out.whole = o.whole;
        if (o.note !== undefined)
            out.note = o.note;
    }
    return out;
}
/** One tool call as the panel shows it. */
function stepView(step, call, result, outcome) {
    const refused = result?.output.kind === 'text' && result.output.refused !== undefined;
    const invalid = result?.output.kind === 'text' && result.output.refused === 'invalid-arguments';
    const view = {
        id: call.id,
        step,
        name: call.name,
        label: (0, definitions_1.callLabel)(call),
        args: JSON.stringify(call.args),
        status: invalid ? 'error' : refused || !result || outcome.mode === 'over-budget' ? 'refused' : 'done',
        summary: !result ? 'not run: the step limit was reached' : outcome.mode === 'over-budget' ? `left out: over the budget (${result.summary})` : result.summary,
        resultTokens: outcome.tokens,
    };
    if (outcome.mode === 'reference')
        view.reused = true;
    if (outcome.key)
        view.key = outcome.key;
    return view;
}
/**
 * Each step's cached tokens: those of the model request that carried its results — reported by the
 * provider when it reports usage, else the engine's prediction as that provider would report it.
 */
function fillStepCache(tools, last, lastUsage, providerKind) {
    for (const v of tools.views) {
        const k = v.step;
        const env = k < tools.requests.length ? tools.requests[k] : last;
        const usage = k < tools.stepUsage.length ? tools.stepUsage[k] : k === tools.stepUsage.length ? lastUsage : undefined;
        if (usage) {
            v.cachedTokens = usage.cacheRead;
            v.cachedReported = true;
        }
        else {
            v.cachedTokens = (0, cacheModel_1.providerCachePrediction)(providerKind, env.ledger.cachedTokens);
            v.cachedReported = false;
        }
    }
}
//# sourceMappingURL=turnPipeline.js.map