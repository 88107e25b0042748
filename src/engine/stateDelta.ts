import type { HistorySummary, TurnRecord } from './state';
import type { EncodedEntry, EncodedState, EngineMeta } from './encodedState';
import { emptyEncoded, STATE_FORMAT, STATE_FORMAT_VERSION } from './encodedState';
import { fail, int, isObj } from './stateChecks';
import { canonicalJson } from './stateDigest';

/**
 * The change from one encoded state to the next, for the chat store's per-turn lines: artifacts
 * whose state did not change and turns already written are not repeated.
 */

/** Changes to a keyed list: items to set (new ones go last), and the full key order when that is not enough. */
export interface KeyedDelta<T> {
  set: T[];
  keys?: string[];
}

/** Changes to an array: keep the first `keep` elements, then append `add`. */
export interface ArrayDelta<T> {
  keep: number;
  add: T[];
}

/** The change from one encoded state to the next (fields absent when unchanged). */
export interface StateDelta {
  completedTurns: number;
  entries?: KeyedDelta<EncodedEntry>;
  latest?: KeyedDelta<[string, string]>;
  versions?: KeyedDelta<[string, number]>;
  order?: ArrayDelta<string>;
  turns?: ArrayDelta<TurnRecord>;
  /** null: the summary was removed. */
  summary?: HistorySummary | null;
  previousBlocks?: ArrayDelta<string>;
  engine?: EngineMeta | null;
}

/**
 * Equal as JSON: the same object, a pair of the same values, or the same text. A store reuses the
 * objects it saved (see `EncodeReuse`), so most elements compare by identity.
 */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined) return false;
  if (
    Array.isArray(a) &&
    Array.isArray(b) &&
    a.length === b.length &&
    a.every((x, i) => x === b[i] && (x === null || typeof x !== 'object'))
  )
    return true;
  return JSON.stringify(a) === JSON.stringify(b);
}

function keyedDelta<T>(prev: readonly T[], next: readonly T[], keyOf: (t: T) => string): KeyedDelta<T> | undefined {
  // The usual save: the same keys in the same places (most elements the same objects), new keys after.
  if (next.length >= prev.length) {
    const set: T[] = [];
    let i = 0;
    for (; i < prev.length; i++) {
      const p = prev[i];
      const n = next[i];
      if (p === n) continue;
      if (keyOf(p) !== keyOf(n)) break;
      if (!sameJson(p, n)) set.push(n);
    }
    if (i === prev.length) {
      // Keys of a list are distinct: those after the shared ones are new.
      for (; i < next.length; i++) set.push(next[i]);
      return set.length === 0 ? undefined : { set };
    }
  }
  const before = new Map<string, T>();
  for (const p of prev) before.set(keyOf(p), p);
  const set: T[] = [];
  const simulated = prev.map(keyOf);
  const known = new Set(simulated);
  for (const n of next) {
    const k = keyOf(n);
    if (!sameJson(before.get(k), n)) set.push(n);
    if (!known.has(k)) {
      simulated.push(k);
      known.add(k);
    }
  }
  const nextKeys = next.map(keyOf);
  const orderOk = simulated.length === nextKeys.length && simulated.every((k, i) => k === nextKeys[i]);
  if (set.length === 0 && orderOk) return undefined;
  return orderOk ? { set } : { set, keys: nextKeys };
}

function applyKeyed<T>(prev: readonly T[], d: KeyedDelta<T> | undefined, keyOf: (t: T) => string, where: string): T[] {
  if (!d) return prev.slice();
  if (!isObj(d) || !Array.isArray(d.set)) fail(`delta.${where}`, 'must be {set, keys?}');
  const map = new Map<string, T>();
  for (const p of prev) map.set(keyOf(p), p);
  for (const s of d.set) map.set(keyOf(s), s);
  if (d.keys === undefined) return [...map.values()];
  if (!Array.isArray(d.keys)) fail(`delta.${where}.keys`, 'must be an array');
  return d.keys.map((k) => {
    const v = map.get(k);
    if (v === undefined) fail(`delta.${where}.keys`, `names unknown key ${JSON.stringify(k)}`);
    return v;
  });
}

function arrayDelta<T>(prev: readonly T[], next: readonly T[]): ArrayDelta<T> | undefined {
  let keep = 0;
  const n = Math.min(prev.length, next.length);
  while (keep < n && (prev[keep] === next[keep] || JSON.stringify(prev[keep]) === JSON.stringify(next[keep]))) keep++;
  if (keep === prev.length && keep === next.length) return undefined;
  return { keep, add: next.slice(keep) };
}

function applyArray<T>(prev: readonly T[], d: ArrayDelta<T> | undefined, where: string): T[] {
  if (!d) return prev.slice();
  if (!isObj(d) || !Array.isArray(d.add) || typeof d.keep !== 'number' || !Number.isInteger(d.keep) || d.keep < 0 || d.keep > prev.length) {
    fail(`delta.${where}`, `must be {keep ≤ ${prev.length}, add}`);
  }
  return [...prev.slice(0, d.keep), ...d.add];
}

const entryKey = (e: EncodedEntry) => (isObj(e) ? String(e.key) : '');
const pairKey = (p: [string, unknown]) => (Array.isArray(p) ? String(p[0]) : '');

/** The delta that turns `prev` (undefined: an empty chat) into `next`. */
export function diffState(prev: EncodedState | undefined, next: EncodedState): StateDelta {
  const p = prev ?? emptyEncoded();
  const d: StateDelta = { completedTurns: next.completedTurns };
  const entries = keyedDelta(p.entries, next.entries, entryKey);
  if (entries) d.entries = entries;
  const latest = keyedDelta(p.latest, next.latest, pairKey);
  if (latest) d.latest = latest;
  const versions = keyedDelta(p.versions, next.versions, pairKey);
  if (versions) d.versions = versions;
  const order = arrayDelta(p.order, next.order);
  if (order) d.order = order;
  const turns = arrayDelta(p.turns, next.turns);
  if (turns) d.turns = turns;
  if (JSON.stringify(p.summary) !== JSON.stringify(next.summary)) d.summary = next.summary ?? null;
  const blocks = arrayDelta(p.previousBlocks, next.previousBlocks);
  if (blocks) d.previousBlocks = blocks;
  if (canonicalJson(p.engine) !== canonicalJson(next.engine)) d.engine = next.engine ?? null;
  return d;
}

/** Applies a delta (validated for shape; the result is checked fully by `decodeState`). */
export function applyDelta(prev: EncodedState | undefined, d: StateDelta): EncodedState {
  if (!isObj(d)) fail('delta', 'must be an object');
  const p = prev ?? emptyEncoded();
  const out: EncodedState = {
    format: STATE_FORMAT,
    version: STATE_FORMAT_VERSION,
    completedTurns: int(d.completedTurns, 'delta.completedTurns'),
    entries: applyKeyed(p.entries, d.entries, entryKey, 'entries'),
    latest: applyKeyed(p.latest, d.latest, pairKey, 'latest'),
    versions: applyKeyed(p.versions, d.versions, pairKey, 'versions'),
    order: applyArray(p.order, d.order, 'order'),
    turns: applyArray(p.turns, d.turns, 'turns'),
    previousBlocks: applyArray(p.previousBlocks, d.previousBlocks, 'previousBlocks'),
  };
  const summary = d.summary === undefined ? p.summary : (d.summary ?? undefined);
  if (summary !== undefined) out.summary = summary;
  const engine = d.engine === undefined ? p.engine : (d.engine ?? undefined);
  if (engine !== undefined) out.engine = engine;
  return out;
}

/** Entry keys a delta sets (their blobs must be stored before the delta is). */
export function deltaEntryKeys(d: StateDelta): string[] {
  return d.entries ? d.entries.set.map(entryKey) : [];
}
