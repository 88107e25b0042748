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
exports.codeLikeText = codeLikeText;
exports.withTicker = withTicker;
exports.measureWarm = measureWarm;
/**
 * Attaching a 5 MB file without blocking the extension host (issue 9): measured in a fresh process.
 *
 *   node out/bench/perfWarm.js [MB]
 *
 * - `warm`: the tokenizer counts the text in slices that yield to the event loop — total time, number
 *   of slices, the longest slice (wall and CPU), and the longest gap seen by an event-loop ticker.
 * - `count after warm`: a synchronous count of the text wrapped as the engine's block (memo hits).
 * - `attach + send`: a ChatSession over an in-memory workspace attaches the file (resolve, warm,
 *   count) and sends (re-read, recheck, build; no provider, so a preview): the build time alone and
 *   the longest event-loop gap over the whole sequence.
 * - `buildTurn, not warmed`: `buildTurn` with the file as the attachment and an empty tokenizer memo
 *   (what every turn would cost without chunked, memoized counting).
 */
const nodeHasher_1 = require("../src/services/nodeHasher");
const fs = __importStar(require("fs"));
const os = __importStar(require("os"));
const path = __importStar(require("path"));
const engine_1 = require("../src/engine/engine");
const chatSession_1 = require("../src/services/chatSession");
const memoryWorkspace_1 = require("../src/services/memoryWorkspace");
const modelInfo_1 = require("../src/services/modelInfo");
const tokenizer_1 = require("../src/services/tokenizer");
const perfGenerate_1 = require("./perfGenerate");
const perfStats_1 = require("./perfStats");
/** Code-like text, different everywhere (no repeated blocks the memo could shortcut). */
function codeLikeText(length, seed) {
    const rnd = (0, perfGenerate_1.prng)(seed);
    const words = ['const', 'return', 'function', 'value', 'index', 'item', 'result', 'await', 'export', 'if', 'else', 'for', 'of', 'new', 'Map', 'push'];
    const punct = ['(', ')', ';', '{', '}', '.', ',', ' = ', ' + ', '[', ']', ': ', ' => ', '//', '"', "'"];
    const lines = [];
    let n = 0;
    while (n < length) {
        let line = '  '.repeat(Math.floor(rnd() * 4));
        const k = 3 + Math.floor(rnd() * 10);
        for (let i = 0; i < k; i++) {
            line += words[Math.floor(rnd() * words.length)];
            if (rnd() < 0.3)
                line += String(Math.floor(rnd() * 100000));
            line += punct[Math.floor(rnd() * punct.length)];
        }
        lines.push(line);
        n += line.length + 1;
    }
    return lines.join('\n').slice(0, length);
}
/** Longest gap between event-loop turns while `work` runs. */
async function withTicker(work) {
    let last = performance.now();
    let maxGapMs = 0;
    let ticks = 0;
    let running = true;
    const tick = () => {
        const now = performance.now();
        maxGapMs = Math.max(maxGapMs, now - last);
        last = now;
        ticks++;
        if (running)
            setImmediate(tick);
    };
    setImmediate(tick);
    const value = await work();
    // The tick already queued measures the last stretch (which may hold the longest synchronous part).
    await new Promise((resolve) => setImmediate(resolve));
    running = false;
    return { value, maxGapMs, ticks };
}
async function measureWarm(megabytes = 5) {
    const text = codeLikeText(Math.round(megabytes * 1_000_000), 11);
    const tok = new tokenizer_1.GuardedTokenizer('o200k_base');
    tok.count('load the encoding');
    const w = await withTicker(() => tok.warm(text));
    const stats = tok.lastWarmStats();
    const block = `<file id="file:src/big.ts" version="1" path="src/big.ts" sha="0123abcd">\n${text}\n</file:0123abcd>\n`;
    const t0 = performance.now();
    tok.count(block);
    const countAfterWarmMs = performance.now() - t0;
    const session = async (tokenizer) => {
        const root = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-perf-warm-'));
        try {
            const ws = new memoryWorkspace_1.MemoryWorkspace({ 'src/big.ts': text });
            const s = chatSession_1.ChatSession.open({
                storeRoot: root,
                port: ws,
                tokenizer: () => tokenizer,
                settings: () => ({ layout: 'transcript', policy: 'append-version' }),
                model: (0, modelInfo_1.modelInfo)('openai', 'gpt-4.1'),
                store: { durable: false },
                newChatId: () => 'perf',
            });
            let buildMs = 0;
            let promptTokens = 0;
            const r = await withTicker(async () => {
                await s.attach({ kind: 'file', path: 'src/big.ts' });
                await s.send('What does this file do?', undefined, undefined, undefined, (e) => {
                    if (e.type === 'built') {
                        buildMs = e.buildMs;
                        promptTokens = e.envelope.totalTokens;
                    }
                });
            });
            return { buildMs, promptTokens, maxEventLoopGapMs: r.maxGapMs };
        }
        finally {
            fs.rmSync(root, { recursive: true, force: true });
        }
    };
    const warmed = await session(new tokenizer_1.GuardedTokenizer('o200k_base'));
    const coldEngine = new engine_1.PromptContextEngine({
        conversationId: 'cold',
        layout: 'transcript',
        policy: 'append-version',
        tokenizer: new tokenizer_1.GuardedTokenizer('o200k_base'),
        hasher: nodeHasher_1.NODE_HASHER,
        system: 'sys',
        limits: { contextWindow: 1_047_576, maxOutputTokens: 32_768 },
    });
    const t1 = performance.now();
    coldEngine.buildTurn({ userText: 'What does this file do?', attachments: [{ kind: 'file', uri: 'src/big.ts', content: text }] });
    const cold = { buildMs: performance.now() - t1 };
    return {
        megabytes,
        warm: { totalMs: (0, perfStats_1.round)(stats.totalMs), slices: stats.slices, maxSliceMs: (0, perfStats_1.round)(stats.maxSliceMs), maxSliceCpuMs: (0, perfStats_1.round)(stats.maxSliceCpuMs), maxEventLoopGapMs: (0, perfStats_1.round)(w.maxGapMs) },
        countAfterWarmMs: (0, perfStats_1.round)(countAfterWarmMs),
        attachAndSend: { buildMs: (0, perfStats_1.round)(warmed.buildMs), maxEventLoopGapMs: (0, perfStats_1.round)(warmed.maxEventLoopGapMs), promptTokens: warmed.promptTokens },
        buildNotWarmedMs: (0, perfStats_1.round)(cold.buildMs),
    };
}
if (require.main === module) {
    const mb = Number(process.argv[2] ?? 5);
    measureWarm(Number.isFinite(mb) && mb > 0 ? mb : 5).then((r) => process.stdout.write(JSON.stringify(r, null, 2) + '\n'), (e) => {
        process.stderr.write(`perfWarm: ${e.stack ?? e}\n`);
        process.exit(2);
    });
}
//# sourceMappingURL=perfWarm.js.map