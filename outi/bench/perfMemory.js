"use strict";
var __createBinding = (this && this.__createBinding) || (Object.create ? (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    var desc = Object.getOwnPropertyDescriptor(m, k);
    if (!desc || ("get" in desc ? !m.__esModule : desc.writable || desc.configurable)) {
      desc = { enumerable: true, get: function() { return m[k]; } };
    }
    Object.defineProperty(o, k2, desc);
}) : (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    o[k2] = m[k];
}));
var __setModuleDefault = (this && this.__setModuleDefault) || (Object.create ? (function(o, v) {
    Object.defineProperty(o, "default", { enumerable: true, value: v });
}) : function(o, v) {
    o["default"] = v;
});
var __importStar = (this && this.__importStar) || (function () {
    var ownKeys = function(o) {
        ownKeys = Object.getOwnPropertyNames || function (o) {
            var ar = [];
            for (var k in o) if (Object.prototype.hasOwnProperty.call(o, k)) ar[ar.length] = k;
            return ar;
        };
        return ownKeys(o);
    };
    return function (mod) {
        if (mod && mod.__esModule) return mod;
        var result = {};
        if (mod != null) for (var k = ownKeys(mod), i = 0; i < k.length; i++) if (k[i] !== "default") __createBinding(result, mod, k[i]);
        __setModuleDefault(result, mod);
        return result;
    };
})();
Object.defineProperty(exports, "__esModule", { value: true });
exports.runMemoryCase = runMemoryCase;
/**
 * Memory cases on the generated long conversation, each in its own child process so nothing else of
 * the benchmark is counted:
 * - `rss`: the whole replay (engine, invariant checks, both cache simulations) of the default layout;
 *   peak resident set size from `process.resourceUsage().maxRSS`.
 * - `rss-engine`: the same conversation through the engine alone (no cache simulation, no checks).
 * - `heap` (needs --expose-gc): the heap the engine keeps after all turns ÷ the bytes of distinct
 *   content it has to keep (artifact versions, messages, replies, system prompt). Baseline: the heap
 *   after the tokenizer is loaded, before anything is generated. After the run, the trajectory and the
 *   workspace are dropped and the tokenizer memo and gpt-tokenizer's merge cache are cleared, so what
 *   is left is what the engine holds (content shared with the dropped workspace is counted as the
 *   engine's, since the engine is what keeps it alive).
 */
const child_process_1 = require("child_process");
const v8 = __importStar(require("v8"));
const tokenizer_1 = require("../src/services/tokenizer");
const replay_1 = require("./replay");
const perfGenerate_1 = require("./perfGenerate");
const perfDrive_1 = require("./perfDrive");
const perfStats_1 = require("./perfStats");
function gc() {
    const g = globalThis.gc;
    if (!g)
        throw new Error('the heap case needs node --expose-gc');
    for (let i = 0; i < 3; i++)
        g();
}
function clearMergeCache() {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const mod = require('gpt-tokenizer/encoding/o200k_base');
    mod.clearMergeCache?.();
}
function distinctContent(engine) {
    const s = engine.state;
    const contents = new Set();
    for (const e of s.entries.values())
        contents.add(e.artifact.content);
    let artifactContentBytes = 0;
    for (const c of contents)
        artifactContentBytes += Buffer.byteLength(c, 'utf8');
    let messageBytes = Buffer.byteLength(engine.options.system, 'utf8');
    for (const t of s.turns)
        messageBytes += Buffer.byteLength(t.userText, 'utf8') + Buffer.byteLength(t.reply, 'utf8');
    return { distinctContentBytes: artifactContentBytes + messageBytes, artifactContentBytes, artifactVersions: s.entries.size, messageBytes };
}
function heapCase(turns, gen) {
    const tokenizer = new tokenizer_1.GuardedTokenizer('o200k_base');
    tokenizer.encode('load the ranks'); // the encoding tables are loaded once per process: not engine state
    // A short warm-up chat (another seed), dropped: V8 compiles the engine's code during the first
    // turns, and that code (~0.6 MB) is the process's, not the chat's state.
    (0, perfDrive_1.driveEngine)((0, perfGenerate_1.generateConversation)({ ...gen, seed: (gen.seed ?? 1) + 7, turns: 30, fileBytes: 60_000 }).trajectory, { layout: replay_1.DEFAULT_LAYOUT, policy: 'append-version', tokenizer });
    tokenizer.clearMemo();
    clearMergeCache();
    gc();
    const before = v8.getHeapStatistics().used_heap_size;
    let engine = (() => {
        // The first `turns` turns of the same conversation (so 100 and 200 turns can be compared).
        const { trajectory } = (0, perfGenerate_1.generateConversation)(gen);
        return (0, perfDrive_1.driveEngine)(trajectory, { layout: replay_1.DEFAULT_LAYOUT, policy: 'append-version', tokenizer, turns }).engine;
    })();
    tokenizer.clearMemo();
    clearMergeCache();
    gc();
    const after = v8.getHeapStatistics().used_heap_size;
    const content = distinctContent(engine);
    const engineHeapBytes = after - before;
    // Diagnostic: the engine's private memos (rendered blocks, text → hash), if they are still named so.
    const memos = engine;
    memos.blockMemo?.clear();
    memos.hashMemo?.clear();
    gc();
    const blockMemoBytes = memos.blockMemo && memos.hashMemo ? after - v8.getHeapStatistics().used_heap_size : 0;
    const result = { mode: 'heap', turns, engineHeapBytes, blockMemoBytes, ...content, ratio: (0, perfStats_1.round)(engineHeapBytes / content.distinctContentBytes) };
    engine = undefined;
    return result;
}
function rssCase(mode, turns, gen) {
    const { trajectory } = (0, perfGenerate_1.generateConversation)(gen);
    trajectory.turns = trajectory.turns.slice(0, turns);
    const t0 = performance.now();
    let promptTokensLastTurn;
    if (mode === 'rss') {
        const report = (0, replay_1.runReplay)(trajectory, { file: trajectory.name, strategies: [replay_1.DEFAULT_LAYOUT], policy: 'append-version', cache: 'both', json: true });
        promptTokensLastTurn = report.strategies[0].turns[report.strategies[0].turns.length - 1].promptTokens;
    }
    else {
        let total = 0;
        (0, perfDrive_1.driveEngine)(trajectory, { layout: replay_1.DEFAULT_LAYOUT, policy: 'append-version', tokenizer: new tokenizer_1.GuardedTokenizer('o200k_base'), onBuilt: (_t, _ms, env) => (total = env.totalTokens) });
        promptTokensLastTurn = total;
    }
    const replayMs = performance.now() - t0;
    return {
        mode,
        turns,
        maxRssMB: (0, perfStats_1.round)(process.resourceUsage().maxRSS / 1024, 1),
        replayMs: (0, perfStats_1.round)(replayMs, 1),
        heapUsedMB: (0, perfStats_1.round)(process.memoryUsage().heapUsed / (1024 * 1024), 1),
        promptTokensLastTurn,
    };
}
function runMemoryCase(mode, turns, gen = {}) {
    const flags = mode === 'heap' ? ['--expose-gc'] : [];
    const out = (0, child_process_1.execFileSync)(process.execPath, [...flags, __filename, mode, String(turns), JSON.stringify(gen)], { encoding: 'utf8', maxBuffer: 1 << 20 });
    return JSON.parse(out.trim().split('\n').pop());
}
if (require.main === module) {
    const [mode, turnsArg, genArg] = process.argv.slice(2);
    const turns = Number(turnsArg);
    const gen = (genArg ? JSON.parse(genArg) : {});
    if ((mode !== 'rss' && mode !== 'rss-engine' && mode !== 'heap') || !Number.isInteger(turns) || turns < 1) {
        process.stderr.write('usage: node [--expose-gc] out/bench/perfMemory.js rss|rss-engine|heap TURNS [generator options JSON]\n');
        process.exit(2);
    }
    const result = mode === 'heap' ? heapCase(turns, gen) : rssCase(mode, turns, gen);
    process.stdout.write(JSON.stringify(result) + '\n');
}
//# sourceMappingURL=perfMemory.js.map