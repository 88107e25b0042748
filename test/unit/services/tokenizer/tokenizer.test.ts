import * as assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import * as fc from 'fast-check';
import * as gptO200k from 'gpt-tokenizer/encoding/o200k_base';
import * as gptCl100k from 'gpt-tokenizer/encoding/cl100k_base';
import { sha256HexNode } from '../../../../src/services/nodeHasher';
import { GuardedTokenizer, LONG_RUN_LIMIT, MAX_ERROR_PER_CUT, getTokenizer, type EncodingName } from '../../../../src/services/tokenizer';

const ENCODINGS: EncodingName[] = ['o200k_base', 'cl100k_base'];
const TRAJECTORIES = path.resolve(__dirname, '../../../../../test/fixtures/trajectories');

/** Plain gpt-tokenizer, no guard, special tokens as text: the reference for the guard's error. */
function unguarded(encoding: EncodingName, text: string): number[] {
  const enc = encoding === 'o200k_base' ? gptO200k : gptCl100k;
  return enc.encode(text, { disallowedSpecial: new Set() });
}

function decode(encoding: EncodingName, ids: number[]): string {
  return (getTokenizer(encoding) as GuardedTokenizer).decode(ids);
}

interface JsTiktoken {
  encode(text: string, allowedSpecial?: string[] | 'all', disallowedSpecial?: string[] | 'all'): number[];
}
/** js-tiktoken, an independent implementation (its typings are ESM-only, so its CommonJS build is required). */
function loadJsTiktoken(encoding: EncodingName): JsTiktoken {
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { Tiktoken } = require('js-tiktoken/lite') as { Tiktoken: new (ranks: unknown) => JsTiktoken };
  const ranks: unknown = encoding === 'o200k_base' ? require('js-tiktoken/ranks/o200k_base') : require('js-tiktoken/ranks/cl100k_base');
  /* eslint-enable @typescript-eslint/no-require-imports */
  return new Tiktoken(ranks);
}
const tiktoken: Partial<Record<EncodingName, JsTiktoken>> = {};
function jsTiktoken(encoding: EncodingName): JsTiktoken {
  return (tiktoken[encoding] ??= loadJsTiktoken(encoding));
}

/** Deterministic pseudo-random strings (no Math.random in tests). */
function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    return s / 0x100000000;
  };
}
function randomRun(length: number, alphabet: string, seed: number): string {
  const chars = Array.from(alphabet);
  const rnd = seeded(seed);
  let s = '';
  while (s.length < length) s += chars[Math.floor(rnd() * chars.length)];
  return s;
}
function minifiedJs(length: number, seed: number): string {
  const parts = [
    'function(a,b){return a+b}',
    'var x=1;',
    'if(e&&e.length>0)',
    '{t.push(n[i]);}',
    '"use strict";',
    '=>',
    'window.location.href',
    '0x1f',
    '[a-zA-Z]+',
    'e.exports=function(t){',
    'Object.defineProperty(r,"__esModule",{value:!0})',
  ];
  const rnd = seeded(seed);
  let s = '';
  while (s.length < length + 100) s += parts[Math.floor(rnd() * parts.length)];
  return s.replace(/\s/g, '').slice(0, length);
}

function adversarialFile(name: string): string {
  const t = JSON.parse(fs.readFileSync(path.join(TRAJECTORIES, 'adversarial.json'), 'utf8')) as { files: Record<string, string> };
  return t.files[name];
}

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const CJK =
  '的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年得就那要下以生会自着去之过家学对可她里后小么心多天而能好都然没日于起还发成事只作当想看文无开手用';

describe('tokenizer: exact counts', () => {
  it('matches hard-coded counts verified with js-tiktoken', () => {
    const o = getTokenizer('o200k_base');
    const c = getTokenizer('cl100k_base');
    assert.deepStrictEqual(o.encode('hello world'), [24912, 2375]);
    assert.deepStrictEqual(c.encode('hello world'), [15339, 1917]);
    assert.strictEqual(o.count('Hello, world!'), 4);
    assert.strictEqual(c.count('Hello, world!'), 4);
    assert.strictEqual(o.count('The quick brown fox jumps over the lazy dog.'), 10);
    assert.strictEqual(c.count('The quick brown fox jumps over the lazy dog.'), 10);
    assert.strictEqual(o.count('日本語のテキスト 😀👍🏽'), 10);
    assert.strictEqual(c.count('日本語のテキスト 😀👍🏽'), 15);
  });

  const samples = [
    'hello world',
    'function add(a, b) {\r\n  return a + b;\r\n}\r\n',
    'Ünïcödé — “quotes” … naïve café; Ελληνικά; русский; العربية; עברית; हिन्दी',
    '日本語のテキスト、中文文本。한국어 텍스트',
    '😀👍🏽👨‍👩‍👧‍👦 🏳️‍🌈 flags 🇫🇷🇯🇵',
    "It's they're we've I'm you'll he'd IT'S",
    '    indented\n\n\n\ttabs\t\t and trailing   \n',
    '0123456789 3.14159 1e-10 0xDEADBEEF',
  ];
  for (const encoding of ENCODINGS) {
    it(`${encoding}: same ids as js-tiktoken on sample strings`, () => {
      const tok = getTokenizer(encoding);
      for (const s of samples) assert.deepStrictEqual(tok.encode(s), jsTiktoken(encoding).encode(s, [], []), JSON.stringify(s));
    });
  }
});

describe('tokenizer: special tokens, edge cases', () => {
  for (const encoding of ENCODINGS) {
    it(`${encoding}: special-token strings count as ordinary text`, () => {
      const tok = getTokenizer(encoding);
      assert.strictEqual(tok.count('<|endoftext|>'), 7);
      for (const s of [
        '<|endoftext|>',
        '<|im_start|>user\nhi<|im_end|>',
        '<|fim_prefix|><|fim_middle|><|fim_suffix|>',
        '<|endofprompt|>',
      ]) {
        const ids = tok.encode(s);
        assert.ok(ids.length > 1, s);
        assert.strictEqual(decode(encoding, ids), s);
        assert.deepStrictEqual(ids, jsTiktoken(encoding).encode(s, [], []));
      }
    });

    it(`${encoding}: empty string is 0; odd input does not throw`, () => {
      const tok = getTokenizer(encoding);
      assert.strictEqual(tok.count(''), 0);
      assert.deepStrictEqual(tok.encode(''), []);
      const odd = [
        'a\r\nb\rc\n',
        '\u0000\u0001\u0002\u001b[31m\u007f',
        '\u2028\u2029\u00a0\ufeff',
        '\ud800',
        'x\udc00y',
        '\ud83d',
        '\u0301\u0301',
        '😀'.repeat(10),
        adversarialFile('evil/control-chars.txt'),
        adversarialFile('evil/crlf-unicode.ts'),
      ];
      for (const s of odd) {
        const n = tok.count(s);
        assert.strictEqual(n, unguarded(encoding, s).length, JSON.stringify(s));
        assert.strictEqual(tok.encode(s).length, n);
      }
    });
  }

  it('counts U+FEFF (byte-order mark) like tiktoken (works around a gpt-tokenizer 4.0.0 bug)', () => {
    for (const encoding of ENCODINGS) {
      const tok = getTokenizer(encoding) as GuardedTokenizer;
      assert.strictEqual(tok.count('\ufeff'), 1);
      assert.strictEqual(tok.count('\ufeffusing'), 1);
      for (const s of ['\ufeff', '\ufeffusing System;', 'a\ufeffb', '\ufeff\ufeff', '\ufeff// x']) {
        assert.deepStrictEqual(tok.encode(s), jsTiktoken(encoding).encode(s, [], []), JSON.stringify(s));
        assert.strictEqual(tok.decode(tok.encode(s)), s);
      }
    }
  });

  it('decode is exact and has no state between calls', () => {
    const tok = getTokenizer('o200k_base') as GuardedTokenizer;
    const partial = tok.encode('\ufeff😀').slice(0, 1); // part of a character
    assert.strictEqual(tok.decode(partial), '\ufeff');
    assert.strictEqual(tok.decode(tok.encode('hello')), 'hello');
    assert.strictEqual(tok.decode(tok.encode('\ufeffx')), '\ufeffx');
    assert.strictEqual(tok.decode([]), '');
  });

  it('getTokenizer shares one instance per encoding and rejects unknown encodings', () => {
    assert.strictEqual(getTokenizer('o200k_base'), getTokenizer('o200k_base'));
    assert.notStrictEqual(getTokenizer('o200k_base'), getTokenizer('cl100k_base'));
    assert.strictEqual(getTokenizer('cl100k_base').encoding, 'cl100k_base');
    assert.throws(() => getTokenizer('p50k_base' as EncodingName), /Unknown encoding/);
  });
});

describe('tokenizer: memo', () => {
  it('returns the same count twice, the second time from the memo', () => {
    const tok = new GuardedTokenizer('o200k_base');
    const text = 'some text to count '.repeat(20);
    const a = tok.count(text);
    const b = tok.count(text.slice(0)); // an equal string
    const c = tok.count(('x' + text).slice(1)); // an equal string, different object
    assert.strictEqual(a, b);
    assert.strictEqual(a, c);
    assert.strictEqual(a, tok.encode(text).length);
    assert.deepStrictEqual({ hits: tok.memoStats().hits, misses: tok.memoStats().misses }, { hits: 2, misses: 1 });
  });

  it('is bounded by entry count (LRU)', () => {
    const tok = new GuardedTokenizer('o200k_base', { maxEntries: 50 });
    for (let i = 0; i < 500; i++) tok.count(`entry number ${i}`);
    assert.strictEqual(tok.memoStats().entries, 50);
    // Most recent entries survive, the oldest were evicted; counts stay correct either way.
    const before = tok.memoStats().hits;
    tok.count('entry number 499');
    assert.strictEqual(tok.memoStats().hits, before + 1);
    tok.count('entry number 0');
    assert.strictEqual(tok.memoStats().hits, before + 1);
    assert.strictEqual(tok.count('entry number 0'), unguarded('o200k_base', 'entry number 0').length);
  });

  it('is bounded by the total length of its keys', () => {
    const tok = new GuardedTokenizer('cl100k_base', { maxKeyChars: 10_000 });
    for (let i = 0; i < 300; i++) tok.count(`${i} `.padEnd(1000, 'lorem ipsum '));
    const s = tok.memoStats();
    assert.ok(s.keyChars <= 10_000, String(s.keyChars));
    assert.ok(s.entries <= 10 && s.entries >= 9, String(s.entries));
    // A single text longer than the whole budget is counted but not kept.
    tok.count('y '.repeat(6000));
    assert.ok(tok.memoStats().keyChars <= 10_000);
  });

  it('keys long texts by their sha256, also bounded', () => {
    const tok = new GuardedTokenizer('o200k_base', { stringKeyMaxLength: 100, maxEntries: 20 });
    const texts = Array.from({ length: 40 }, (_, i) => `long text ${i} `.repeat(20));
    for (const t of texts) tok.count(t);
    const s = tok.memoStats();
    assert.strictEqual(s.hashedEntries, 20);
    assert.strictEqual(s.keyChars, 0);
    const hits = s.hits;
    assert.strictEqual(tok.count(texts[39]), unguarded('o200k_base', texts[39]).length);
    assert.strictEqual(tok.memoStats().hits, hits + 1);
  });

  it("takes the caller's sha256 of a long text as its memo key: the same counts, and a hit without hashing again", () => {
    const tok = new GuardedTokenizer('o200k_base', { stringKeyMaxLength: 100, chunkThreshold: 2_000 });
    for (const text of ['medium text, keyed '.repeat(20), 'a long text, counted in chunks\n'.repeat(200)]) {
      const key = sha256HexNode(text);
      const n = tok.count(text, key);
      assert.strictEqual(n, unguarded('o200k_base', text).length);
      const before = tok.memoStats();
      // A different string object with the same text: found by the key alone.
      assert.strictEqual(tok.count(text.split('').join(''), key), n);
      assert.strictEqual(tok.memoStats().hits, before.hits + 1);
      // Unkeyed counting agrees (and finds the same memo entry for texts under the chunk threshold).
      assert.strictEqual(new GuardedTokenizer('o200k_base', { stringKeyMaxLength: 100, chunkThreshold: 2_000 }).count(text), n);
    }
  });
});

describe('tokenizer: saved counts (seeds) and the recorder', () => {
  it('records what it encodes (not memo hits) and takes seeded counts instead of encoding', () => {
    const rec: [string, number][] = [];
    const tok = new GuardedTokenizer('o200k_base');
    tok.setRecorder((k, n) => rec.push([k, n]));
    const short = 'a short text to count';
    const long = 'a long text, keyed by the caller\n'.repeat(400);
    const longKey = sha256HexNode(long);
    const n1 = tok.count(short);
    const n2 = tok.count(long, longKey);
    tok.count(short);
    tok.count(long, longKey);
    assert.deepStrictEqual(
      rec,
      [
        [sha256HexNode(short).slice(0, 32), n1],
        [longKey.slice(0, 32), n2],
      ],
      'one record per text encoded, keyed by its sha256',
    );

    // A new tokenizer given those records encodes nothing for them.
    const next = new GuardedTokenizer('o200k_base');
    next.seed(rec);
    assert.strictEqual(next.count(short.split('').join('')), n1);
    assert.strictEqual(next.count(long, longKey), n2);
    const st = next.memoStats();
    assert.strictEqual(st.misses, 0);
    assert.strictEqual(st.seedHits, 2);
    // The seed is what is returned (a wrong one would be too: seeds must come from the same counter).
    const wrong = new GuardedTokenizer('o200k_base');
    wrong.seed([[sha256HexNode(short).slice(0, 32), n1 + 100]]);
    assert.strictEqual(wrong.count(short), n1 + 100);
    assert.notStrictEqual(new GuardedTokenizer('cl100k_base').counter, tok.counter);
  });
});

describe('tokenizer: long-run guard', () => {
  it('is identical to unguarded encoding when no run exceeds L (trajectory files, runs of exactly L)', function () {
    this.timeout(30_000);
    const tok = new GuardedTokenizer('o200k_base');
    const files = new Set<string>();
    for (const f of fs.readdirSync(TRAJECTORIES).filter((n) => n.endsWith('.json'))) {
      const t = JSON.parse(fs.readFileSync(path.join(TRAJECTORIES, f), 'utf8')) as {
        files: Record<string, unknown>;
        turns: { user?: string; reply?: string; edits?: Record<string, unknown> }[];
      };
      const add = (v: unknown): void => {
        if (typeof v === 'string') files.add(v);
        else if (v && typeof v === 'object' && 'repeat' in v) {
          const r = v as { repeat: string; times: number };
          files.add(r.repeat.repeat(r.times));
        }
      };
      Object.values(t.files).forEach(add);
      for (const turn of t.turns) {
        add(turn.user);
        add(turn.reply);
        Object.values(turn.edits ?? {}).forEach(add);
      }
    }
    let compared = 0;
    for (const text of files) {
      if (/\S{513,}|\s{513,}/.test(text)) continue; // the long-run files are covered below
      const r = tok.encodeWithStats(text);
      assert.deepStrictEqual([r.safeCuts, r.lookaheadCuts, r.plainCuts], [0, 0, 0]);
      assert.deepStrictEqual(r.ids, unguarded('o200k_base', text));
      compared++;
    }
    assert.ok(compared >= 20, String(compared));
    const runs = [
      `before ${'a'.repeat(LONG_RUN_LIMIT)} after`,
      `before ${randomRun(LONG_RUN_LIMIT, CJK, 1)} after`,
      `before${' '.repeat(LONG_RUN_LIMIT)}after`,
      `before${'\n'.repeat(LONG_RUN_LIMIT)}after`,
    ];
    for (const text of runs) {
      const r = tok.encodeWithStats(text);
      assert.deepStrictEqual([r.safeCuts, r.lookaheadCuts, r.plainCuts], [0, 0, 0]);
      assert.deepStrictEqual(r.ids, unguarded('o200k_base', text));
    }
  });

  for (const encoding of ENCODINGS) {
    it(`${encoding}: safe cuts never change the encoding (property, L = 64)`, () => {
      const tok = new GuardedTokenizer(encoding, { longRunLimit: 64 });
      // Letters of every case class, digits (also astral ones), marks, apostrophes, punctuation,
      // emoji, CJK, U+FFFD, a lone surrogate and the odd space.
      const alphabet = [
        'a',
        'b',
        's',
        't',
        'Z',
        'S',
        'ǅ',
        'ʰ',
        'é',
        'ß',
        'Ω',
        '中',
        '文',
        '𝒜',
        '1',
        '2',
        '٣',
        '𝟘',
        '\u0301',
        "'",
        '.',
        '-',
        '=',
        '/',
        '_',
        '😀',
        '\ufffd',
        '\ud800',
        '<|endoftext|>',
        ' ',
        '\n',
      ];
      const noSpace = alphabet.slice(0, 24);
      let safeCuts = 0;
      fc.assert(
        fc.property(
          fc.array(fc.constantFrom(...alphabet), { minLength: 0, maxLength: 400 }),
          fc.array(fc.constantFrom(...noSpace), { minLength: 100, maxLength: 800, size: 'max' }),
          // Two or three kinds of character only, so that each kind of transition is sometimes
          // the only candidate cut in a window.
          fc
            .subarray(noSpace, { minLength: 2, maxLength: 3 })
            .chain((few) => fc.array(fc.constantFrom(...few), { minLength: 100, maxLength: 600, size: 'max' })),
          (mixed, long, few) => {
            for (const text of [mixed.join(''), long.join(''), few.join('')]) {
              const r = tok.encodeWithStats(text);
              const ref = unguarded(encoding, text);
              safeCuts += r.safeCuts;
              if (r.lookaheadCuts + r.plainCuts === 0) assert.deepStrictEqual(r.ids, ref, JSON.stringify(text));
              else assert.ok(Math.abs(r.ids.length - ref.length) <= MAX_ERROR_PER_CUT * (r.lookaheadCuts + r.plainCuts));
              assert.strictEqual(decode(encoding, r.ids), decode(encoding, ref));
            }
          },
        ),
        { numRuns: 400, seed: 20240601 },
      );
      assert.ok(safeCuts > 1000, `only ${safeCuts} safe cuts exercised`);
    });
  }

  /**
   * The pathological inputs of the brief. Measured with gpt-tokenizer 4.0.0: the look-ahead cuts
   * give exactly the unguarded count on every one of them; the test holds them to the documented
   * bound (≤ MAX_ERROR_PER_CUT per look-ahead/plain cut) and to ≤ 1% relative error.
   */
  const pathological: { name: string; text: () => string; encodings: EncodingName[] }[] = [
    { name: "20,000 × 'a'", text: () => 'a'.repeat(20_000), encodings: ENCODINGS },
    { name: 'evil/one-long-token.txt', text: () => adversarialFile('evil/one-long-token.txt'), encodings: ENCODINGS },
    { name: 'evil/random-run.txt', text: () => adversarialFile('evil/random-run.txt'), encodings: ENCODINGS },
    { name: 'random base64 run (20,000)', text: () => randomRun(20_000, BASE64, 7), encodings: ENCODINGS },
    { name: 'minified-JS-like run (20,000)', text: () => minifiedJs(20_000, 3), encodings: ENCODINGS },
    { name: "20,000 × '='", text: () => '='.repeat(20_000), encodings: ['o200k_base'] },
    { name: '20,000 spaces inside text', text: () => `x${' '.repeat(20_000)}y`, encodings: ['o200k_base'] },
    { name: 'random CJK run without punctuation (6,000)', text: () => randomRun(6_000, CJK, 5), encodings: ['o200k_base'] },
    { name: 'random =- run (10,000)', text: () => randomRun(10_000, '=-', 9), encodings: ['cl100k_base'] },
    { name: 'random UPPERCASE run (10,000)', text: () => randomRun(10_000, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 4), encodings: ['cl100k_base'] },
  ];
  for (const { name, text, encodings } of pathological) {
    for (const encoding of encodings) {
      it(`${encoding}: bounded error on ${name}`, function () {
        this.timeout(20_000);
        const s = text();
        const tok = new GuardedTokenizer(encoding);
        const r = tok.encodeWithStats(s);
        const ref = unguarded(encoding, s);
        const hardCuts = r.lookaheadCuts + r.plainCuts;
        const err = Math.abs(r.ids.length - ref.length);
        assert.ok(err <= MAX_ERROR_PER_CUT * hardCuts, `error ${err} with ${hardCuts} look-ahead/plain cuts`);
        assert.ok(err <= 0.01 * ref.length, `relative error ${err}/${ref.length}`);
        if (hardCuts === 0) assert.deepStrictEqual(r.ids, ref);
        assert.ok(r.safeCuts + hardCuts >= Math.floor(s.length / LONG_RUN_LIMIT) - 1, 'the run was cut');
        assert.strictEqual(decode(encoding, r.ids), s);
        assert.strictEqual(tok.count(s), r.ids.length);
      });
    }
  }

  it('safe cuts make base64 and minified-JS runs exact (no look-ahead or plain cut needed)', () => {
    for (const encoding of ENCODINGS) {
      const tok = new GuardedTokenizer(encoding);
      const runs = [randomRun(20_000, BASE64, 7), minifiedJs(20_000, 3), randomRun(5_000, '0123456789', 2)];
      assert.deepStrictEqual(
        runs.map((s) => tok.encodeWithStats(s).safeCuts),
        [39, 38, 9],
        encoding,
      );
      for (const s of runs) {
        const r = tok.encodeWithStats(s);
        assert.strictEqual(r.lookaheadCuts + r.plainCuts, 0);
        assert.deepStrictEqual(r.ids, unguarded(encoding, s));
      }
    }
  });

  it('plain cuts (look-ahead disabled) stay within the documented bound', function () {
    this.timeout(20_000);
    for (const encoding of ENCODINGS) {
      const tok = new GuardedTokenizer(encoding, { lookahead: 0 });
      const runs = ['a'.repeat(20_000), randomRun(10_000, '=-', 9), randomRun(10_000, 'abcdefghijklmnopqrstuvwxyz', 8)];
      const plainCuts = [39, 19, 19];
      for (const [i, s] of runs.entries()) {
        const r = tok.encodeWithStats(s);
        const err = Math.abs(r.ids.length - unguarded(encoding, s).length);
        assert.strictEqual(r.plainCuts, plainCuts[i], `${encoding} run ${i}`);
        assert.ok(err <= MAX_ERROR_PER_CUT * r.plainCuts, `${err} > ${MAX_ERROR_PER_CUT} × ${r.plainCuts}`);
        assert.strictEqual(decode(encoding, r.ids), s);
      }
    }
  });

  it('never cuts inside a surrogate pair (astral runs, emoji runs, lone surrogates)', () => {
    const tok = new GuardedTokenizer('o200k_base');
    // [safe, look-ahead, plain] cuts of each run.
    const cuts = [
      [0, 11, 0],
      [0, 11, 0],
      [8, 0, 0],
      [1, 3, 0],
    ];
    for (const [i, s] of ['😀'.repeat(3000), '𝒜'.repeat(3000), 'a😀'.repeat(1500), `${'a'.repeat(511)}😀${'a'.repeat(2000)}`].entries()) {
      const r = tok.encodeWithStats(s);
      assert.deepStrictEqual([r.safeCuts, r.lookaheadCuts, r.plainCuts], cuts[i], `run ${i}`);
      assert.strictEqual(decode('o200k_base', r.ids), s);
      const err = Math.abs(r.ids.length - unguarded('o200k_base', s).length);
      assert.ok(err <= MAX_ERROR_PER_CUT * (r.lookaheadCuts + r.plainCuts));
    }
    const lone = '\ud800'.repeat(2000);
    assert.strictEqual(tok.count(lone), 250);
  });

  it('is prefix-stable: a text that extends another gets the same tokens in their common part', () => {
    const tok = new GuardedTokenizer('o200k_base');
    const base = `intro ${'a'.repeat(3000)} middle ${randomRun(3000, BASE64, 1)} `;
    const a = tok.encode(base + 'first ending');
    const b = tok.encode(base + 'another, longer ending');
    let common = 0;
    while (common < a.length && a[common] === b[common]) common++;
    assert.ok(common >= tok.encode(base).length - 2, `common prefix ${common}`);
  });
});
