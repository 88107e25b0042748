/**
 * The tokenizer behind the engine's `ITokenizer` port: exact o200k_base / cl100k_base BPE through
 * gpt-tokenizer, with special-token strings (`<|endoftext|>`, …) counted as ordinary text, the
 * long-run guard against BPE's super-linear cost on long runs, chunked counting of long texts, and
 * memoized counts. Node only (no vscode import). docs/tokenizer.md describes the design.
 */
import { sha256HexNode } from '../nodeHasher';
import type { ITokenizer } from '../../engine/types';
import { CHUNK_HASH_BITS, CHUNK_MAX, CHUNK_MIN, CHUNK_THRESHOLD, chunkEnd, type ChunkParams } from './chunking';
import { loadEncoding, type EncodingName, type LoadedEncoding } from './encodings';
import { LONG_RUN_LIMIT, LOOKAHEAD, encodeGuarded, type GuardParams, type GuardStats } from './longRunGuard';
import { LruCounts } from './lruCounts';
import { RecentLongTexts } from './recentLongTexts';

export interface Tokenizer extends ITokenizer {
  /** Token ids of `text`, through the long-run guard; `encode(t).length === count(t)`. */
  encode(text: string): number[];
  /** Counts a long text without blocking the event loop for more than a few ms at a time (see `GuardedTokenizer.warm`). */
  warm(text: string, signal?: AbortSignal): Promise<void>;
}

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

/** Seeded counts kept at most (a 1,000-turn chat saves about 10,000). */
const MAX_SEEDS = 500_000;

const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function abortError(): Error {
  const e = new Error('Token counting was cancelled.');
  e.name = 'AbortError';
  return e;
}

/** gpt-tokenizer behind the long-run guard, with a memoized `count`. */
export class GuardedTokenizer implements Tokenizer {
  private loaded: LoadedEncoding | undefined;
  private readonly guard: GuardParams;
  private readonly stringKeyMaxLength: number;
  private readonly shortMemo: LruCounts;
  private readonly longMemo: LruCounts;
  /** Chunks of long texts by sha256 (bounded by entries: 20,000 chunks cover ~250 MB of text). */
  private readonly chunkMemo: LruCounts;
  private readonly recentLong = new RecentLongTexts();
  private readonly chunk: ChunkParams & { threshold: number };
  /** Counts found in the seeds (saved with a chat) instead of encoded. */
  private readonly seeds = new Map<string, number>();
  private recorder: ((key: string, n: number) => void) | undefined;
  private readonly tally = { hits: 0, misses: 0, chunkHits: 0, chunkMisses: 0, seedHits: 0 };
  private warmStats: WarmStats = { slices: 0, maxSliceMs: 0, maxSliceCpuMs: 0, maxSliceBusyMs: 0, totalMs: 0 };
  /** Estimated encoding ms per character (starts at ~2.5 MB/s). */
  private msPerChar = 0.0004;

  constructor(
    readonly encoding: EncodingName,
    options: TokenizerOptions = {},
  ) {
    if (encoding !== 'o200k_base' && encoding !== 'cl100k_base') {
      throw new Error(`Unknown encoding "${String(encoding)}" (expected o200k_base or cl100k_base)`);
    }
    this.guard = {
      o200k: encoding === 'o200k_base',
      limit: Math.max(64, Math.floor(options.longRunLimit ?? LONG_RUN_LIMIT)),
      lookahead: Math.max(0, Math.floor(options.lookahead ?? LOOKAHEAD)),
    };
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
    return `${this.encoding}/${this.guard.limit}/${this.guard.lookahead}`;
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
        this.tally.hits++;
        return known;
      }
      const seedKey = sha256.slice(0, 32);
      let n = this.seeds.get(seedKey);
      if (n !== undefined) this.tally.seedHits++;
      else {
        if (text.length > this.chunk.threshold) n = this.countLong(text, sha256);
        else {
          this.tally.misses++;
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
      this.tally.hits++;
      return cached;
    }
    // Saved counts are keyed by hash: a text is hashed only when it is not in the memo and counts
    // are being seeded or recorded (hashing costs a fraction of encoding).
    const seedKey = this.seeds.size > 0 || this.recorder ? (short ? sha256HexNode(text) : key).slice(0, 32) : undefined;
    const seeded = seedKey !== undefined ? this.seeds.get(seedKey) : undefined;
    if (seeded !== undefined) {
      this.tally.seedHits++;
      memo.set(key, seeded);
      return seeded;
    }
    this.tally.misses++;
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
      this.recentLong.remember(text, known);
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
    this.recentLong.remember(text, total);
    if (key !== undefined) this.longMemo.set(key, total);
  }

  /** `sha256`: the text's hash when the caller has it (its long-memo entry was looked up already). */
  private countLong(text: string, sha256?: string): number {
    const known = this.recentLong.get(text);
    if (known !== undefined) {
      this.tally.hits++;
      return known;
    }
    const key = sha256 ?? (text.length <= HASH_LOOKUP_MAX ? sha256HexNode(text) : undefined);
    const counted = sha256 === undefined && key !== undefined ? this.longMemo.get(key) : undefined;
    if (counted !== undefined) {
      this.tally.hits++;
      this.recentLong.remember(text, counted);
      return counted;
    }
    this.tally.misses++;
    let total = 0;
    for (let s = 0; s < text.length;) {
      const e = chunkEnd(text, s, this.chunk);
      total += this.countChunk(text.slice(s, e));
      s = e;
    }
    this.recentLong.remember(text, total);
    if (key !== undefined) this.longMemo.set(key, total);
    return total;
  }

  private countChunk(chunk: string): number {
    const key = sha256HexNode(chunk);
    const cached = this.chunkMemo.get(key);
    if (cached !== undefined) {
      this.tally.chunkHits++;
      return cached;
    }
    this.tally.chunkMisses++;
    const t0 = performance.now();
    const n = this.encode(chunk).length;
    // Encoding cost per character, for `warm`'s slicing: a moving average that follows slow text fast.
    const rate = (performance.now() - t0) / chunk.length;
    this.msPerChar = rate > this.msPerChar ? rate : 0.9 * this.msPerChar + 0.1 * rate;
    this.chunkMemo.set(key, n);
    return n;
  }

  /** `encode` plus what the guard did (tests, measurements). */
  encodeWithStats(text: string): { ids: number[] } & GuardStats {
    if (text.length === 0) return { ids: [], safeCuts: 0, lookaheadCuts: 0, plainCuts: 0 };
    return encodeGuarded(this.load(), text, this.guard);
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
      hits: this.tally.hits,
      misses: this.tally.misses,
      chunkEntries: this.chunkMemo.size,
      chunkHits: this.tally.chunkHits,
      chunkMisses: this.tally.chunkMisses,
      seedHits: this.tally.seedHits,
      seeds: this.seeds.size,
    };
  }

  clearMemo(): void {
    this.shortMemo.clear();
    this.longMemo.clear();
    this.chunkMemo.clear();
    this.recentLong.clear();
    // Nothing known any more: seeded counts go too (a cold measurement must encode).
    this.seeds.clear();
    this.tally.hits = this.tally.misses = this.tally.chunkHits = this.tally.chunkMisses = this.tally.seedHits = 0;
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
