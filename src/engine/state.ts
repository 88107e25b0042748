import type { Artifact, ToolCall } from './types';

/** Where one artifact version stands in the chat. */
export type Presence = 'present' | 'detached' | 'pruned' | 'replaced';

export interface EntryState {
  readonly artifact: Artifact;
  /** `id` for v1, `id@vN` after. */
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
  /** Structure + preview standing in for the full content. */
  compacted?: { body: string; bodyHash: string; keptLines: number; totalLines: number };
  /** refresh-in-place: this version took the L2 slot of an older one. */
  inPlaceOf?: string;
  /** A selection attached with an endLine past the end of the file: that endLine (it was clamped). */
  requestedEndLine?: number;
  /**
   * Read by a workspace tool, not attached by the user: cut before anything the user
   * attached (it can be read again), the tool's name. A later version of a file keeps it.
   */
  tool?: string;
  /** Detached by the check before a request, not by the user (its stub says so): why. */
  withdrawn?: 'excluded' | 'outside-workspace';
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

/** One model step of a turn that called tools: what it said, its calls, their results. */
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

/** Everything a chat needs to render its next request; persisted by the chat store. */
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

const EMPTY_BASE: ReadonlyMap<unknown, unknown> = new Map();

/**
 * One version of a LayeredMap lineage. The root version's content is the lineage's one Map; any
 * other version's content is its `next` version's content with `diff` applied (Baker's "rerooting"
 * of persistent arrays). A diff is a flat list of (key, present, value) triples, applied last to
 * first.
 */
interface Version<K, V> {
  next: Version<K, V> | undefined;
  diff: unknown[];
  /**
   * Other versions may lead here (a clone was made from it, or it became the root again): a write
   * at it, as the root, then starts a new version instead of changing this one in place.
   */
  sealed: boolean;
  /** As the root, unsealed: the one version whose `next` it is (it gets the inverse of each write). */
  log: Version<K, V> | undefined;
}

/** A lineage: the Map holding the root version's content. */
interface MapLineage<K, V> {
  map: Map<K, V>;
  root: Version<K, V>;
  /** Counts reroots: an iteration that sees it change has lost its place in the Map. */
  epoch: number;
  /** Keys deleted from `map` since it was made (see DEAD_ENTRIES_BEFORE_REBUILD). */
  dead: number;
}

/**
 * A V8 Map keeps a deleted entry in its bucket's chain until the table is rehashed, and adding a key
 * walks the chain: a key deleted and added again over and over (the context meter builds a turn,
 * abandons it, builds it again: each time the reroot back deletes what the last build added) makes
 * that walk as long as the deletions since the last rehash, which a table of thousands of entries
 * lets run into the thousands. After this many
 * deletions the Map is made again (a copy keeps the order and drops the dead entries).
 */
const DEAD_ENTRIES_BEFORE_REBUILD = 64;

/**
 * A Map whose clones (`relayer`) cost nothing, written or not, at any size. In content and
 * in iteration order a clone is what a copy of the map followed by the same `set` calls would be
 * (keys in first insertion order; no `delete`), and no write reaches another clone or the map it came
 * from.
 *
 * Every map of a lineage (a map, its clones, their clones) is a version over one shared Map, which
 * holds the content of one of them, the root; each other version knows how to get its content from
 * a neighbour's (a few key/value pairs). Reading a version that is not the root first makes it the
 * root: the pairs along the way are applied to the Map and the way back is recorded. The engine
 * reads one state at a time (the committed state, then its clone for the next request; the context
 * meter's clones of the committed state, one after another), so that costs the writes of a turn or
 * two, once. A write at the root changes the Map in place and records its inverse for the version
 * that leads to it. Reads at the root are plain Map reads.
 */
export class LayeredMap<K, V> extends Map<K, V> {
  #lineage: MapLineage<K, V>;
  #version: Version<K, V>;

  /** A new lineage whose content is a copy of `base` (the base is not read again). */
  constructor(base: ReadonlyMap<K, V>, from?: { lineage: MapLineage<K, V>; version: Version<K, V> }) {
    super();
    if (from) {
      this.#lineage = from.lineage;
      this.#version = from.version;
    } else {
      const root: Version<K, V> = { next: undefined, diff: [], sealed: false, log: undefined };
      this.#lineage = { map: new Map(base), root, epoch: 0, dead: 0 };
      this.#version = root;
    }
  }

  /** A clone: a new version with this map's content, written independently of it. */
  relayer(): LayeredMap<K, V> {
    const parent = this.#version;
    // Its content is kept from now on (a write starts a new version), so the version before it no
    // longer needs the inverse of later writes: not kept alive through it either.
    parent.sealed = true;
    parent.log = undefined;
    const version: Version<K, V> = { next: parent, diff: [], sealed: false, log: undefined };
    return new LayeredMap<K, V>(EMPTY_BASE as ReadonlyMap<K, V>, { lineage: this.#lineage, version });
  }

  /** Makes this map's version the root: the Map then holds its content. */
  #reroot(): Map<K, V> {
    const lin = this.#lineage;
    const target = this.#version;
    if (lin.root === target) return lin.map;
    const path: Version<K, V>[] = [];
    for (let v: Version<K, V> | undefined = target; v !== undefined && v !== lin.root; v = v.next) path.push(v);
    const map = lin.map;
    let root = lin.root;
    for (let i = path.length - 1; i >= 0; i--) {
      const v = path[i];
      const diff = v.diff;
      const inverse: unknown[] = [];
      for (let j = diff.length - 3; j >= 0; j -= 3) {
        const key = diff[j] as K;
        const had = map.has(key);
        inverse.push(key, had, had ? map.get(key) : undefined);
        if (diff[j + 1] as boolean) map.set(key, diff[j + 2] as V);
        else if (map.delete(key)) lin.dead++;
      }
      root.next = v;
      root.diff = inverse;
      root.log = undefined;
      v.next = undefined;
      v.diff = [];
      root = v;
    }
    // Versions that led to the old root now lead here too: a write here starts a new version.
    root.sealed = true;
    root.log = undefined;
    lin.root = root;
    lin.epoch++;
    if (lin.dead >= DEAD_ENTRIES_BEFORE_REBUILD) {
      // An iteration over the old Map sees the epoch change and continues from a snapshot.
      lin.map = new Map(map);
      lin.dead = 0;
    }
    return lin.map;
  }

  override get(key: K): V | undefined {
    const lin = this.#lineage;
    return (lin.root === this.#version ? lin.map : this.#reroot()).get(key);
  }

  override has(key: K): boolean {
    const lin = this.#lineage;
    return (lin.root === this.#version ? lin.map : this.#reroot()).has(key);
  }

  override set(key: K, value: V): this {
    const map = this.#reroot();
    const lin = this.#lineage;
    let v = this.#version;
    if (v.sealed) {
      // Other versions lead to this one: it keeps its content, described from a new root.
      const fresh: Version<K, V> = { next: undefined, diff: [], sealed: false, log: v };
      v.next = fresh;
      v.diff = [];
      lin.root = fresh;
      this.#version = v = fresh;
    }
    const had = map.has(key);
    if (v.log) v.log.diff.push(key, had, had ? map.get(key) : undefined);
    map.set(key, value);
    return this;
  }

  override get size(): number {
    return this.#reroot().size;
  }

  override delete(_key: K): boolean {
    throw new Error('a LayeredMap does not delete');
  }

  override clear(): void {
    throw new Error('a LayeredMap does not clear');
  }

  override *entries(): MapIterator<[K, V]> {
    const lin = this.#lineage;
    const map = this.#reroot();
    const epoch = lin.epoch;
    const it = map.entries();
    let i = 0;
    for (;;) {
      if (lin.epoch !== epoch) {
        // Another version was read between two steps: the Map was changed under the iterator. This
        // version's content, in the same order, from where it was.
        const rest = [...this.#reroot().entries()];
        for (let j = i; j < rest.length; j++) yield rest[j];
        return;
      }
      const r = it.next();
      if (r.done) return;
      i++;
      yield r.value;
    }
  }

  override *keys(): MapIterator<K> {
    for (const [k] of this.entries()) yield k;
  }

  override *values(): MapIterator<V> {
    for (const [, v] of this.entries()) yield v;
  }

  override [Symbol.iterator](): MapIterator<[K, V]> {
    return this.entries();
  }

  override forEach(callback: (value: V, key: K, map: Map<K, V>) => void, thisArg?: unknown): void {
    for (const [k, v] of this.entries()) callback.call(thisArg, v, k, this);
  }

  /** How Node's inspector shows it: the entries, not the versions. */
  [Symbol.for('nodejs.util.inspect.custom')](): Map<K, V> {
    return new Map(this.entries());
  }
}

/**
 * A clone of a state's map. A plain Map (a state decoded or made empty, never cloned) becomes the
 * root of a lineage first, and the state keeps that root instead (`adopt`): its content is copied
 * once, not at every clone (the context meter clones a freshly opened chat's state at each change).
 */
function layerOver<K, V>(m: Map<K, V>, adopt: (root: LayeredMap<K, V>) => void): Map<K, V> {
  if (m instanceof LayeredMap) return m.relayer();
  const root = new LayeredMap<K, V>(m);
  adopt(root);
  return root.relayer();
}

/**
 * Copy-on-write clones. A pending turn's state's maps are versions of the committed
 * state's (LayeredMap), and it shares its order array and entries until it writes them, so a clone
 * costs the same at turn 1,000 as at turn 1. Every
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
    entries: layerOver(s.entries, (root) => (s.entries = root)),
    latest: layerOver(s.latest, (root) => (s.latest = root)),
    versions: layerOver(s.versions, (root) => (s.versions = root)),
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

/** A clone's maps are its own versions (see LayeredMap): written directly. */
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
