/**
 * The state chain of a chat file, applied in place. A chat file is a chain of state deltas (one line
 * per turn, `diffState` of the engine's state codec); the state after the last line is checked against
 * that line's `stateHash`. `applyDelta` returns a fresh copy of the whole encoded state per line, which
 * makes reading a 1,000-turn chat O(turns × state) in time and garbage; `StateChain` applies the same
 * deltas to maps and arrays it owns, O(delta) per line, and validates each line's new parts the way
 * `checkEncodedShape` validates a whole state. The result equals `applyDelta` line by line (tested).
 *
 * The state digest (`stateDigest`) is the same value here, computed faster. Version 2 (lines this
 * build writes) takes each array of the state by its list digest, a hash per link of 16 elements:
 * the chain keeps each link's hash while the link's elements are the same objects, so a save after
 * a turn hashes the links it changed, not the whole chat (version 1, the whole state's canonical
 * JSON, is computed only to check a file whose last line is of format 1). Lines are written
 * canonical (every object's keys sorted, `sortKeysDeep`), so a chain read from them serializes
 * canonically with plain `JSON.stringify`; a chain is marked `canonical` once its digest matched
 * that way, and keeps the mark while canonical deltas are applied. A chain with lines from an older
 * writer (keys in the engine's order) takes the slow path, the engine's `canonicalJson`, with each
 * element's text remembered.
 */
import * as crypto from 'crypto';
import type { HistorySummary, TurnRecord } from '../../engine/state';
import {
  canonicalJson,
  decodeEngineMetaOf,
  DIGEST_LINK,
  LISTED_ARRAYS,
  STATE_FORMAT,
  STATE_FORMAT_VERSION,
  StateDecodeError,
  type ArrayDelta,
  type EncodedEntry,
  type EncodedState,
  type EngineMeta,
  type KeyedDelta,
  type StateDelta,
} from '../../engine/stateCodec';
import { isObj } from '../../common/guards';
import type { Step } from '../../common/steps';

function fail(where: string, what: string): never {
  throw new StateDecodeError(`chat state ${where}: ${what}`);
}

const entryKey = (e: EncodedEntry): string => (isObj(e) ? String(e.key) : '');
const pairKey = (p: [string, unknown]): string => (Array.isArray(p) ? String(p[0]) : '');

function checkPair(p: unknown, where: string): void {
  if (!Array.isArray(p) || p.length !== 2 || typeof p[0] !== 'string') fail(where, 'must be a [id, value] pair');
}

export class StateChain {
  private completedTurns = 0;
  private entries = new Map<string, EncodedEntry>();
  private latest = new Map<string, [string, string]>();
  private versions = new Map<string, [string, number]>();
  private order: string[] = [];
  private turns: TurnRecord[] = [];
  private previousBlocks: string[] = [];
  private summary: HistorySummary | undefined;
  private engine: EngineMeta | undefined;
  private materialized: EncodedState | undefined;
  /** Per array, its links' hashes as the last plain digest computed them (see `LinkCache`). */
  private links = new Map<string, LinkCache>();
  /** Every object in the chain has its keys in sorted order (proven by a digest, or by construction). */
  canonical = true;

  get turnCount(): number {
    return this.completedTurns;
  }

  /** The encoded entry the chain holds for `key` (shared, never mutated). */
  entry(key: string): EncodedEntry | undefined {
    return this.entries.get(key);
  }

  /**
   * Replaces the `latest` and `versions` pairs of `enc` that equal the chain's by the chain's own
   * (never mutated, already canonical) pair objects.
   */
  reusePairs(enc: EncodedState): void {
    const same = <T>(held: Map<string, [string, T]>, list: [string, T][]): void => {
      for (let i = 0; i < list.length; i++) {
        const p = list[i];
        const h = held.get(p[0]);
        if (h !== undefined && h !== p && h[1] === p[1] && p.length === 2) list[i] = h;
      }
    };
    same(this.latest, enc.latest);
    same(this.versions, enc.versions);
  }

  /** The engine options recorded so far. */
  get engineMeta(): EngineMeta | undefined {
    return this.engine;
  }

  clone(): StateChain {
    const c = new StateChain();
    c.completedTurns = this.completedTurns;
    c.entries = new Map(this.entries);
    c.latest = new Map(this.latest);
    c.versions = new Map(this.versions);
    c.order = this.order.slice();
    c.turns = this.turns.slice();
    c.previousBlocks = this.previousBlocks.slice();
    c.summary = this.summary;
    c.engine = this.engine;
    c.materialized = this.materialized;
    c.canonical = this.canonical;
    for (const [k, l] of this.links) c.links.set(k, l.clone());
    return c;
  }

  /**
   * Applies one line's delta (same result and same refusals as the engine's `applyDelta`). `canonical`:
   * the delta's objects are known to have sorted keys (written by `appendTurn` of this build); a
   * delta read from a file is checked by the next digest instead.
   */
  apply(d: StateDelta, canonical = false): void {
    if (!isObj(d)) fail('delta', 'must be an object');
    const turns = d.completedTurns;
    if (typeof turns !== 'number' || !Number.isInteger(turns) || turns < 0) fail('delta.completedTurns', 'must be an integer ≥ 0');
    // Check everything before changing anything: a refused line leaves the chain as it was.
    this.checkKeyed(d.entries, this.entries, 'entries', (e, i) => {
      if (!isObj(e) || !isObj(e.artifact)) fail(`entries[${i}]`, 'must be {key, artifact, …}');
    });
    this.checkKeyed(d.latest, this.latest, 'latest', (p, i) => checkPair(p, `latest[${i}]`));
    this.checkKeyed(d.versions, this.versions, 'versions', (p, i) => checkPair(p, `versions[${i}]`));
    checkArray(d.order, this.order.length, 'order', (k, i) => {
      if (typeof k !== 'string') fail(`order[${i}]`, 'must be a string');
    });
    checkArray(d.turns, this.turns.length, 'turns');
    checkArray(d.previousBlocks, this.previousBlocks.length, 'previousBlocks');
    if (d.engine !== undefined && d.engine !== null) decodeEngineMetaOf({ engine: d.engine } as EncodedState);

    this.completedTurns = turns;
    applyKeyed(this.entries, d.entries, entryKey, (m) => (this.entries = m));
    applyKeyed(this.latest, d.latest, pairKey, (m) => (this.latest = m));
    applyKeyed(this.versions, d.versions, pairKey, (m) => (this.versions = m));
    applyArray(this.order, d.order);
    applyArray(this.turns, d.turns);
    applyArray(this.previousBlocks, d.previousBlocks);
    if (d.summary !== undefined) this.summary = d.summary ?? undefined;
    if (d.engine !== undefined) this.engine = d.engine ?? undefined;
    this.materialized = undefined;
    if (!canonical) this.canonical = false;
  }

  /** The state digest (`stateDigest(encoded(), version)`). */
  digest(version: DigestVersion = 2): string {
    return this.canonical ? this.plainDigest(version) : encodedDigest(this.encoded(), version);
  }

  /** The digest of the plain serialization (`JSON.stringify`, which is canonical for a canonical chain). */
  private plainDigest(version: DigestVersion): string {
    return streamDigest(this.encoded(), jsonOf, version, (k) => {
      let l = this.links.get(k);
      if (!l) this.links.set(k, (l = new LinkCache()));
      return l;
    });
  }

  /**
   * The plain digest's work (see `matches`) a link at a time, a step each, for a reader that gives
   * the event loop a turn between them: the digest that follows hashes only what changed since.
   */
  *digestSteps(version: DigestVersion = 2): Step<void> {
    if (version !== 2) return;
    const enc = this.encoded() as unknown as Record<string, unknown>;
    for (const k of LISTED_ARRAYS) {
      const v = enc[k];
      if (!Array.isArray(v)) continue;
      let l = this.links.get(k);
      if (!l) this.links.set(k, (l = new LinkCache()));
      yield* l.hashSteps(v, jsonOf);
    }
  }

  /**
   * Whether the state matches a line's recorded digest. Tries the plain serialization first (a match
   * proves every key was in canonical order: the chain is `canonical` from then on), then the
   * canonical one.
   */
  matches(stateHash: string, version: DigestVersion = 2): boolean {
    if (this.plainDigest(version) === stateHash) {
      this.canonical = true;
      return true;
    }
    this.canonical = false;
    return encodedDigest(this.encoded(), version) === stateHash;
  }

  private checkKeyed<T>(
    d: KeyedDelta<T> | undefined,
    current: Map<string, T>,
    where: string,
    checkItem: (item: unknown, i: number) => void,
  ): void {
    if (d === undefined) return;
    if (!isObj(d) || !Array.isArray(d.set)) fail(`delta.${where}`, 'must be {set, keys?}');
    d.set.forEach((item, i) => checkItem(item, i));
    if (d.keys === undefined) return;
    if (!Array.isArray(d.keys)) fail(`delta.${where}.keys`, 'must be an array');
    const keyOf = where === 'entries' ? (entryKey as (t: unknown) => string) : (pairKey as (t: unknown) => string);
    const setKeys = new Set(d.set.map((s) => keyOf(s)));
    const seen = new Set<string>();
    for (const k of d.keys) {
      if (!current.has(k) && !setKeys.has(k)) fail(`delta.${where}.keys`, `names unknown key ${JSON.stringify(k)}`);
      // The engine's applyDelta would keep a repeated key twice (and decoding would refuse the state).
      if (seen.has(k)) fail(`delta.${where}.keys`, `names ${JSON.stringify(k)} twice`);
      seen.add(k);
    }
  }

  /** The encoded state (fresh arrays; items are shared and never mutated), its keys in sorted order. */
  encoded(): EncodedState {
    if (this.materialized) return this.materialized;
    const out = {
      completedTurns: this.completedTurns,
      engine: this.engine,
      entries: [...this.entries.values()],
      format: STATE_FORMAT,
      latest: [...this.latest.values()],
      order: this.order.slice(),
      previousBlocks: this.previousBlocks.slice(),
      summary: this.summary,
      turns: this.turns.slice(),
      version: STATE_FORMAT_VERSION,
      versions: [...this.versions.values()],
    } as EncodedState;
    // Absent, not undefined: the encoded form never holds undefined values.
    if (out.engine === undefined) delete out.engine;
    if (out.summary === undefined) delete out.summary;
    this.materialized = out;
    return out;
  }
}

function checkArray(
  d: ArrayDelta<unknown> | undefined,
  length: number,
  where: string,
  checkItem?: (item: unknown, i: number) => void,
): void {
  if (d === undefined) return;
  if (!isObj(d) || !Array.isArray(d.add) || typeof d.keep !== 'number' || !Number.isInteger(d.keep) || d.keep < 0 || d.keep > length) {
    fail(`delta.${where}`, `must be {keep ≤ ${length}, add}`);
  }
  if (checkItem) d.add.forEach((item, i) => checkItem(item, d.keep + i));
}

function applyKeyed<T>(
  map: Map<string, T>,
  d: KeyedDelta<T> | undefined,
  keyOf: (t: T) => string,
  replace: (m: Map<string, T>) => void,
): void {
  if (!d) return;
  for (const s of d.set) map.set(keyOf(s), s);
  if (d.keys === undefined) return;
  const next = new Map<string, T>();
  for (const k of d.keys) next.set(k, map.get(k)!);
  replace(next);
}

function applyArray<T>(arr: T[], d: ArrayDelta<T> | undefined): void {
  if (!d) return;
  arr.length = d.keep;
  for (const x of d.add) arr.push(x);
}

/** Keys an object orders before all others, whatever the insertion order (array indices). */
const INDEX_KEY = /^(0|[1-9][0-9]{0,9})$/;

/**
 * `v` with every object's keys in sorted order (the order `canonicalJson` writes them), undefined
 * properties left out: `JSON.stringify(value)` is then `canonicalJson(v)`, unless an object has an
 * index-like key (JavaScript puts those first whatever the order they were added in): `canonical`
 * says which. Objects already in order are returned as they are.
 *
 * `settled`: objects known to be canonical, never mutated (a store's saved entries and turns); they
 * are returned without a walk, and the objects of a canonical result join them.
 */
export function canonicalize<T>(v: T, settled?: WeakSet<object>): { value: T; canonical: boolean } {
  let canonical = true;
  // Objects this call returns (when `settled` is given: they join it if the value is canonical).
  const seen: object[] = [];
  const walk = (x: unknown): unknown => {
    if (typeof x !== 'object' || x === null) return x;
    if (settled?.has(x)) return x;
    if (Array.isArray(x)) {
      let out: unknown[] | undefined;
      for (let i = 0; i < x.length; i++) {
        const y = walk(x[i]);
        if (y !== x[i] && !out) out = x.slice(0, i);
        out?.push(y);
      }
      if (settled) seen.push(out ?? x);
      return out ?? x;
    }
    const o = x as Record<string, unknown>;
    const keys = Object.keys(o);
    let same = true;
    const values = keys.map((k, i) => {
      if (INDEX_KEY.test(k)) canonical = false;
      if ((i > 0 && keys[i - 1] >= k) || o[k] === undefined) same = false;
      const y = walk(o[k]);
      if (y !== o[k]) same = false;
      return y;
    });
    if (same) {
      if (settled) seen.push(x);
      return x;
    }
    const order = keys
      .map((k, i) => [k, values[i]] as const)
      .filter(([, y]) => y !== undefined)
      .sort((a, b) => (a[0] < b[0] ? -1 : 1));
    const out: Record<string, unknown> = {};
    for (const [k, y] of order) out[k] = y;
    if (settled) seen.push(out);
    return out;
  };
  const value = walk(v) as T;
  if (settled && canonical) for (const o of seen) settled.add(o);
  return { value, canonical };
}

/**
 * The UTF-8 bytes of the JSON of objects that are never mutated once in a chain (entries, turn
 * records, pairs): canonical, and plain. Bytes rather than text: a digest then copies them into the
 * hash's input, where a text would be joined and converted again at every digest.
 */
const canonicalMemo = new WeakMap<object, Buffer>();
const jsonMemo = new WeakMap<object, Buffer>();

function memo(cache: WeakMap<object, Buffer>, v: unknown, text: (v: unknown) => string): Buffer | string {
  if (typeof v !== 'object' || v === null) return text(v);
  let b = cache.get(v);
  if (b === undefined) {
    b = Buffer.from(text(v), 'utf8');
    cache.set(v, b);
  }
  return b;
}

const canonicalOf = (v: unknown): Buffer | string => memo(canonicalMemo, v, canonicalJson);
/** `JSON.stringify` (undefined as null, as in arrays): equal to `canonicalJson` for objects whose keys are in order. */
const jsonOf = (v: unknown): Buffer | string => memo(jsonMemo, v, (x) => (x === undefined ? 'null' : JSON.stringify(x)));

/**
 * The links of one array of a chain as the last digest hashed them (see `listDigest`): each link's
 * elements (by identity: the objects of a chain are shared from one state to the next and never
 * mutated) and its hash. A digest compares a link's elements with those it hashed and hashes again
 * only the links that differ: after an append, the last one.
 */
class LinkCache {
  private refs: unknown[][] = [];
  private hashes: string[] = [];

  clone(): LinkCache {
    const c = new LinkCache();
    c.refs = this.refs.slice();
    c.hashes = this.hashes.slice();
    return c;
  }

  /** `listDigest(items)`, each element's bytes from `bytesOf`. */
  digest(items: readonly unknown[], bytesOf: (v: unknown) => Buffer | string): string {
    const n = Math.ceil(items.length / DIGEST_LINK);
    for (let j = 0; j < n; j++) this.hashLink(items, j, bytesOf);
    this.refs.length = n;
    this.hashes.length = n;
    return crypto.createHash('sha256').update(this.hashes.join(''), 'latin1').digest('hex');
  }

  /** `digest`'s work a link at a time, a step each: the digest that follows finds every link hashed. */
  *hashSteps(items: readonly unknown[], bytesOf: (v: unknown) => Buffer | string): Step<void> {
    const n = Math.ceil(items.length / DIGEST_LINK);
    for (let j = 0; j < n; j++) {
      this.hashLink(items, j, bytesOf);
      yield;
    }
  }

  /** Hashes link `j` of `items` unless its elements are the ones hashed last time. */
  private hashLink(items: readonly unknown[], j: number, bytesOf: (v: unknown) => Buffer | string): void {
    const lo = j * DIGEST_LINK;
    const hi = Math.min(items.length, lo + DIGEST_LINK);
    const had = this.refs[j];
    let same = had !== undefined && had.length === hi - lo;
    for (let i = lo; same && i < hi; i++) same = had[i - lo] === items[i];
    if (same) return;
    this.refs[j] = items.slice(lo, hi);
    this.hashes[j] = linkHash(items, lo, hi, bytesOf);
  }
}

/** Feeds a hash through a staging buffer: many small pieces cost one `update` per 64 KB. */
class StagedHash {
  private static readonly buf = Buffer.allocUnsafe(65536);
  private n = 0;
  private readonly hash = crypto.createHash('sha256');

  put(piece: Buffer | string): void {
    const buf = StagedHash.buf;
    if (typeof piece === 'string') {
      // At most 3 bytes per UTF-16 unit.
      const large = piece.length * 3 > buf.length;
      if (large || piece.length * 3 > buf.length - this.n) this.flush();
      if (large) this.hash.update(piece, 'utf8');
      else this.n += buf.write(piece, this.n, 'utf8');
      return;
    }
    const large = piece.length > buf.length >> 2;
    if (large || piece.length > buf.length - this.n) this.flush();
    if (large) this.hash.update(piece);
    else this.n += piece.copy(buf, this.n);
  }

  private flush(): void {
    if (this.n > 0) this.hash.update(StagedHash.buf.subarray(0, this.n));
    this.n = 0;
  }

  digest(): string {
    this.flush();
    return this.hash.digest('hex');
  }
}

/** The version of the state digest a chat line records (`stateDigest`): 1 for lines of format 1. */
export type DigestVersion = 1 | 2;

/** The sha256 (hex) of elements `lo`..`hi` of `items`, their bytes joined by commas. */
function linkHash(items: readonly unknown[], lo: number, hi: number, bytesOf: (v: unknown) => Buffer | string): string {
  const hash = crypto.createHash('sha256');
  for (let i = lo; i < hi; i++) {
    if (i > lo) hash.update(',');
    const b = bytesOf(items[i]);
    if (typeof b === 'string') hash.update(b, 'utf8');
    else hash.update(b);
  }
  return hash.digest('hex');
}

const LISTED = new Set<string>(LISTED_ARRAYS);

/**
 * The state digest (`stateDigest(enc, version)`), fed to the hash piece by piece, each element's
 * bytes from `bytesOf` (remembered per object: the objects of a chain are shared from one state to the
 * next). Version 2 takes each array by its list digest, through the chain's `links` when given (a
 * link whose elements were hashed before is not hashed again); version 1 streams every element. The
 * top-level keys are written in sorted order.
 */
function streamDigest(
  enc: EncodedState,
  bytesOf: (v: unknown) => Buffer | string,
  version: DigestVersion,
  links?: (key: string) => LinkCache,
): string {
  const h = new StagedHash();
  const o = enc as unknown as Record<string, unknown>;
  const keys = Object.keys(o)
    .filter((k) => o[k] !== undefined)
    .sort();
  h.put('{');
  keys.forEach((k, i) => {
    h.put(`${i > 0 ? ',' : ''}${JSON.stringify(k)}:`);
    const v = o[k];
    if (version === 2 && LISTED.has(k) && Array.isArray(v)) {
      h.put(`"${(links?.(k) ?? new LinkCache()).digest(v, bytesOf)}"`);
    } else if (Array.isArray(v)) {
      h.put('[');
      v.forEach((x, j) => {
        if (j > 0) h.put(',');
        h.put(bytesOf(x));
      });
      h.put(']');
    } else {
      h.put(canonicalJson(v));
    }
  });
  h.put('}');
  return h.digest();
}

/**
 * `encodedDigest`'s canonical texts, an element at a time with a step every few dozen: the digest
 * that follows finds them remembered and only hashes.
 */
export function* canonicalTextSteps(enc: EncodedState): Step<void> {
  const o = enc as unknown as Record<string, unknown>;
  let n = 0;
  for (const k of LISTED_ARRAYS) {
    const v = o[k];
    if (!Array.isArray(v)) continue;
    for (const x of v) {
      if (x !== undefined) canonicalOf(x);
      if (++n % 32 === 0) yield;
    }
  }
}

/**
 * `stateDigest(enc, version)` with node:crypto, streamed, each element's canonical text remembered
 * (see `streamDigest`). For states whose objects may have keys in any order.
 */
export function encodedDigest(enc: EncodedState, version: DigestVersion = 2): string {
  return streamDigest(enc, (x) => (x === undefined ? 'null' : canonicalOf(x)), version);
}
