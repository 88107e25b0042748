"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.ReplayTurnError = exports.ReplayRun = exports.REPLAY_TOOL_TURN_TOKENS = exports.REPLAY_TOOL_STEPS = void 0;
exports.replayToolCallId = replayToolCallId;
exports.usesTools = usesTools;
exports.engineFor = engineFor;
exports.specOf = specOf;
exports.turnRequest = turnRequest;
exports.replay = replay;
exports.replayAsync = replayAsync;
const engine_1 = require("../src/engine/engine");
const turnPipeline_1 = require("../src/services/turnPipeline");
const scripted_1 = require("../src/services/providers/scripted");
const definitions_1 = require("../src/services/tools/definitions");
const executor_1 = require("../src/services/tools/executor");
const trajectory_1 = require("./trajectory");
const nodeHasher_1 = require("../src/services/nodeHasher");
/** The id the replay gives the k-th (1-based) tool call of a turn; the tools-plain baseline uses the same. */
function replayToolCallId(turn, k) {
    return `call_${turn}_${k}`;
}
/** The trajectory scripts tool calls: the replay offers the workspace tools (DESIGN §8). */
function usesTools(traj) {
    return traj.turns.some((t) => (t.tools?.length ?? 0) > 0);
}
/** The extension's defaults (strata.tools.maxSteps, strata.tools.maxTurnTokens). */
exports.REPLAY_TOOL_STEPS = 8;
exports.REPLAY_TOOL_TURN_TOKENS = 60_000;
function engineFor(traj, opts) {
    return new engine_1.PromptContextEngine({
        hasher: opts.hasher ?? nodeHasher_1.NODE_HASHER,
        conversationId: traj.name,
        layout: opts.layout,
        policy: opts.policy,
        tokenizer: opts.tokenizer,
        system: traj.system,
        limits: { contextWindow: traj.model.contextWindow, maxOutputTokens: traj.model.maxOutputTokens },
        ...(usesTools(traj) ? { tools: true } : {}),
    });
}
/** A trajectory attachment as the workspace port's spec. */
function specOf(a) {
    return a.selection
        ? { kind: 'selection', path: a.selection.file, startLine: a.selection.startLine, endLine: a.selection.endLine }
        : { kind: 'file', path: a.file };
}
function toRef(a, isolation) {
    const p = a.selection ? a.selection.file : a.file;
    const checked = isolation.checkPath(p);
    if (!checked.ok)
        return undefined;
    return a.selection
        ? { kind: 'selection', uri: checked.path, range: { startLine: a.selection.startLine, endLine: a.selection.endLine } }
        : { kind: 'file', uri: checked.path };
}
/** The pipeline request of `traj.turns[i]`: its text, attachments, and pin / unpin / detach names. */
function turnRequest(traj, i, isolation) {
    const t = traj.turns[i];
    const rejections = [];
    const refs = (list) => {
        const out = [];
        for (const a of list ?? []) {
            const ref = toRef(a, isolation);
            if (ref)
                out.push(ref);
            else
                rejections.push({ attachment: (0, trajectory_1.attachmentLabel)(a), reason: 'not-found', message: `${(0, trajectory_1.attachmentLabel)(a)} is not attached in this chat.` });
        }
        return out;
    };
    const pin = refs(t.pin);
    const unpin = refs(t.unpin);
    const detach = refs(t.detach);
    return { userText: t.user, attachments: (t.attach ?? []).map(specOf), pin, unpin, detach, rejections };
}
/** One replay: the virtual workspace, the pipeline over it, and the scripted provider. */
class ReplayRun {
    traj;
    opts;
    ws;
    pipeline;
    reply = '';
    scripted = new scripted_1.ScriptedProvider(() => this.reply);
    tools;
    constructor(traj, opts) {
        this.traj = traj;
        this.opts = opts;
        this.ws = new trajectory_1.VirtualWorkspace(traj.files, { fresh: opts.fresh ?? 'changed' });
        this.pipeline = new turnPipeline_1.TurnPipeline({ engine: engineFor(traj, opts), port: this.ws, check: opts.check ?? true });
        if (usesTools(traj))
            this.tools = new executor_1.ToolExecutor(this.ws, opts.tokenizer, executor_1.DEFAULT_TOOL_LIMITS);
    }
    get engine() {
        return this.pipeline.engine;
    }
    /** Everything before the pipeline: the turn's edits, and what it asks for. */
    prepare(i) {
        const t = this.traj.turns[i];
        this.ws.applyEdits(t.edits);
        this.ws.applyEditor(t);
        this.reply = t.reply;
        this.opts.beforeTurn?.(i + 1, this.pipeline.engine);
        const send = { model: this.traj.model.id, maxOutputTokens: this.traj.model.maxOutputTokens };
        if (this.tools) {
            // The scripted model calls the turn's tools one per step, then answers with the reply.
            const calls = t.tools ?? [];
            this.scripted.push(...calls.map((c, k) => ({ text: '', toolCalls: [{ id: replayToolCallId(i + 1, k + 1), name: c.name, args: c.args }] })));
            send.tools = { definitions: definitions_1.TOOL_DEFINITIONS, executor: this.tools, maxSteps: Math.max(exports.REPLAY_TOOL_STEPS, calls.length), maxTurnTokens: exports.REPLAY_TOOL_TURN_TOKENS };
        }
        return { request: turnRequest(this.traj, i, this.ws.isolation), send, preview: !!this.opts.previewLast && i === this.traj.turns.length - 1 };
    }
    /** What the caller sees of a turn's outcome; throws on an outcome the replay cannot continue from. */
    result(i, outcome) {
        if (!outcome.envelope || !outcome.input || outcome.status === 'error' || outcome.status === 'stopped') {
            const why = outcome.status === 'error' ? `${outcome.error.code}: ${outcome.error.message}` : outcome.status;
            throw new ReplayTurnError(i + 1, why, outcome);
        }
        const env = outcome.envelope;
        return { turn: i + 1, envelope: env, rejections: env.rejections, pruned: env.pruned, violations: outcome.violations, buildMs: outcome.buildMs, input: outcome.input, outcome, requests: outcome.requests };
    }
    /** After a committed turn: the reload hook may swap the engine. */
    after(i, outcome) {
        if (outcome.status !== 'done')
            return;
        const next = this.opts.afterTurn?.(i + 1, this.pipeline.engine);
        if (next)
            this.pipeline.engine = next;
    }
}
exports.ReplayRun = ReplayRun;
/** A turn the replay could not complete (a provider error in `--provider` mode). */
class ReplayTurnError extends Error {
    turn;
    why;
    outcome;
    constructor(turn, why, outcome) {
        super(`turn ${turn}: ${why}`);
        this.turn = turn;
        this.why = why;
        this.outcome = outcome;
        this.name = 'ReplayTurnError';
    }
}
exports.ReplayTurnError = ReplayTurnError;
/** The replay, synchronously, with the scripted provider (tests, the CLI, the benchmark). */
function* replay(traj, opts) {
    const run = new ReplayRun(traj, opts);
    for (let i = 0; i < traj.turns.length; i++) {
        const { request, send, preview } = run.prepare(i);
        const outcome = run.pipeline.runSync(request, preview ? undefined : run.scripted, send);
        yield run.result(i, outcome);
        run.after(i, outcome);
    }
}
/**
 * The replay through `provider` (a real endpoint): each turn's request is sent as the pipeline builds
 * it, and the scripted reply is what the chat records.
 */
async function* replayAsync(traj, opts, provider, send = {}) {
    const run = new ReplayRun(traj, opts);
    for (let i = 0; i < traj.turns.length; i++) {
        const prepared = run.prepare(i);
        const outcome = await run.pipeline.run(prepared.request, provider, { ...prepared.send, ...send, recordReply: traj.turns[i].reply });
        yield run.result(i, outcome);
        run.after(i, outcome);
    }
}
//# sourceMappingURL=replayCore.js.map