import type { Artifact, ToolCall } from './types';

/** Where one artifact version stands in the chat. */
export type Presence = 'present' | 'detached' | 'pruned' | 'replaced';

export interface EntryState {
  readonly artifact: Artifact;
  /** `id` for v1, `id@vN` after (DESIGN §2). */
  readonly key: string;
  /** Turn whose request first carried this version's block. */
  readonly firstTurn: number;
  presence: Presence;
  /** A newer version of the same id exists. */
  superseded: boolean;
  /** The file was deleted; the last snapshot is kept. */
  missing: boolean;
  /** Pinned by the user: never pruned or compacted. */
  essential: boolean;
  /** Structure + preview standing in for the full content (DESIGN §5). */
  compacted?: { body: string; bodyHash: string; keptLines: number; totalLines: number };
  /** refresh-in-place: this version took the L2 slot of an older one. */
  inPlaceOf?: string;
  /** A selection attached with an endLine past the end of the file: that endLine (it was clamped). */
  requestedEndLine?: number;
  /**
   * Read by a workspace tool, not attached by the user (issue 11): cut before anything the user
   * attached (it can be read again), the tool's name. A later version of a file keeps it.
   */
  tool?: string;
}

export type TurnItemMode = 'full' | 'reference' | 'missing';

export interface TurnItem {
  key: string;
  mode: TurnItemMode;
}

/** One tool call's result in a turn: the artifact it sent (a block or a reference), then a note. */
export interface StepResult {
  callId: string;
  /** The tool that was called. */
  tool: string;
  /** 0 or 1 items: what the tool read, as sent (`full` or `reference`). */
  items: TurnItem[];
  /** Text after it (a truncation note), or instead of it (a refusal, "nothing found"). */
  note?: string;
  /** A reference to part of a file block: the lines read. */
  range?: { startLine: number; endLine: number };
}

/** One model step of a turn that called tools (DESIGN §9): what it said, its calls, their results. */
export interface ToolStepRecord {
  text: string;
  calls: ToolCall[];
  results: StepResult[];
}

export interface TurnRecord {
  turn: number;
  userText: string;
  /** The L3 items of that turn, in the order they were sent. */
  items: TurnItem[];
  /** The tool steps before the reply, in order (absent: none). */
  steps?: ToolStepRecord[];
  reply: string;
}

export interface HistorySummary {
  /** Turns 1..throughTurn are represented by `text` instead of verbatim messages. */
  throughTurn: number;
  text: string;
}

/** Everything a chat needs to render its next request; persisted by the chat store (DESIGN §10). */
export interface ChatState {
  completedTurns: number;
  entries: Map<string, EntryState>;
  /** id → key of its newest version. */
  latest: Map<string, string>;
  /** id → highest version number handed out. */
  versions: Map<string, number>;
  /** Keys in first-seen order. */
  order: string[];
  turns: TurnRecord[];
  summary?: HistorySummary;
  /** `role:sha256(text)` of each block of the previous request (cache prediction, prefix breaks). */
  previousBlocks: string[];
}

export function emptyState(): ChatState {
  return { completedTurns: 0, entries: new Map(), latest: new Map(), versions: new Map(), order: [], turns: [], previousBlocks: [] };
}

const EMPTY_MAP: ReadonlyMap<unknown, unknown> = new Map();

/** The one empty map every layer without frozen writes reads (never written). */
function emptyMap<K, V>(): ReadonlyMap<K, V> {
  return EMPTY_MAP as ReadonlyMap<K, V>;
}

/** Writes of earlier layers, frozen: shared by every clone made from the same state, never written. */
interface FrozenLayer<K, V> {
  base: ReadonlyMap<K, V>;
  writes: ReadonlyMap<K, V>;
  /** Keys written there that `base` does not have, in insertion order. */
  added: readonly K[];
  /** Whether `writes` holds `undefined` values (a lookup then needs `has` to tell them from a miss). */
  undefinedWrites: boolean;
}

/**
 * A Map that reads through to a base map and keeps only its own writes: in content and in iteration
 * order it is what a copy of the base followed by the same `set` calls would be (keys in first
 * insertion order; no `delete`). A clone's maps are layers over the committed state's, so a clone
 * costs the writes of one turn, not a copy of every entry. The base is never written.
 *
 * Three levels: this layer's own writes, the frozen writes of the layers it was cloned from, and the
 * base. A clone starts with an empty layer of its own over its parent's frozen writes, so a clone
 * that writes copies nothing (the context meter builds a clone of the same committed state at every
 * change to the next request, and each of those writes the new attachment's version). The parent's
 * own writes join its frozen ones once, when it is first cloned, and every clone of it shares that.
 */
export class LayeredMap<K, V> extends Map<K, V> {
  #base: ReadonlyMap<K, V>;
  #frozen: ReadonlyMap<K, V>;
  #frozenAdded: readonly K[];
  #frozenUndefined: boolean;
  /** This layer's writes. */
  #own = new Map<K, V>();
  /** Keys set here that neither the base nor the frozen writes have, in insertion order. */
  #added: K[] = [];
  /** Writes of `undefined` here. */
  #undefinedWrites = 0;
  /** The frozen layer this map's clones start from (made by the first `relayer`, dropped by a write). */
  #forClones: FrozenLayer<K, V> | undefined;

  constructor(base: ReadonlyMap<K, V>, frozen?: FrozenLayer<K, V>) {
    super();
    this.#base = frozen ? frozen.base : base;
    this.#frozen = frozen ? frozen.writes : emptyMap<K, V>();
    this.#frozenAdded = frozen ? frozen.added : [];
    this.#frozenUndefined = frozen ? frozen.undefinedWrites : false;
  }

  /**
   * A new layer for a clone of the state that owns this (frozen) map: an empty layer of its own over
   * this map's writes, frozen (made once per map, shared by all its clones). The frozen writes are
   * kept under 4·√(base size): past that they are flattened into a new base (a flat copy, once), which
   * balances the copy of the writes at each commit against the copy of the base (a fixed fraction of
   * the base made one or the other grow with the chat).
   */
  relayer(): LayeredMap<K, V> {
    let f = this.#forClones;
    if (!f) {
      let writes: ReadonlyMap<K, V> = this.#frozen;
      let added: readonly K[] = this.#frozenAdded;
      if (this.#own.size > 0) {
        const merged = new Map(this.#frozen);
        for (const [k, v] of this.#own) merged.set(k, v);
        writes = merged;
        added = this.#added.length > 0 ? this.#frozenAdded.concat(this.#added) : this.#frozenAdded;
      }
      const undefinedWrites = this.#frozenUndefined || this.#undefinedWrites > 0;
      if (writes.size * writes.size > 16 * this.#base.size) {
        const flat = new Map<K, V>();
        for (const [k, v] of this.#base) flat.set(k, writes.has(k) ? (writes.get(k) as V) : v);
        for (const k of added) flat.set(k, writes.get(k) as V);
        f = { base: flat, writes: emptyMap<K, V>(), added: [], undefinedWrites: false };
      } else {
        f = { base: this.#base, writes, added, undefinedWrites };
      }
      this.#forClones = f;
    }
    return new LayeredMap<K, V>(f.base, f);
  }

  override get(key: K): V | undefined {
    const own = this.#own;
    if (own.size !== 0) {
      const v = own.get(key);
      if (v !== undefined || (this.#undefinedWrites > 0 && own.has(key))) return v;
    }
    const frozen = this.#frozen;
    if (frozen.size !== 0) {
      const v = frozen.get(key);
      if (v !== undefined || (this.#frozenUndefined && frozen.has(key))) return v;
    }
    return this.#base.get(key);
  }

  override has(key: K): boolean {
    return this.#own.has(key) || this.#frozen.has(key) || this.#base.has(key);
  }

  override set(key: K, value: V): this {
    // Clones made before this write keep what they started from.
    this.#forClones = undefined;
    if (!this.#own.has(key) && !this.#frozen.has(key) && !this.#base.has(key)) this.#added.push(key);
    if (value === undefined) this.#undefinedWrites++;
    this.#own.set(key, value);
    return this;
  }

  override get size(): number {
    return this.#base.size + this.#frozenAdded.length + this.#added.length;
  }

  override delete(_key: K): boolean {
    throw new Error('a LayeredMap does not delete');
  }

  override clear(): void {
    throw new Error('a LayeredMap does not clear');
  }

  /** The value of a key the base or the frozen writes have, over those two and this layer's writes. */
  #over(k: K, v: V): V {
    const own = this.#own;
    if (own.has(k)) return own.get(k) as V;
    const frozen = this.#frozen;
    return frozen.has(k) ? (frozen.get(k) as V) : v;
  }

  override *entries(): MapIterator<[K, V]> {
    if (this.#own.size === 0 && this.#frozen.size === 0) {
      yield* this.#base.entries();
      return;
    }
    for (const [k, v] of this.#base) yield [k, this.#over(k, v)];
    for (const k of this.#frozenAdded) yield [k, this.#over(k, undefined as V)];
    for (const k of this.#added) yield [k, this.#own.get(k) as V];
  }

  override *keys(): MapIterator<K> {
    yield* this.#base.keys();
    yield* this.#frozenAdded;
    yield* this.#added;
  }

  override *values(): MapIterator<V> {
    if (this.#own.size === 0 && this.#frozen.size === 0) {
      yield* this.#base.values();
      return;
    }
    for (const [k, v] of this.#base) yield this.#over(k, v);
    for (const k of this.#frozenAdded) yield this.#over(k, undefined as V);
    for (const k of this.#added) yield this.#own.get(k) as V;
  }

  override [Symbol.iterator](): MapIterator<[K, V]> {
    return this.entries();
  }

  override forEach(callback: (value: V, key: K, map: Map<K, V>) => void, thisArg?: unknown): void {
    for (const [k, v] of this.entries()) callback.call(thisArg, v, k, this);
  }

  /** How Node's inspector shows it: the entries, not the layers. */
  [Symbol.for('nodejs.util.inspect.custom')](): Map<K, V> {
    return new Map(this.entries());
  }
}

function layerOver<K, V>(m: Map<K, V>): Map<K, V> {
  return m instanceof LayeredMap ? m.relayer() : new LayeredMap<K, V>(m);
}

/**
 * Copy-on-write clones (issue 12). A pending turn's state reads through to the committed state's
 * maps (LayeredMap) and shares its order array and entries until it writes them, so a clone costs
 * the same at turn 1,000 as at turn 1. Every
 * write to an entry or container of a state goes through the helpers below (`writableEntry`,
 * `putEntry`, `writableLatest`, `writableVersions`, `writableOrder`): they copy what is still
 * shared and log the entry keys written, so a cache can tell which entries differ between two
 * related states (`entryChanges`) without comparing them all. States that are not clones (empty,
 * decoded) are written in place, as before.
 */
interface Lineage {
  /** The state this one was cloned from; dropped when it is settled (see `settleState`). */
  parent: ChatState | undefined;
  /** Entry keys written in this state (added, replaced or changed), in order; may repeat. */
  writes: string[];
  /** Entries this state owns (copied or created here); the others are shared with the parent. */
  owned: Set<EntryState>;
  order: boolean;
}

const lineages = new WeakMap<ChatState, Lineage>();

/** Copy-on-write clone: a pending turn never mutates the committed state (see above). */
export function cloneState(s: ChatState): ChatState {
  const c: ChatState = {
    completedTurns: s.completedTurns,
    entries: layerOver(s.entries),
    latest: layerOver(s.latest),
    versions: layerOver(s.versions),
    order: s.order,
    // Replaced, never mutated in place (HistoryManager.append).
    turns: s.turns,
    summary: s.summary ? { ...s.summary } : undefined,
    previousBlocks: s.previousBlocks,
  };
  lineages.set(c, { parent: s, writes: [], owned: new Set(), order: false });
  return c;
}

/** The state became the committed one: it no longer needs to know its parent (which may then be freed). */
export function settleState(s: ChatState): void {
  const l = lineages.get(s);
  if (l) l.parent = undefined;
}

/** The entry at `key`, safe to write (copied first if shared); the write is logged. */
export function writableEntry(s: ChatState, key: string): EntryState {
  const e = s.entries.get(key);
  if (!e) throw new Error(`no entry ${key}`);
  const l = lineages.get(s);
  if (!l) return e;
  l.writes.push(key);
  if (l.owned.has(e)) return e;
  const copy: EntryState = { ...e };
  s.entries.set(key, copy);
  l.owned.add(copy);
  return copy;
}

/** Adds or replaces the entry at `entry.key`; the write is logged. */
export function putEntry(s: ChatState, entry: EntryState): void {
  const l = lineages.get(s);
  if (l) {
    l.writes.push(entry.key);
    l.owned.add(entry);
  }
  s.entries.set(entry.key, entry);
}

/** A clone's maps are its own layers (see LayeredMap): written directly. */
export function writableLatest(s: ChatState): Map<string, string> {
  return s.latest;
}

export function writableVersions(s: ChatState): Map<string, number> {
  return s.versions;
}

export function writableOrder(s: ChatState): string[] {
  const l = lineages.get(s);
  if (l && !l.order) {
    s.order = s.order.slice();
    l.order = true;
  }
  return s.order;
}

/** How many entry writes `s` has logged (a position for `entryChanges`). */
export function writeCount(s: ChatState): number {
  return lineages.get(s)?.writes.length ?? 0;
}

/**
 * Keys of the entries that may differ between `from` (as it was when it had logged `fromWrites`
 * writes) and `to`: `to` itself later, a clone of `from`, or a sibling clone of the same parent.
 * Undefined when the two are not related that closely: then every entry must be compared.
 */
export function entryChanges(from: ChatState, fromWrites: number, to: ChatState): readonly string[] | undefined {
  const lf = lineages.get(from);
  const lt = lineages.get(to);
  if (!lf || !lt) return undefined;
  if (from === to) return lt.writes.slice(fromWrites);
  if (lt.parent === from) return lf.writes.length > fromWrites ? lf.writes.slice(fromWrites).concat(lt.writes) : lt.writes;
  if (lt.parent !== undefined && lt.parent === lf.parent) return lf.writes.slice(0, fromWrites).concat(lt.writes);
  return undefined;
}

/**
 * Turn records are only ever appended, as a new array (states sharing the old one are unchanged).
 * The new array remembers the one it extends (one step back: older arrays are not kept alive), so
 * a cache that rendered the old one knows every record it saw is still there, in place.
 */
const appendedTo = new WeakMap<readonly TurnRecord[], readonly TurnRecord[]>();

export function appendTurnRecord(s: ChatState, record: TurnRecord): void {
  const prev = s.turns;
  const next = [...prev, record];
  appendedTo.delete(prev);
  appendedTo.set(next, prev);
  s.turns = next;
}

/** Whether `next` is `prev` or `prev` plus appended records. */
export function extendsTurns(next: readonly TurnRecord[], prev: readonly TurnRecord[]): boolean {
  return next === prev || appendedTo.get(next) === prev;
}
