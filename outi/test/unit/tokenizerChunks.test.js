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
 * Chunked counting of long texts (src/services/tokenizer.ts, "Chunked counting"): the sum of the
 * chunk counts equals the count of the whole text, exactly, for both encodings — on every text of
 * the shared trajectories, on adversarial.json, and on random texts made of the characters the split
 * regexes treat specially; chunks are content-defined (a wrapped text shares its inner chunks); and
 * `warm` never holds the event loop for long.
 */
const assert = __importStar(require("assert"));
const fs = __importStar(require("fs"));
const path = __importStar(require("path"));
const fc = __importStar(require("fast-check"));
const tokenizer_1 = require("../../src/services/tokenizer");
const perfWarm_1 = require("../../bench/perfWarm");
const TRAJECTORIES = path.resolve(__dirname, '../../../test/fixtures/trajectories');
const ENCODINGS = ['o200k_base', 'cl100k_base'];
/** Tiny chunks: a boundary every few dozen characters, so every kind of boundary is exercised. */
const TINY = { chunkThreshold: 64, chunkMin: 32, chunkMax: 96, chunkHashBits: 3 };
function trajectoryTexts() {
    const out = new Set();
    const add = (v) => {
        if (typeof v === 'string')
            out.add(v);
        else if (v && typeof v === 'object')
            out.add(v.repeat.repeat(v.times));
    };
    for (const f of fs.readdirSync(TRAJECTORIES).filter((n) => n.endsWith('.json')).sort()) {
        const t = JSON.parse(fs.readFileSync(path.join(TRAJECTORIES, f), 'utf8'));
        add(t.system);
        for (const v of Object.values(t.files))
            add(v);
        for (const turn of t.turns) {
            add(turn.user);
            add(turn.reply);
            for (const v of Object.values(turn.edits ?? {}))
                add(v);
        }
    }
    return [...out];
}
/** Code-like text of `length` characters, different everywhere (no repeated blocks). */
const codeLike = perfWarm_1.codeLikeText;
describe('tokenizer: chunk boundaries', () => {
    it('end a chunk after a line break before a non-blank character other than "/", and between an ASCII letter and punctuation', () => {
        const at = (text, p) => (0, tokenizer_1.isChunkBoundary)(text, p);
        assert.ok(at('a\nb', 2));
        assert.ok(at('a\n;', 2));
        assert.ok(!at('a\n/', 2), 'o200k keeps "/" after a line break in the punctuation token');
        assert.ok(!at('a\n ', 2));
        assert.ok(!at('a\n\n', 2));
        assert.ok(!at('a\n\u00a0', 2), 'JS \\s includes no-break space');
        assert.ok(at('a;', 1));
        assert.ok(at('a(', 1));
        assert.ok(at('a/', 1));
        assert.ok(!at("a'", 1), 'contraction suffixes start with an apostrophe');
        assert.ok(!at('ab', 1));
        assert.ok(!at('a1', 1));
        assert.ok(!at('é;', 1), 'only ASCII letters');
        assert.ok(!at('1;', 1));
        assert.ok(!at('; ', 1));
    });
    it('are content-defined: a text wrapped in a header and footer shares all but its first and last chunks', () => {
        const text = codeLike(400_000, 7);
        const wrapped = `<file id="file:src/big.ts" path="src/big.ts">\n${text}\n</file:0123abcd>\n`;
        const params = { min: tokenizer_1.CHUNK_MIN, max: tokenizer_1.CHUNK_MAX, bits: tokenizer_1.CHUNK_HASH_BITS };
        const pieces = (t) => {
            const out = [];
            let s = 0;
            for (const e of (0, tokenizer_1.chunkEnds)(t, params)) {
                out.push(t.slice(s, e));
                s = e;
            }
            return out;
        };
        const inner = new Set(pieces(text));
        const outer = pieces(wrapped);
        const fresh = outer.filter((c) => !inner.has(c));
        assert.ok(outer.length > 20, `${outer.length} chunks`);
        assert.ok(fresh.length <= 3, `${fresh.length} of ${outer.length} chunks differ`);
        for (const c of outer.slice(0, -1))
            assert.ok(c.length <= tokenizer_1.CHUNK_MAX + 200, `a chunk of ${c.length} characters`);
    });
});
describe('tokenizer: chunked counts are exact', function () {
    this.timeout(120_000);
    for (const encoding of ENCODINGS) {
        it(`${encoding}: every trajectory text, default and tiny chunks, also with a small long-run limit`, () => {
            const whole = new tokenizer_1.GuardedTokenizer(encoding);
            const configs = [{}, TINY, { ...TINY, longRunLimit: 64 }];
            const tokenizers = configs.map((c) => new tokenizer_1.GuardedTokenizer(encoding, c));
            const small = new tokenizer_1.GuardedTokenizer(encoding, { longRunLimit: 64 });
            let chunked = 0;
            for (const text of trajectoryTexts()) {
                const want = whole.encode(text).length;
                tokenizers.forEach((t, i) => {
                    const expected = i === 2 ? small.encode(text).length : want;
                    assert.strictEqual(t.count(text), expected, `config ${i}, ${text.length} chars: ${JSON.stringify(text.slice(0, 60))}`);
                });
                if (text.length > 64)
                    chunked++;
            }
            assert.ok(chunked > 50, `${chunked} texts were chunked`);
            assert.ok(tokenizers[1].memoStats().chunkMisses > 1000);
        });
        it(`${encoding}: random texts of the characters the split regexes care about`, () => {
            const alphabet = [
                'a', 'b', 'Z', 'Q', 'é', 'ß', 'Ω', '日本', '한', 'x', 'y', 'id', 'Foo', 'bar', "'", "'s", "'T", '’',
                '0', '12', '345', '٣', ' ', '  ', '\t', '\n', '\n\n', '\r\n', '\r', '\u00a0', '\u3000', '\u2028', '\ufeff',
                '/', '//', '\n/', ';', '(', ')', '.', ',', '_', '-', '=', '<|endoftext|>', '<|im_start|>', '😀', '👍🏽', '\u0301', '\ud800',
            ];
            const tiny = new tokenizer_1.GuardedTokenizer(encoding, TINY);
            const whole = new tokenizer_1.GuardedTokenizer(encoding);
            fc.assert(fc.property(fc.array(fc.constantFrom(...alphabet), { minLength: 0, maxLength: 700 }), (parts) => {
                const text = parts.join('');
                assert.strictEqual(tiny.count(text), whole.encode(text).length);
            }), { numRuns: 400, seed: 42 });
        });
        it(`${encoding}: code-like and minified text (few line breaks) at the default chunk size`, () => {
            const tok = new tokenizer_1.GuardedTokenizer(encoding);
            const whole = new tokenizer_1.GuardedTokenizer(encoding);
            const minified = codeLike(150_000, 3).replace(/\n\s*/g, '');
            for (const text of [codeLike(300_000, 1), minified]) {
                assert.strictEqual(tok.count(text), whole.encode(text).length);
                assert.ok(tok.memoStats().chunkMisses > 5);
            }
        });
    }
});
describe('tokenizer: warm', function () {
    this.timeout(120_000);
    it('counts 5 MB in slices: the event loop is never held for long, and later counts are memo hits', async () => {
        const tok = new tokenizer_1.GuardedTokenizer('o200k_base');
        tok.count('load the encoding');
        const text = codeLike(5_000_000, 11);
        const t0 = performance.now();
        const { maxGapMs: maxGap, ticks } = await (0, perfWarm_1.withTicker)(() => tok.warm(text));
        const warmMs = performance.now() - t0;
        // The bound is 50 ms at a time; slices aim at ~8 ms. Wall-clock gaps on a busy 2-core
        // machine include time the OS gave to other processes, so the bound is checked on CPU time.
        const stats = tok.lastWarmStats();
        assert.ok(stats.maxSliceCpuMs < 50, `a slice used ${stats.maxSliceCpuMs.toFixed(1)} ms of CPU`);
        assert.ok(stats.slices > 20 && ticks > 20, `${stats.slices} slices, ${ticks} event-loop turns during warm`);
        const before = tok.memoStats();
        const block = `<file id="file:big.ts" path="big.ts">\n${text}\n</file:89abcdef>\n`;
        const t1 = performance.now();
        const n = tok.count(block);
        const countMs = performance.now() - t1;
        const after = tok.memoStats();
        assert.ok(after.chunkMisses - before.chunkMisses <= 4, `${after.chunkMisses - before.chunkMisses} chunks re-counted`);
        assert.strictEqual(tok.count(block), n);
        process.stdout.write(`      warm 5 MB: ${warmMs.toFixed(0)} ms in ${stats.slices} slices, longest ${stats.maxSliceMs.toFixed(1)} ms (${stats.maxSliceCpuMs.toFixed(1)} ms CPU), longest event-loop gap ${maxGap.toFixed(1)} ms; count of the wrapped block afterwards ${countMs.toFixed(1)} ms\n`);
    });
    it('gives the count that count() gives, and stops when aborted', async () => {
        const text = codeLike(200_000, 5);
        const a = new tokenizer_1.GuardedTokenizer('cl100k_base');
        await a.warm(text);
        assert.strictEqual(a.count(text), new tokenizer_1.GuardedTokenizer('cl100k_base').encode(text).length);
        assert.strictEqual(a.memoStats().hits, 1);
        const ctrl = new AbortController();
        ctrl.abort();
        await assert.rejects(new tokenizer_1.GuardedTokenizer('cl100k_base').warm(text, ctrl.signal), (e) => e.name === 'AbortError');
        await new tokenizer_1.GuardedTokenizer('cl100k_base').warm('short text');
    });
});
//# sourceMappingURL=tokenizerChunks.test.js.map