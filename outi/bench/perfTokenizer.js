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
exports.trajectoryCorpus = trajectoryCorpus;
exports.measureTokenizerThroughput = measureTokenizerThroughput;
/**
 * Token counting throughput (MB/s of UTF-8), cold and warm: our tokenizer (gpt-tokenizer behind the
 * long-run guard, `src/services/tokenizer.ts`) next to js-tiktoken, on the distinct file contents of
 * the shared trajectories (initial files and edited versions).
 *
 * - cold: a new tokenizer instance (empty memo; gpt-tokenizer's merge cache cleared) counts every text once;
 * - warm: the same instance counts every text again (our `count` answers from its memo; js-tiktoken
 *   has no memo, so its warm pass is its steady-state encoding speed);
 * - encode (ours): `encode` again, bypassing the memo: BPE speed with warm internal caches.
 * Both tokenizers get the same corpus. Whitespace-free runs longer than 2,000 characters are left out
 * (js-tiktoken needs ~70 s for the 20,000-character run of adversarial.json; our guard is measured in
 * tokenizer.test.ts), so the corpus is the texts cut into pieces around those runs.
 */
const fs = __importStar(require("fs"));
const path = __importStar(require("path"));
const tokenizer_1 = require("../src/services/tokenizer");
const trajectory_1 = require("./trajectory");
const perfStats_1 = require("./perfStats");
const MAX_RUN = 2000;
/** Distinct file contents (initial and edited) of the trajectories in `dir`, cut around long runs. */
function trajectoryCorpus(dir, encoding = 'o200k_base') {
    const texts = new Set();
    for (const name of fs.readdirSync(dir).filter((n) => n.endsWith('.json')).sort()) {
        const t = JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8'));
        if (t.model.encoding !== encoding)
            continue;
        for (const v of Object.values(t.files))
            texts.add((0, trajectory_1.expandFileValue)(v));
        for (const turn of t.turns)
            for (const v of Object.values(turn.edits ?? {}))
                if (v !== null)
                    texts.add((0, trajectory_1.expandFileValue)(v));
    }
    const pieces = [];
    let excludedRuns = 0;
    let excludedChars = 0;
    for (const text of texts) {
        let pos = 0;
        for (const m of text.matchAll(new RegExp(`\\S{${MAX_RUN + 1},}|\\s{${MAX_RUN + 1},}`, 'g'))) {
            if (m.index > pos)
                pieces.push(text.slice(pos, m.index));
            excludedRuns++;
            excludedChars += m[0].length;
            pos = m.index + m[0].length;
        }
        if (pos < text.length)
            pieces.push(text.slice(pos));
    }
    const bytes = pieces.reduce((n, p) => n + Buffer.byteLength(p, 'utf8'), 0);
    return { encoding, pieces, bytes, texts: texts.size, excludedRuns, excludedChars };
}
function mbPerS(bytes, ms) {
    return ms > 0 ? bytes / 1e6 / (ms / 1000) : 0;
}
function pass(pieces, f) {
    let tokens = 0;
    const t0 = performance.now();
    for (const p of pieces)
        tokens += f(p);
    return { ms: performance.now() - t0, tokens };
}
function clearMergeCache(encoding) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const mod = (encoding === 'o200k_base' ? require('gpt-tokenizer/encoding/o200k_base') : require('gpt-tokenizer/encoding/cl100k_base'));
    mod.clearMergeCache?.();
}
function measureTokenizerThroughput(corpus, runs) {
    const { pieces, bytes, encoding } = corpus;
    const ours = { cold: [], warm: [], encodeWarm: [] };
    let oursTokens = 0;
    for (let r = 0; r < runs; r++) {
        clearMergeCache(encoding);
        const tok = new tokenizer_1.GuardedTokenizer(encoding);
        tok.encode('x'); // ranks loaded (once per process), memo still empty
        const cold = pass(pieces, (s) => tok.count(s));
        const warm = pass(pieces, (s) => tok.count(s));
        const enc = pass(pieces, (s) => tok.encode(s).length);
        oursTokens = cold.tokens;
        ours.cold.push(mbPerS(bytes, cold.ms));
        ours.warm.push(mbPerS(bytes, warm.ms));
        ours.encodeWarm.push(mbPerS(bytes, enc.ms));
    }
    /* eslint-disable @typescript-eslint/no-require-imports */
    const t0 = performance.now();
    const ranks = encoding === 'o200k_base' ? require('js-tiktoken/ranks/o200k_base') : require('js-tiktoken/ranks/cl100k_base');
    const ranksLoadMs = performance.now() - t0;
    // js-tiktoken's typings are ESM-only; its CommonJS build is required directly.
    const { Tiktoken } = require('js-tiktoken/lite');
    /* eslint-enable @typescript-eslint/no-require-imports */
    const theirs = { cold: [], warm: [], construct: [] };
    let theirTokens = 0;
    for (let r = 0; r < runs; r++) {
        const c0 = performance.now();
        const tk = new Tiktoken(ranks);
        theirs.construct.push(performance.now() - c0);
        // Special-token strings are ordinary text (DESIGN §9): nothing allowed, nothing disallowed.
        const cold = pass(pieces, (s) => tk.encode(s, [], []).length);
        const warm = pass(pieces, (s) => tk.encode(s, [], []).length);
        theirTokens = cold.tokens;
        theirs.cold.push(mbPerS(bytes, cold.ms));
        theirs.warm.push(mbPerS(bytes, warm.ms));
    }
    const s = (xs) => (0, perfStats_1.stats)(xs, 2);
    return {
        corpus: { texts: corpus.texts, pieces: pieces.length, bytes, excludedRuns: corpus.excludedRuns, excludedChars: corpus.excludedChars },
        runs,
        gptTokenizer: { cold: s(ours.cold), warm: s(ours.warm), encodeWarm: s(ours.encodeWarm) },
        jsTiktoken: { cold: s(theirs.cold), warm: s(theirs.warm), constructMs: (0, perfStats_1.round)((0, perfStats_1.stats)(theirs.construct).median, 1), ranksLoadMs: (0, perfStats_1.round)(ranksLoadMs, 1) },
        tokensAgree: oursTokens === theirTokens,
        tokens: oursTokens,
    };
}
//# sourceMappingURL=perfTokenizer.js.map