"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.LayeredMap = void 0;
exports.emptyState = emptyState;
exports.cloneState = cloneState;
exports.settleState = settleState;
exports.writableEntry = writableEntry;
exports.putEntry = putEntry;
exports.writableLatest = writableLatest;
exports.writableVersions = writableVersions;
exports.writableOrder = writableOrder;
exports.writeCount = writeCount;
exports.entryChanges = entryChanges;
exports.appendTurnRecord = appendTurnRecord;
exports.extendsTurns = extendsTurns;
function emptyState() {
    return { completedTurns: 0, entries: new Map(), latest: new Map(), versions: new Map(), order: [], turns: [], previousBlocks: [] };
}
/**
 * A Map that reads through to a base map and keeps only its own writes: in content and in iteration
 * order it is what a copy of the base followed by the same `set` calls would be (keys in first
 * insertion order; no `delete`). A clone's maps are layers over the committed state's, so a clone
 * costs the writes of one turn, not a copy of every entry. The base is never written.
 */
class LayeredMap extends Map {
    #base;
    /** This layer's writes. */
    #own;
    /** Keys set here that the base does not have, in insertion order. */
    #added;
    /** Writes of `undefined` here (a lookup then needs `has` to tell them from a miss). */
    #undefinedWrites;
    /** `#own` and `#added` are still the (frozen) parent layer's: copied on the first write. */
    #shared;
    constructor(base, own) {
        super();
        this.#base = base;
        this.#own = own ? own.#own : new Map();
        this.#added = own ? own.#added : [];
        this.#undefinedWrites = own ? own.#undefinedWrites : 0;
        this.#shared = !!own;
    }
    /**
     * A new layer for a clone of the state that owns this (frozen) map: over the same base, starting
     * with this layer's writes, so layers never stack. A clone that writes copies the layer it starts
     * from (at every build, the context meter's too), and flattening copies the base: the layer is kept
     * under 4·√(base size) writes, which balances the two (a fixed fraction of the base made one or the
     * other grow with the chat). Flattening takes a flat copy of this map as its base (same content,
     * once, not at every clone of the same state).
     */
    relayer() {
        if (this.#own.size * this.#own.size > 16 * this.#base.size) {
            const flat = new Map();
            for (const [k, v] of this.#base)
                flat.set(k, this.#own.has(k) ? this.#own.get(k) : v);
            for (const k of this.#added)
                flat.set(k, this.#own.get(k));
            this.#base = flat;
            this.#own = new Map();
            this.#added = [];
            this.#undefinedWrites = 0;
            this.#shared = false;
        }
        return new LayeredMap(this.#base, this);
    }
    get(key) {
        const own = this.#own;
        if (own.size !== 0) {
            const v = own.get(key);
            if (v !== undefined || (this.#undefinedWrites > 0 && own.has(key)))
                return v;
        }
        return this.#base.get(key);
    }
    has(key) {
        return this.#own.has(key) || this.#base.has(key);
    }
    set(key, value) {
        if (this.#shared) {
            // A clone that writes takes its own copy of the layer it started from (one that only reads never does).
            this.#own = new Map(this.#own);
            this.#added = this.#added.slice();
            this.#shared = false;
        }
        if (!this.#own.has(key) && !this.#base.has(key))
            this.#added.push(key);
        if (value === undefined)
            this.#undefinedWrites++;
        this.#own.set(key, value);
        return this;
    }
    get size() {
        return this.#base.size + this.#added.length;
    }
    delete(_key) {
        throw new Error('a LayeredMap does not delete');
    }
    clear() {
        throw new Error('a LayeredMap does not clear');
    }
    *entries() {
        const own = this.#own;
        if (own.size === 0) {
            yield* this.#base.entries();
            return;
        }
        for (const [k, v] of this.#base)
            yield [k, own.has(k) ? own.get(k) : v];
        for (const k of this.#added)
            yield [k, own.get(k)];
    }
    *keys() {
        yield* this.#base.keys();
        yield* this.#added;
    }
    *values() {
        for (const [, v] of this.entries())
            yield v;
    }
    [Symbol.iterator]() {
        return this.entries();
    }
    forEach(callback, thisArg) {
        for (const [k, v] of this.entries())
            callback.call(thisArg, v, k, this);
    }
    /** How Node's inspector shows it: the entries, not the layers. */
    [Symbol.for('nodejs.util.inspect.custom')]() {
        return new Map(this.entries());
    }
}
exports.LayeredMap = LayeredMap;
function layerOver(m) {
    return m instanceof LayeredMap ? m.relayer() : new LayeredMap(m);
}
const lineages = new WeakMap();
/** Copy-on-write clone: a pending turn never mutates the committed state (see above). */
function cloneState(s) {
    const c = {
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
function settleState(s) {
    const l = lineages.get(s);
    if (l)
        l.parent = undefined;
}
/** The entry at `key`, safe to write (copied first if shared); the write is logged. */
function writableEntry(s, key) {
    const e = s.entries.get(key);
    if (!e)
        throw new Error(`no entry ${key}`);
    const l = lineages.get(s);
    if (!l)
        return e;
    l.writes.push(key);
    if (l.owned.has(e))
        return e;
    const copy = { ...e };
    s.entries.set(key, copy);
    l.owned.add(copy);
    return copy;
}
/** Adds or replaces the entry at `entry.key`; the write is logged. */
function putEntry(s, entry) {
    const l = lineages.get(s);
    if (l) {
        l.writes.push(entry.key);
        l.owned.add(entry);
    }
    s.entries.set(entry.key, entry);
}
/** A clone's maps are its own layers (see LayeredMap): written directly. */
function writableLatest(s) {
    return s.latest;
}
function writableVersions(s) {
    return s.versions;
}
function writableOrder(s) {
    const l = lineages.get(s);
    if (l && !l.order) {
        s.order = s.order.slice();
        l.order = true;
    }
    return s.order;
}
/** How many entry writes `s` has logged (a position for `entryChanges`). */
function writeCount(s) {
    return lineages.get(s)?.writes.length ?? 0;
}
/**
 * Keys of the entries that may differ between `from` (as it was when it had logged `fromWrites`
 * writes) and `to`: `to` itself later, a clone of `from`, or a sibling clone of the same parent.
 * Undefined when the two are not related that closely: then every entry must be compared.
 */
function entryChanges(from, fromWrites, to) {
    const lf = lineages.get(from);
    const lt = lineages.get(to);
    if (!lf || !lt)
        return undefined;
    if (from === to)
        return lt.writes.slice(fromWrites);
    if (lt.parent === from)
        return lf.writes.length > fromWrites ? lf.writes.slice(fromWrites).concat(lt.writes) : lt.writes;
    if (lt.parent !== undefined && lt.parent === lf.parent)
        return lf.writes.slice(0, fromWrites).concat(lt.writes);
    return undefined;
}
/**
 * Turn records are only ever appended, as a new array (states sharing the old one are unchanged).
 * The new array remembers the one it extends (one step back: older arrays are not kept alive), so
 * a cache that rendered the old one knows every record it saw is still there, in place.
 */
const appendedTo = new WeakMap();
function appendTurnRecord(s, record) {
    const prev = s.turns;
    const next = [...prev, record];
    appendedTo.delete(prev);
    appendedTo.set(next, prev);
    s.turns = next;
}
/** Whether `next` is `prev` or `prev` plus appended records. */
function extendsTurns(next, prev) {
    return next === prev || appendedTo.get(next) === prev;
}
//# sourceMappingURL=state.js.map