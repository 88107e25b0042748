/**
 * Token counting for the engine's `ITokenizer` port (DESIGN §9): exact o200k_base / cl100k_base
 * BPE through gpt-tokenizer, with special-token strings (`<|endoftext|>`, …) counted as ordinary
 * text, a bounded memo for `count`, and a guard against the super-linear cost of BPE on long runs.
 *
 * Node only (no vscode import). gpt-tokenizer is pure JS and ships its ranks, so nothing is fetched.
 *
 * ## Long-run guard
 *
 * BPE cost grows with the square of a pre-token's length: gpt-tokenizer needs ~0.5 s for 20,000
 * characters of one letter or of spaces, ~4 s for 20,000 CJK characters without punctuation
 * (js-tiktoken: 21 s for 10,000 letters). So before encoding, every maximal run of non-whitespace
 * (`\S`) or of whitespace (`\s`) longer than {@link LONG_RUN_LIMIT} (L) characters is cut into
 * pieces of at most L characters, and the pieces are encoded one after the other. Text without such
 * a run is encoded in one go: **identical** ids to plain gpt-tokenizer. Cuts are chosen in order:
 *
 * 1. **Safe cut** (non-whitespace runs): the last position in the next L characters where both
 *    encodings' pre-tokenizer regex always ends a pre-token, whatever the surroundings: a digit /
 *    non-digit transition, every third digit of a digit run (`\p{N}{1,3}`), a letter followed by a
 *    character that is neither a letter, a mark, a digit nor `'`, and (o200k only) a lowercase
 *    letter followed by an uppercase one. BPE never merges across pre-tokens, so a safe cut changes
 *    nothing: base64, hex, minified code, URLs and CJK prose with punctuation stay **exact**.
 * 2. **Look-ahead cut** (a single pre-token longer than L, e.g. `aaaa…`, `====…`, 20,000 spaces, CJK
 *    without punctuation): encode up to {@link LOOKAHEAD} (K) characters past the L-character window,
 *    keep the tokens up to the last token boundary at or before the window's end, and continue from
 *    that boundary. A token boundary that far from the truncation is almost always a boundary of the
 *    unguarded encoding too, in which case the result is again exact (BPE merges in rank order; with
 *    no merge across a final boundary the two sides evolve independently).
 * 3. **Plain cut** at L characters (never inside a surrogate pair) when the look-ahead finds no
 *    usable boundary (or gpt-tokenizer's internals, which it reads token bytes from, change).
 *
 * **Error bound** (against unguarded gpt-tokenizer; measurements in test/unit/tokenizer.test.ts and
 * the numbers below): look-ahead cuts were exact in every case measured: ~19,000 cuts over random
 * strings of 15 character families at L = 64 and both encodings, plus 20,000 × `a`, `=`, `-`, space,
 * newline, random letters of one case, random `=-`, random CJK, and adversarial.json's
 * one-long-token and random-run files. A plain cut (no look-ahead) was measured at −2…+3 tokens per
 * cut (mean |error| ≈ 0.2). Documented bound, held by the tests: |guarded − unguarded| ≤
 * {@link MAX_ERROR_PER_CUT} × (look-ahead + plain cuts), with at most one such cut per L/2 characters
 * of a single over-long pre-token (so ≤ 3 tokens per 256 such characters). It is an empirical bound,
 * not a theorem: BPE could in principle propagate a change further than K characters. Decoding the
 * ids always gives back the text exactly. A cut depends only on the text up to K characters after
 * it, so a text and an extension of it get the same ids up to about the start of the shorter one's
 * last run (prefix stability, which the cache model relies on).
 *
 * **L = 512, K = 128.** gpt-tokenizer's cost per character is flat up to ~2,000 characters per
 * pre-token for ASCII letters (~2.5–3 µs) but grows from the start for CJK (6 / 10 / 13 / 40 µs at
 * 256 / 512 / 1,024 / 4,096 characters), and repeated characters are quadratic beyond ~1,000.
 * Guarded, 20,000 characters take ~10–50 ms for `a`, spaces or random lowercase (unguarded
 * 0.2–0.9 s) and ~0.35 s for CJK without punctuation (unguarded 3–4 s). Larger L measured no faster
 * and leaves CJK slower; smaller L only adds cuts. K = 32 was already exact in the random-string
 * sweep; 128 keeps a margin for ~12% extra work on pathological runs only.
 *
 * **Memo** (`count` only; `encode` returns fresh arrays). Texts up to 16,384 characters are keyed by
 * their content: a Map lookup costs ~1 µs for 16 KB, where sha256 runs at ~110 MB/s (the pure-JS
 * one in src/common/hash.ts) or ~300 MB/s (node:crypto). Keys are stored as flat copies, so a
 * `slice` of a big string does not keep the big string alive. Longer texts are keyed by their
 * node:crypto sha256. Each memo is an LRU of at most 20,000 entries, the content-keyed one also of at
 * most 4,000,000 key characters; a hit is ~1,000× faster than encoding.
 *
 * ## Chunked counting of long texts (never block the extension host)
 *
 * Counting 5 MB takes ~1 s in one synchronous call. `count` therefore splits texts longer than
 * {@link CHUNK_THRESHOLD} characters into content-defined chunks, counts each chunk (memoized by its
 * node:crypto sha256) and adds the counts; `warm(text)` does the same chunk by chunk, yielding to the
 * event loop (setImmediate) every {@link WARM_SLICE_MS} ms, so a later synchronous `count` of the text,
 * or of a block that wraps it (header + content + footer), finds almost every chunk in the memo.
 *
 * **Exact.** A chunk ends only at a position p where both split regexes (gpt-tokenizer 4.0.0:
 * `CL100K_TOKEN_SPLIT_PATTERN` and `O200K_TOKEN_SPLIT_PATTERN`) always end a pre-token, whatever
 * comes before or after, and where the tail before p splits the same alone as inside the text:
 *
 * - **after "\n", when the next character is neither whitespace (JS `\s`) nor "/"**. No alternative can
 *   carry a line break into a following non-whitespace character: the letter alternatives' optional
 *   first character excludes `\r\n`; the punctuation alternative ends with `[\r\n]*` (cl100k) or
 *   `[\r\n/]*` (o200k: hence not before "/"); the whitespace alternatives stop at non-whitespace.
 *   The tail alone ends in a whitespace run that ends with "\n": cl100k's `\s+$` takes that whole run,
 *   exactly what `\s*[\r\n]` takes inside the text; o200k's `\s*[\r\n]+` takes it in both.
 * - **between an ASCII letter and ASCII punctuation other than "'"** (`;`, `(`, `.`, `/`, `_`, …): a
 *   letter run ends there in both encodings (the optional contraction suffix needs "'", the optional
 *   leading character only precedes letters), and no punctuation match can start inside letters.
 *   This keeps minified code and base64 (few line breaks) chunkable.
 *
 * BPE never merges across pre-tokens, and the long-run guard's cuts are aligned at pre-token starts
 * (a chunk start is a run start or a safe cut of the guard), so the sum of the chunk counts equals
 * the count of the whole text; the tests check it on every trajectory file, random texts and
 * adversarial.json, at the default and at tiny chunk sizes. Chunk ends are content-defined: a gear
 * rolling hash of the 32 characters before a position picks them (at least {@link CHUNK_MIN}
 * characters apart, at most {@link CHUNK_MAX} unless no boundary is found), so a text wrapped in a
 * header shares all but its first and last chunk or two with the bare text. A text with no boundary
 * at all (one 5 MB line of a single letter) is one chunk: exact, but counted in one go.
 *
 * **gpt-tokenizer 4.0.0 fixes.** U+FEFF (byte-order mark) is patched to merge like tiktoken (see
 * {@link patchBomMerges}); `decode` does not use gpt-tokenizer's, which keeps state between calls.
 */
import { sha256HexNode } from './nodeHasher';
import type { ITokenizer } from '../engine/types';

export type EncodingName = 'o200k_base' | 'cl100k_base';

export interface Tokenizer extends ITokenizer {
  /** Token ids of `text`, through the long-run guard; `encode(t).length === count(t)`. */
  encode(text: string): number[];
  /** Counts a long text without blocking the event loop for more than a few ms at a time (see `GuardedTokenizer.warm`). */
  warm(text: string, signal?: AbortSignal): Promise<void>;
}

/** Longest run (non-whitespace or whitespace) encoded in one go (L). */
export const LONG_RUN_LIMIT = 512;
/** Characters encoded past a look-ahead cut's window to find a stable token boundary (K). */
export const LOOKAHEAD = 128;
/** Documented (and tested) bound on the count error of one look-ahead or plain cut (measured: −2…+3 for a plain cut, 0 for look-ahead cuts). */
export const MAX_ERROR_PER_CUT = 3;
/** Texts longer than this (characters) are counted in chunks. */
export const CHUNK_THRESHOLD = 32_768;
/** Shortest chunk (characters), except the last one; at least 32 (the rolling hash's window). */
export const CHUNK_MIN = 1_024;
/**
 * A chunk ends at the first boundary after this many characters, hash or not: a few ms of encoding
 * for code (0.2–0.8 µs per character), so `warm`'s slices stay near {@link WARM_SLICE_MS}.
 */
export const CHUNK_MAX = 8_192;
/** A chunk end is wanted where the top this-many bits of the rolling hash are zero (1 in 2,048 positions). */
export const CHUNK_HASH_BITS = 11;
/**
 * Long texts up to this many characters are also looked up by their sha256 (one synchronous pass)
 * when they are no longer among the last few counted; longer ones go by their chunks' hashes.
 */
const HASH_LOOKUP_MAX = 1_000_000;

/** `warm` yields to the event loop once a slice has run this long (ms). */
export const WARM_SLICE_MS = 8;

export interface TokenizerOptions {
  /** Memo entries kept (LRU), per memo. Default 20,000. */
  maxEntries?: number;
  /** Sum of the lengths of texts kept as memo keys (LRU). Default 4,000,000 characters. */
  maxKeyChars?: number;
  /** Texts up to this length are memoized by their content, longer ones by their sha256. Default 16,384. */
  stringKeyMaxLength?: number;
  /** L, for tests and measurements. Default {@link LONG_RUN_LIMIT}; at least 64. */
  longRunLimit?: number;
  /** K, for tests and measurements. Default {@link LOOKAHEAD}; 0 disables look-ahead cuts. */
  lookahead?: number;
  /** Chunking of long texts, for tests and measurements (defaults: the CHUNK_* constants). */
  chunkThreshold?: number;
  chunkMin?: number;
  chunkMax?: number;
  chunkHashBits?: number;
}

/** What the guard did to one text. */
export interface GuardStats {
  safeCuts: number;
  lookaheadCuts: number;
  plainCuts: number;
}

export interface WarmStats {
  /** Synchronous slices the work was cut into. */
  slices: number;
  /** The longest one, wall-clock ms (GC pauses inside a slice included; so is time the OS gave to other processes). */
  maxSliceMs: number;
  /**
   * The longest one in CPU ms of this process (not inflated by other processes on a busy machine, but
   * including V8's helper threads: concurrent marking and parallel scavenges can make it exceed the
   * slice's wall-clock time).
   */
  maxSliceCpuMs: number;
  /**
   * The longest time a slice can have held the main thread: per slice the smaller of its wall-clock
   * and its CPU time (the main thread's CPU time is at most either), then the largest.
   */
  maxSliceBusyMs: number;
  totalMs: number;
}

export interface MemoStats {
  entries: number;
  keyChars: number;
  hashedEntries: number;
  hits: number;
  misses: number;
  /** Chunks of long texts: memo entries, hits and misses. */
  chunkEntries: number;
  chunkHits: number;
  chunkMisses: number;
  /** Counts taken from the seeds (saved with a chat) instead of encoded, and how many seeds are held. */
  seedHits: number;
  seeds: number;
}

type GptEncodingModule = typeof import('gpt-tokenizer/encoding/o200k_base');

const ENCODE_OPTIONS = {
  // An empty disallow list (and no allow list): special-token strings are encoded as ordinary text
  // instead of throwing "Disallowed special token found".
  disallowedSpecial: new Set<string>(),
};

function requireEncoding(encoding: EncodingName): GptEncodingModule {
  // Literal requires, loaded on first use (each encoding costs ~0.3-0.4 s and ~20-40 MB).
  switch (encoding) {
    case 'o200k_base':
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      return require('gpt-tokenizer/encoding/o200k_base') as GptEncodingModule;
    case 'cl100k_base':
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      return require('gpt-tokenizer/encoding/cl100k_base') as GptEncodingModule;
    default:
      throw new Error(`Unknown encoding "${String(encoding)}" (expected o200k_base or cl100k_base)`);
  }
}

/** The parts of gpt-tokenizer's (private) BytePairEncodingCore this module relies on. */
interface BpeCore {
  bytePairRankDecoder: readonly (string | readonly number[] | undefined)[];
  bytePairNonUtfSortedEncoder: readonly (readonly [Uint8Array, number])[];
  getBpeRankFromBytes(key: Uint8Array): number | undefined;
  binarySearch(key: Uint8Array): number;
}

function bpeCore(mod: GptEncodingModule): BpeCore | undefined {
  const core = (mod.default as unknown as { bytePairEncodingCoreProcessor?: Partial<BpeCore> }).bytePairEncodingCoreProcessor;
  if (
    core &&
    Array.isArray(core.bytePairRankDecoder) &&
    Array.isArray(core.bytePairNonUtfSortedEncoder) &&
    typeof core.getBpeRankFromBytes === 'function' &&
    typeof core.binarySearch === 'function'
  ) {
    return core as BpeCore;
  }
  return undefined;
}

/**
 * gpt-tokenizer 4.0.0 bug: it turns candidate merges into strings with a `TextDecoder` that strips a
 * leading byte-order mark, so EF BB BF (U+FEFF) never merges: `\uFEFF` becomes 2 tokens instead of 1
 * and the vocabulary's BOM-prefixed tokens (`\uFEFFusing`, `\uFEFF//`, …) are never produced, unlike
 * tiktoken. Those tokens are stored as bytes, so look byte keys that start with a BOM up directly.
 */
function patchBomMerges(core: BpeCore): void {
  const original = core.getBpeRankFromBytes;
  core.getBpeRankFromBytes = function (this: BpeCore, key: Uint8Array): number | undefined {
    if (key.length >= 3 && key[0] === 0xef && key[1] === 0xbb && key[2] === 0xbf) {
      const i = this.binarySearch(key);
      return i === -1 ? undefined : this.bytePairNonUtfSortedEncoder[i][1];
    }
    return original.call(this, key);
  };
}

interface LoadedEncoding {
  mod: GptEncodingModule;
  /** UTF-8 bytes of a token; undefined when gpt-tokenizer's internals are not as expected. */
  tokenBytes: ((id: number) => Uint8Array | undefined) | undefined;
}

const utf8 = new TextEncoder();

const loadedEncodings = new Map<EncodingName, LoadedEncoding>();

function loadEncoding(encoding: EncodingName): LoadedEncoding {
  let loaded = loadedEncodings.get(encoding);
  if (loaded) return loaded;
  const mod = requireEncoding(encoding);
  const core = bpeCore(mod);
  if (!core) {
    loaded = { mod, tokenBytes: undefined };
  } else {
    patchBomMerges(core);
    mod.clearMergeCache(); // in case something encoded a U+FEFF before the patch
    const table = core.bytePairRankDecoder;
    loaded = {
      mod,
      tokenBytes: (id) => {
        const v = table[id];
        if (typeof v === 'string') return utf8.encode(v);
        return v ? Uint8Array.from(v) : undefined;
      },
    };
  }
  loadedEncodings.set(encoding, loaded);
  return loaded;
}

// ---------------------------------------------------------------------------------------------
// Character classes for safe cuts

const OTHER = 0; // punctuation, symbols, emoji, U+FFFD, lone surrogates, …
const LOWER = 1; // \p{Ll}
const UPPER = 2; // \p{Lu} \p{Lt}
const LETTER = 3; // \p{Lm} \p{Lo} (CJK, …)
const MARK = 4; // \p{M}
const DIGIT = 5; // \p{N}
const APOSTROPHE = 6; // ' (contractions: 's 't 're …)

const RE_LO = /[\p{Lm}\p{Lo}]/u;
const RE_LL = /\p{Ll}/u;
const RE_LU = /[\p{Lu}\p{Lt}]/u;
const RE_M = /\p{M}/u;
const RE_N = /\p{N}/u;

function classify(cp: number): number {
  if (cp < 0x80) {
    if (cp >= 0x61 && cp <= 0x7a) return LOWER;
    if (cp >= 0x41 && cp <= 0x5a) return UPPER;
    if (cp >= 0x30 && cp <= 0x39) return DIGIT;
    return cp === 0x27 ? APOSTROPHE : OTHER;
  }
  const ch = String.fromCodePoint(cp);
  if (RE_LO.test(ch)) return LETTER;
  if (RE_LL.test(ch)) return LOWER;
  if (RE_LU.test(ch)) return UPPER;
  if (RE_M.test(ch)) return MARK;
  if (RE_N.test(ch)) return DIGIT;
  return OTHER;
}

/** JavaScript `\s` (what the tokenizers' split regexes use). */
function isWhitespace(c: number): boolean {
  if (c <= 0x20) return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  if (c < 0xa0) return false;
  return (
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

function isLowSurrogateOfPair(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  if (c < 0xdc00 || c > 0xdfff || i === 0) return false;
  const h = text.charCodeAt(i - 1);
  return h >= 0xd800 && h <= 0xdbff;
}

/**
 * The last position p in (start, limit] where a cut can never change the encoding (see the module
 * comment), or -1. `start` is itself a pre-token boundary (a run start or an earlier cut), so a digit
 * run that contains `start` is counted in groups of three from `start`.
 */
function lastSafeCut(text: string, start: number, limit: number, o200k: boolean): number {
  let cp = text.codePointAt(start)!;
  let prev = classify(cp);
  let digits = prev === DIGIT ? 1 : 0;
  let i = start + (cp > 0xffff ? 2 : 1);
  let best = -1;
  while (i <= limit && i < text.length) {
    cp = text.codePointAt(i)!;
    const cur = classify(cp);
    if (prev === DIGIT) {
      if (cur !== DIGIT || digits % 3 === 0) best = i;
    } else if (cur === DIGIT) {
      best = i;
    } else if (prev === LOWER || prev === UPPER || prev === LETTER) {
      if (cur === OTHER || (o200k && prev === LOWER && cur === UPPER)) best = i;
    }
    digits = cur === DIGIT ? digits + 1 : 0;
    prev = cur;
    i += cp > 0xffff ? 2 : 1;
  }
  return best;
}

function append(out: number[], ids: readonly number[]): void {
  for (let i = 0; i < ids.length; i++) out.push(ids[i]);
}

// ---------------------------------------------------------------------------------------------
// Chunk boundaries of long texts (see "Chunked counting" in the module comment)

/** ASCII punctuation and symbols except the apostrophe (which may start a contraction suffix). */
function isAsciiPunctuation(c: number): boolean {
  return c !== 0x27 && ((c >= 0x21 && c <= 0x2f) || (c >= 0x3a && c <= 0x40) || (c >= 0x5b && c <= 0x60) || (c >= 0x7b && c <= 0x7e));
}

function isAsciiLetter(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a);
}

/**
 * Whether a chunk may end at `p` (0 < p < text.length): both encodings end a pre-token there whatever
 * the rest of the text is. The two rules are justified in the module comment.
 */
export function isChunkBoundary(text: string, p: number): boolean {
  const prev = text.charCodeAt(p - 1);
  const cur = text.charCodeAt(p);
  if (prev === 0x0a) return cur !== 0x2f && !isWhitespace(cur);
  return isAsciiLetter(prev) && isAsciiPunctuation(cur);
}

/** 256 pseudo-random 32-bit values for the gear hash (xorshift32, fixed seed: the same chunks in every process). */
const GEAR: Int32Array = (() => {
  const g = new Int32Array(256);
  let x = 0x9e3779b9 | 0;
  for (let i = 0; i < 256; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    g[i] = x;
  }
  return g;
})();

export interface ChunkParams {
  min: number;
  max: number;
  bits: number;
}

/**
 * End of the chunk that starts at `start`: the first boundary at least `min` characters in, after a
 * position where the gear hash of the preceding 32 characters has its top `bits` bits zero, or after
 * `max` characters; the end of the text when there is none. The hash restarts at `start`, which
 * changes nothing past its first 32 characters, and `min` ≥ 32 (content-defined: see the module comment).
 */
export function chunkEnd(text: string, start: number, params: ChunkParams): number {
  const n = text.length;
  if (n - start <= params.min) return n;
  const shift = 32 - params.bits;
  const minEnd = start + params.min;
  const maxEnd = start + params.max;
  let h = 0;
  // The hash at i depends on the 32 characters before i only: start it where it is first read.
  let i = Math.max(start + 1, minEnd - 32);
  for (; i < minEnd; i++) h = ((h << 1) + GEAR[text.charCodeAt(i - 1) & 0xff]) | 0;
  for (; i < n; i++) {
    h = ((h << 1) + GEAR[text.charCodeAt(i - 1) & 0xff]) | 0;
    if (h >>> shift === 0 || i >= maxEnd) {
      // Wanted from here on: the first boundary at or after i.
      for (; i < n; i++) if (isChunkBoundary(text, i)) return i;
      return n;
    }
  }
  return n;
}

/** The chunk ends of `text` (the last one is `text.length`). */
export function chunkEnds(text: string, params: ChunkParams): number[] {
  const out: number[] = [];
  for (let s = 0; s < text.length;) {
    s = chunkEnd(text, s, params);
    out.push(s);
  }
  return out;
}

const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function abortError(): Error {
  const e = new Error('Token counting was cancelled.');
  e.name = 'AbortError';
  return e;
}

// ---------------------------------------------------------------------------------------------
// Memo

/** Seeded counts kept at most (a 1,000-turn chat saves about 10,000). */
const MAX_SEEDS = 500_000;

/**
 * A string-keyed LRU bounded by entry count and by the summed length of its keys. A hit moves its
 * entry to the recently-used end only when the entry is in the older half (more than half the entry
 * bound of insertions and moves ago): a hit on a recent entry changes nothing. Moving costs a delete
 * and an insert, and a table that churns on every hit is rehashed over and over; with tens of
 * thousands of entries (a long chat) that was most of the cost of a count. An entry hit at least once
 * per half-bound of insertions is never evicted, as with a strict LRU.
 */
class LruCounts {
  private readonly map = new Map<string, { n: number; seq: number }>();
  private chars = 0;
  private seq = 0;
  constructor(
    private readonly maxEntries: number,
    private readonly maxChars: number,
  ) {}
  get size(): number {
    return this.map.size;
  }
  get keyChars(): number {
    return this.chars;
  }
  get(key: string): number | undefined {
    const e = this.map.get(key);
    if (e === undefined) return undefined;
    if (this.seq - e.seq > this.maxEntries >> 1) {
      this.map.delete(key);
      e.seq = ++this.seq;
      this.map.set(key, e);
    }
    return e.n;
  }
  set(key: string, value: number): void {
    if (key.length > this.maxChars) return;
    const had = this.map.get(key);
    if (had) {
      had.n = value;
      return;
    }
    // A slice of a large string keeps the whole parent alive; store a flat copy instead.
    const own = key.length >= 13 ? (' ' + key).slice(1) : key;
    this.map.set(own, { n: value, seq: ++this.seq });
    this.chars += own.length;
    while (this.map.size > this.maxEntries || this.chars > this.maxChars) {
      const oldest = this.map.keys().next().value as string;
      this.map.delete(oldest);
      this.chars -= oldest.length;
    }
  }
  clear(): void {
    this.map.clear();
    this.chars = 0;
  }
}

/** UTF-8 length of the code point starting at `i` (a lone surrogate becomes U+FFFD: 3 bytes). */
function utf8Length(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c < 0x80) return 1;
  if (c < 0x800) return 2;
  if (c >= 0xd800 && c <= 0xdbff) {
    const d = text.charCodeAt(i + 1);
    if (d >= 0xdc00 && d <= 0xdfff) return 4;
  }
  return 3;
}

/**
 * Look-ahead cut: walks the window's tokens back from the window's end (`winEnd`) and returns the
 * first token boundary at or before `maxOffset` that falls between two characters, if it lies after
 * `minOffset`. The bytes of the tokens walked over are checked against the text's, so the kept tokens
 * encode exactly the text before the boundary.
 */
function syncPoint(
  tokenBytes: (id: number) => Uint8Array | undefined,
  win: readonly number[],
  text: string,
  winEnd: number,
  minOffset: number,
  maxOffset: number,
): { tokens: number; offset: number } | undefined {
  let tailStart = minOffset;
  if (isLowSurrogateOfPair(text, tailStart)) tailStart--;
  // Byte offset (from tailStart) → UTF-16 offset, at character starts only.
  const charAt = new Map<number, number>();
  let bytes = 0;
  for (let i = tailStart; i < winEnd;) {
    charAt.set(bytes, i);
    const n = utf8Length(text, i);
    bytes += n;
    i += n === 4 ? 2 : 1;
  }
  const tail = utf8.encode(text.slice(tailStart, winEnd));
  if (tail.length !== bytes) return undefined;
  let b = bytes;
  for (let k = win.length - 1; k >= 0; k--) {
    const tb = tokenBytes(win[k]);
    if (!tb || tb.length > b) return undefined;
    b -= tb.length;
    for (let j = 0; j < tb.length; j++) if (tail[b + j] !== tb[j]) return undefined;
    const off = charAt.get(b);
    if (off !== undefined && off <= maxOffset) return off > minOffset ? { tokens: k, offset: off } : undefined;
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------

/** gpt-tokenizer behind the long-run guard, with a memoized `count`. */
export class GuardedTokenizer implements Tokenizer {
  private loaded: LoadedEncoding | undefined;
  private readonly o200k: boolean;
  private readonly limit: number;
  private readonly lookahead: number;
  private readonly stringKeyMaxLength: number;
  private readonly shortMemo: LruCounts;
  private readonly longMemo: LruCounts;
  /** Chunks of long texts by sha256 (bounded by entries: 20,000 chunks cover ~250 MB of text). */
  private readonly chunkMemo: LruCounts;
  /** Whole long texts seen last, by content: the engine counts the same block string several times per turn. */
  private readonly recentLong = new Map<string, number>();
  private recentLongChars = 0;
  private readonly chunk: ChunkParams & { threshold: number };
  private hits = 0;
  private misses = 0;
  private warmStats: WarmStats = { slices: 0, maxSliceMs: 0, maxSliceCpuMs: 0, maxSliceBusyMs: 0, totalMs: 0 };
  private chunkHits = 0;
  /** Counts found in the seeds (saved with a chat) instead of encoded. */
  private seedHits = 0;
  private readonly seeds = new Map<string, number>();
  private recorder: ((key: string, n: number) => void) | undefined;
  private chunkMisses = 0;
  /** Estimated encoding ms per character (starts at ~2.5 MB/s). */
  private msPerChar = 0.0004;

  constructor(
    readonly encoding: EncodingName,
    options: TokenizerOptions = {},
  ) {
    if (encoding !== 'o200k_base' && encoding !== 'cl100k_base') {
      throw new Error(`Unknown encoding "${String(encoding)}" (expected o200k_base or cl100k_base)`);
    }
    this.o200k = encoding === 'o200k_base';
    this.limit = Math.max(64, Math.floor(options.longRunLimit ?? LONG_RUN_LIMIT));
    this.lookahead = Math.max(0, Math.floor(options.lookahead ?? LOOKAHEAD));
    this.stringKeyMaxLength = options.stringKeyMaxLength ?? 16_384;
    const maxEntries = Math.max(1, options.maxEntries ?? 20_000);
    const maxChars = Math.max(64, options.maxKeyChars ?? 4_000_000);
    this.shortMemo = new LruCounts(maxEntries, maxChars);
    // Keys of the long memo are 64-character hashes: bounded by the entry count.
    this.longMemo = new LruCounts(maxEntries, maxEntries * 64);
    this.chunkMemo = new LruCounts(maxEntries, maxEntries * 64);
    const min = Math.max(32, Math.floor(options.chunkMin ?? CHUNK_MIN));
    this.chunk = {
      threshold: Math.max(min, Math.floor(options.chunkThreshold ?? CHUNK_THRESHOLD)),
      min,
      max: Math.max(min, Math.floor(options.chunkMax ?? CHUNK_MAX)),
      bits: Math.min(31, Math.max(1, Math.floor(options.chunkHashBits ?? CHUNK_HASH_BITS))),
    };
  }

  /**
   * What this tokenizer's counts depend on (the encoding and the long-run guard): saved counts are
   * reused only by a tokenizer with the same `counter`.
   */
  get counter(): string {
    return `${this.encoding}/${this.limit}/${this.lookahead}`;
  }

  /**
   * Adds counts known from elsewhere (a chat's saved counts, see `ChatStore.loadTokenCounts`), keyed
   * by the first 32 hex digits of the text's sha256: a text not in the memo is looked up there before
   * it is encoded.
   */
  seed(counts: Iterable<readonly [string, number]>): void {
    for (const [k, n] of counts) {
      if (this.seeds.size >= MAX_SEEDS) this.seeds.clear();
      this.seeds.set(k, n);
    }
  }

  /** Called with each text this tokenizer counts that was in neither its memo nor its seeds: its key and count. */
  setRecorder(fn: ((key: string, n: number) => void) | undefined): void {
    this.recorder = fn;
  }

  count(text: string, sha256?: string): number {
    if (text.length === 0) return 0;
    if (sha256 !== undefined) {
      // The long memo's key is this very hash: the caller saves us hashing the text again, and a
      // lookup by a 64-character key costs the same for any text (a text key of up to 16 K
      // characters is hashed and compared in full).
      const known = this.longMemo.get(sha256);
      if (known !== undefined) {
        this.hits++;
        return known;
      }
      const seedKey = sha256.slice(0, 32);
      let n = this.seeds.get(seedKey);
      if (n !== undefined) this.seedHits++;
      else {
        if (text.length > this.chunk.threshold) n = this.countLong(text, sha256);
        else {
          this.misses++;
          n = this.encode(text).length;
        }
        this.recorder?.(seedKey, n);
      }
      this.longMemo.set(sha256, n);
      return n;
    }
    if (text.length > this.chunk.threshold) return this.countLong(text);
    const short = text.length <= this.stringKeyMaxLength;
    const memo = short ? this.shortMemo : this.longMemo;
    const key = short ? text : sha256HexNode(text);
    const cached = memo.get(key);
    if (cached !== undefined) {
      this.hits++;
      return cached;
    }
    // Saved counts are keyed by hash: a text is hashed only when it is not in the memo and counts
    // are being seeded or recorded (hashing costs a fraction of encoding).
    const seedKey = this.seeds.size > 0 || this.recorder ? (short ? sha256HexNode(text) : key).slice(0, 32) : undefined;
    const seeded = seedKey !== undefined ? this.seeds.get(seedKey) : undefined;
    if (seeded !== undefined) {
      this.seedHits++;
      memo.set(key, seeded);
      return seeded;
    }
    this.misses++;
    const n = this.encode(text).length;
    memo.set(key, n);
    if (seedKey !== undefined) this.recorder?.(seedKey, n);
    return n;
  }

  encode(text: string): number[] {
    return this.encodeWithStats(text).ids;
  }

  /**
   * Counts `text` in slices of at most ~{@link WARM_SLICE_MS} ms, yielding to the event loop between
   * them, so that a later `count` of it (or of a block that wraps it) is quick. Rejects with an
   * `AbortError` when `signal` aborts.
   */
  async warm(text: string, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) throw abortError();
    if (text.length <= this.chunk.threshold) {
      this.count(text);
      return;
    }
    if (this.recentLong.has(text)) return;
    // A text counted before but no longer among the last few (a file attached again long after it
    // was first sent): found by its hash, one pass of native sha256, instead of cutting it into
    // chunks and hashing each again. Not for the longest texts: that pass would be one long
    // synchronous step (a 5 MB text ~10–30 ms), where the chunks below are hashed slice by slice.
    const key = text.length <= HASH_LOOKUP_MAX ? sha256HexNode(text) : undefined;
    const known = key !== undefined ? this.longMemo.get(key) : undefined;
    if (known !== undefined) {
      this.rememberLong(text, known);
      return;
    }
    const started = performance.now();
    const stats: WarmStats = { slices: 1, maxSliceMs: 0, maxSliceCpuMs: 0, maxSliceBusyMs: 0, totalMs: 0 };
    this.warmStats = stats;
    let sliceStart = started;
    let cpu = process.cpuUsage();
    const endSlice = (wallMs: number): void => {
      const d = process.cpuUsage(cpu);
      const cpuMs = (d.user + d.system) / 1000;
      stats.maxSliceMs = Math.max(stats.maxSliceMs, wallMs);
      stats.maxSliceCpuMs = Math.max(stats.maxSliceCpuMs, cpuMs);
      stats.maxSliceBusyMs = Math.max(stats.maxSliceBusyMs, Math.min(wallMs, cpuMs));
    };
    let total = 0;
    for (let s = 0; s < text.length;) {
      const e = chunkEnd(text, s, this.chunk);
      const chunk = text.slice(s, e);
      // Yield first when this chunk would take the slice past its budget (cost estimated from the
      // chunks encoded so far).
      const elapsed = performance.now() - sliceStart;
      if (elapsed > 0.5 && elapsed + chunk.length * this.msPerChar > WARM_SLICE_MS) {
        endSlice(elapsed);
        await yieldToEventLoop();
        if (signal?.aborted) throw abortError();
        sliceStart = performance.now();
        cpu = process.cpuUsage();
        stats.slices++;
      }
      total += this.countChunk(chunk);
      s = e;
    }
    const end = performance.now();
    endSlice(end - sliceStart);
    stats.totalMs = end - started;
    this.rememberLong(text, total);
    if (key !== undefined) this.longMemo.set(key, total);
  }

  /** `sha256`: the text's hash when the caller has it (its long-memo entry was looked up already). */
  private countLong(text: string, sha256?: string): number {
    const known = this.recentLong.get(text);
    if (known !== undefined) {
      this.hits++;
      return known;
    }
    const key = sha256 ?? (text.length <= HASH_LOOKUP_MAX ? sha256HexNode(text) : undefined);
    const counted = sha256 === undefined && key !== undefined ? this.longMemo.get(key) : undefined;
    if (counted !== undefined) {
      this.hits++;
      this.rememberLong(text, counted);
      return counted;
    }
    this.misses++;
    let total = 0;
    for (let s = 0; s < text.length;) {
      const e = chunkEnd(text, s, this.chunk);
      total += this.countChunk(text.slice(s, e));
      s = e;
    }
    this.rememberLong(text, total);
    if (key !== undefined) this.longMemo.set(key, total);
    return total;
  }

  private countChunk(chunk: string): number {
    const key = sha256HexNode(chunk);
    const cached = this.chunkMemo.get(key);
    if (cached !== undefined) {
      this.chunkHits++;
      return cached;
    }
    this.chunkMisses++;
    const t0 = performance.now();
    const n = this.encode(chunk).length;
    // Encoding cost per character, for `warm`'s slicing: a moving average that follows slow text fast.
    const rate = (performance.now() - t0) / chunk.length;
    this.msPerChar = rate > this.msPerChar ? rate : 0.9 * this.msPerChar + 0.1 * rate;
    this.chunkMemo.set(key, n);
    return n;
  }

  /** Keeps the last few long texts (at most 8, 32 M characters): they are usually alive in the engine anyway. */
  private rememberLong(text: string, n: number): void {
    if (this.recentLong.has(text)) return;
    this.recentLong.set(text, n);
    this.recentLongChars += text.length;
    while (this.recentLong.size > 8 || this.recentLongChars > 32_000_000) {
      const oldest = this.recentLong.keys().next().value as string;
      this.recentLong.delete(oldest);
      this.recentLongChars -= oldest.length;
    }
  }

  /** `encode` plus what the guard did (tests, measurements). */
  encodeWithStats(text: string): { ids: number[] } & GuardStats {
    const stats: GuardStats = { safeCuts: 0, lookaheadCuts: 0, plainCuts: 0 };
    if (text.length === 0) return { ids: [], ...stats };
    const { mod: enc, tokenBytes } = this.load();
    const L = this.limit;
    const n = text.length;
    let ids: number[] | undefined;
    let pos = 0; // start of the text not encoded yet
    const out = (): number[] => (ids ??= []);

    let i = 0;
    while (i < n) {
      // Find the next maximal run of whitespace or non-whitespace.
      const ws = isWhitespace(text.charCodeAt(i));
      const rs = i;
      i++;
      while (i < n && isWhitespace(text.charCodeAt(i)) === ws) i++;
      const re = i;
      if (re - rs <= L) continue;

      let cs = rs;
      while (re - cs > L) {
        if (!ws) {
          const b = lastSafeCut(text, cs, cs + L, this.o200k);
          if (b > cs) {
            append(out(), enc.encode(text.slice(pos, b), ENCODE_OPTIONS));
            pos = cs = b;
            stats.safeCuts++;
            continue;
          }
        }
        if (this.lookahead > 0 && tokenBytes) {
          const winEnd = Math.min(re, cs + L + this.lookahead);
          const win = enc.encode(text.slice(pos, winEnd), ENCODE_OPTIONS);
          const sync = syncPoint(tokenBytes, win, text, winEnd, cs + (L >> 1), cs + L);
          if (sync) {
            const o = out();
            for (let k = 0; k < sync.tokens; k++) o.push(win[k]);
            pos = cs = sync.offset;
            stats.lookaheadCuts++;
            continue;
          }
        }
        let b = cs + L;
        if (isLowSurrogateOfPair(text, b)) b--;
        append(out(), enc.encode(text.slice(pos, b), ENCODE_OPTIONS));
        pos = cs = b;
        stats.plainCuts++;
      }
    }
    if (ids === undefined) return { ids: enc.encode(text, ENCODE_OPTIONS), ...stats };
    if (pos < n) append(ids, enc.encode(text.slice(pos), ENCODE_OPTIONS));
    return { ids, ...stats };
  }

  /**
   * Text of token ids (UTF-8, invalid sequences as U+FFFD). gpt-tokenizer's own `decode` shares one
   * streaming TextDecoder between calls (a partial character left by one call leaks into the next,
   * and a leading U+FEFF is dropped), so this decodes the bytes itself.
   */
  decode(ids: readonly number[]): string {
    const { mod, tokenBytes } = this.load();
    if (!tokenBytes) return mod.decode(ids);
    const parts: Uint8Array[] = [];
    let length = 0;
    for (const id of ids) {
      const b = tokenBytes(id);
      if (!b) throw new Error(`Unknown token id ${id} for ${this.encoding}`);
      parts.push(b);
      length += b.length;
    }
    const all = new Uint8Array(length);
    let o = 0;
    for (const b of parts) {
      all.set(b, o);
      o += b.length;
    }
    return new TextDecoder('utf-8', { ignoreBOM: true }).decode(all);
  }

  /** The synchronous slices of the last `warm` of a long text (measurements). */
  lastWarmStats(): WarmStats {
    return { ...this.warmStats };
  }

  /** Memo sizes and hit counts (tests, diagnostics). */
  memoStats(): MemoStats {
    return {
      entries: this.shortMemo.size + this.longMemo.size,
      keyChars: this.shortMemo.keyChars,
      hashedEntries: this.longMemo.size,
      hits: this.hits,
      misses: this.misses,
      chunkEntries: this.chunkMemo.size,
      chunkHits: this.chunkHits,
      chunkMisses: this.chunkMisses,
      seedHits: this.seedHits,
      seeds: this.seeds.size,
    };
  }

  clearMemo(): void {
    this.shortMemo.clear();
    this.longMemo.clear();
    this.chunkMemo.clear();
    this.recentLong.clear();
    this.recentLongChars = 0;
    // Nothing known any more: seeded counts go too (a cold measurement must encode).
    this.seeds.clear();
    this.hits = this.misses = this.chunkHits = this.chunkMisses = this.seedHits = 0;
  }

  private load(): LoadedEncoding {
    return (this.loaded ??= loadEncoding(this.encoding));
  }
}

const shared = new Map<EncodingName, GuardedTokenizer>();

/** The shared tokenizer for `encoding` (one instance, one memo per encoding per process). */
export function getTokenizer(encoding: EncodingName): Tokenizer {
  let t = shared.get(encoding);
  if (!t) {
    t = new GuardedTokenizer(encoding);
    shared.set(encoding, t);
  }
  return t;
}
