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
exports.ChatStore = exports.BLOB_GRACE_MS = exports.ChatStoreError = exports.EXPORT_FORMAT = exports.INDEX_FORMAT = exports.CHAT_FORMAT = void 0;
exports.validateChatId = validateChatId;
exports.chatIdFor = chatIdFor;
exports.writeFileAtomic = writeFileAtomic;
/**
 * The chat store (DESIGN §10): per workspace, under the folder the host passes
 * (`ExtensionContext.storageUri`), every chat as an append-only JSONL file plus content-addressed
 * blobs for artifact snapshots, so a reloaded chat renders byte-identical requests even when the
 * files changed on disk since. Plain Node (fs), no vscode.
 *
 * Layout of a root:
 *   index.json                      chat list (id, title, turns, created/updated) — written atomically
 *   chats/<id>.jsonl                one line per completed turn: the state delta, a digest of the full
 *                                   state after it, and the turn's metadata
 *   chats/<id>.corrupt-<n>.jsonl    a chat file that failed to load, moved aside
 *   blobs/<hash[0..2]>/<hash>       artifact snapshots (and compacted previews), named by the sha256
 *                                   of their bytes; written once (tmp + rename), verified on read
 *
 *   store.lock                      held by the one writer of the moment (storeLock.ts)
 *
 * Crash safety: blobs are written before the line that needs them, a line is appended with one
 * write + fsync, and only a torn last line can be lost (it is ignored with a warning and cut off
 * before the next append). The index is rebuilt from the chat files when it is missing or stale.
 * Wall-clock time appears only in display metadata (`createdAt`, `updatedAt`, a turn's `at`),
 * never in anything that is rendered into a request.
 *
 * Two windows, one folder: every change (append, regenerate, rename, delete, blob collection, index
 * writes, moving a damaged file aside) happens under the store lock, after re-reading what it
 * changes; reads take no lock. A turn is appended only on the state it was built on: the caller
 * passes that state's `ChatBase` (turn count + the last line's stateHash, from `loadChat` or the
 * previous append), and when the file has moved on since, the append is refused with a `conflict`
 * saying whether the other window only appended (`appended`: rebuild the turn on top, see
 * TurnPipeline) or rewrote or deleted what the turn followed (`diverged`, `missing`). So no line is
 * ever written twice or between another writer's lines, and a torn tail is only cut by the lock
 * holder (a reader that sees one while another window holds the lock treats it as a write in
 * progress). Blob collection keeps every blob a chat file names and, for the blobs no file names
 * yet, a grace period (`collectBlobs`).
 */
const crypto = __importStar(require("crypto"));
const fs = __importStar(require("fs"));
const path = __importStar(require("path"));
const state_1 = require("../engine/state");
const stateCodec_1 = require("../engine/stateCodec");
const hash_1 = require("../common/hash");
const chatChain_1 = require("./chatChain");
const storeLock_1 = require("./storeLock");
exports.CHAT_FORMAT = 'strata-chat';
exports.INDEX_FORMAT = 'strata-chat-index';
exports.EXPORT_FORMAT = 'strata-chat-export';
const FORMAT_VERSION = 1;
class ChatStoreError extends Error {
    code;
    movedTo;
    conflict;
    constructor(code, message, movedTo, conflict) {
        super(message);
        this.code = code;
        this.movedTo = movedTo;
        this.conflict = conflict;
        this.name = 'ChatStoreError';
    }
}
exports.ChatStoreError = ChatStoreError;
/** A chat file that does not read back (thrown by `readHead`; moved aside only after a re-read under the lock). */
class ChatCorrupt extends Error {
}
/** How long opening a store waits for another window's write before it skips checking the index. */
const OPEN_LOCK_WAIT_MS = 1000;
/** Default of `ChatStoreOptions.blobGraceMs`. */
exports.BLOB_GRACE_MS = 10 * 60_000;
function emptyHead() {
    return { chain: undefined, turns: [], warnings: [], validBytes: 0, fileBytes: 0, needsNewline: false, lastLineStart: 0, lastLineTurns: 0, lines: 0, lastHash: '', lastLineSha: '', lineHashes: new Map(), ino: -1 };
}
function baseOf(head) {
    return { turns: head.chain?.turnCount ?? 0, stateHash: head.lastHash };
}
const EMPTY_SHA256 = crypto.createHash('sha256').digest('hex');
const CHAT_ID = /^[a-z0-9][a-z0-9_-]{0,127}$/;
const HEX64 = /^[0-9a-f]{64}$/;
/** Names Windows reserves for devices, with any extension. */
const WINDOWS_DEVICE = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])$/;
const CORRUPT_NAME = /^([a-z0-9][a-z0-9_-]{0,127})\.corrupt-(\d+)\.jsonl$/;
const REDACTED = '[REDACTED]';
const SECRET_ENV_NAME = /(API_?KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|PRIVATE_?KEY)/i;
let tmpCounter = 0;
function isObj(v) {
    return typeof v === 'object' && v !== null && !Array.isArray(v);
}
function nodeSha256(data) {
    return crypto.createHash('sha256').update(data).digest('hex');
}
/** Validates a chat id: lowercase letters, digits, `-` and `_` (so never a path, and the same on case-insensitive disks). */
/** A token-count key: the first 32 hex digits of the text's sha256. */
const COUNT_KEY = /^[0-9a-f]{32}$/;
/** A counts file larger than this is not read (a 1,000-turn chat's is about 0.4 MB). */
const MAX_COUNTS_BYTES = 64 * 1024 * 1024;
function validateChatId(id) {
    if (typeof id !== 'string' || !CHAT_ID.test(id) || WINDOWS_DEVICE.test(id)) {
        throw new ChatStoreError('invalid-id', `invalid chat id ${JSON.stringify(id)}: use 1–128 lowercase letters, digits, "-" or "_", starting with a letter or digit`);
    }
    return id;
}
/** A valid chat id derived from any text (a trajectory name, an imported id): stable for the same text. */
function chatIdFor(seed) {
    const base = seed.toLowerCase().replace(/[^a-z0-9_-]+/g, '-').replace(/^[-_]+/, '').slice(0, 100);
    if (base.length > 0 && base === seed && !WINDOWS_DEVICE.test(base))
        return base;
    const h = (0, hash_1.sha256Hex)(seed).slice(0, 8);
    return base.length > 0 ? `${base.replace(/-+$/, '')}-${h}` : `chat-${h}`;
}
function titleFrom(text) {
    const flat = text.replace(/\s+/g, ' ').trim();
    if (flat.length === 0)
        return 'New chat';
    return flat.length <= 60 ? flat : `${flat.slice(0, 59)}…`;
}
class ChatStore {
    root;
    options;
    chatsDir;
    blobsDir;
    /** Token counts of the chats' texts (a cache, see `appendTokenCounts`). */
    countsDir;
    indexFile;
    durable;
    now;
    heads = new Map();
    /**
     * The engine's turn records are never changed once made: each one's encoded form, as the object the
     * chain holds, so a save compares the turns already saved by identity, not by serializing them.
     */
    savedTurns = new WeakMap();
    /** Serializes writers across windows (and store instances). */
    lock;
    /** Problems found while opening (index rebuilt, stale temp files removed). */
    warnings = [];
    constructor(root, options) {
        this.root = root;
        this.options = options;
        this.chatsDir = path.join(root, 'chats');
        this.blobsDir = path.join(root, 'blobs');
        this.countsDir = path.join(root, 'counts');
        this.indexFile = path.join(root, 'index.json');
        this.durable = options.durable ?? true;
        this.now = options.now ?? (() => new Date());
        this.lock = new storeLock_1.StoreLock(path.join(root, 'store.lock'), options.lock);
    }
    /** Opens (creating if needed) the store of one workspace. */
    static open(root, options = {}) {
        const store = new ChatStore(path.resolve(root), options);
        fs.mkdirSync(store.chatsDir, { recursive: true });
        fs.mkdirSync(store.blobsDir, { recursive: true });
        storeLock_1.StoreLock.removeStaleTokens(store.root, 'store.lock');
        // A window opening must not hang on another one's write: a short wait, then the chats as they are.
        try {
            store.locked(() => {
                store.removeStaleTemps();
                store.reconcileIndex();
            }, OPEN_LOCK_WAIT_MS);
        }
        catch (e) {
            if (!(e instanceof ChatStoreError && e.code === 'busy'))
                throw e;
            store.warnings.push(`the chat list was not checked against the chat files: ${e.message}`);
        }
        return store;
    }
    /**
     * Runs `fn` holding the store lock (re-entrant: the store's own methods can be called inside): no
     * other window changes anything meanwhile. For a read-modify-write that spans more than one store
     * call (the pipeline rebuilding a turn on another window's turns). Keep it short.
     */
    exclusive(fn) {
        return this.locked(fn);
    }
    /** Runs a change under the store lock; a lock held too long by another window is a `busy` error. */
    locked(fn, waitMs) {
        try {
            this.lock.acquire(waitMs);
        }
        catch (e) {
            if (e instanceof storeLock_1.LockBusyError)
                throw new ChatStoreError('busy', e.message);
            throw e;
        }
        try {
            return fn();
        }
        finally {
            this.lock.release();
        }
    }
    // ---------------------------------------------------------------- listing
    /** The chats of this workspace, most recently updated first. */
    listChats() {
        return this.readIndex().slice().sort((a, b) => (a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : a.id < b.id ? -1 : 1));
    }
    hasChat(chatId) {
        return fs.existsSync(this.chatPath(validateChatId(chatId)));
    }
    // ---------------------------------------------------------------- saving
    /**
     * Appends the turn the engine just completed. Under the store lock: the chat file is read again
     * (only what another window added since this instance last read it), `input.base` is checked
     * against it (a `conflict` error otherwise, see `ChatConflict`), then blobs, then one line
     * (write + fsync), then the index. Returns the bytes appended, the new base, and any repair
     * warnings (a torn tail cut off, a corrupt file moved aside and replaced by the full state).
     */
    appendTurn(chatId, input) {
        const id = validateChatId(chatId);
        return this.locked(() => this.appendLocked(id, input));
    }
    appendLocked(id, input) {
        const file = this.chatPath(id);
        const warnings = [];
        const current = this.headForWrite(id, warnings);
        let head = current.head;
        // A file this call had to move aside: the caller's state is the best copy there is.
        if (input.base && !current.movedAside)
            this.checkBase(id, head, current.exists, input.base);
        if (input.replaceLast)
            head = this.cutLastLine(id, head);
        if (head.validBytes < head.fileBytes) {
            fs.truncateSync(file, head.validBytes);
            warnings.push(`chat ${id}: cut off ${head.fileBytes - head.validBytes} bytes of a torn last line before appending`);
            head = { ...head, fileBytes: head.validBytes };
        }
        const headEnc = head.chain?.encoded();
        const meta = input.engine ? ('tokenizer' in input.engine ? (0, stateCodec_1.engineMeta)(input.engine) : input.engine) : headEnc?.engine;
        const enc = (0, stateCodec_1.encodeState)(input.state, { engine: meta });
        input.state.turns.forEach((t, i) => {
            const saved = this.savedTurns.get(t);
            if (saved && i < enc.turns.length)
                enc.turns[i] = saved;
        });
        if (headEnc && enc.completedTurns <= headEnc.completedTurns) {
            throw new ChatStoreError('conflict', `chat ${id} already has ${headEnc.completedTurns} turns saved; cannot save turn ${enc.completedTurns} (was the chat changed in another window?)`);
        }
        // Canonical key order on both sides: the delta names only what changed, and its objects keep the
        // chain canonical (its digest is then a plain JSON.stringify away; see chatChain.ts).
        const next = (0, chatChain_1.canonicalize)(enc);
        const prev = head.chain && !head.chain.canonical ? (0, chatChain_1.canonicalize)(headEnc).value : headEnc;
        const delta = (0, stateCodec_1.diffState)(prev, next.value);
        for (const b of (0, stateCodec_1.stateBlobs)(input.state, (0, stateCodec_1.deltaEntryKeys)(delta))) {
            this.writeBlob(b.hash, b.text);
            this.lock.touch();
        }
        const chain = head.chain ? head.chain.clone() : new chatChain_1.StateChain();
        chain.apply(delta, next.canonical);
        const stateHash = chain.digest();
        const chainTurns = chain.encoded().turns;
        input.state.turns.forEach((t, i) => this.savedTurns.set(t, chainTurns[i]));
        const line = { format: exports.CHAT_FORMAT, v: FORMAT_VERSION, turn: enc.completedTurns, delta, stateHash, meta: this.turnMeta(input) };
        const json = JSON.stringify(line);
        const text = (head.needsNewline ? '\n' : '') + json + '\n';
        this.lock.assertHeld();
        const bytes = this.appendLine(file, text);
        const lineStart = head.fileBytes + (head.needsNewline ? 1 : 0);
        const saved = meta ? { ...line.meta, engine: meta } : line.meta;
        const lineHashes = head.lineHashes;
        lineHashes.set(enc.completedTurns, stateHash);
        const ino = head.ino >= 0 ? head.ino : fileIno(file);
        const fileBytes = head.fileBytes + bytes;
        this.heads.set(id, {
            chain, turns: [...head.turns, saved], warnings: [], validBytes: fileBytes, fileBytes, needsNewline: false, lastLineStart: lineStart,
            lastLineTurns: enc.completedTurns - (headEnc?.completedTurns ?? 0), lines: head.lines + 1, lastHash: stateHash, lastLineSha: nodeSha256(json + '\n'), lineHashes, ino,
        });
        const first = input.state.turns[0]?.userText ?? '';
        this.upsertIndex(id, enc.completedTurns, input.title ?? titleFrom(first));
        return { bytes, warnings, meta: saved, turn: enc.completedTurns, base: { turns: enc.completedTurns, stateHash } };
    }
    /**
     * The chat's head as on disk now, for a writer (under the lock): the cached head continued with
     * what was appended since; a missing file is an empty head; a corrupt one is moved aside.
     */
    headForWrite(id, warnings) {
        try {
            const head = this.readHead(id, undefined, this.heads.get(id));
            this.heads.set(id, head);
            return { head, exists: true, movedAside: false };
        }
        catch (e) {
            if (e instanceof ChatStoreError && e.code === 'not-found') {
                this.heads.delete(id);
                return { head: emptyHead(), exists: false, movedAside: false };
            }
            if (!(e instanceof ChatCorrupt))
                throw e;
            const err = this.corrupt(id, e.message);
            warnings.push(`${err.message}; the chat continues from the current state in a new file`);
            return { head: emptyHead(), exists: false, movedAside: true };
        }
    }
    checkBase(id, head, exists, base) {
        const disk = baseOf(head);
        if (disk.turns === base.turns && disk.stateHash === base.stateHash)
            return;
        const reason = !exists && base.turns > 0 ? 'missing' : base.turns === 0 || head.lineHashes.get(base.turns) === base.stateHash ? 'appended' : 'diverged';
        const what = reason === 'missing'
            ? `chat ${id} was deleted (in another window?)`
            : reason === 'appended'
                ? `chat ${id} has ${disk.turns - base.turns} turn(s) saved after turn ${base.turns} (in another window?)`
                : `chat ${id} no longer holds the turn ${base.turns} this turn followed (it was replaced or removed, in another window?)`;
        throw new ChatStoreError('conflict', `${what}; the turn was not saved`, undefined, { reason, base: { ...base }, disk });
    }
    /** Regenerate's first half, under the append's lock: cut the last line (it must be one turn). */
    cutLastLine(id, head) {
        if (!head.chain || head.chain.turnCount === 0)
            throw new ChatStoreError('not-found', `chat ${id} has no turn to remove`);
        if (head.lastLineTurns !== 1)
            throw new ChatStoreError('conflict', `the last ${head.lastLineTurns} turns of chat ${id} were imported together and cannot be removed one by one`);
        this.truncateFile(this.chatPath(id), head.lastLineStart);
        this.heads.delete(id);
        const again = this.readHead(id);
        this.heads.set(id, again);
        return again;
    }
    turnMeta(input) {
        const s = input.state;
        const record = s.turns.length > 0 && s.turns[s.turns.length - 1].turn === s.completedTurns ? s.turns[s.turns.length - 1] : undefined;
        const keys = (pred) => s.order.filter((k) => pred(s.entries.get(k)));
        const meta = {
            turn: s.completedTurns,
            at: this.now().toISOString(),
            attachments: (record?.items ?? []).map((i) => {
                const a = s.entries.get(i.key).artifact;
                const m = { key: i.key, id: a.id, kind: a.kind, version: a.version, contentHash: a.contentHash, uri: a.source.uri, mode: i.mode };
                if (a.source.range)
                    m.range = { ...a.source.range };
                return m;
            }),
            pinned: keys((e) => e.essential && e.presence === 'present'),
            detached: keys((e) => e.presence === 'detached'),
            pruned: keys((e) => e.presence === 'pruned'),
            compacted: keys((e) => !!e.compacted && e.presence === 'present'),
            missing: keys((e) => e.missing),
        };
        if (s.summary)
            meta.summaryThrough = s.summary.throughTurn;
        const env = input.envelope;
        const layerHashes = input.layerHashes ?? (env?.layers ? Object.fromEntries(env.layers.map((l) => [l.id, l.hash])) : undefined);
        if (layerHashes)
            meta.layerHashes = layerHashes;
        if (env?.prefixHash)
            meta.prefixHash = env.prefixHash;
        if (env?.prefixBreak)
            meta.prefixBreak = env.prefixBreakReason ?? 'the prefix changed';
        if (env?.ledger?.budget !== undefined)
            meta.budget = env.ledger.budget;
        if (env?.totalTokens !== undefined)
            meta.predicted = { promptTokens: env.totalTokens, cachedTokens: env.ledger?.cachedTokens ?? 0 };
        if (env?.pruned && env.pruned.length > 0)
            meta.prunedReports = env.pruned.map((p) => ({ ...p }));
        if (env?.rejections && env.rejections.length > 0)
            meta.rejections = env.rejections.map((r) => ({ attachment: r.attachment, reason: r.reason }));
        if (input.usage)
            meta.usage = { input: input.usage.input, cacheRead: input.usage.cacheRead, cacheWrite: input.usage.cacheWrite, output: input.usage.output };
        if (env?.layers && env.layers.every((l) => typeof l.tokens === 'number'))
            meta.layerTokens = Object.fromEntries(env.layers.map((l) => [l.id, l.tokens]));
        if (env?.ledger?.layers && env.ledger.cachedTokens > 0) {
            meta.layerCached = Object.fromEntries(env.ledger.layers.map((l) => [l.id, l.items.reduce((n, i) => n + (i.cached ? i.tokens : 0), 0)]));
        }
        if (input.model)
            meta.model = input.model;
        if (input.provider)
            meta.provider = input.provider;
        if (input.stopped)
            meta.stopped = true;
        if (input.request)
            meta.request = JSON.parse(JSON.stringify(input.request));
        if (input.rebased)
            meta.rebased = { builtAfterTurn: input.rebased.builtAfterTurn };
        if (input.toolSteps && input.toolSteps.length > 0)
            meta.toolSteps = JSON.parse(JSON.stringify(input.toolSteps));
        return meta;
    }
    // ---------------------------------------------------------------- loading
    /**
     * Loads a chat: its state exactly as last saved (nothing in the workspace is read), the engine
     * options in force, per-turn metadata, its base (for the next append), and warnings (a torn last
     * line that was ignored). A corrupt file is moved aside (`ChatStoreError` code `corrupt`,
     * `movedTo`); a missing or damaged blob is a `missing-blob` error for this chat only.
     *
     * `reuse`: a state of this chat already in memory (a reload after another window saved): snapshots
     * it holds are taken from it instead of being read and verified again.
     */
    loadChat(chatId, opts = {}) {
        const id = validateChatId(chatId);
        const head = opts.throughTurn === undefined ? this.syncHead(id) : this.checkedHead(id, opts.throughTurn);
        const enc = head.chain?.encoded();
        let state;
        let engine;
        if (!enc) {
            state = (0, state_1.emptyState)();
        }
        else {
            try {
                state = this.decode(id, enc, opts.reuse);
                engine = (0, stateCodec_1.decodeEngineMetaOf)(enc);
                state.turns.forEach((t, i) => this.savedTurns.set(t, enc.turns[i]));
            }
            catch (e) {
                if (e instanceof ChatStoreError)
                    throw e;
                throw this.corruptAfterRecheck(id, e.message, opts.throughTurn);
            }
        }
        const entry = this.readIndex().find((c) => c.id === id);
        return { id, title: entry?.title ?? titleFrom(state.turns[0]?.userText ?? ''), state, engine, turns: head.turns.slice(), warnings: head.warnings, bytes: head.fileBytes, base: baseOf(head) };
    }
    /**
     * Where chat `chatId` on disk stands relative to `base` (what a window shows): `same`, or the
     * conflict reason another window's change would cause. Cheap when nothing changed (a stat and a
     * read of the last line); after another window's append, only the new lines are read.
     */
    chatStatus(chatId, base) {
        const id = validateChatId(chatId);
        let head;
        try {
            head = this.syncHead(id);
        }
        catch (e) {
            if (e instanceof ChatStoreError && (e.code === 'not-found' || e.code === 'corrupt')) {
                return { relation: base.turns === 0 ? 'same' : 'missing', disk: { turns: 0, stateHash: '' } };
            }
            throw e;
        }
        const disk = baseOf(head);
        if (disk.turns === base.turns && disk.stateHash === base.stateHash)
            return { relation: 'same', disk };
        return { relation: base.turns === 0 || head.lineHashes.get(base.turns) === base.stateHash ? 'appended' : 'diverged', disk };
    }
    /** Metadata of each saved turn of a chat, in order (reads only what was appended since the last read; no snapshot is read). */
    turnMetas(chatId) {
        return this.syncHead(validateChatId(chatId)).turns.slice();
    }
    /** The chat's head as on disk now, read without the lock (only what was appended since the last read). */
    syncHead(id) {
        try {
            const head = this.readHead(id, undefined, this.heads.get(id));
            this.heads.set(id, head);
            return head;
        }
        catch (e) {
            this.heads.delete(id);
            if (e instanceof ChatCorrupt)
                throw this.corruptAfterRecheck(id, e.message);
            throw e;
        }
    }
    /** The head up to `throughTurn` (Regenerate's state before the last turn; not cached). */
    checkedHead(id, throughTurn) {
        try {
            return this.readHead(id, throughTurn);
        }
        catch (e) {
            if (e instanceof ChatCorrupt)
                throw this.corruptAfterRecheck(id, e.message, throughTurn);
            throw e;
        }
    }
    /**
     * A read without the lock found the file damaged: read it again under the lock (a rewrite by
     * another window can look like damage to a reader racing with it) and move it aside only if it
     * still is. Returns the error to throw.
     */
    corruptAfterRecheck(id, why, throughTurn) {
        return this.locked(() => {
            this.heads.delete(id);
            try {
                const head = this.readHead(id, throughTurn);
                const enc = head.chain?.encoded();
                if (enc)
                    this.decode(id, enc);
            }
            catch (e) {
                if (e instanceof ChatCorrupt)
                    return this.corrupt(id, e.message);
                if (e instanceof ChatStoreError)
                    return e;
                return this.corrupt(id, e.message);
            }
            return new ChatStoreError('busy', `chat ${id} changed while it was being read (${why}); try again`);
        });
    }
    /**
     * The state of an encoded chat state, its snapshots read from the blobs. `decodeState` checks every
     * field and reference; it also checks each snapshot against its sha256 with the engine's pure-JS
     * hash, which for a few MB of attachments costs more than everything else together. So the state is
     * decoded with each (well-formed) blob reference standing in for an empty snapshot, and the
     * snapshots are filled in afterwards, verified with node:crypto by `readBlob` (or taken from
     * `reuse`, already verified). A reference that is not well-formed is left for `decodeState` to
     * report.
     */
    decode(id, enc, reuse) {
        const known = new Map();
        if (reuse) {
            for (const e of reuse.entries.values()) {
                known.set(e.artifact.contentHash, e.artifact.content);
                if (e.compacted)
                    known.set(e.compacted.bodyHash, e.compacted.body);
            }
        }
        const shadowed = [];
        const shadow = {
            ...enc,
            entries: enc.entries.map((e, i) => {
                const s = shadowEntry(e);
                shadowed[i] = s !== e;
                return s;
            }),
        };
        let blobError;
        let state;
        try {
            state = (0, stateCodec_1.decodeState)(shadow, (hash) => {
                if (hash === EMPTY_SHA256)
                    return '';
                try {
                    return this.readBlob(hash);
                }
                catch (e) {
                    if (e instanceof ChatStoreError)
                        blobError = e;
                    throw e;
                }
            });
        }
        catch (e) {
            if (blobError)
                throw new ChatStoreError('missing-blob', `chat ${id} cannot be loaded: ${e.message}`);
            throw e;
        }
        let i = 0;
        for (const entry of state.entries.values()) {
            const src = enc.entries[i];
            if (shadowed[i]) {
                const where = `chat state entries[${i}] (${entry.key})`;
                const a = src.artifact;
                entry.artifact.content = this.snapshot(id, a.contentHash, a.blob, a.blobEncoding, known, `${where} snapshot`);
                entry.artifact.contentHash = a.contentHash;
                if (src.compacted && entry.compacted) {
                    const c = src.compacted;
                    entry.compacted.body = this.snapshot(id, c.bodyHash, c.blob, c.blobEncoding, known, `${where} compacted preview`);
                    entry.compacted.bodyHash = c.bodyHash;
                }
            }
            i++;
        }
        return state;
    }
    /** One snapshot's text: from memory when known, else its blob (verified), decoded and checked against `hash`. */
    snapshot(id, hash, blob, encoding, known, where) {
        if (encoding === undefined && blob === undefined) {
            const mem = known.get(hash);
            if (mem !== undefined)
                return mem;
        }
        const name = blob ?? hash;
        let raw;
        try {
            raw = this.readBlob(name);
        }
        catch (e) {
            if (e instanceof ChatStoreError)
                throw new ChatStoreError('missing-blob', `chat ${id} cannot be loaded: ${where}: ${e.message}`);
            throw e;
        }
        let text = raw;
        if (encoding === 'json') {
            try {
                text = JSON.parse(raw);
            }
            catch {
                throw new Error(`${where}: blob ${name} is not a JSON string`);
            }
            if (typeof text !== 'string')
                throw new Error(`${where}: blob ${name} is not a JSON string`);
        }
        // A blob named by the content's hash was verified by readBlob; any other name needs this check.
        if (name !== hash && nodeSha256(text) !== hash)
            throw new Error(`${where}: blob ${name} does not match its sha256 ${hash.slice(0, 12)}…`);
        return text;
    }
    /**
     * Reads and checks a chat file without fetching blobs; with `throughTurn`, only the lines up to that
     * turn (the state before later turns: Regenerate builds on it without touching the file). With
     * `from` (this chat's head read earlier), only what was appended after it is read, when the file
     * is still the same file with the same last line; otherwise the whole file. Throws `ChatCorrupt`
     * for a damaged file (the caller decides whether to move it aside) and `not-found`.
     */
    readHead(id, throughTurn, from) {
        const file = this.chatPath(id);
        let fd;
        try {
            fd = fs.openSync(file, 'r');
        }
        catch (e) {
            if (e.code === 'ENOENT')
                throw new ChatStoreError('not-found', `there is no chat ${id} in this workspace`);
            throw e;
        }
        try {
            const st = fs.fstatSync(fd);
            const size = st.size;
            const cont = throughTurn === undefined && from && from.chain && continues(fd, st, from) ? from : undefined;
            if (cont && size === cont.fileBytes)
                return cont;
            const offset = cont ? cont.validBytes : 0;
            const buf = Buffer.allocUnsafe(size - offset);
            let got = 0;
            while (got < buf.length) {
                const n = fs.readSync(fd, buf, got, buf.length - got, offset + got);
                if (n === 0)
                    break;
                got += n;
            }
            return this.parseLines(id, buf.subarray(0, got), offset, throughTurn, cont, st.ino);
        }
        finally {
            fs.closeSync(fd);
        }
    }
    parseLines(id, buf, offset, throughTurn, cont, ino) {
        const warnings = [];
        const turns = cont ? cont.turns.slice() : [];
        const lineHashes = cont ? new Map(cont.lineHashes) : new Map();
        let chain = cont?.chain?.clone();
        let lastHash = cont?.lastHash ?? '';
        let lastLineSha = cont?.lastLineSha ?? '';
        let validBytes = cont?.validBytes ?? 0;
        let needsNewline = cont?.needsNewline ?? false;
        let lastLineStart = cont?.lastLineStart ?? 0;
        let lastLineTurns = cont?.lastLineTurns ?? 0;
        let lineNo = cont?.lines ?? 0;
        const fileBytes = offset + buf.length;
        let applied = 0;
        let lastLocal;
        let start = 0;
        while (start < buf.length) {
            const nl = buf.indexOf(0x0a, start);
            const end = nl < 0 ? buf.length : nl;
            const next = nl < 0 ? buf.length : nl + 1;
            lineNo++;
            const isLast = next >= buf.length;
            const text = buf.subarray(start, end).toString('utf8');
            if (text.trim().length === 0 && !isLast)
                throw new ChatCorrupt(`line ${lineNo} is empty`);
            let parsed;
            try {
                parsed = JSON.parse(text);
            }
            catch (e) {
                if (isLast) {
                    // Another window writing this line right now is not damage.
                    if (!this.lock.heldByOther())
                        warnings.push(`chat ${id}: the last line (${lineNo}) was cut off by an interrupted write and was ignored; the turns before it are intact`);
                    lineNo--;
                    break;
                }
                throw new ChatCorrupt(`line ${lineNo} is not valid JSON (${e.message})`);
            }
            if (throughTurn !== undefined && isObj(parsed) && typeof parsed.turn === 'number' && parsed.turn > throughTurn) {
                const have = chain?.turnCount ?? 0;
                if (have < throughTurn)
                    throw new ChatStoreError('conflict', `chat ${id}: turns ${have + 1}-${parsed.turn} were saved together; there is no state after turn ${throughTurn} alone`);
                lineNo--;
                break;
            }
            try {
                const line = checkLine(parsed);
                if (chain && line.turn <= chain.turnCount)
                    throw new Error(`turn ${line.turn} does not follow turn ${chain.turnCount}`);
                lastLineTurns = line.turn - (chain?.turnCount ?? 0);
                chain ??= new chatChain_1.StateChain();
                chain.apply(line.delta);
                if (chain.turnCount !== line.turn)
                    throw new Error(`the state has ${chain.turnCount} turns, the line says ${line.turn}`);
                lastHash = line.stateHash;
                lineHashes.set(line.turn, line.stateHash);
                // The engine options in force at each turn come from the chain.
                const engine = chain.engineMeta;
                if (line.imported)
                    for (const t of line.imported.turns)
                        turns.push(t.engine || !engine ? t : { ...t, engine });
                if (line.meta)
                    turns.push(engine ? { ...line.meta, engine } : line.meta);
            }
            catch (e) {
                throw new ChatCorrupt(`line ${lineNo}: ${e.message}`);
            }
            applied++;
            lastLocal = [start, next];
            lastLineStart = offset + start;
            validBytes = offset + next;
            needsNewline = nl < 0;
            start = next;
        }
        if (lastLocal)
            lastLineSha = nodeSha256(buf.subarray(lastLocal[0], lastLocal[1]));
        if (chain && applied > 0) {
            try {
                (0, stateCodec_1.checkEncodedShape)(chain.encoded());
            }
            catch (e) {
                throw new ChatCorrupt(`the state rebuilt from its lines is invalid: ${e.message}`);
            }
            if (!chain.matches(lastHash))
                throw new ChatCorrupt('the state rebuilt from its lines does not match the recorded digest');
        }
        return { chain, turns, warnings, validBytes, fileBytes, needsNewline, lastLineStart, lastLineTurns, lines: lineNo, lastHash, lastLineSha, lineHashes, ino };
    }
    /** Moves a corrupt chat file aside (under the lock), drops it from the index, and returns the error to throw. */
    corrupt(id, why) {
        return this.locked(() => {
            const file = this.chatPath(id);
            let n = 1;
            while (fs.existsSync(path.join(this.chatsDir, `${id}.corrupt-${n}.jsonl`)))
                n++;
            const moved = path.join(this.chatsDir, `${id}.corrupt-${n}.jsonl`);
            fs.renameSync(file, moved);
            this.heads.delete(id);
            this.writeIndex(this.readIndex().filter((c) => c.id !== id));
            return new ChatStoreError('corrupt', `chat ${id} is damaged (${why}); it was moved aside to ${path.relative(this.root, moved)}`, moved);
        });
    }
    // ---------------------------------------------------------------- renaming, regenerating
    /** Sets the title the chat list shows (kept in the index; a rebuilt index falls back to the first message). */
    renameChat(chatId, title) {
        const id = validateChatId(chatId);
        const clean = title.replace(/\s+/g, ' ').trim().slice(0, 200);
        if (clean.length === 0)
            throw new ChatStoreError('invalid-title', 'a chat title cannot be empty');
        return this.locked(() => {
            const index = this.readIndex();
            const i = index.findIndex((c) => c.id === id);
            if (i < 0)
                throw new ChatStoreError('not-found', `there is no chat ${id} in this workspace`);
            index[i] = { ...index[i], title: clean };
            this.writeIndex(index);
            return index[i];
        });
    }
    /**
     * Removes the last turn: the chat file is cut at the start of its last line (one truncate + fsync,
     * so a crash leaves either the old file or the shorter one, both valid), and the index follows. A
     * torn tail after it goes too. Returns the turns left. An imported chat's first line holds several
     * turns at once and cannot be cut into: `conflict`. (Regenerate replaces the last turn with
     * `appendTurn(…, { replaceLast })`, both halves under one lock.)
     */
    dropLastTurn(chatId) {
        const id = validateChatId(chatId);
        return this.locked(() => {
            let head;
            try {
                head = this.readHead(id);
            }
            catch (e) {
                if (e instanceof ChatCorrupt)
                    throw this.corrupt(id, e.message);
                throw e;
            }
            const cut = this.cutLastLine(id, head);
            const turns = cut.chain?.turnCount ?? 0;
            const index = this.readIndex();
            const i = index.findIndex((c) => c.id === id);
            if (i >= 0) {
                index[i] = { ...index[i], turns, updatedAt: this.now().toISOString() };
                this.writeIndex(index);
            }
            return { turns };
        });
    }
    truncateFile(file, bytes) {
        const fd = fs.openSync(file, 'r+');
        try {
            fs.ftruncateSync(fd, bytes);
            if (this.durable)
                fs.fsyncSync(fd);
        }
        finally {
            fs.closeSync(fd);
        }
    }
    // ---------------------------------------------------------------- deleting
    /** Deletes a chat (and copies of it moved aside as corrupt), then collects unreferenced blobs. */
    deleteChat(chatId) {
        const id = validateChatId(chatId);
        return this.locked(() => {
            let found = false;
            const released = new Set();
            for (const name of fs.readdirSync(this.chatsDir)) {
                const m = CORRUPT_NAME.exec(name);
                if (name === `${id}.jsonl` || (m && m[1] === id)) {
                    const file = path.join(this.chatsDir, name);
                    for (const h of blobNamesIn(file))
                        released.add(h);
                    fs.unlinkSync(file);
                    found = true;
                }
            }
            const index = this.readIndex();
            if (!found && !index.some((c) => c.id === id))
                throw new ChatStoreError('not-found', `there is no chat ${id} in this workspace`);
            fs.rmSync(this.countsPath(id), { force: true });
            this.heads.delete(id);
            this.writeIndex(index.filter((c) => c.id !== id));
            return { removedBlobs: this.collectBlobs({ released }) };
        });
    }
    /**
     * Removes blobs no chat file references, under the store lock. References are found by scanning
     * every chat file (including ones moved aside, and a torn tail) for sha256-shaped strings, so a
     * damaged file keeps its blobs. A blob no file names is removed when the chat being deleted named
     * it (`released`: its lines were complete) or when it is older than the grace period
     * (`ChatStoreOptions.blobGraceMs`): younger ones may belong to a line another window has not
     * appended yet (writers holding the lock never leave such a window open; an older Strata without
     * the lock might). Interrupted blob writes (`.tmp-` files) go after the same grace, at least a minute.
     */
    collectBlobs(opts = {}) {
        return this.locked(() => {
            const grace = opts.graceMs ?? this.options.blobGraceMs ?? exports.BLOB_GRACE_MS;
            const referenced = new Set();
            for (const name of fs.readdirSync(this.chatsDir)) {
                if (!name.endsWith('.jsonl'))
                    continue;
                for (const h of blobNamesIn(path.join(this.chatsDir, name)))
                    referenced.add(h);
            }
            const now = Date.now();
            let removed = 0;
            for (const dir of safeReaddir(this.blobsDir)) {
                const full = path.join(this.blobsDir, dir);
                for (const name of safeReaddir(full)) {
                    const file = path.join(full, name);
                    if (HEX64.test(name)) {
                        if (referenced.has(name))
                            continue;
                        if (!opts.released?.has(name) && now - mtimeOf(file) <= grace)
                            continue;
                        fs.rmSync(file, { force: true });
                        removed++;
                    }
                    else if (name.includes('.tmp-')) {
                        if (now - mtimeOf(file) > Math.max(60_000, grace))
                            fs.rmSync(file, { force: true });
                    }
                }
            }
            return removed;
        });
    }
    // ---------------------------------------------------------------- export / import
    /**
     * The chat as Markdown, as the user saw it: messages, the attachments of each turn, selection
     * snapshots verbatim, and a hidden `<!-- strata-chat: base64 JSON -->` comment holding the state and
     * its snapshots so `importMarkdown` can restore it. Secrets (the options' keys, key-like environment
     * values, and `extraSecrets` — the host's stored API keys) are replaced by [REDACTED] everywhere; an
     * export that would still contain one is refused.
     */
    exportMarkdown(chatId, extraSecrets = []) {
        const loaded = this.loadChat(chatId);
        const secrets = [...new Set([...this.secretList(), ...extraSecrets.filter((x) => x.length >= 8)])];
        const { state, redacted } = scrubState(loaded.state, secrets);
        const title = scrub(loaded.title, secrets);
        const enc = (0, stateCodec_1.encodeState)(state, { engine: loaded.engine });
        const blobs = {};
        for (const b of (0, stateCodec_1.stateBlobs)(state))
            blobs[b.hash] = b.text;
        const turns = JSON.parse(scrub(JSON.stringify(loaded.turns), secrets));
        const payload = { format: exports.EXPORT_FORMAT, v: FORMAT_VERSION, chat: { id: loaded.id, title }, state: enc, turns, blobs };
        const json = JSON.stringify(payload);
        const md = renderMarkdown(loaded.id, title, state, loaded.engine, redacted) + `\n<!-- strata-chat: ${Buffer.from(json, 'utf8').toString('base64')} -->\n`;
        for (const s of secrets) {
            if (md.includes(s) || json.includes(s))
                throw new ChatStoreError('secret', `chat ${loaded.id} was not exported: a secret would have appeared in it`);
        }
        return md;
    }
    /**
     * Imports a chat exported by `exportMarkdown` as a new chat of this workspace. Every attachment
     * path is checked with `isAllowedPath` (the host's workspace isolation guard); disallowed ones are
     * dropped with everything that named them, and reported. Snapshots are verified by hash.
     */
    importMarkdown(text, opts) {
        const matches = [...text.matchAll(/<!-- strata-chat: ([A-Za-z0-9+/=]+) -->/g)];
        if (matches.length === 0)
            throw new ChatStoreError('invalid-import', 'this Markdown has no Strata chat metadata (<!-- strata-chat: … -->); only chats exported by Strata can be imported');
        let payload;
        try {
            payload = JSON.parse(Buffer.from(matches[matches.length - 1][1], 'base64').toString('utf8'));
        }
        catch {
            throw new ChatStoreError('invalid-import', 'the Strata chat metadata is damaged (not base64 JSON)');
        }
        const bad = (why) => {
            throw new ChatStoreError('invalid-import', `the Strata chat metadata is invalid: ${why}`);
        };
        if (!isObj(payload) || payload.format !== exports.EXPORT_FORMAT)
            bad(`format must be ${exports.EXPORT_FORMAT}`);
        const p = payload;
        if (p.v !== FORMAT_VERSION)
            bad(`version ${String(p.v)} is not supported`);
        const rawChat = p.chat;
        if (!isObj(rawChat) || typeof rawChat.id !== 'string' || typeof rawChat.title !== 'string')
            bad('chat must be {id, title}');
        const chat = rawChat;
        const blobs = p.blobs;
        if (!isObj(blobs))
            bad('blobs must be an object');
        for (const [h, t] of Object.entries(blobs)) {
            if (!HEX64.test(h) || typeof t !== 'string')
                bad(`blob ${h.slice(0, 16)} is not a sha256-named string`);
            if (nodeSha256(Buffer.from(t, 'utf8')) !== h)
                bad(`blob ${h.slice(0, 12)}… does not match its hash`);
        }
        if (!Array.isArray(p.turns))
            bad('turns must be an array');
        let enc;
        try {
            enc = (0, stateCodec_1.checkEncodedShape)(p.state);
        }
        catch (e) {
            return bad(e.message);
        }
        // Workspace isolation: every path is re-checked here, in this workspace.
        const byPath = new Map();
        for (const e of enc.entries) {
            const list = byPath.get(e.artifact.source.uri) ?? [];
            list.push(e.key);
            byPath.set(e.artifact.source.uri, list);
        }
        const dropped = [];
        const drop = new Set();
        for (const [uri, keys] of byPath) {
            let ok = false;
            try {
                ok = opts.isAllowedPath(uri) === true;
            }
            catch {
                ok = false;
            }
            if (!ok) {
                dropped.push({ path: uri, keys, reason: 'not-allowed' });
                for (const k of keys)
                    drop.add(k);
            }
        }
        enc = (0, stateCodec_1.withoutEntries)(enc, drop);
        const blobMap = blobs;
        let state;
        try {
            state = (0, stateCodec_1.decodeState)(enc, (h) => {
                const t = blobMap[h];
                if (t === undefined)
                    throw new Error(`blob ${h.slice(0, 12)}… is not in the export`);
                return t;
            });
        }
        catch (e) {
            return bad(e.message);
        }
        const engine = (0, stateCodec_1.decodeEngineMetaOf)(enc);
        const turns = p.turns.filter(isObj).map((t) => ({ ...t, attachments: Array.isArray(t.attachments) ? t.attachments.filter((a) => isObj(a) && !drop.has(a.key)) : [] }));
        const full = (0, stateCodec_1.encodeState)(state, { engine });
        const warnings = [];
        if (dropped.length > 0)
            warnings.push(`${dropped.length} attachment path(s) are not allowed in this workspace and were left out: ${dropped.map((d) => d.path).join(', ')}`);
        return this.locked(() => {
            const id = opts.chatId !== undefined ? validateChatId(opts.chatId) : this.freeId(chatIdFor(chat.id));
            if (this.hasChat(id))
                throw new ChatStoreError('conflict', `a chat ${id} already exists in this workspace`);
            for (const b of (0, stateCodec_1.stateBlobs)(state)) {
                this.writeBlob(b.hash, b.text);
                this.lock.touch();
            }
            const line = { format: exports.CHAT_FORMAT, v: FORMAT_VERSION, turn: full.completedTurns, delta: (0, stateCodec_1.diffState)(undefined, full), stateHash: (0, chatChain_1.encodedDigest)(full), imported: { from: chat.id, turns } };
            this.lock.assertHeld();
            this.appendLine(this.chatPath(id), JSON.stringify(line) + '\n');
            this.upsertIndex(id, full.completedTurns, chat.title);
            return { chatId: id, turns: full.completedTurns, dropped, warnings };
        });
    }
    freeId(base) {
        if (!this.hasChat(base))
            return base;
        for (let n = 2;; n++) {
            const suffix = `-${n}`;
            const id = base.slice(0, 128 - suffix.length) + suffix;
            if (!this.hasChat(id))
                return id;
        }
    }
    secretList() {
        const out = new Set();
        for (const s of this.options.secrets ?? [])
            if (typeof s === 'string' && s.length >= 8)
                out.add(s);
        if (this.options.scrubEnvSecrets ?? true) {
            for (const [name, value] of Object.entries(process.env)) {
                if (value && SECRET_ENV_NAME.test(name) && value.length >= 12 && !/\s/.test(value))
                    out.add(value);
            }
        }
        return [...out].sort((a, b) => b.length - a.length);
    }
    // ---------------------------------------------------------------- files
    chatPath(id) {
        return path.join(this.chatsDir, `${id}.jsonl`);
    }
    countsPath(id) {
        return path.join(this.countsDir, `${id}.jsonl`);
    }
    /**
     * Token counts of texts a chat's requests carried, by sha256 (its first 32 hex digits): a cache
     * beside the chat, so that a window opening the chat does not tokenize its whole history again
     * before its first meter. One line per turn, appended; never part of the chat's state (deleting the
     * file loses nothing but time). Returns false when it could not be written (the turn is saved anyway).
     */
    appendTokenCounts(chatId, counter, counts) {
        const id = validateChatId(chatId);
        const valid = counts.filter(([k, n]) => COUNT_KEY.test(k) && Number.isInteger(n) && n >= 0);
        if (valid.length === 0)
            return true;
        try {
            fs.mkdirSync(this.countsDir, { recursive: true });
            // One write of a whole line with O_APPEND: another window's lines never interleave with it. It
            // starts with a newline too, so a line torn by a crash never runs into the next one.
            fs.appendFileSync(this.countsPath(id), '\n' + JSON.stringify({ counter, counts: valid }) + '\n');
            return true;
        }
        catch {
            return false;
        }
    }
    /**
     * The counts saved for a chat by tokenizers like `counter` (an encoding and its guard settings:
     * counts of another are not these), empty when none; a damaged line is skipped.
     */
    loadTokenCounts(chatId, counter) {
        const id = validateChatId(chatId);
        const out = new Map();
        let text;
        try {
            const file = this.countsPath(id);
            if (fs.statSync(file).size > MAX_COUNTS_BYTES)
                return out;
            text = fs.readFileSync(file, 'utf8');
        }
        catch {
            return out;
        }
        for (const line of text.split('\n')) {
            if (line.length === 0)
                continue;
            let v;
            try {
                v = JSON.parse(line);
            }
            catch {
                continue;
            }
            if (!isObj(v) || v.counter !== counter || !Array.isArray(v.counts))
                continue;
            for (const e of v.counts) {
                if (Array.isArray(e) && e.length === 2 && typeof e[0] === 'string' && COUNT_KEY.test(e[0]) && Number.isInteger(e[1]) && e[1] >= 0)
                    out.set(e[0], e[1]);
            }
        }
        return out;
    }
    blobPath(hash) {
        return path.join(this.blobsDir, hash.slice(0, 2), hash);
    }
    /** Stores a blob once: tmp + fsync + rename, so a crash never leaves a partial blob under its name. */
    writeBlob(hash, text) {
        const file = this.blobPath(hash);
        if (fs.existsSync(file))
            return;
        const data = Buffer.from(text, 'utf8');
        if (nodeSha256(data) !== hash)
            throw new Error(`internal error: blob ${hash.slice(0, 12)}… does not match its content`);
        fs.mkdirSync(path.dirname(file), { recursive: true });
        writeFileAtomic(file, data, this.durable);
    }
    /** Reads a blob and checks it against its name. */
    readBlob(hash) {
        if (!HEX64.test(hash))
            throw new ChatStoreError('corrupt', `invalid blob name ${JSON.stringify(hash.slice(0, 70))}`);
        let fd;
        try {
            fd = fs.openSync(this.blobPath(hash), 'r');
        }
        catch (e) {
            if (e.code === 'ENOENT')
                throw new ChatStoreError('missing-blob', `snapshot blob ${hash} is missing from ${path.relative(this.root, this.blobPath(hash))}`);
            throw e;
        }
        let data;
        try {
            data = readAll(fd);
        }
        finally {
            fs.closeSync(fd);
        }
        if (nodeSha256(data) !== hash)
            throw new ChatStoreError('missing-blob', `snapshot blob ${hash} is damaged (its content does not match its hash)`);
        return data.toString('utf8');
    }
    appendLine(file, text) {
        const data = Buffer.from(text, 'utf8');
        const existed = fs.existsSync(file);
        const fd = fs.openSync(file, 'a');
        try {
            let off = 0;
            while (off < data.length)
                off += fs.writeSync(fd, data, off, data.length - off);
            if (this.durable)
                fs.fsyncSync(fd);
        }
        finally {
            fs.closeSync(fd);
        }
        if (!existed && this.durable)
            fsyncDir(path.dirname(file));
        return data.length;
    }
    removeStaleTemps() {
        for (const name of safeReaddir(this.root)) {
            if (name.startsWith('index.json.tmp-')) {
                fs.rmSync(path.join(this.root, name), { force: true });
                this.warnings.push(`removed ${name} left by an interrupted index write`);
            }
        }
    }
    // ---------------------------------------------------------------- index
    readIndex() {
        let text;
        try {
            text = fs.readFileSync(this.indexFile, 'utf8');
        }
        catch (e) {
            if (e.code === 'ENOENT')
                return [];
            throw e;
        }
        try {
            const obj = JSON.parse(text);
            if (!isObj(obj) || obj.format !== exports.INDEX_FORMAT || !Array.isArray(obj.chats))
                throw new Error('not a chat index');
            return obj.chats.filter((c) => isObj(c) && typeof c.id === 'string' && CHAT_ID.test(c.id) && typeof c.title === 'string' && typeof c.turns === 'number' && typeof c.createdAt === 'string' && typeof c.updatedAt === 'string');
        }
        catch {
            this.warnings.push('index.json was unreadable and has been rebuilt from the chat files');
            return [];
        }
    }
    writeIndex(chats) {
        const body = JSON.stringify({ format: exports.INDEX_FORMAT, v: FORMAT_VERSION, chats }, null, 1) + '\n';
        writeFileAtomic(this.indexFile, Buffer.from(body, 'utf8'), this.durable);
    }
    upsertIndex(id, turns, title) {
        const index = this.readIndex();
        const at = this.now().toISOString();
        const i = index.findIndex((c) => c.id === id);
        if (i >= 0)
            index[i] = { ...index[i], turns, updatedAt: at };
        else
            index.push({ id, title, turns, createdAt: at, updatedAt: at });
        this.writeIndex(index);
    }
    /** Makes the index list exactly the chat files present (a crash may leave it behind them). */
    reconcileIndex() {
        const index = this.readIndex();
        const files = new Set();
        for (const name of fs.readdirSync(this.chatsDir)) {
            const m = /^([a-z0-9][a-z0-9_-]{0,127})\.jsonl$/.exec(name);
            if (m)
                files.add(m[1]);
        }
        let changed = false;
        const kept = index.filter((c) => files.has(c.id));
        if (kept.length !== index.length)
            changed = true;
        const known = new Set(kept.map((c) => c.id));
        for (const id of [...files].sort()) {
            if (known.has(id))
                continue;
            const st = fs.statSync(this.chatPath(id));
            let title = 'Recovered chat';
            let turns = 0;
            try {
                const head = this.readHead(id);
                const enc = head.chain?.encoded();
                turns = enc?.completedTurns ?? 0;
                title = titleFrom(enc?.turns[0]?.userText ?? '');
            }
            catch (e) {
                // Corrupt: moved aside (open holds the lock).
                this.warnings.push((e instanceof ChatCorrupt ? this.corrupt(id, e.message) : e).message);
                continue;
            }
            kept.push({ id, title, turns, createdAt: st.mtime.toISOString(), updatedAt: st.mtime.toISOString() });
            changed = true;
        }
        if (changed || !fs.existsSync(this.indexFile))
            this.writeIndex(kept);
    }
}
exports.ChatStore = ChatStore;
// ------------------------------------------------------------------ helpers
function checkLine(v) {
    if (!isObj(v))
        throw new Error('not an object');
    if (v.format !== exports.CHAT_FORMAT)
        throw new Error(`format must be ${exports.CHAT_FORMAT}`);
    if (v.v !== FORMAT_VERSION)
        throw new Error(`version ${String(v.v)} is not supported`);
    if (typeof v.turn !== 'number' || !Number.isInteger(v.turn) || v.turn < 0)
        throw new Error('turn must be an integer');
    if (!isObj(v.delta))
        throw new Error('delta must be an object');
    if (typeof v.stateHash !== 'string' || !HEX64.test(v.stateHash))
        throw new Error('stateHash must be a sha256');
    if (v.meta !== undefined && (!isObj(v.meta) || !Array.isArray(v.meta.attachments)))
        throw new Error('meta must be an object');
    if (v.imported !== undefined && (!isObj(v.imported) || !Array.isArray(v.imported.turns)))
        throw new Error('imported must be {from, turns}');
    return v;
}
/**
 * Read buffer reused by blob reads (a chat's hundreds of snapshots are read one after the other and
 * turned into strings at once): no new Buffer, and no external memory for the GC to chase, per blob.
 */
let scratch = Buffer.allocUnsafe(256 * 1024);
const SCRATCH_MAX = 4 * 1024 * 1024;
/** The whole file behind `fd`; valid until the next call when it fits the reused buffer. */
function readAll(fd) {
    const size = fs.fstatSync(fd).size;
    let buf = scratch;
    if (size > scratch.length) {
        if (size <= SCRATCH_MAX)
            scratch = buf = Buffer.allocUnsafe(Math.min(SCRATCH_MAX, Math.max(size, scratch.length * 2)));
        else
            buf = Buffer.allocUnsafe(size);
    }
    let got = 0;
    while (got < size) {
        const n = fs.readSync(fd, buf, got, size - got, got);
        if (n === 0)
            break;
        got += n;
    }
    return buf.subarray(0, got);
}
function fileIno(file) {
    try {
        return fs.statSync(file).ino;
    }
    catch {
        return -1;
    }
}
function mtimeOf(file) {
    try {
        return fs.statSync(file).mtimeMs;
    }
    catch {
        return Date.now();
    }
}
/** Every sha256-shaped string in a file (the blob names it may refer to; no parsing, so damage does not hide any). */
function blobNamesIn(file) {
    const out = new Set();
    let text;
    try {
        text = fs.readFileSync(file, 'latin1');
    }
    catch {
        return out;
    }
    for (const m of text.matchAll(/[0-9a-f]{64}/g))
        out.add(m[0]);
    return out;
}
/**
 * Whether `from` (a head read earlier) is a prefix of the open file: same inode, at least as long,
 * and the last valid line's bytes unchanged (an append by another window keeps them; Regenerate's cut
 * or a file moved aside and recreated does not).
 */
function continues(fd, st, from) {
    if (from.ino !== st.ino || from.needsNewline || from.validBytes === 0 || st.size < from.validBytes)
        return false;
    const len = from.validBytes - from.lastLineStart;
    const buf = Buffer.allocUnsafe(len);
    let got = 0;
    while (got < len) {
        const n = fs.readSync(fd, buf, got, len - got, from.lastLineStart + got);
        if (n === 0)
            return false;
        got += n;
    }
    return nodeSha256(buf) === from.lastLineSha;
}
/** A copy of an encoded entry whose (well-formed) snapshot references stand for empty snapshots (see `ChatStore.decode`). */
function shadowEntry(e) {
    if (!isObj(e) || !isObj(e.artifact))
        return e;
    const ok = (hash, blob, encoding) => typeof hash === 'string' && HEX64.test(hash) && (blob === undefined || (typeof blob === 'string' && HEX64.test(blob))) && (encoding === undefined || encoding === 'json');
    const a = e.artifact;
    if (!ok(a.contentHash, a.blob, a.blobEncoding))
        return e;
    const c = e.compacted;
    if (c !== undefined && (!isObj(c) || !ok(c.bodyHash, c.blob, c.blobEncoding)))
        return e;
    const artifact = { ...a, contentHash: EMPTY_SHA256 };
    delete artifact.blob;
    delete artifact.blobEncoding;
    const out = { ...e, artifact };
    if (c) {
        const compacted = { ...c, bodyHash: EMPTY_SHA256 };
        delete compacted.blob;
        delete compacted.blobEncoding;
        out.compacted = compacted;
    }
    return out;
}
function safeReaddir(dir) {
    try {
        return fs.readdirSync(dir);
    }
    catch {
        return [];
    }
}
function fsyncDir(dir) {
    try {
        const fd = fs.openSync(dir, 'r');
        try {
            fs.fsyncSync(fd);
        }
        finally {
            fs.closeSync(fd);
        }
    }
    catch {
        // Not supported on every platform (Windows); the rename is still atomic.
    }
}
/** Writes `file` so that readers see either the old or the new content: tmp + fsync + rename. */
function writeFileAtomic(file, data, durable = true) {
    const tmp = `${file}.tmp-${process.pid}-${++tmpCounter}`;
    const fd = fs.openSync(tmp, 'w');
    try {
        let off = 0;
        while (off < data.length)
            off += fs.writeSync(fd, data, off, data.length - off);
        if (durable)
            fs.fsyncSync(fd);
    }
    finally {
        fs.closeSync(fd);
    }
    try {
        fs.renameSync(tmp, file);
    }
    catch (e) {
        fs.rmSync(tmp, { force: true });
        throw e;
    }
    if (durable)
        fsyncDir(path.dirname(file));
}
function scrub(text, secrets) {
    let out = text;
    for (const s of secrets)
        if (out.includes(s))
            out = out.split(s).join(REDACTED);
    return out;
}
/** A copy of `state` with every secret replaced in snapshots, previews, messages and the summary. */
function scrubState(state, secrets) {
    if (secrets.length === 0)
        return { state, redacted: [] };
    const redacted = [];
    const entries = new Map();
    for (const [k, e] of state.entries) {
        const content = scrub(e.artifact.content, secrets);
        let next = e;
        if (content !== e.artifact.content) {
            next = { ...e, artifact: { ...e.artifact, content, contentHash: (0, hash_1.sha256Hex)(content) } };
            redacted.push(k);
        }
        if (e.compacted) {
            const body = scrub(e.compacted.body, secrets);
            if (body !== e.compacted.body) {
                next = { ...next, compacted: { ...e.compacted, body, bodyHash: (0, hash_1.sha256Hex)(body) } };
                if (!redacted.includes(k))
                    redacted.push(k);
            }
        }
        entries.set(k, next);
    }
    const turns = state.turns.map((t) => ({ ...t, userText: scrub(t.userText, secrets), reply: scrub(t.reply, secrets) }));
    const out = { ...state, entries, turns };
    if (state.summary)
        out.summary = { ...state.summary, text: scrub(state.summary.text, secrets) };
    return { state: out, redacted };
}
function fenceFor(text) {
    let longest = 0;
    for (const m of text.matchAll(/`+/g))
        longest = Math.max(longest, m[0].length);
    return '`'.repeat(Math.max(3, longest + 1));
}
function describeEntry(e) {
    const a = e.artifact;
    const where = a.source.range ? `${a.source.uri} lines ${a.source.range.startLine}-${a.source.range.endLine}` : a.source.uri;
    return `\`${where.replace(/`/g, "'")}\` (${a.kind}${a.version > 1 ? `, version ${a.version}` : ''}, sha ${a.contentHash.slice(0, 8)})`;
}
function renderMarkdown(id, title, state, engine, redacted) {
    const out = [`# ${title.replace(/\n/g, ' ')}`, ''];
    const facts = [`chat \`${id}\``, `${state.completedTurns} turn${state.completedTurns === 1 ? '' : 's'}`];
    if (engine)
        facts.push(`layout ${engine.layout}`, `changed files: ${engine.policy}`, `context window ${engine.limits.contextWindow}`);
    out.push(`_Exported from Strata: ${facts.join(' · ')}._`, '');
    if (redacted.length > 0)
        out.push(`_Secrets were replaced by ${REDACTED} in ${redacted.length} attachment(s)._`, '');
    for (const t of state.turns) {
        out.push(`## Turn ${t.turn}`, '', '**You:**', '', t.userText.length > 0 ? t.userText : '_(empty message)_', '');
        if (t.items.length > 0) {
            out.push('**Attachments:**', '');
            for (const i of t.items) {
                const e = state.entries.get(i.key);
                const how = i.mode === 'missing' ? 'file deleted, last snapshot kept' : i.mode === 'reference' ? 'referenced (sent earlier)' : 'sent in full';
                out.push(`- ${describeEntry(e)}: ${how}`);
            }
            out.push('');
            for (const i of t.items) {
                const e = state.entries.get(i.key);
                if (e.artifact.recoverable || i.mode !== 'full')
                    continue;
                const a = e.artifact;
                const fence = fenceFor(a.content);
                const lang = /\.([A-Za-z0-9]+)$/.exec(a.source.uri)?.[1] ?? '';
                out.push(`Snapshot of ${describeEntry(e)}:`, '', `${fence}${lang}`, a.content, fence, '');
            }
        }
        out.push('**Assistant:**', '', t.reply, '');
    }
    return out.join('\n');
}
//# sourceMappingURL=chatStore.js.map