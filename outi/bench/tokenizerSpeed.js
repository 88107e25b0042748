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
/**
 * Tokenizer speed: gpt-tokenizer (what src/services/tokenizer.ts uses) vs js-tiktoken, side by side.
 *
 *   npx tsc -p tsconfig.json && node out/bench/tokenizerSpeed.js [trajectory dir] [--json] [--encoding cl100k_base]
 *
 * Prints the cold load time of each library (require + ranks + first encode) and MB/s (UTF-8 bytes)
 * over the trajectories' texts: cold = the first pass after loading, warm = the best of the next
 * passes. Also our guarded tokenizer (encode, and count answered by the memo) and the long-run
 * guard on a pathological run. Texts with whitespace-free runs over 2,000 characters are left out
 * of the shared corpus (js-tiktoken needs ~70 s on the 20,000-character one). Timings vary with the
 * machine and its load; nothing here is asserted.
 */
const fs = __importStar(require("fs"));
const path = __importStar(require("path"));
const perf_hooks_1 = require("perf_hooks");
const args = process.argv.slice(2);
const json = args.includes('--json');
const encIdx = args.indexOf('--encoding');
const encoding = encIdx >= 0 ? args[encIdx + 1] : 'o200k_base';
const dirArg = args.find((a, i) => !a.startsWith('--') && args[i - 1] !== '--encoding');
const dir = dirArg ?? path.resolve(__dirname, '../../test/fixtures/trajectories');
function corpus() {
    const texts = new Set();
    const expand = (v) => {
        if (typeof v === 'string')
            return v;
        if (v && typeof v === 'object' && 'repeat' in v) {
            const r = v;
            return r.repeat.repeat(r.times);
        }
        return undefined;
    };
    for (const f of fs.readdirSync(dir).filter((n) => n.endsWith('.json')).sort()) {
        const t = JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8'));
        const values = [t.system, ...Object.values(t.files)];
        for (const turn of t.turns)
            values.push(turn.user, turn.reply, ...Object.values(turn.edits ?? {}));
        for (const v of values) {
            const s = expand(v);
            if (s && !/\S{2001,}/.test(s))
                texts.add(s);
        }
    }
    return [...texts];
}
function pass(enc, texts) {
    const t0 = perf_hooks_1.performance.now();
    let tokens = 0;
    for (const t of texts)
        tokens += enc.encode(t).length;
    return { ms: perf_hooks_1.performance.now() - t0, tokens };
}
function measure(name, load, texts, bytes, warmPasses = 3) {
    const t0 = perf_hooks_1.performance.now();
    const enc = load();
    enc.encode('warm up the first call');
    const loadMs = perf_hooks_1.performance.now() - t0;
    const cold = pass(enc, texts);
    let warm = Infinity;
    for (let i = 0; i < warmPasses; i++)
        warm = Math.min(warm, pass(enc, texts).ms);
    return { name, loadMs, coldMBps: bytes / 1e6 / (cold.ms / 1000), warmMBps: bytes / 1e6 / (warm / 1000), tokens: cold.tokens, enc };
}
function main() {
    const texts = corpus();
    const bytes = texts.reduce((n, t) => n + Buffer.byteLength(t, 'utf8'), 0);
    const rows = [];
    // gpt-tokenizer, unguarded (the library alone).
    const gpt = measure(`gpt-tokenizer ${encoding}`, () => {
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        const m = require(`gpt-tokenizer/encoding/${encoding}`);
        const options = { disallowedSpecial: new Set() };
        return { encode: (t) => m.encode(t, options) };
    }, texts, bytes);
    rows.push(gpt);
    // js-tiktoken (lite + ranks shipped in the package).
    const jt = measure(`js-tiktoken ${encoding}`, () => {
        /* eslint-disable @typescript-eslint/no-require-imports */
        const { Tiktoken } = require('js-tiktoken/lite');
        const ranks = require(`js-tiktoken/ranks/${encoding}`);
        /* eslint-enable @typescript-eslint/no-require-imports */
        const t = new Tiktoken(ranks);
        return { encode: (s) => t.encode(s, [], []) };
    }, texts, bytes);
    rows.push(jt);
    // Ours: the guard on top of gpt-tokenizer (already loaded above, so its load time is the wrapper's).
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { GuardedTokenizer } = require('../src/services/tokenizer');
    const ours = new GuardedTokenizer(encoding);
    rows.push(measure(`strata guarded encode`, () => ours, texts, bytes));
    ours.clearMemo();
    rows.push(measure(`strata count (memo)`, () => ({ encode: (t) => new Array(ours.count(t)) }), texts, bytes));
    // The long-run guard on a pathological run (js-tiktoken left out: ~21 s for 10,000 letters).
    const patho = [];
    const inputs = [
        ["20,000 × 'a'", 'a'.repeat(20_000)],
        ['20,000 spaces', `x${' '.repeat(20_000)}y`],
        ['20,000 random lowercase', Array.from({ length: 20_000 }, (_, i) => String.fromCharCode(97 + ((i * 7919) % 26))).join('')],
    ];
    for (const [input, s] of inputs) {
        const a = perf_hooks_1.performance.now();
        const u = gpt.enc.encode(s).length;
        const b = perf_hooks_1.performance.now();
        const g = new GuardedTokenizer(encoding).encode(s).length;
        const c = perf_hooks_1.performance.now();
        patho.push({ input, unguardedMs: b - a, guardedMs: c - b, unguardedTokens: u, guardedTokens: g });
    }
    const report = {
        encoding,
        corpus: { texts: texts.length, chars: texts.reduce((n, t) => n + t.length, 0), bytes },
        libraries: rows.map(({ name, loadMs, coldMBps, warmMBps, tokens }) => ({ name, loadMs, coldMBps, warmMBps, tokens })),
        pathological: patho,
    };
    if (json) {
        process.stdout.write(JSON.stringify(report, null, 2) + '\n');
        return;
    }
    const f = (n, d = 1) => (n === undefined ? '' : n.toFixed(d));
    console.log(`corpus: ${texts.length} texts, ${report.corpus.chars} chars, ${(bytes / 1e6).toFixed(2)} MB (${dir})`);
    console.log(['library'.padEnd(28), 'load ms'.padStart(9), 'cold MB/s'.padStart(10), 'warm MB/s'.padStart(10), 'tokens'.padStart(9)].join(' '));
    for (const r of report.libraries) {
        console.log([r.name.padEnd(28), f(r.loadMs, 0).padStart(9), f(r.coldMBps, 2).padStart(10), f(r.warmMBps, 2).padStart(10), String(r.tokens).padStart(9)].join(' '));
    }
    console.log('long runs (gpt-tokenizer unguarded vs strata guarded):');
    for (const p of patho) {
        console.log(`  ${p.input.padEnd(26)} ${f(p.unguardedMs, 0).padStart(6)} ms → ${f(p.guardedMs, 0).padStart(5)} ms   tokens ${p.unguardedTokens} → ${p.guardedTokens}`);
    }
}
main();
//# sourceMappingURL=tokenizerSpeed.js.map