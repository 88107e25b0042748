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
import * as crypto from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { emptyState, type ChatState, type EntryState, type TurnRecord } from '../engine/state';
import type { LayerId, PruneReport } from '../engine/types';
import type { EngineOptions } from '../engine/engine';
import type { ToolStepView } from '../protocol/messages';
import {
  checkEncodedShape,
  decodeEngineMetaOf,
  decodeState,
  deltaEntryKeys,
  diffState,
  encodeState,
  engineMeta,
  stateBlobs,
  withoutEntries,
  type EncodedEntry,
  type EncodedState,
  type EngineMeta,
  type StateDelta,
} from '../engine/stateCodec';
import { sha256Hex } from '../common/hash';
import { canonicalize, encodedDigest, StateChain } from './chatChain';
import { sha256HexBytes, sha256HexNode } from './nodeHasher';
import { LockBusyError, StoreLock, type StoreLockOptions } from './storeLock';

export const CHAT_FORMAT = 'strata-chat';
export const INDEX_FORMAT = 'strata-chat-index';
export const EXPORT_FORMAT = 'strata-chat-export';
const FORMAT_VERSION = 1;
/**
 * Version of the chat lines this build writes. 2: `stateHash` is `stateDigest` version 2 (each array
 * of the state by its list digest: a save hashes the links it changed, not the whole chat). Lines of
 * version 1 are read (their digest checked as version 1); a newer version is refused, not moved aside.
 */
const LINE_VERSION = 2;

export type ChatStoreErrorCode =
  | 'invalid-id'
  | 'invalid-title'
  | 'not-found'
  | 'corrupt'
  | 'missing-blob'
  | 'conflict'
  | 'invalid-import'
  | 'secret'
  | 'busy'
  | 'newer-format';

/**
 * The saved state of a chat a caller's state was built on: its turn count and the stateHash of the
 * line that ends there ('' for a chat with no saved turn). `loadChat` and `appendTurn` return it.
 */
export interface ChatBase {
  turns: number;
  stateHash: string;
}

/** Why an append was refused: the chat file is no longer at the caller's base. */
export interface ChatConflict {
  /**
   * `appended`: the chat still holds `base` and has turns after it (another window saved them);
   * `diverged`: a turn at or before `base` was replaced or removed (Regenerate in another window);
   * `missing`: the chat was deleted.
   */
  reason: 'appended' | 'diverged' | 'missing';
  base: ChatBase;
  disk: ChatBase;
}

export class ChatStoreError extends Error {
  constructor(
    readonly code: ChatStoreErrorCode,
    message: string,
    readonly movedTo?: string,
    readonly conflict?: ChatConflict,
  ) {
    super(message);
    this.name = 'ChatStoreError';
  }
}

/** A chat file that does not read back (thrown by `readHead`; moved aside only after a re-read under the lock). */
class ChatCorrupt extends Error {}

export interface ProviderUsage {
  input: number;
  cacheRead: number;
  cacheWrite: number;
  output: number;
}

export interface TurnAttachmentMeta {
  key: string;
  id: string;
  kind: string;
  version: number;
  contentHash: string;
  uri: string;
  range?: { startLine: number; endLine: number };
  /** How it went out that turn: full block, reference, or deleted-file marker. */
  mode: string;
}

/** A reference to an attachment already in the chat (pin / unpin / detach). */
export interface StoredRef {
  kind: 'file' | 'selection';
  uri: string;
  range?: { startLine: number; endLine: number };
}

/**
 * What the user asked for in a turn, as sent to the turn pipeline: Regenerate runs it again. Files
 * and trajectory selections are specs (read again); selection chips are snapshots, named by their
 * content hash (their text is in the state's blobs).
 */
export interface StoredTurnRequest {
  attachments: (
    | { kind: 'file'; path: string }
    | { kind: 'selection'; path: string; startLine: number; endLine: number }
    | {
        kind: 'snapshot';
        uri: string;
        range?: { startLine: number; endLine: number };
        contentHash: string;
        requestedEndLine?: number;
        label?: string;
      }
  )[];
  pin?: StoredRef[];
  unpin?: StoredRef[];
  detach?: StoredRef[];
  targetPercentOverride?: number;
}

/** Per-turn metadata (DESIGN §10). Everything needed to render is in the state; this is the record. */
export interface TurnMeta {
  turn: number;
  /** Display only (ISO time the turn was saved). */
  at?: string;
  attachments: TurnAttachmentMeta[];
  /** Keys pinned, detached, pruned, compacted, marked missing after the turn. */
  pinned: string[];
  detached: string[];
  pruned: string[];
  compacted: string[];
  missing: string[];
  summaryThrough?: number;
  layerHashes?: Partial<Record<LayerId, string>>;
  prefixHash?: string;
  /** Why the request did not keep the previous one as its prefix (absent when it did). */
  prefixBreak?: string;
  /** The budget the request was built for. */
  budget?: number;
  predicted?: { promptTokens: number; cachedTokens: number };
  prunedReports?: PruneReport[];
  rejections?: { attachment: string; reason: string }[];
  usage?: ProviderUsage;
  /** Tokens per layer of the request that produced the reply (the panel's stacked bar after a reload). */
  layerTokens?: Partial<Record<LayerId, number>>;
  /** Of those, the tokens the engine predicted cached, per layer (the bar's shaded part). */
  layerCached?: Partial<Record<LayerId, number>>;
  /** `provider · model` that answered. */
  model?: string;
  /** The provider kind that answered (`openai`, `anthropic`, `vscode-lm`, …). */
  provider?: string;
  /** The user stopped the reply: what had streamed is the reply. */
  stopped?: true;
  /** What the turn asked for (Regenerate). */
  request?: StoredTurnRequest;
  /**
   * The reply was written for a request built on the chat as it stood after turn `builtAfterTurn`;
   * another window saved turns after that first, so this turn was rebuilt on top of them. The
   * request facts above (layer hashes, prefix, tokens, usage) are those of the request sent.
   */
  rebased?: { builtAfterTurn: number };
  /** The engine options in force (filled in on load from the chain). */
  engine?: EngineMeta;
  /** The tool calls the model made before answering, as the panel shows them (issue 11). */
  toolSteps?: ToolStepView[];
}

/** The parts of a `TurnEnvelope` the store records. */
export interface EnvelopeFacts {
  layers?: readonly { id: LayerId; hash: string; tokens?: number }[];
  prefixHash?: string;
  prefixBreak?: boolean;
  prefixBreakReason?: string;
  pruned?: readonly PruneReport[];
  rejections?: readonly { attachment: string; reason: string }[];
  totalTokens?: number;
  ledger?: {
    cachedTokens: number;
    budget?: number;
    layers?: readonly { id: LayerId; items: readonly { tokens: number; cached: boolean }[] }[];
  };
}

export interface AppendTurnInput {
  /** The engine's committed state after `completeTurn`. */
  state: ChatState;
  /** The options in force (or their recorded form). */
  engine?: EngineOptions | EngineMeta;
  envelope?: EnvelopeFacts;
  layerHashes?: Partial<Record<LayerId, string>>;
  usage?: ProviderUsage;
  /** `provider · model` that answered. */
  model?: string;
  /** The provider kind that answered (`openai`, `anthropic`, `vscode-lm`, …). */
  provider?: string;
  /** The reply was stopped by the user (it holds what had streamed). */
  stopped?: boolean;
  request?: StoredTurnRequest;
  /** Title for a new chat (default: the start of the first message). */
  title?: string;
  /**
   * The saved state `state` was built on (`loadChat(…).base`, or the previous append's). When the
   * file is no longer there the append is refused with a `conflict` naming the reason. Without it,
   * only a state that does not advance the saved turn count is refused.
   */
  base?: ChatBase;
  /** Regenerate: the turn replaces the chat's last saved turn (which must be `base`), under one lock. */
  replaceLast?: boolean;
  /** Recorded in the turn's meta (see `TurnMeta.rebased`). */
  rebased?: { builtAfterTurn: number };
  /** The turn's tool calls, as the panel shows them. */
  toolSteps?: readonly ToolStepView[];
}

export interface AppendTurnResult {
  bytes: number;
  warnings: string[];
  meta: TurnMeta;
  /** The turn number saved. */
  turn: number;
  /** The chat as saved now: the base of the next turn. */
  base: ChatBase;
}

export interface ChatIndexEntry {
  id: string;
  title: string;
  turns: number;
  /** Display only. */
  createdAt: string;
  /** Display only. */
  updatedAt: string;
}

export interface LoadedChat {
  id: string;
  title: string;
  state: ChatState;
  /** The engine options in force at the last saved turn. */
  engine?: EngineMeta;
  turns: TurnMeta[];
  warnings: string[];
  /** Size of the chat file. */
  bytes: number;
  /** The saved state this is (pass it with the next `appendTurn`). */
  base: ChatBase;
}

export interface ImportResult {
  chatId: string;
  turns: number;
  /** Attachments left out because their path is not allowed in this workspace. */
  dropped: { path: string; keys: string[]; reason: 'not-allowed' }[];
  warnings: string[];
}

export interface ChatStoreOptions {
  /** Strings that must never appear in an export (API keys). */
  secrets?: readonly string[];
  /** Also treat the values of environment variables named like keys/tokens/secrets as secrets. Default true. */
  scrubEnvSecrets?: boolean;
  /** fsync appends, blobs and the index. Default true. */
  durable?: boolean;
  /** Display clock (tests pin it). */
  now?: () => Date;
  /** The store lock's waits and stale limit (see storeLock.ts). */
  lock?: StoreLockOptions;
  /**
   * Blobs no chat file names are removed only once older than this (ms; default 10 minutes): a writer
   * that does not take the lock (an older Strata in another window) writes its blobs before the line
   * that names them. Blobs only the deleted chat named go at once.
   */
  blobGraceMs?: number;
}

/** How long opening a store waits for another window's write before it skips checking the index. */
const OPEN_LOCK_WAIT_MS = 1000;

/** Default of `ChatStoreOptions.blobGraceMs`. */
export const BLOB_GRACE_MS = 10 * 60_000;

interface ChatLine {
  format: typeof CHAT_FORMAT;
  v: 1 | 2;
  /** Completed turns after this line. */
  turn: number;
  delta: StateDelta;
  /** `stateDigest` of the full encoded state after this line (digest version = line version `v`). */
  stateHash: string;
  meta?: TurnMeta;
  imported?: { from: string; turns: TurnMeta[] };
}

interface ChatHead {
  /** The state after the valid lines (undefined: no line yet). */
  chain: StateChain | undefined;
  turns: TurnMeta[];
  warnings: string[];
  /** Bytes of the file that hold valid lines. */
  validBytes: number;
  fileBytes: number;
  /** The last valid line lacks its newline. */
  needsNewline: boolean;
  /** Byte offset where the last valid line starts (0 when there is none). */
  lastLineStart: number;
  /** Turns the last valid line added (1 for a turn, more for an imported chat). */
  lastLineTurns: number;
  /** Valid lines. */
  lines: number;
  /** stateHash of the last valid line ('' when there is none). */
  lastHash: string;
  /** The digest version of `lastHash` (its line's `v`). */
  lastVersion: 1 | 2;
  /** sha256 of the last valid line's bytes: tells another window's append from a rewrite. */
  lastLineSha: string;
  /** Turn count → stateHash of the line that ends there (conflict reasons). */
  lineHashes: Map<number, string>;
  /** The file's inode when read (a file moved aside and recreated is another file). */
  ino: number;
}

function emptyHead(): ChatHead {
  return {
    chain: undefined,
    turns: [],
    warnings: [],
    validBytes: 0,
    fileBytes: 0,
    needsNewline: false,
    lastLineStart: 0,
    lastLineTurns: 0,
    lines: 0,
    lastHash: '',
    lastVersion: LINE_VERSION,
    lastLineSha: '',
    lineHashes: new Map(),
    ino: -1,
  };
}

function baseOf(head: ChatHead): ChatBase {
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

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Validates a chat id: lowercase letters, digits, `-` and `_` (so never a path, and the same on case-insensitive disks). */
/** A token-count key: the first 32 hex digits of the text's sha256. */
const COUNT_KEY = /^[0-9a-f]{32}$/;
/** A counts file larger than this is not read (a 1,000-turn chat's is about 0.4 MB). */
const MAX_COUNTS_BYTES = 64 * 1024 * 1024;

export function validateChatId(id: unknown): string {
  if (typeof id !== 'string' || !CHAT_ID.test(id) || WINDOWS_DEVICE.test(id)) {
    throw new ChatStoreError(
      'invalid-id',
      `invalid chat id ${JSON.stringify(id)}: use 1–128 lowercase letters, digits, "-" or "_", starting with a letter or digit`,
    );
  }
  return id;
}

/** A valid chat id derived from any text (a trajectory name, an imported id): stable for the same text. */
export function chatIdFor(seed: string): string {
  const base = seed
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^[-_]+/, '')
    .slice(0, 100);
  if (base.length > 0 && base === seed && !WINDOWS_DEVICE.test(base)) return base;
  const h = sha256Hex(seed).slice(0, 8);
  return base.length > 0 ? `${base.replace(/-+$/, '')}-${h}` : `chat-${h}`;
}

function titleFrom(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length === 0) return 'New chat';
  return flat.length <= 60 ? flat : `${flat.slice(0, 59)}…`;
}

export class ChatStore {
  private readonly chatsDir: string;
  private readonly blobsDir: string;
  /** Token counts of the chats' texts (a cache, see `appendTokenCounts`). */
  private readonly countsDir: string;
  private readonly indexFile: string;
  private readonly durable: boolean;
  private readonly now: () => Date;
  private readonly heads = new Map<string, ChatHead>();
  /**
   * The engine's turn records are never changed once made: each one's encoded form, as the object the
   * chain holds, so a save compares the turns already saved by identity, not by serializing them.
   */
  private readonly savedTurns = new WeakMap<TurnRecord, TurnRecord>();
  /**
   * Per chat, the turns this store saved last (a copy of the state's array) and the chain it saved
   * them into: while that chain is the chat's head, turn i of the next state, when it is the same
   * object as then, is the chain's turn i — a comparison per turn instead of a table lookup.
   */
  private readonly lastSavedTurns = new Map<string, { chain: StateChain; source: readonly TurnRecord[] }>();
  /**
   * Each saved engine entry's encoded form (the chain's object) with a shallow copy of the entry as
   * it was then: an entry unchanged since (every field the same value) is not encoded again (its
   * content scanned, its object rebuilt and serialized to compare it) at every save.
   */
  private readonly savedEntries = new WeakMap<EntryState, { as: EntryState; enc: EncodedEntry }>();
  /** Objects of saved states known to be canonical (see `canonicalize`): chain objects, never mutated. */
  private readonly settled = new WeakSet<object>();
  /** Serializes writers across windows (and store instances). */
  readonly lock: StoreLock;
  /** Problems found while opening (index rebuilt, stale temp files removed). */
  readonly warnings: string[] = [];

  private constructor(
    readonly root: string,
    private readonly options: ChatStoreOptions,
  ) {
    this.chatsDir = path.join(root, 'chats');
    this.blobsDir = path.join(root, 'blobs');
    this.countsDir = path.join(root, 'counts');
    this.indexFile = path.join(root, 'index.json');
    this.durable = options.durable ?? true;
    this.now = options.now ?? (() => new Date());
    this.lock = new StoreLock(path.join(root, 'store.lock'), options.lock);
  }

  /** Opens (creating if needed) the store of one workspace. */
  static open(root: string, options: ChatStoreOptions = {}): ChatStore {
    const store = new ChatStore(path.resolve(root), options);
    fs.mkdirSync(store.chatsDir, { recursive: true });
    fs.mkdirSync(store.blobsDir, { recursive: true });
    StoreLock.removeStaleTokens(store.root, 'store.lock');
    // A window opening must not hang on another one's write: a short wait, then the chats as they are.
    try {
      store.locked(() => {
        store.removeStaleTemps();
        store.reconcileIndex();
      }, OPEN_LOCK_WAIT_MS);
    } catch (e) {
      if (!(e instanceof ChatStoreError && e.code === 'busy')) throw e;
      store.warnings.push(`the chat list was not checked against the chat files: ${e.message}`);
    }
    return store;
  }

  /**
   * Runs `fn` holding the store lock (re-entrant: the store's own methods can be called inside): no
   * other window changes anything meanwhile. For a read-modify-write that spans more than one store
   * call (the pipeline rebuilding a turn on another window's turns). Keep it short.
   */
  exclusive<T>(fn: () => T): T {
    return this.locked(fn);
  }

  /** Runs a change under the store lock; a lock held too long by another window is a `busy` error. */
  private locked<T>(fn: () => T, waitMs?: number): T {
    try {
      this.lock.acquire(waitMs);
    } catch (e) {
      if (e instanceof LockBusyError) throw new ChatStoreError('busy', e.message);
      throw e;
    }
    try {
      return fn();
    } finally {
      this.lock.release();
    }
  }

  // ---------------------------------------------------------------- listing

  /** The chats of this workspace, most recently updated first. */
  listChats(): ChatIndexEntry[] {
    return this.readIndex()
      .slice()
      .sort((a, b) => (a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : a.id < b.id ? -1 : 1));
  }

  hasChat(chatId: string): boolean {
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
  appendTurn(chatId: string, input: AppendTurnInput): AppendTurnResult {
    const id = validateChatId(chatId);
    return this.locked(() => this.appendLocked(id, input));
  }

  private appendLocked(id: string, input: AppendTurnInput): AppendTurnResult {
    const file = this.chatPath(id);
    const warnings: string[] = [];
    const current = this.headForWrite(id, warnings);
    let head = current.head;
    // A file this call had to move aside: the caller's state is the best copy there is.
    if (input.base && !current.movedAside) this.checkBase(id, head, current.exists, input.base);
    if (input.replaceLast) head = this.cutLastLine(id, head);
    if (head.validBytes < head.fileBytes) {
      fs.truncateSync(file, head.validBytes);
      warnings.push(`chat ${id}: cut off ${head.fileBytes - head.validBytes} bytes of a torn last line before appending`);
      head = { ...head, fileBytes: head.validBytes };
    }
    const headEnc = head.chain?.encoded();
    const meta = input.engine ? ('tokenizer' in input.engine ? engineMeta(input.engine) : input.engine) : headEnc?.engine;
    const encodedAfresh: EntryState[] = [];
    const turnsAfresh: TurnRecord[] = [];
    const last = this.lastSavedTurns.get(id);
    const kept = last && headEnc && last.chain === head.chain ? { source: last.source, encoded: headEnc.turns } : undefined;
    const enc = encodeState(input.state, {
      engine: meta,
      reuse: {
        turn: (t, i) => {
          if (kept && i < kept.source.length && kept.source[i] === t) return kept.encoded[i];
          const saved = this.savedTurns.get(t);
          if (!saved) turnsAfresh.push(t);
          return saved;
        },
        entry: (e) => {
          const saved = this.savedEntries.get(e);
          if (saved && sameFields(saved.as, e)) return saved.enc;
          encodedAfresh.push(e);
          return undefined;
        },
      },
    });
    if (headEnc && enc.completedTurns <= headEnc.completedTurns) {
      throw new ChatStoreError(
        'conflict',
        `chat ${id} already has ${headEnc.completedTurns} turns saved; cannot save turn ${enc.completedTurns} (was the chat changed in another window?)`,
      );
    }
    // Canonical key order on both sides: the delta names only what changed, and its objects keep the
    // chain canonical (its digest is then a plain JSON.stringify away; see chatChain.ts).
    // The chain's own [id, value] pairs where they are unchanged (the engine's maps hand out new
    // pairs at every encoding): canonicalizing, diffing and digesting then compare them by identity.
    if (head.chain) head.chain.reusePairs(enc);
    const next = canonicalize(enc, this.settled);
    const prev = head.chain && !head.chain.canonical ? canonicalize(headEnc).value : headEnc;
    const delta = diffState(prev, next.value);
    for (const b of stateBlobs(input.state, deltaEntryKeys(delta))) {
      this.writeBlob(b.hash, b.text);
      this.lock.touch();
    }
    // Applied in place: a long chat's chain is not copied at every save. Should anything below fail
    // before the line is on disk, the cached head is dropped (the next access reads the file again).
    const chain = head.chain ?? new StateChain();
    this.heads.delete(id);
    chain.apply(delta, next.canonical);
    const stateHash = chain.digest();
    if (turnsAfresh.length > 0) {
      const chainTurns = chain.encoded().turns;
      // Turns encoded afresh are the newest (a new turn, a reply regenerated): look from the end.
      for (const t of turnsAfresh) this.savedTurns.set(t, chainTurns[input.state.turns.lastIndexOf(t)]);
    }
    this.lastSavedTurns.set(id, { chain, source: input.state.turns.slice() });
    for (const e of encodedAfresh) {
      const saved = chain.entry(e.key);
      if (saved) this.savedEntries.set(e, { as: { ...e }, enc: saved });
    }
    const line: ChatLine = { format: CHAT_FORMAT, v: LINE_VERSION, turn: enc.completedTurns, delta, stateHash, meta: this.turnMeta(input) };
    const json = JSON.stringify(line);
    const text = (head.needsNewline ? '\n' : '') + json + '\n';
    this.lock.assertHeld();
    const bytes = this.appendLine(file, text);
    const lineStart = head.fileBytes + (head.needsNewline ? 1 : 0);
    const saved = meta ? { ...line.meta!, engine: meta } : line.meta!;
    const lineHashes = head.lineHashes;
    lineHashes.set(enc.completedTurns, stateHash);
    const ino = head.ino >= 0 ? head.ino : fileIno(file);
    const fileBytes = head.fileBytes + bytes;
    this.heads.set(id, {
      chain,
      turns: [...head.turns, saved],
      warnings: [],
      validBytes: fileBytes,
      fileBytes,
      needsNewline: false,
      lastLineStart: lineStart,
      lastLineTurns: enc.completedTurns - (headEnc?.completedTurns ?? 0),
      lines: head.lines + 1,
      lastHash: stateHash,
      lastVersion: LINE_VERSION,
      lastLineSha: sha256HexNode(json + '\n'),
      lineHashes,
      ino,
    });
    const first = input.state.turns[0]?.userText ?? '';
    this.upsertIndex(id, enc.completedTurns, input.title ?? titleFrom(first));
    return { bytes, warnings, meta: saved, turn: enc.completedTurns, base: { turns: enc.completedTurns, stateHash } };
  }

  /**
   * The chat's head as on disk now, for a writer (under the lock): the cached head continued with
   * what was appended since; a missing file is an empty head; a corrupt one is moved aside.
   */
  private headForWrite(id: string, warnings: string[]): { head: ChatHead; exists: boolean; movedAside: boolean } {
    try {
      const head = this.readHead(id, undefined, this.heads.get(id));
      this.heads.set(id, head);
      return { head, exists: true, movedAside: false };
    } catch (e) {
      if (e instanceof ChatStoreError && e.code === 'not-found') {
        this.heads.delete(id);
        return { head: emptyHead(), exists: false, movedAside: false };
      }
      if (!(e instanceof ChatCorrupt)) throw e;
      const err = this.corrupt(id, e.message);
      warnings.push(`${err.message}; the chat continues from the current state in a new file`);
      return { head: emptyHead(), exists: false, movedAside: true };
    }
  }

  private checkBase(id: string, head: ChatHead, exists: boolean, base: ChatBase): void {
    const disk = baseOf(head);
    if (disk.turns === base.turns && disk.stateHash === base.stateHash) return;
    const reason: ChatConflict['reason'] =
      !exists && base.turns > 0
        ? 'missing'
        : base.turns === 0 || head.lineHashes.get(base.turns) === base.stateHash
          ? 'appended'
          : 'diverged';
    const what =
      reason === 'missing'
        ? `chat ${id} was deleted (in another window?)`
        : reason === 'appended'
          ? `chat ${id} has ${disk.turns - base.turns} turn(s) saved after turn ${base.turns} (in another window?)`
          : `chat ${id} no longer holds the turn ${base.turns} this turn followed (it was replaced or removed, in another window?)`;
    throw new ChatStoreError('conflict', `${what}; the turn was not saved`, undefined, { reason, base: { ...base }, disk });
  }

  /** Regenerate's first half, under the append's lock: cut the last line (it must be one turn). */
  private cutLastLine(id: string, head: ChatHead): ChatHead {
    if (!head.chain || head.chain.turnCount === 0) throw new ChatStoreError('not-found', `chat ${id} has no turn to remove`);
    if (head.lastLineTurns !== 1)
      throw new ChatStoreError(
        'conflict',
        `the last ${head.lastLineTurns} turns of chat ${id} were imported together and cannot be removed one by one`,
      );
    this.truncateFile(this.chatPath(id), head.lastLineStart);
    this.heads.delete(id);
    const again = this.readHead(id);
    this.heads.set(id, again);
    return again;
  }

  private turnMeta(input: AppendTurnInput): TurnMeta {
    const s = input.state;
    const record = s.turns.length > 0 && s.turns[s.turns.length - 1].turn === s.completedTurns ? s.turns[s.turns.length - 1] : undefined;
    // One pass over the entries for the five lists (a long chat has hundreds).
    const pinned: string[] = [];
    const detached: string[] = [];
    const pruned: string[] = [];
    const compacted: string[] = [];
    const missing: string[] = [];
    for (const k of s.order) {
      const e = s.entries.get(k)!;
      if (e.presence === 'present') {
        if (e.essential) pinned.push(k);
        if (e.compacted) compacted.push(k);
      } else if (e.presence === 'detached') detached.push(k);
      else if (e.presence === 'pruned') pruned.push(k);
      if (e.missing) missing.push(k);
    }
    const meta: TurnMeta = {
      turn: s.completedTurns,
      at: this.now().toISOString(),
      attachments: (record?.items ?? []).map((i) => {
        const a = s.entries.get(i.key)!.artifact;
        const m: TurnAttachmentMeta = {
          key: i.key,
          id: a.id,
          kind: a.kind,
          version: a.version,
          contentHash: a.contentHash,
          uri: a.source.uri,
          mode: i.mode,
        };
        if (a.source.range) m.range = { ...a.source.range };
        return m;
      }),
      pinned,
      detached,
      pruned,
      compacted,
      missing,
    };
    if (s.summary) meta.summaryThrough = s.summary.throughTurn;
    const env = input.envelope;
    const layerHashes = input.layerHashes ?? (env?.layers ? Object.fromEntries(env.layers.map((l) => [l.id, l.hash])) : undefined);
    if (layerHashes) meta.layerHashes = layerHashes;
    if (env?.prefixHash) meta.prefixHash = env.prefixHash;
    if (env?.prefixBreak) meta.prefixBreak = env.prefixBreakReason ?? 'the prefix changed';
    if (env?.ledger?.budget !== undefined) meta.budget = env.ledger.budget;
    if (env?.totalTokens !== undefined) meta.predicted = { promptTokens: env.totalTokens, cachedTokens: env.ledger?.cachedTokens ?? 0 };
    if (env?.pruned && env.pruned.length > 0) meta.prunedReports = env.pruned.map((p) => ({ ...p }));
    if (env?.rejections && env.rejections.length > 0)
      meta.rejections = env.rejections.map((r) => ({ attachment: r.attachment, reason: r.reason }));
    if (input.usage)
      meta.usage = {
        input: input.usage.input,
        cacheRead: input.usage.cacheRead,
        cacheWrite: input.usage.cacheWrite,
        output: input.usage.output,
      };
    if (env?.layers && env.layers.every((l) => typeof l.tokens === 'number'))
      meta.layerTokens = Object.fromEntries(env.layers.map((l) => [l.id, l.tokens as number]));
    if (env?.ledger?.layers && env.ledger.cachedTokens > 0) {
      meta.layerCached = Object.fromEntries(
        env.ledger.layers.map((l) => [l.id, l.items.reduce((n, i) => n + (i.cached ? i.tokens : 0), 0)]),
      );
    }
    if (input.model) meta.model = input.model;
    if (input.provider) meta.provider = input.provider;
    if (input.stopped) meta.stopped = true;
    if (input.request) meta.request = JSON.parse(JSON.stringify(input.request)) as StoredTurnRequest;
    if (input.rebased) meta.rebased = { builtAfterTurn: input.rebased.builtAfterTurn };
    if (input.toolSteps && input.toolSteps.length > 0) meta.toolSteps = JSON.parse(JSON.stringify(input.toolSteps)) as ToolStepView[];
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
  loadChat(chatId: string, opts: { throughTurn?: number; reuse?: ChatState } = {}): LoadedChat {
    const id = validateChatId(chatId);
    const head = opts.throughTurn === undefined ? this.syncHead(id) : this.checkedHead(id, opts.throughTurn);
    const enc = head.chain?.encoded();
    let state: ChatState;
    let engine: EngineMeta | undefined;
    if (!enc) {
      state = emptyState();
    } else {
      try {
        state = this.decode(id, enc, opts.reuse);
        engine = decodeEngineMetaOf(enc);
        state.turns.forEach((t, i) => this.savedTurns.set(t, enc.turns[i]));
      } catch (e) {
        if (e instanceof ChatStoreError) throw e;
        throw this.corruptAfterRecheck(id, (e as Error).message, opts.throughTurn);
      }
    }
    const entry = this.readIndex().find((c) => c.id === id);
    return {
      id,
      title: entry?.title ?? titleFrom(state.turns[0]?.userText ?? ''),
      state,
      engine,
      turns: head.turns.slice(),
      warnings: head.warnings,
      bytes: head.fileBytes,
      base: baseOf(head),
    };
  }

  /**
   * Where chat `chatId` on disk stands relative to `base` (what a window shows): `same`, or the
   * conflict reason another window's change would cause. Cheap when nothing changed (a stat and a
   * read of the last line); after another window's append, only the new lines are read.
   */
  chatStatus(chatId: string, base: ChatBase): { relation: 'same' | ChatConflict['reason']; disk: ChatBase } {
    const id = validateChatId(chatId);
    let head: ChatHead;
    try {
      head = this.syncHead(id);
    } catch (e) {
      if (e instanceof ChatStoreError && (e.code === 'not-found' || e.code === 'corrupt')) {
        return { relation: base.turns === 0 ? 'same' : 'missing', disk: { turns: 0, stateHash: '' } };
      }
      throw e;
    }
    const disk = baseOf(head);
    if (disk.turns === base.turns && disk.stateHash === base.stateHash) return { relation: 'same', disk };
    return { relation: base.turns === 0 || head.lineHashes.get(base.turns) === base.stateHash ? 'appended' : 'diverged', disk };
  }

  /** Metadata of each saved turn of a chat, in order (reads only what was appended since the last read; no snapshot is read). */
  turnMetas(chatId: string): TurnMeta[] {
    return this.syncHead(validateChatId(chatId)).turns.slice();
  }

  /** The chat's head as on disk now, read without the lock (only what was appended since the last read). */
  private syncHead(id: string): ChatHead {
    try {
      const head = this.readHead(id, undefined, this.heads.get(id));
      this.heads.set(id, head);
      return head;
    } catch (e) {
      this.heads.delete(id);
      if (e instanceof ChatCorrupt) throw this.corruptAfterRecheck(id, e.message);
      throw e;
    }
  }

  /** The head up to `throughTurn` (Regenerate's state before the last turn; not cached). */
  private checkedHead(id: string, throughTurn: number): ChatHead {
    try {
      return this.readHead(id, throughTurn);
    } catch (e) {
      if (e instanceof ChatCorrupt) throw this.corruptAfterRecheck(id, e.message, throughTurn);
      throw e;
    }
  }

  /**
   * A read without the lock found the file damaged: read it again under the lock (a rewrite by
   * another window can look like damage to a reader racing with it) and move it aside only if it
   * still is. Returns the error to throw.
   */
  private corruptAfterRecheck(id: string, why: string, throughTurn?: number): ChatStoreError {
    return this.locked(() => {
      this.heads.delete(id);
      try {
        const head = this.readHead(id, throughTurn);
        const enc = head.chain?.encoded();
        if (enc) this.decode(id, enc);
      } catch (e) {
        if (e instanceof ChatCorrupt) return this.corrupt(id, e.message);
        if (e instanceof ChatStoreError) return e;
        return this.corrupt(id, (e as Error).message);
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
  private decode(id: string, enc: EncodedState, reuse?: ChatState): ChatState {
    const known = new Map<string, string>();
    if (reuse) {
      for (const e of reuse.entries.values()) {
        known.set(e.artifact.contentHash, e.artifact.content);
        if (e.compacted) known.set(e.compacted.bodyHash, e.compacted.body);
      }
    }
    const shadowed: boolean[] = [];
    const shadow: EncodedState = {
      ...enc,
      entries: enc.entries.map((e, i) => {
        const s = shadowEntry(e);
        shadowed[i] = s !== e;
        return s;
      }),
    };
    let blobError: ChatStoreError | undefined;
    let state: ChatState;
    try {
      state = decodeState(shadow, (hash) => {
        if (hash === EMPTY_SHA256) return '';
        try {
          return this.readBlob(hash);
        } catch (e) {
          if (e instanceof ChatStoreError) blobError = e;
          throw e;
        }
      });
    } catch (e) {
      if (blobError) throw new ChatStoreError('missing-blob', `chat ${id} cannot be loaded: ${(e as Error).message}`);
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
  private snapshot(
    id: string,
    hash: string,
    blob: string | undefined,
    encoding: string | undefined,
    known: Map<string, string>,
    where: string,
  ): string {
    if (encoding === undefined && blob === undefined) {
      const mem = known.get(hash);
      if (mem !== undefined) return mem;
    }
    const name = blob ?? hash;
    let raw: string;
    try {
      raw = this.readBlob(name);
    } catch (e) {
      if (e instanceof ChatStoreError) throw new ChatStoreError('missing-blob', `chat ${id} cannot be loaded: ${where}: ${e.message}`);
      throw e;
    }
    let text = raw;
    if (encoding === 'json') {
      try {
        text = JSON.parse(raw) as string;
      } catch {
        throw new Error(`${where}: blob ${name} is not a JSON string`);
      }
      if (typeof text !== 'string') throw new Error(`${where}: blob ${name} is not a JSON string`);
    }
    // A blob named by the content's hash was verified by readBlob; any other name needs this check.
    if (name !== hash && sha256HexNode(text) !== hash)
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
  private readHead(id: string, throughTurn?: number, from?: ChatHead): ChatHead {
    const file = this.chatPath(id);
    let fd: number;
    try {
      fd = fs.openSync(file, 'r');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw new ChatStoreError('not-found', `there is no chat ${id} in this workspace`);
      throw e;
    }
    try {
      const st = fs.fstatSync(fd);
      const size = st.size;
      const cont = throughTurn === undefined && from && from.chain && continues(fd, st, from) ? from : undefined;
      if (cont && size === cont.fileBytes) return cont;
      const offset = cont ? cont.validBytes : 0;
      const buf = Buffer.allocUnsafe(size - offset);
      let got = 0;
      while (got < buf.length) {
        const n = fs.readSync(fd, buf, got, buf.length - got, offset + got);
        if (n === 0) break;
        got += n;
      }
      return this.parseLines(id, buf.subarray(0, got), offset, throughTurn, cont, st.ino);
    } finally {
      fs.closeSync(fd);
    }
  }

  private parseLines(
    id: string,
    buf: Buffer,
    offset: number,
    throughTurn: number | undefined,
    cont: ChatHead | undefined,
    ino: number,
  ): ChatHead {
    const warnings: string[] = [];
    const turns: TurnMeta[] = cont ? cont.turns.slice() : [];
    const lineHashes = cont ? new Map(cont.lineHashes) : new Map<number, string>();
    let chain: StateChain | undefined = cont?.chain?.clone();
    let lastHash = cont?.lastHash ?? '';
    let lastVersion = cont?.lastVersion ?? LINE_VERSION;
    let lastLineSha = cont?.lastLineSha ?? '';
    let validBytes = cont?.validBytes ?? 0;
    let needsNewline = cont?.needsNewline ?? false;
    let lastLineStart = cont?.lastLineStart ?? 0;
    let lastLineTurns = cont?.lastLineTurns ?? 0;
    let lineNo = cont?.lines ?? 0;
    const fileBytes = offset + buf.length;
    let applied = 0;
    let lastLocal: [number, number] | undefined;
    let start = 0;
    while (start < buf.length) {
      const nl = buf.indexOf(0x0a, start);
      const end = nl < 0 ? buf.length : nl;
      const next = nl < 0 ? buf.length : nl + 1;
      lineNo++;
      const isLast = next >= buf.length;
      const text = buf.subarray(start, end).toString('utf8');
      if (text.trim().length === 0 && !isLast) throw new ChatCorrupt(`line ${lineNo} is empty`);
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch (e) {
        if (isLast) {
          // Another window writing this line right now is not damage.
          if (!this.lock.heldByOther())
            warnings.push(
              `chat ${id}: the last line (${lineNo}) was cut off by an interrupted write and was ignored; the turns before it are intact`,
            );
          lineNo--;
          break;
        }
        throw new ChatCorrupt(`line ${lineNo} is not valid JSON (${(e as Error).message})`);
      }
      if (throughTurn !== undefined && isObj(parsed) && typeof parsed.turn === 'number' && parsed.turn > throughTurn) {
        const have = chain?.turnCount ?? 0;
        if (have < throughTurn)
          throw new ChatStoreError(
            'conflict',
            `chat ${id}: turns ${have + 1}-${parsed.turn} were saved together; there is no state after turn ${throughTurn} alone`,
          );
        lineNo--;
        break;
      }
      if (isObj(parsed) && parsed.format === CHAT_FORMAT && typeof parsed.v === 'number' && parsed.v > LINE_VERSION) {
        // Not damage: a newer Strata wrote it (another window, before this one was updated).
        throw new ChatStoreError(
          'newer-format',
          `chat ${id} was saved by a newer version of Strata (chat line format ${parsed.v}, this version reads up to ${LINE_VERSION}); update Strata to open it. The file was not changed.`,
        );
      }
      try {
        const line = checkLine(parsed);
        if (chain && line.turn <= chain.turnCount) throw new Error(`turn ${line.turn} does not follow turn ${chain.turnCount}`);
        lastLineTurns = line.turn - (chain?.turnCount ?? 0);
        chain ??= new StateChain();
        chain.apply(line.delta);
        if (chain.turnCount !== line.turn) throw new Error(`the state has ${chain.turnCount} turns, the line says ${line.turn}`);
        lastHash = line.stateHash;
        lastVersion = line.v;
        lineHashes.set(line.turn, line.stateHash);
        // The engine options in force at each turn come from the chain.
        const engine = chain.engineMeta;
        if (line.imported) for (const t of line.imported.turns) turns.push(t.engine || !engine ? t : { ...t, engine });
        if (line.meta) turns.push(engine ? { ...line.meta, engine } : line.meta);
      } catch (e) {
        throw new ChatCorrupt(`line ${lineNo}: ${(e as Error).message}`);
      }
      applied++;
      lastLocal = [start, next];
      lastLineStart = offset + start;
      validBytes = offset + next;
      needsNewline = nl < 0;
      start = next;
    }
    if (lastLocal) lastLineSha = sha256HexBytes(buf.subarray(lastLocal[0], lastLocal[1]));
    if (chain && applied > 0) {
      try {
        checkEncodedShape(chain.encoded());
      } catch (e) {
        throw new ChatCorrupt(`the state rebuilt from its lines is invalid: ${(e as Error).message}`);
      }
      if (!chain.matches(lastHash, lastVersion))
        throw new ChatCorrupt('the state rebuilt from its lines does not match the recorded digest');
    }
    return {
      chain,
      turns,
      warnings,
      validBytes,
      fileBytes,
      needsNewline,
      lastLineStart,
      lastLineTurns,
      lines: lineNo,
      lastHash,
      lastVersion,
      lastLineSha,
      lineHashes,
      ino,
    };
  }

  /** Moves a corrupt chat file aside (under the lock), drops it from the index, and returns the error to throw. */
  private corrupt(id: string, why: string): ChatStoreError {
    return this.locked(() => {
      const file = this.chatPath(id);
      let n = 1;
      while (fs.existsSync(path.join(this.chatsDir, `${id}.corrupt-${n}.jsonl`))) n++;
      const moved = path.join(this.chatsDir, `${id}.corrupt-${n}.jsonl`);
      fs.renameSync(file, moved);
      this.heads.delete(id);
      this.writeIndex(this.readIndex().filter((c) => c.id !== id));
      return new ChatStoreError(
        'corrupt',
        `chat ${id} is damaged (${why}); it was moved aside to ${path.relative(this.root, moved)}`,
        moved,
      );
    });
  }

  // ---------------------------------------------------------------- renaming, regenerating

  /** Sets the title the chat list shows (kept in the index; a rebuilt index falls back to the first message). */
  renameChat(chatId: string, title: string): ChatIndexEntry {
    const id = validateChatId(chatId);
    const clean = title.replace(/\s+/g, ' ').trim().slice(0, 200);
    if (clean.length === 0) throw new ChatStoreError('invalid-title', 'a chat title cannot be empty');
    return this.locked(() => {
      const index = this.readIndex();
      const i = index.findIndex((c) => c.id === id);
      if (i < 0) throw new ChatStoreError('not-found', `there is no chat ${id} in this workspace`);
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
  dropLastTurn(chatId: string): { turns: number } {
    const id = validateChatId(chatId);
    return this.locked(() => {
      let head: ChatHead;
      try {
        head = this.readHead(id);
      } catch (e) {
        if (e instanceof ChatCorrupt) throw this.corrupt(id, e.message);
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

  private truncateFile(file: string, bytes: number): void {
    const fd = fs.openSync(file, 'r+');
    try {
      fs.ftruncateSync(fd, bytes);
      if (this.durable) fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  }

  // ---------------------------------------------------------------- deleting

  /** Deletes a chat (and copies of it moved aside as corrupt), then collects unreferenced blobs. */
  deleteChat(chatId: string): { removedBlobs: number } {
    const id = validateChatId(chatId);
    return this.locked(() => {
      let found = false;
      const released = new Set<string>();
      for (const name of fs.readdirSync(this.chatsDir)) {
        const m = CORRUPT_NAME.exec(name);
        if (name === `${id}.jsonl` || (m && m[1] === id)) {
          const file = path.join(this.chatsDir, name);
          for (const h of blobNamesIn(file)) released.add(h);
          fs.unlinkSync(file);
          found = true;
        }
      }
      const index = this.readIndex();
      if (!found && !index.some((c) => c.id === id)) throw new ChatStoreError('not-found', `there is no chat ${id} in this workspace`);
      fs.rmSync(this.countsPath(id), { force: true });
      this.heads.delete(id);
      this.lastSavedTurns.delete(id);
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
  collectBlobs(opts: { released?: ReadonlySet<string>; graceMs?: number } = {}): number {
    return this.locked(() => {
      const grace = opts.graceMs ?? this.options.blobGraceMs ?? BLOB_GRACE_MS;
      const referenced = new Set<string>();
      for (const name of fs.readdirSync(this.chatsDir)) {
        if (!name.endsWith('.jsonl')) continue;
        for (const h of blobNamesIn(path.join(this.chatsDir, name))) referenced.add(h);
      }
      const now = Date.now();
      let removed = 0;
      for (const dir of safeReaddir(this.blobsDir)) {
        const full = path.join(this.blobsDir, dir);
        for (const name of safeReaddir(full)) {
          const file = path.join(full, name);
          if (HEX64.test(name)) {
            if (referenced.has(name)) continue;
            if (!opts.released?.has(name) && now - mtimeOf(file) <= grace) continue;
            fs.rmSync(file, { force: true });
            removed++;
          } else if (name.includes('.tmp-')) {
            if (now - mtimeOf(file) > Math.max(60_000, grace)) fs.rmSync(file, { force: true });
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
  exportMarkdown(chatId: string, extraSecrets: readonly string[] = []): string {
    const loaded = this.loadChat(chatId);
    const secrets = [...new Set([...this.secretList(), ...extraSecrets.filter((x) => x.length >= 8)])];
    const { state, redacted } = scrubState(loaded.state, secrets);
    const title = scrub(loaded.title, secrets);
    const enc = encodeState(state, { engine: loaded.engine });
    const blobs: Record<string, string> = {};
    for (const b of stateBlobs(state)) blobs[b.hash] = b.text;
    const turns = JSON.parse(scrub(JSON.stringify(loaded.turns), secrets)) as TurnMeta[];
    const payload = { format: EXPORT_FORMAT, v: FORMAT_VERSION, chat: { id: loaded.id, title }, state: enc, turns, blobs };
    const json = JSON.stringify(payload);
    const md =
      renderMarkdown(loaded.id, title, state, loaded.engine, redacted) +
      `\n<!-- strata-chat: ${Buffer.from(json, 'utf8').toString('base64')} -->\n`;
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
  importMarkdown(text: string, opts: { isAllowedPath: (path: string) => boolean; chatId?: string }): ImportResult {
    const matches = [...text.matchAll(/<!-- strata-chat: ([A-Za-z0-9+/=]+) -->/g)];
    if (matches.length === 0)
      throw new ChatStoreError(
        'invalid-import',
        'this Markdown has no Strata chat metadata (<!-- strata-chat: … -->); only chats exported by Strata can be imported',
      );
    let payload: unknown;
    try {
      payload = JSON.parse(Buffer.from(matches[matches.length - 1][1], 'base64').toString('utf8'));
    } catch {
      throw new ChatStoreError('invalid-import', 'the Strata chat metadata is damaged (not base64 JSON)');
    }
    const bad = (why: string): never => {
      throw new ChatStoreError('invalid-import', `the Strata chat metadata is invalid: ${why}`);
    };
    if (!isObj(payload) || payload.format !== EXPORT_FORMAT) bad(`format must be ${EXPORT_FORMAT}`);
    const p = payload as Record<string, unknown>;
    if (p.v !== FORMAT_VERSION) bad(`version ${String(p.v)} is not supported`);
    const rawChat = p.chat;
    if (!isObj(rawChat) || typeof rawChat.id !== 'string' || typeof rawChat.title !== 'string') bad('chat must be {id, title}');
    const chat = rawChat as { id: string; title: string };
    const blobs = p.blobs;
    if (!isObj(blobs)) bad('blobs must be an object');
    for (const [h, t] of Object.entries(blobs as Record<string, unknown>)) {
      if (!HEX64.test(h) || typeof t !== 'string') bad(`blob ${h.slice(0, 16)} is not a sha256-named string`);
      if (sha256HexNode(t as string) !== h) bad(`blob ${h.slice(0, 12)}… does not match its hash`);
    }
    if (!Array.isArray(p.turns)) bad('turns must be an array');
    let enc: EncodedState;
    try {
      enc = checkEncodedShape(p.state);
    } catch (e) {
      return bad((e as Error).message);
    }
    // Workspace isolation: every path is re-checked here, in this workspace.
    const byPath = new Map<string, string[]>();
    for (const e of enc.entries) {
      const list = byPath.get(e.artifact.source.uri) ?? [];
      list.push(e.key);
      byPath.set(e.artifact.source.uri, list);
    }
    const dropped: ImportResult['dropped'] = [];
    const drop = new Set<string>();
    for (const [uri, keys] of byPath) {
      let ok = false;
      try {
        ok = opts.isAllowedPath(uri) === true;
      } catch {
        ok = false;
      }
      if (!ok) {
        dropped.push({ path: uri, keys, reason: 'not-allowed' });
        for (const k of keys) drop.add(k);
      }
    }
    enc = withoutEntries(enc, drop);
    const blobMap = blobs as Record<string, string>;
    let state: ChatState;
    try {
      state = decodeState(enc, (h) => {
        const t = blobMap[h];
        if (t === undefined) throw new Error(`blob ${h.slice(0, 12)}… is not in the export`);
        return t;
      });
    } catch (e) {
      return bad((e as Error).message);
    }
    const engine = decodeEngineMetaOf(enc);
    const turns = (p.turns as TurnMeta[])
      .filter(isObj)
      .map((t) => ({ ...t, attachments: Array.isArray(t.attachments) ? t.attachments.filter((a) => isObj(a) && !drop.has(a.key)) : [] }));
    const full = encodeState(state, { engine });
    const warnings: string[] = [];
    if (dropped.length > 0)
      warnings.push(
        `${dropped.length} attachment path(s) are not allowed in this workspace and were left out: ${dropped.map((d) => d.path).join(', ')}`,
      );
    return this.locked(() => {
      const id = opts.chatId !== undefined ? validateChatId(opts.chatId) : this.freeId(chatIdFor(chat.id));
      if (this.hasChat(id)) throw new ChatStoreError('conflict', `a chat ${id} already exists in this workspace`);
      for (const b of stateBlobs(state)) {
        this.writeBlob(b.hash, b.text);
        this.lock.touch();
      }
      const line: ChatLine = {
        format: CHAT_FORMAT,
        v: LINE_VERSION,
        turn: full.completedTurns,
        delta: diffState(undefined, full),
        stateHash: encodedDigest(full),
        imported: { from: chat.id, turns },
      };
      this.lock.assertHeld();
      this.appendLine(this.chatPath(id), JSON.stringify(line) + '\n');
      this.upsertIndex(id, full.completedTurns, chat.title);
      return { chatId: id, turns: full.completedTurns, dropped, warnings };
    });
  }

  private freeId(base: string): string {
    if (!this.hasChat(base)) return base;
    for (let n = 2; ; n++) {
      const suffix = `-${n}`;
      const id = base.slice(0, 128 - suffix.length) + suffix;
      if (!this.hasChat(id)) return id;
    }
  }

  private secretList(): string[] {
    const out = new Set<string>();
    for (const s of this.options.secrets ?? []) if (typeof s === 'string' && s.length >= 8) out.add(s);
    if (this.options.scrubEnvSecrets ?? true) {
      for (const [name, value] of Object.entries(process.env)) {
        if (value && SECRET_ENV_NAME.test(name) && value.length >= 12 && !/\s/.test(value)) out.add(value);
      }
    }
    return [...out].sort((a, b) => b.length - a.length);
  }

  // ---------------------------------------------------------------- files

  private chatPath(id: string): string {
    return path.join(this.chatsDir, `${id}.jsonl`);
  }

  private countsPath(id: string): string {
    return path.join(this.countsDir, `${id}.jsonl`);
  }

  /**
   * Token counts of texts a chat's requests carried, by sha256 (its first 32 hex digits): a cache
   * beside the chat, so that a window opening the chat does not tokenize its whole history again
   * before its first meter. One line per turn, appended; never part of the chat's state (deleting the
   * file loses nothing but time). Returns false when it could not be written (the turn is saved anyway).
   */
  appendTokenCounts(chatId: string, counter: string, counts: readonly (readonly [string, number])[]): boolean {
    const id = validateChatId(chatId);
    const valid = counts.filter(([k, n]) => COUNT_KEY.test(k) && Number.isInteger(n) && n >= 0);
    if (valid.length === 0) return true;
    try {
      fs.mkdirSync(this.countsDir, { recursive: true });
      // One write of a whole line with O_APPEND: another window's lines never interleave with it. It
      // starts with a newline too, so a line torn by a crash never runs into the next one.
      fs.appendFileSync(this.countsPath(id), '\n' + JSON.stringify({ counter, counts: valid }) + '\n');
      return true;
    } catch {
      return false;
    }
  }

  /**
   * The counts saved for a chat by tokenizers like `counter` (an encoding and its guard settings:
   * counts of another are not these), empty when none; a damaged line is skipped.
   */
  loadTokenCounts(chatId: string, counter: string): Map<string, number> {
    const id = validateChatId(chatId);
    const out = new Map<string, number>();
    let text: string;
    try {
      const file = this.countsPath(id);
      if (fs.statSync(file).size > MAX_COUNTS_BYTES) return out;
      text = fs.readFileSync(file, 'utf8');
    } catch {
      return out;
    }
    for (const line of text.split('\n')) {
      if (line.length === 0) continue;
      let v: unknown;
      try {
        v = JSON.parse(line);
      } catch {
        continue;
      }
      if (!isObj(v) || v.counter !== counter || !Array.isArray(v.counts)) continue;
      for (const e of v.counts) {
        if (Array.isArray(e) && e.length === 2 && typeof e[0] === 'string' && COUNT_KEY.test(e[0]) && Number.isInteger(e[1]) && e[1] >= 0)
          out.set(e[0], e[1]);
      }
    }
    return out;
  }

  private blobPath(hash: string): string {
    return path.join(this.blobsDir, hash.slice(0, 2), hash);
  }

  /** Stores a blob once: tmp + fsync + rename, so a crash never leaves a partial blob under its name. */
  private writeBlob(hash: string, text: string): void {
    const file = this.blobPath(hash);
    if (fs.existsSync(file)) return;
    const data = Buffer.from(text, 'utf8');
    if (sha256HexBytes(data) !== hash) throw new Error(`internal error: blob ${hash.slice(0, 12)}… does not match its content`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    writeFileAtomic(file, data, this.durable);
  }

  /** Reads a blob and checks it against its name. */
  private readBlob(hash: string): string {
    if (!HEX64.test(hash)) throw new ChatStoreError('corrupt', `invalid blob name ${JSON.stringify(hash.slice(0, 70))}`);
    let fd: number;
    try {
      fd = fs.openSync(this.blobPath(hash), 'r');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT')
        throw new ChatStoreError('missing-blob', `snapshot blob ${hash} is missing from ${path.relative(this.root, this.blobPath(hash))}`);
      throw e;
    }
    let data: Buffer;
    try {
      data = readAll(fd);
    } finally {
      fs.closeSync(fd);
    }
    if (sha256HexBytes(data) !== hash)
      throw new ChatStoreError('missing-blob', `snapshot blob ${hash} is damaged (its content does not match its hash)`);
    return data.toString('utf8');
  }

  private appendLine(file: string, text: string): number {
    const data = Buffer.from(text, 'utf8');
    const existed = fs.existsSync(file);
    const fd = fs.openSync(file, 'a');
    try {
      let off = 0;
      while (off < data.length) off += fs.writeSync(fd, data, off, data.length - off);
      if (this.durable) fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    if (!existed && this.durable) fsyncDir(path.dirname(file));
    return data.length;
  }

  private removeStaleTemps(): void {
    for (const name of safeReaddir(this.root)) {
      if (name.startsWith('index.json.tmp-')) {
        fs.rmSync(path.join(this.root, name), { force: true });
        this.warnings.push(`removed ${name} left by an interrupted index write`);
      }
    }
  }

  // ---------------------------------------------------------------- index

  private readIndex(): ChatIndexEntry[] {
    let text: string;
    try {
      text = fs.readFileSync(this.indexFile, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw e;
    }
    try {
      const obj = JSON.parse(text) as unknown;
      if (!isObj(obj) || obj.format !== INDEX_FORMAT || !Array.isArray(obj.chats)) throw new Error('not a chat index');
      return (obj.chats as unknown[]).filter(
        (c): c is ChatIndexEntry =>
          isObj(c) &&
          typeof c.id === 'string' &&
          CHAT_ID.test(c.id) &&
          typeof c.title === 'string' &&
          typeof c.turns === 'number' &&
          typeof c.createdAt === 'string' &&
          typeof c.updatedAt === 'string',
      );
    } catch {
      this.warnings.push('index.json was unreadable and has been rebuilt from the chat files');
      return [];
    }
  }

  private writeIndex(chats: ChatIndexEntry[]): void {
    const body = JSON.stringify({ format: INDEX_FORMAT, v: FORMAT_VERSION, chats }, null, 1) + '\n';
    writeFileAtomic(this.indexFile, Buffer.from(body, 'utf8'), this.durable);
  }

  private upsertIndex(id: string, turns: number, title: string): void {
    const index = this.readIndex();
    const at = this.now().toISOString();
    const i = index.findIndex((c) => c.id === id);
    if (i >= 0) index[i] = { ...index[i], turns, updatedAt: at };
    else index.push({ id, title, turns, createdAt: at, updatedAt: at });
    this.writeIndex(index);
  }

  /** Makes the index list exactly the chat files present (a crash may leave it behind them). */
  private reconcileIndex(): void {
    const index = this.readIndex();
    const files = new Set<string>();
    for (const name of fs.readdirSync(this.chatsDir)) {
      const m = /^([a-z0-9][a-z0-9_-]{0,127})\.jsonl$/.exec(name);
      if (m) files.add(m[1]);
    }
    let changed = false;
    const kept = index.filter((c) => files.has(c.id));
    if (kept.length !== index.length) changed = true;
    const known = new Set(kept.map((c) => c.id));
    for (const id of [...files].sort()) {
      if (known.has(id)) continue;
      const st = fs.statSync(this.chatPath(id));
      let title = 'Recovered chat';
      let turns = 0;
      try {
        const head = this.readHead(id);
        const enc = head.chain?.encoded();
        turns = enc?.completedTurns ?? 0;
        title = titleFrom(enc?.turns[0]?.userText ?? '');
      } catch (e) {
        // Corrupt: moved aside (open holds the lock).
        this.warnings.push((e instanceof ChatCorrupt ? this.corrupt(id, e.message) : (e as Error)).message);
        continue;
      }
      kept.push({ id, title, turns, createdAt: st.mtime.toISOString(), updatedAt: st.mtime.toISOString() });
      changed = true;
    }
    if (changed || !fs.existsSync(this.indexFile)) this.writeIndex(kept);
  }
}

// ------------------------------------------------------------------ helpers

function checkLine(v: unknown): ChatLine {
  if (!isObj(v)) throw new Error('not an object');
  if (v.format !== CHAT_FORMAT) throw new Error(`format must be ${CHAT_FORMAT}`);
  if (v.v !== 1 && v.v !== LINE_VERSION) throw new Error(`version ${String(v.v)} is not supported`);
  if (typeof v.turn !== 'number' || !Number.isInteger(v.turn) || v.turn < 0) throw new Error('turn must be an integer');
  if (!isObj(v.delta)) throw new Error('delta must be an object');
  if (typeof v.stateHash !== 'string' || !HEX64.test(v.stateHash)) throw new Error('stateHash must be a sha256');
  if (v.meta !== undefined && (!isObj(v.meta) || !Array.isArray(v.meta.attachments))) throw new Error('meta must be an object');
  if (v.imported !== undefined && (!isObj(v.imported) || !Array.isArray(v.imported.turns)))
    throw new Error('imported must be {from, turns}');
  return v as unknown as ChatLine;
}

/**
 * Read buffer reused by blob reads (a chat's hundreds of snapshots are read one after the other and
 * turned into strings at once): no new Buffer, and no external memory for the GC to chase, per blob.
 */
let scratch = Buffer.allocUnsafe(256 * 1024);
const SCRATCH_MAX = 4 * 1024 * 1024;

/** The whole file behind `fd`; valid until the next call when it fits the reused buffer. */
function readAll(fd: number): Buffer {
  const size = fs.fstatSync(fd).size;
  let buf = scratch;
  if (size > scratch.length) {
    if (size <= SCRATCH_MAX) scratch = buf = Buffer.allocUnsafe(Math.min(SCRATCH_MAX, Math.max(size, scratch.length * 2)));
    else buf = Buffer.allocUnsafe(size);
  }
  let got = 0;
  while (got < size) {
    const n = fs.readSync(fd, buf, got, size - got, got);
    if (n === 0) break;
    got += n;
  }
  return buf.subarray(0, got);
}

function fileIno(file: string): number {
  try {
    return fs.statSync(file).ino;
  } catch {
    return -1;
  }
}

function mtimeOf(file: string): number {
  try {
    return fs.statSync(file).mtimeMs;
  } catch {
    return Date.now();
  }
}

/** Every sha256-shaped string in a file (the blob names it may refer to; no parsing, so damage does not hide any). */
function blobNamesIn(file: string): Set<string> {
  const out = new Set<string>();
  let text: string;
  try {
    text = fs.readFileSync(file, 'latin1');
  } catch {
    return out;
  }
  for (const m of text.matchAll(/[0-9a-f]{64}/g)) out.add(m[0]);
  return out;
}

/**
 * Whether `from` (a head read earlier) is a prefix of the open file: same inode, at least as long,
 * and the last valid line's bytes unchanged (an append by another window keeps them; Regenerate's cut
 * or a file moved aside and recreated does not).
 */
function continues(fd: number, st: fs.Stats, from: ChatHead): boolean {
  if (from.ino !== st.ino || from.needsNewline || from.validBytes === 0 || st.size < from.validBytes) return false;
  const len = from.validBytes - from.lastLineStart;
  const buf = Buffer.allocUnsafe(len);
  let got = 0;
  while (got < len) {
    const n = fs.readSync(fd, buf, got, len - got, from.lastLineStart + got);
    if (n === 0) return false;
    got += n;
  }
  return sha256HexBytes(buf) === from.lastLineSha;
}

/** A copy of an encoded entry whose (well-formed) snapshot references stand for empty snapshots (see `ChatStore.decode`). */
function shadowEntry(e: EncodedEntry): EncodedEntry {
  if (!isObj(e) || !isObj(e.artifact)) return e;
  const ok = (hash: unknown, blob: unknown, encoding: unknown) =>
    typeof hash === 'string' &&
    HEX64.test(hash) &&
    (blob === undefined || (typeof blob === 'string' && HEX64.test(blob))) &&
    (encoding === undefined || encoding === 'json');
  const a = e.artifact;
  if (!ok(a.contentHash, a.blob, a.blobEncoding)) return e;
  const c = e.compacted;
  if (c !== undefined && (!isObj(c) || !ok(c.bodyHash, c.blob, c.blobEncoding))) return e;
  const artifact = { ...a, contentHash: EMPTY_SHA256 };
  delete artifact.blob;
  delete artifact.blobEncoding;
  const out: EncodedEntry = { ...e, artifact };
  if (c) {
    const compacted = { ...c, bodyHash: EMPTY_SHA256 };
    delete compacted.blob;
    delete compacted.blobEncoding;
    out.compacted = compacted;
  }
  return out;
}

function safeReaddir(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}

function fsyncDir(dir: string): void {
  try {
    const fd = fs.openSync(dir, 'r');
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    // Not supported on every platform (Windows); the rename is still atomic.
  }
}

/** Writes `file` so that readers see either the old or the new content: tmp + fsync + rename. */
export function writeFileAtomic(file: string, data: Buffer, durable = true): void {
  const tmp = `${file}.tmp-${process.pid}-${++tmpCounter}`;
  const fd = fs.openSync(tmp, 'w');
  try {
    let off = 0;
    while (off < data.length) off += fs.writeSync(fd, data, off, data.length - off);
    if (durable) fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  try {
    fs.renameSync(tmp, file);
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    throw e;
  }
  if (durable) fsyncDir(path.dirname(file));
}

function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (out.includes(s)) out = out.split(s).join(REDACTED);
  return out;
}

/** A copy of `state` with every secret replaced in snapshots, previews, messages and the summary. */
function scrubState(state: ChatState, secrets: readonly string[]): { state: ChatState; redacted: string[] } {
  if (secrets.length === 0) return { state, redacted: [] };
  const redacted: string[] = [];
  const entries = new Map<string, EntryState>();
  for (const [k, e] of state.entries) {
    const content = scrub(e.artifact.content, secrets);
    let next: EntryState = e;
    if (content !== e.artifact.content) {
      next = { ...e, artifact: { ...e.artifact, content, contentHash: sha256Hex(content) } };
      redacted.push(k);
    }
    if (e.compacted) {
      const body = scrub(e.compacted.body, secrets);
      if (body !== e.compacted.body) {
        next = { ...next, compacted: { ...e.compacted, body, bodyHash: sha256Hex(body) } };
        if (!redacted.includes(k)) redacted.push(k);
      }
    }
    entries.set(k, next);
  }
  const turns = state.turns.map((t) => ({ ...t, userText: scrub(t.userText, secrets), reply: scrub(t.reply, secrets) }));
  const out: ChatState = { ...state, entries, turns };
  if (state.summary) out.summary = { ...state.summary, text: scrub(state.summary.text, secrets) };
  return { state: out, redacted };
}

function fenceFor(text: string): string {
  let longest = 0;
  for (const m of text.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  return '`'.repeat(Math.max(3, longest + 1));
}

function describeEntry(e: EntryState): string {
  const a = e.artifact;
  const where = a.source.range ? `${a.source.uri} lines ${a.source.range.startLine}-${a.source.range.endLine}` : a.source.uri;
  return `\`${where.replace(/`/g, "'")}\` (${a.kind}${a.version > 1 ? `, version ${a.version}` : ''}, sha ${a.contentHash.slice(0, 8)})`;
}

function renderMarkdown(id: string, title: string, state: ChatState, engine: EngineMeta | undefined, redacted: string[]): string {
  const out: string[] = [`# ${title.replace(/\n/g, ' ')}`, ''];
  const facts = [`chat \`${id}\``, `${state.completedTurns} turn${state.completedTurns === 1 ? '' : 's'}`];
  if (engine) facts.push(`layout ${engine.layout}`, `changed files: ${engine.policy}`, `context window ${engine.limits.contextWindow}`);
  out.push(`_Exported from Strata: ${facts.join(' · ')}._`, '');
  if (redacted.length > 0) out.push(`_Secrets were replaced by ${REDACTED} in ${redacted.length} attachment(s)._`, '');
  for (const t of state.turns) {
    out.push(`## Turn ${t.turn}`, '', '**You:**', '', t.userText.length > 0 ? t.userText : '_(empty message)_', '');
    if (t.items.length > 0) {
      out.push('**Attachments:**', '');
      for (const i of t.items) {
        const e = state.entries.get(i.key)!;
        const how =
          i.mode === 'missing' ? 'file deleted, last snapshot kept' : i.mode === 'reference' ? 'referenced (sent earlier)' : 'sent in full';
        out.push(`- ${describeEntry(e)}: ${how}`);
      }
      out.push('');
      for (const i of t.items) {
        const e = state.entries.get(i.key)!;
        if (e.artifact.recoverable || i.mode !== 'full') continue;
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

/** Every field of an entry, in one list: a field added to `EntryState` and not here fails to compile. */
const ENTRY_FIELDS = [
  'artifact',
  'key',
  'firstTurn',
  'presence',
  'superseded',
  'missing',
  'essential',
  'compacted',
  'inPlaceOf',
  'requestedEndLine',
  'tool',
] as const satisfies readonly (keyof EntryState)[];
type UnlistedEntryField = Exclude<keyof EntryState, (typeof ENTRY_FIELDS)[number]>;
const everyEntryFieldListed: [UnlistedEntryField] extends [never] ? true : UnlistedEntryField = true;
void everyEntryFieldListed;

/**
 * Every field the same value (an entry's fields are primitives or objects replaced, never changed in
 * place). A field absent on one side and undefined on the other counts as the same: the encoding
 * leaves both out. Field by field, not through `Object.keys` (two arrays per entry, hundreds of
 * entries per save).
 */
function sameFields(a: EntryState, b: EntryState): boolean {
  for (const k of ENTRY_FIELDS) if (a[k] !== b[k]) return false;
  return true;
}
