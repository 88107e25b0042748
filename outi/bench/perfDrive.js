"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.TurnStepper = void 0;
exports.driveEngine = driveEngine;
const replayCore_1 = require("./replayCore");
/**
 * One chat driven a turn at a time (the loop of `driveEngine`), so that two chats can alternate:
 * the interleaved scaling case times an early turn of one chat, then a late turn of another, so that
 * whatever drifts on the machine during a run (frequency, neighbours, the JIT) falls on both windows.
 */
class TurnStepper {
    run;
    constructor(traj, opts) {
        this.run = new replayCore_1.ReplayRun(traj, { layout: opts.layout, policy: opts.policy, tokenizer: opts.tokenizer, fresh: opts.fresh ?? 'changed', ...(opts.hasher ? { hasher: opts.hasher } : {}), check: false });
    }
    /** Runs turn `i` (0-based; turns run in order); returns its buildTurn milliseconds. */
    step(i) {
        const { request, send, preview } = this.run.prepare(i);
        const outcome = this.run.pipeline.runSync(request, preview ? undefined : this.run.scripted, send);
        const t = this.run.result(i, outcome);
        this.run.after(i, outcome);
        return t.buildMs;
    }
}
exports.TurnStepper = TurnStepper;
/** Runs the trajectory through a fresh engine; times each buildTurn call. */
function driveEngine(traj, opts) {
    const n = Math.min(traj.turns.length, opts.turns ?? traj.turns.length);
    const limited = n === traj.turns.length ? traj : { ...traj, turns: traj.turns.slice(0, n) };
    const run = new replayCore_1.ReplayRun(limited, {
        layout: opts.layout,
        policy: opts.policy,
        tokenizer: opts.tokenizer,
        fresh: opts.fresh ?? 'changed',
        ...(opts.hasher ? { hasher: opts.hasher } : {}),
        check: false,
        previewLast: opts.commitLast === false,
        beforeTurn: (turn, engine) => {
            if (turn === n && opts.lastTurnLimits)
                engine.updateOptions({ limits: opts.lastTurnLimits });
        },
    });
    const buildMs = [];
    const cutTurns = [];
    for (let i = 0; i < n; i++) {
        const { request, send, preview } = run.prepare(i);
        const outcome = run.pipeline.runSync(request, preview ? undefined : run.scripted, {
            ...send,
            onEvent: (ev) => {
                if (ev.type !== 'built')
                    return;
                if (ev.envelope.blocked || ev.envelope.pruned.some((p) => p.reason !== 'detached'))
                    cutTurns.push(i + 1);
                opts.onBuilt?.(i + 1, ev.buildMs, ev.envelope);
            },
        });
        const t = run.result(i, outcome);
        opts.onInput?.(i + 1, t.input);
        buildMs.push(t.buildMs);
        run.after(i, outcome);
        if (outcome.status === 'done')
            opts.afterCommit?.(i + 1, run.engine);
    }
    return { engine: run.engine, buildMs, cutTurns };
}
//# sourceMappingURL=perfDrive.js.map