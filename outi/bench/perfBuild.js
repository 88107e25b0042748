"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.warmTokenizer = warmTokenizer;
exports.measureBuildTime = measureBuildTime;
exports.measureScaling = measureScaling;
exports.measureProbe = measureProbe;
exports.measureInterleaved = measureInterleaved;
/**
 * Envelope build time per turn (issue 3): `engine.buildTurn` only, driven like the replay.
 * Pass 1 runs with an empty tokenizer memo (cold); the following passes build the same turns with a
 * fresh engine and the memo warm (warm), which is the steady state of a chat: every text but the new
 * one has been counted before.
 */
const hash_1 = require("../src/common/hash");
const nodeHasher_1 = require("../src/services/nodeHasher");
const tokenizer_1 = require("../src/services/tokenizer");
const perfDrive_1 = require("./perfDrive");
const perfStats_1 = require("./perfStats");
/** The engine's own pure-JS sha256 (its default when no port is given), for the side-by-side rows. */
const PURE_JS_HASHER = { sha256Hex: hash_1.sha256Hex };
function hasherOf(h) {
    return h === 'pure-js' ? PURE_JS_HASHER : nodeHasher_1.NODE_HASHER;
}
/**
 * The tokenizer of the warm passes: its memo holds every text of the chat. A warm pass stands for a
 * chat whose engine has counted its texts before (the extension's engine keeps each segment's count
 * for the chat's life); the default memo (4 M characters of keys) is smaller than the 1,000-turn
 * chat's texts, and a pass over them in order then misses on almost every one (an LRU read
 * cyclically), so the "warm" passes would measure tokenization, not the engine.
 */
function warmTokenizer(traj) {
    return new tokenizer_1.GuardedTokenizer(traj.model.encoding, { maxEntries: 500_000, maxKeyChars: 256_000_000 });
}
function buildTimes(traj, layout, warmRuns, fresh = 'changed', hasher) {
    const tokenizer = warmTokenizer(traj);
    const h = hasherOf(hasher);
    const newContentTurns = [];
    const first = (0, perfDrive_1.driveEngine)(traj, { layout, policy: 'append-version', tokenizer, fresh, hasher: h, onBuilt: (turn, _ms, env) => env.newBlocks.length > 0 && newContentTurns.push(turn) });
    const warm = [];
    for (let r = 0; r < warmRuns; r++)
        warm.push((0, perfDrive_1.driveEngine)(traj, { layout, policy: 'append-version', tokenizer, fresh, hasher: h }).buildMs);
    return { cold: first.buildMs, warm, cutTurns: first.cutTurns, newContentTurns };
}
function perTurnMedian(runs) {
    return runs[0].map((_, i) => (0, perfStats_1.stats)(runs.map((r) => r[i])).median);
}
function measureBuildTime(traj, layout, warmRuns) {
    const { cold, warm } = buildTimes(traj, layout, warmRuns);
    return { trajectory: traj.name, layout, turns: cold.length, warmRuns, cold: (0, perfStats_1.stats)(cold), warm: (0, perfStats_1.stats)(warm.flat()), warmMedianPerTurn: perTurnMedian(warm) };
}
function measureScaling(traj, layout, warmRuns, fresh = 'changed', hasher = 'native') {
    const { warm, cutTurns, newContentTurns } = buildTimes(traj, layout, warmRuns, fresh, hasher);
    const n = warm[0].length;
    const cut = new Set(cutTurns);
    const window = (from, to) => warm.flatMap((r) => r.slice(from, to).filter((_, j) => !cut.has(from + j + 1)));
    const first20 = (0, perfStats_1.stats)(window(0, 20));
    const last20 = (0, perfStats_1.stats)(window(Math.max(0, n - 20), n));
    const perTurn = perTurnMedian(warm);
    const fresh0 = new Set(newContentTurns);
    const plain = (from, to) => warm.flatMap((r) => r.slice(from, to).filter((_, j) => !cut.has(from + j + 1) && !fresh0.has(from + j + 1)));
    const plainFirst = (0, perfStats_1.stats)(plain(0, 20));
    const plainLast = (0, perfStats_1.stats)(plain(Math.max(0, n - 20), n));
    return {
        trajectory: traj.name,
        layout,
        turns: n,
        warmRuns,
        fresh,
        hasher,
        first20,
        last20,
        cutTurns: cutTurns.map((t) => ({ turn: t, ms: perTurn[t - 1] })),
        newContent: { first20: newContentTurns.filter((t) => t <= 20 && !cut.has(t)).length, last20: newContentTurns.filter((t) => t > n - 20 && !cut.has(t)).length },
        noNewContent: { first20: plainFirst, last20: plainLast, ratio: plainFirst.median > 0 ? (0, perfStats_1.round)(plainLast.median / plainFirst.median) : 0 },
        ratio: first20.median > 0 ? (0, perfStats_1.round)(last20.median / first20.median) : 0,
        ratioP95: first20.p95 > 0 ? (0, perfStats_1.round)(last20.p95 / first20.p95) : 0,
        warmMedianPerTurn: perTurn,
    };
}
/**
 * The same turn built at different lengths of one chat (what the context meter does while the user
 * types: build, then abandon): one new 12 KB file, the chat's first two files attached again, the same
 * message. Only the history differs, so the ratio between points is what the chat's length costs per
 * turn. The first pass warms the code and the tokenizer memo; the second is measured.
 */
function measureProbe(traj, layout, afterTurns, runs, hasher = 'native') {
    const tokenizer = warmTokenizer(traj);
    const firstFiles = Object.keys(traj.files).slice(0, 2);
    const probeText = Object.values(traj.files).map((v) => (typeof v === 'string' ? v : '')).join('\n').slice(0, 12_000);
    const wanted = new Set(afterTurns);
    const samples = new Map();
    const blocks = new Map();
    let lastInput;
    for (let pass = 0; pass < 2; pass++) {
        (0, perfDrive_1.driveEngine)(traj, {
            layout,
            policy: 'append-version',
            tokenizer,
            hasher: hasherOf(hasher),
            turns: Math.max(...afterTurns),
            onInput: (_turn, input) => (lastInput = input),
            afterCommit: (turn, engine) => {
                if (!wanted.has(turn) || !lastInput)
                    return;
                const fresh = lastInput.fresh;
                const input = {
                    userText: 'Probe: compare the new module with the two files attached at the start.',
                    attachments: [
                        { kind: 'file', uri: 'gen/probe/new-module.ts', content: probeText },
                        ...firstFiles.map((uri) => ({ kind: 'file', uri, content: fresh?.get(`file:${uri}`) ?? traj.files[uri] })),
                    ],
                    fresh,
                };
                const xs = [];
                for (let r = 0; r < runs; r++) {
                    const t0 = performance.now();
                    const env = engine.buildTurn(input);
                    xs.push(performance.now() - t0);
                    engine.abandonTurn();
                    blocks.set(turn, env.messages.reduce((n, m) => n + m.content.length, 0));
                }
                if (pass === 1)
                    samples.set(turn, xs);
            },
        });
    }
    return { trajectory: traj.name, layout, hasher, runs, points: afterTurns.map((t) => ({ afterTurns: t, blocks: blocks.get(t) ?? 0, stats: (0, perfStats_1.stats)(samples.get(t) ?? []) })) };
}
/**
 * The scaling case with the two windows interleaved: per run, one chat is driven (untimed) to the
 * start of the last window, then turn k of a fresh chat and turn n−20+k of the long one alternate,
 * each timed. Both windows then see the same machine, so many runs give a steady ratio; the sequential
 * case measures turns 1–20 at the start of each pass and the last 20 a second or more later.
 */
function measureInterleaved(traj, layout, runs, hasher = 'native') {
    const tokenizer = warmTokenizer(traj);
    const h = hasherOf(hasher);
    const blocks = [];
    const first = (0, perfDrive_1.driveEngine)(traj, { layout, policy: 'append-version', tokenizer, hasher: h, onBuilt: (turn, _ms, env) => (blocks[turn] = (env.messages[env.messages.length - 1]?.content.length ?? 0) + 1) });
    const n = first.buildMs.length;
    const cut = new Set(first.cutTurns);
    const early = [];
    const late = [];
    const earlyPer = [];
    const latePer = [];
    const opts = { layout, policy: 'append-version', tokenizer, fresh: 'changed', hasher: h };
    for (let r = 0; r < runs; r++) {
        const a = new perfDrive_1.TurnStepper(traj, opts);
        const b = new perfDrive_1.TurnStepper(traj, opts);
        for (let i = 0; i < n - 20; i++)
            b.step(i);
        for (let k = 0; k < 20; k++) {
            const x = a.step(k);
            const y = b.step(n - 20 + k);
            if (!cut.has(k + 1)) {
                early.push(x);
                earlyPer.push(x / blocks[k + 1]);
            }
            if (!cut.has(n - 19 + k)) {
                late.push(y);
                latePer.push(y / blocks[n - 19 + k]);
            }
        }
    }
    const mean = (xs) => (0, perfStats_1.round)(xs.reduce((s, x) => s + x, 0) / Math.max(1, xs.length), 2);
    const windowBlocks = (from) => Array.from({ length: 20 }, (_, k) => from + k).filter((t) => !cut.has(t)).map((t) => blocks[t]);
    const first20 = (0, perfStats_1.stats)(early);
    const last20 = (0, perfStats_1.stats)(late);
    const pf = (0, perfStats_1.stats)(earlyPer, 4);
    const pl = (0, perfStats_1.stats)(latePer, 4);
    return {
        trajectory: traj.name,
        layout,
        turns: n,
        runs,
        first20,
        last20,
        ratio: first20.median > 0 ? (0, perfStats_1.round)(last20.median / first20.median) : 0,
        ratioP95: first20.p95 > 0 ? (0, perfStats_1.round)(last20.p95 / first20.p95) : 0,
        blocks: { first20: mean(windowBlocks(1)), last20: mean(windowBlocks(n - 19)) },
        perBlock: { first20: pf, last20: pl, ratio: pf.median > 0 ? (0, perfStats_1.round)(pl.median / pf.median) : 0 },
    };
}
//# sourceMappingURL=perfBuild.js.map