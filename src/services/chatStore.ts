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
 * Crash safety: blobs are written before the line that needs them, a line is appended with one
 * write + fsync, and only a torn last line can be lost (it is ignored with a warning and cut off
 * before the next append). The index is rebuilt from the chat files when it is missing or stale.
 * Wall-clock time appears only in display metadata (`createdAt`, `updatedAt`, a turn's `at`),
 * never in anything that is rendered into a request.
 */
import * as crypto from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { emptyState, type ChatState, type EntryState } from '../engine/state';
import type { LayerId, PruneReport } from '../engine/types';
import type { EngineOptions } from '../engine/engine';
import type { ToolStepView } from '../protocol/messages';
import {
  applyDelta, checkEncodedShape, decodeEngineMetaOf, decodeState, deltaEntryKeys, diffState, encodeState, engineMeta,
  stateBlobs, stateDigest, withoutEntries, type EncodedState, type EngineMeta, type StateDelta,
} from '../engine/stateCodec';
import { sha256Hex } from '../common/hash';

export const CHAT_FORMAT = 'strata-chat';
export const INDEX_FORMAT = 'strata-chat-index';
export const EXPORT_FORMAT = 'strata-chat-export';
const FORMAT_VERSION = 1;

export type ChatStoreErrorCode = 'invalid-id' | 'invalid-title' | 'not-found' | 'corrupt' | 'missing-blob' | 'conflict' | 'invalid-import' | 'secret';

export class ChatStoreError extends Error {
  constructor(readonly code: ChatStoreErrorCode, message: string, readonly movedTo?: string) {
    super(message);
    this.name = 'ChatStoreError';
  }
}

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
    | { kind: 'snapshot'; uri: string; range?: { startLine: number; endLine: number }; contentHash: string; requestedEndLine?: number; label?: string }
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
  ledger?: { cachedTokens: number; budget?: number; layers?: readonly { id: LayerId; items: readonly { tokens: number; cached: boolean }[] }[] };
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
  /** The turn's tool calls, as the panel shows them. */
  toolSteps?: readonly ToolStepView[];
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
}

interface ChatLine {
  format: typeof CHAT_FORMAT;
  v: number;
  /** Completed turns after this line. */
  turn: number;
  delta: StateDelta;
  /** `stateDigest` of the full encoded state after this line. */
  stateHash: string;
  meta?: TurnMeta;
  imported?: { from: string; turns: TurnMeta[] };
}

interface ChatHead {
  enc: EncodedState | undefined;
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
}

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

function nodeSha256(data: Buffer | string): string {
  return crypto.createHash('sha256').update(data).digest('hex');
}

/** Validates a chat id: lowercase letters, digits, `-` and `_` (so never a path, and the same on case-insensitive disks). */
export function validateChatId(id: unknown): string {
  if (typeof id !== 'string' || !CHAT_ID.test(id) || WINDOWS_DEVICE.test(id)) {
    throw new ChatStoreError('invalid-id', `invalid chat id ${JSON.stringify(id)}: use 1–128 lowercase letters, digits, "-" or "_", starting with a letter or digit`);
  }
  return id;
}

/** A valid chat id derived from any text (a trajectory name, an imported id): stable for the same text. */
export function chatIdFor(seed: string): string {
  const base = seed.toLowerCase().replace(/[^a-z0-9_-]+/g, '-').replace(/^[-_]+/, '').slice(0, 100);
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
  private readonly indexFile: string;
  private readonly durable: boolean;
  private readonly now: () => Date;
  private readonly heads = new Map<string, ChatHead>();
  /** Problems found while opening (index rebuilt, stale temp files removed). */
  readonly warnings: string[] = [];

  private constructor(readonly root: string, private readonly options: ChatStoreOptions) {
    this.chatsDir = path.join(root, 'chats');
    this.blobsDir = path.join(root, 'blobs');
    this.indexFile = path.join(root, 'index.json');
    this.durable = options.durable ?? true;
    this.now = options.now ?? (() => new Date());
  }

  /** Opens (creating if needed) the store of one workspace. */
  static open(root: string, options: ChatStoreOptions = {}): ChatStore {
    const store = new ChatStore(path.resolve(root), options);
    fs.mkdirSync(store.chatsDir, { recursive: true });
    fs.mkdirSync(store.blobsDir, { recursive: true });
    store.removeStaleTemps();
    store.reconcileIndex();
    return store;
  }

  // ---------------------------------------------------------------- listing

  /** The chats of this workspace, most recently updated first. */
  listChats(): ChatIndexEntry[] {
    return this.readIndex().slice().sort((a, b) => (a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : a.id < b.id ? -1 : 1));
  }

  hasChat(chatId: string): boolean {
    return fs.existsSync(this.chatPath(validateChatId(chatId)));
  }

  // ---------------------------------------------------------------- saving

  /**
   * Appends the turn the engine just completed. Blobs first, then one line (write + fsync), then the
   * index. Returns the bytes appended and any repair warnings (a torn tail cut off, a corrupt file
   * moved aside and replaced by the full state).
   */
  appendTurn(chatId: string, input: AppendTurnInput): { bytes: number; warnings: string[]; meta: TurnMeta } {
    const id = validateChatId(chatId);
    const file = this.chatPath(id);
    const warnings: string[] = [];
    let head = this.heads.get(id);
    const size = fileSize(file);
    if (!fs.existsSync(file)) {
      head = { enc: undefined, turns: [], warnings: [], validBytes: 0, fileBytes: 0, needsNewline: false, lastLineStart: 0, lastLineTurns: 0 };
    } else if (!head || head.fileBytes !== size) {
      try {
        head = this.readHead(id);
      } catch (e) {
        if (!(e instanceof ChatStoreError) || e.code !== 'corrupt') throw e;
        warnings.push(`${e.message}; the chat continues from the current state in a new file`);
        head = { enc: undefined, turns: [], warnings: [], validBytes: 0, fileBytes: 0, needsNewline: false, lastLineStart: 0, lastLineTurns: 0 };
      }
    }
    if (head.validBytes < head.fileBytes) {
      fs.truncateSync(file, head.validBytes);
      warnings.push(`chat ${id}: cut off ${head.fileBytes - head.validBytes} bytes of a torn last line before appending`);
      head = { ...head, fileBytes: head.validBytes };
    }
    const meta = input.engine ? ('tokenizer' in input.engine ? engineMeta(input.engine) : input.engine) : head.enc?.engine;
    const enc = encodeState(input.state, { engine: meta });
    if (head.enc && enc.completedTurns <= head.enc.completedTurns) {
      throw new ChatStoreError('conflict', `chat ${id} already has ${head.enc.completedTurns} turns saved; cannot save turn ${enc.completedTurns} (was the chat changed in another window?)`);
    }
    const delta = diffState(head.enc, enc);
    for (const b of stateBlobs(input.state, deltaEntryKeys(delta))) this.writeBlob(b.hash, b.text);
    const line: ChatLine = { format: CHAT_FORMAT, v: FORMAT_VERSION, turn: enc.completedTurns, delta, stateHash: stateDigest(enc), meta: this.turnMeta(input) };
    const text = (head.needsNewline ? '\n' : '') + JSON.stringify(line) + '\n';
    const bytes = this.appendLine(file, text);
    const fileBytes = head.fileBytes + bytes;
    const saved = meta ? { ...line.meta!, engine: meta } : line.meta!;
    this.heads.set(id, { enc, turns: [...head.turns, saved], warnings: [], validBytes: fileBytes, fileBytes, needsNewline: false, lastLineStart: head.fileBytes + (head.needsNewline ? 1 : 0), lastLineTurns: enc.completedTurns - (head.enc?.completedTurns ?? 0) });
    const first = input.state.turns[0]?.userText ?? '';
    this.upsertIndex(id, enc.completedTurns, input.title ?? titleFrom(first));
    return { bytes, warnings, meta: saved };
  }

  private turnMeta(input: AppendTurnInput): TurnMeta {
    const s = input.state;
    const record = s.turns.length > 0 && s.turns[s.turns.length - 1].turn === s.completedTurns ? s.turns[s.turns.length - 1] : undefined;
    const keys = (pred: (e: EntryState) => boolean) => s.order.filter((k) => pred(s.entries.get(k)!));
    const meta: TurnMeta = {
      turn: s.completedTurns,
      at: this.now().toISOString(),
      attachments: (record?.items ?? []).map((i) => {
        const a = s.entries.get(i.key)!.artifact;
        const m: TurnAttachmentMeta = { key: i.key, id: a.id, kind: a.kind, version: a.version, contentHash: a.contentHash, uri: a.source.uri, mode: i.mode };
        if (a.source.range) m.range = { ...a.source.range };
        return m;
      }),
      pinned: keys((e) => e.essential && e.presence === 'present'),
      detached: keys((e) => e.presence === 'detached'),
      pruned: keys((e) => e.presence === 'pruned'),
      compacted: keys((e) => !!e.compacted && e.presence === 'present'),
      missing: keys((e) => e.missing),
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
    if (env?.rejections && env.rejections.length > 0) meta.rejections = env.rejections.map((r) => ({ attachment: r.attachment, reason: r.reason }));
    if (input.usage) meta.usage = { input: input.usage.input, cacheRead: input.usage.cacheRead, cacheWrite: input.usage.cacheWrite, output: input.usage.output };
    if (env?.layers && env.layers.every((l) => typeof l.tokens === 'number')) meta.layerTokens = Object.fromEntries(env.layers.map((l) => [l.id, l.tokens as number]));
    if (env?.ledger?.layers && env.ledger.cachedTokens > 0) {
      meta.layerCached = Object.fromEntries(env.ledger.layers.map((l) => [l.id, l.items.reduce((n, i) => n + (i.cached ? i.tokens : 0), 0)]));
    }
    if (input.model) meta.model = input.model;
    if (input.provider) meta.provider = input.provider;
    if (input.stopped) meta.stopped = true;
    if (input.request) meta.request = JSON.parse(JSON.stringify(input.request)) as StoredTurnRequest;
    if (input.toolSteps && input.toolSteps.length > 0) meta.toolSteps = JSON.parse(JSON.stringify(input.toolSteps)) as ToolStepView[];
    return meta;
  }

  // ---------------------------------------------------------------- loading

  /**
   * Loads a chat: its state exactly as last saved (nothing in the workspace is read), the engine
   * options in force, per-turn metadata, and warnings (a torn last line that was ignored). A corrupt
   * file is moved aside (`ChatStoreError` code `corrupt`, `movedTo`); a missing or damaged blob is a
   * `missing-blob` error for this chat only.
   */
  loadChat(chatId: string, opts: { throughTurn?: number } = {}): LoadedChat {
    const id = validateChatId(chatId);
    const head = this.readHead(id, opts.throughTurn);
    const enc = head.enc;
    let state: ChatState;
    let engine: EngineMeta | undefined;
    if (!enc) {
      state = emptyState();
    } else {
      let blobError: ChatStoreError | undefined;
      try {
        state = decodeState(enc, (hash) => {
          try {
            return this.readBlob(hash);
          } catch (e) {
            if (e instanceof ChatStoreError) blobError = e;
            throw e;
          }
        });
        engine = decodeEngineMetaOf(enc);
      } catch (e) {
        if (blobError) throw new ChatStoreError('missing-blob', `chat ${id} cannot be loaded: ${(e as Error).message}`);
        throw this.corrupt(id, (e as Error).message);
      }
    }
    // A head read up to an earlier turn is not the file's head.
    if (opts.throughTurn === undefined) this.heads.set(id, head);
    const entry = this.readIndex().find((c) => c.id === id);
    return { id, title: entry?.title ?? titleFrom(state.turns[0]?.userText ?? ''), state, engine, turns: head.turns, warnings: head.warnings, bytes: head.fileBytes };
  }

  /**
   * Reads and checks a chat file without fetching blobs; with `throughTurn`, only the lines up to that
   * turn (the state before later turns: Regenerate builds on it without touching the file).
   */
  private readHead(id: string, throughTurn?: number): ChatHead {
    const file = this.chatPath(id);
    let buf: Buffer;
    try {
      buf = fs.readFileSync(file);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw new ChatStoreError('not-found', `there is no chat ${id} in this workspace`);
      throw e;
    }
    const warnings: string[] = [];
    const turns: TurnMeta[] = [];
    let enc: EncodedState | undefined;
    let lastHash: string | undefined;
    let validBytes = 0;
    let needsNewline = false;
    let lastLineStart = 0;
    let lastLineTurns = 0;
    let start = 0;
    let lineNo = 0;
    while (start < buf.length) {
      const nl = buf.indexOf(0x0a, start);
      const end = nl < 0 ? buf.length : nl;
      const next = nl < 0 ? buf.length : nl + 1;
      lineNo++;
      const isLast = next >= buf.length;
      const text = buf.subarray(start, end).toString('utf8');
      if (text.trim().length === 0 && !isLast) {
        throw this.corrupt(id, `line ${lineNo} is empty`);
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch (e) {
        if (isLast) {
          warnings.push(`chat ${id}: the last line (${lineNo}) was cut off by an interrupted write and was ignored; the turns before it are intact`);
          break;
        }
        throw this.corrupt(id, `line ${lineNo} is not valid JSON (${(e as Error).message})`);
      }
      if (throughTurn !== undefined && isObj(parsed) && typeof parsed.turn === 'number' && parsed.turn > throughTurn) {
        if ((enc?.completedTurns ?? 0) < throughTurn) throw new ChatStoreError('conflict', `chat ${id}: turns ${(enc?.completedTurns ?? 0) + 1}-${parsed.turn} were saved together; there is no state after turn ${throughTurn} alone`);
        break;
      }
      try {
        const line = checkLine(parsed);
        if (enc && line.turn <= enc.completedTurns) throw new Error(`turn ${line.turn} does not follow turn ${enc.completedTurns}`);
        lastLineTurns = line.turn - (enc?.completedTurns ?? 0);
        enc = checkEncodedShape(applyDelta(enc, line.delta));
        if (enc.completedTurns !== line.turn) throw new Error(`the state has ${enc.completedTurns} turns, the line says ${line.turn}`);
        lastHash = line.stateHash;
        // The engine options in force at each turn come from the chain.
        const engine = enc.engine;
        if (line.imported) for (const t of line.imported.turns) turns.push(t.engine || !engine ? t : { ...t, engine });
        if (line.meta) turns.push(engine ? { ...line.meta, engine } : line.meta);
      } catch (e) {
        throw this.corrupt(id, `line ${lineNo}: ${(e as Error).message}`);
      }
      lastLineStart = start;
      validBytes = next;
      needsNewline = nl < 0;
      start = next;
    }
    if (enc && stateDigest(enc) !== lastHash) throw this.corrupt(id, 'the state rebuilt from its lines does not match the recorded digest');
    return { enc, turns, warnings, validBytes, fileBytes: buf.length, needsNewline, lastLineStart, lastLineTurns };
  }

  /** Moves a corrupt chat file aside, drops it from the index, and returns the error to throw. */
  private corrupt(id: string, why: string): ChatStoreError {
    const file = this.chatPath(id);
    let n = 1;
    while (fs.existsSync(path.join(this.chatsDir, `${id}.corrupt-${n}.jsonl`))) n++;
    const moved = path.join(this.chatsDir, `${id}.corrupt-${n}.jsonl`);
    fs.renameSync(file, moved);
    this.heads.delete(id);
    this.writeIndex(this.readIndex().filter((c) => c.id !== id));
    return new ChatStoreError('corrupt', `chat ${id} is damaged (${why}); it was moved aside to ${path.relative(this.root, moved)}`, moved);
  }

  // ---------------------------------------------------------------- renaming, regenerating

  /** Sets the title the chat list shows (kept in the index; a rebuilt index falls back to the first message). */
  renameChat(chatId: string, title: string): ChatIndexEntry {
    const id = validateChatId(chatId);
    const clean = title.replace(/\s+/g, ' ').trim().slice(0, 200);
    if (clean.length === 0) throw new ChatStoreError('invalid-title', 'a chat title cannot be empty');
    const index = this.readIndex();
    const i = index.findIndex((c) => c.id === id);
    if (i < 0) throw new ChatStoreError('not-found', `there is no chat ${id} in this workspace`);
    index[i] = { ...index[i], title: clean };
    this.writeIndex(index);
    return index[i];
  }

  /**
   * Removes the last turn (Regenerate): the chat file is cut at the start of its last line (one
   * truncate + fsync, so a crash leaves either the old file or the shorter one, both valid), and the
   * index follows. A torn tail after it goes too. Returns the turns left. An imported chat's first
   * line holds several turns at once and cannot be cut into: `conflict`.
   */
  dropLastTurn(chatId: string): { turns: number } {
    const id = validateChatId(chatId);
    const file = this.chatPath(id);
    const head = this.readHead(id);
    if (!head.enc || head.enc.completedTurns === 0) throw new ChatStoreError('not-found', `chat ${id} has no turn to remove`);
    if (head.lastLineTurns !== 1) throw new ChatStoreError('conflict', `the last ${head.lastLineTurns} turns of chat ${id} were imported together and cannot be removed one by one`);
    const fd = fs.openSync(file, 'r+');
    try {
      fs.ftruncateSync(fd, head.lastLineStart);
      if (this.durable) fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    this.heads.delete(id);
    const turns = head.enc.completedTurns - 1;
    const index = this.readIndex();
    const i = index.findIndex((c) => c.id === id);
    if (i >= 0) {
      index[i] = { ...index[i], turns, updatedAt: this.now().toISOString() };
      this.writeIndex(index);
    }
    return { turns };
  }

  // ---------------------------------------------------------------- deleting

  /** Deletes a chat (and copies of it moved aside as corrupt), then collects unreferenced blobs. */
  deleteChat(chatId: string): { removedBlobs: number } {
    const id = validateChatId(chatId);
    let found = false;
    for (const name of fs.readdirSync(this.chatsDir)) {
      const m = CORRUPT_NAME.exec(name);
      if (name === `${id}.jsonl` || (m && m[1] === id)) {
        fs.unlinkSync(path.join(this.chatsDir, name));
        found = true;
      }
    }
    const index = this.readIndex();
    if (!found && !index.some((c) => c.id === id)) throw new ChatStoreError('not-found', `there is no chat ${id} in this workspace`);
    this.heads.delete(id);
    this.writeIndex(index.filter((c) => c.id !== id));
    return { removedBlobs: this.collectBlobs() };
  }

  /**
   * Removes blobs no chat file references. References are found by scanning every chat file
   * (including ones moved aside) for sha256-shaped strings, so a damaged file keeps its blobs.
   */
  collectBlobs(): number {
    const referenced = new Set<string>();
    for (const name of fs.readdirSync(this.chatsDir)) {
      if (!name.endsWith('.jsonl')) continue;
      const text = fs.readFileSync(path.join(this.chatsDir, name), 'latin1');
      for (const m of text.matchAll(/[0-9a-f]{64}/g)) referenced.add(m[0]);
    }
    let removed = 0;
    for (const dir of safeReaddir(this.blobsDir)) {
      const full = path.join(this.blobsDir, dir);
      for (const name of safeReaddir(full)) {
        if (HEX64.test(name)) {
          if (referenced.has(name)) continue;
          fs.unlinkSync(path.join(full, name));
          removed++;
        } else if (name.includes('.tmp-')) {
          // A blob write interrupted by a crash; leave young ones to a writer that may still be running.
          const st = fs.statSync(path.join(full, name));
          if (Date.now() - st.mtimeMs > 60_000) fs.unlinkSync(path.join(full, name));
        }
      }
    }
    return removed;
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
    const md = renderMarkdown(loaded.id, title, state, loaded.engine, redacted) + `\n<!-- strata-chat: ${Buffer.from(json, 'utf8').toString('base64')} -->\n`;
    for (const s of secrets) {
      if (md.includes(s) || json.includes(s)) throw new ChatStoreError('secret', `chat ${loaded.id} was not exported: a secret would have appeared in it`);
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
    if (matches.length === 0) throw new ChatStoreError('invalid-import', 'this Markdown has no Strata chat metadata (<!-- strata-chat: … -->); only chats exported by Strata can be imported');
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
      if (nodeSha256(Buffer.from(t as string, 'utf8')) !== h) bad(`blob ${h.slice(0, 12)}… does not match its hash`);
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
    const id = opts.chatId !== undefined ? validateChatId(opts.chatId) : this.freeId(chatIdFor(chat.id));
    if (this.hasChat(id)) throw new ChatStoreError('conflict', `a chat ${id} already exists in this workspace`);
    const turns = (p.turns as TurnMeta[]).filter(isObj).map((t) => ({ ...t, attachments: Array.isArray(t.attachments) ? t.attachments.filter((a) => isObj(a) && !drop.has(a.key)) : [] }));
    const full = encodeState(state, { engine });
    for (const b of stateBlobs(state)) this.writeBlob(b.hash, b.text);
    const line: ChatLine = { format: CHAT_FORMAT, v: FORMAT_VERSION, turn: full.completedTurns, delta: diffState(undefined, full), stateHash: stateDigest(full), imported: { from: chat.id, turns } };
    const warnings: string[] = [];
    if (dropped.length > 0) warnings.push(`${dropped.length} attachment path(s) are not allowed in this workspace and were left out: ${dropped.map((d) => d.path).join(', ')}`);
    this.appendLine(this.chatPath(id), JSON.stringify(line) + '\n');
    this.upsertIndex(id, full.completedTurns, chat.title);
    return { chatId: id, turns: full.completedTurns, dropped, warnings };
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

  private blobPath(hash: string): string {
    return path.join(this.blobsDir, hash.slice(0, 2), hash);
  }

  /** Stores a blob once: tmp + fsync + rename, so a crash never leaves a partial blob under its name. */
  private writeBlob(hash: string, text: string): void {
    const file = this.blobPath(hash);
    if (fs.existsSync(file)) return;
    const data = Buffer.from(text, 'utf8');
    if (nodeSha256(data) !== hash) throw new Error(`internal error: blob ${hash.slice(0, 12)}… does not match its content`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    writeFileAtomic(file, data, this.durable);
  }

  /** Reads a blob and checks it against its name. */
  private readBlob(hash: string): string {
    if (!HEX64.test(hash)) throw new ChatStoreError('corrupt', `invalid blob name ${JSON.stringify(hash.slice(0, 70))}`);
    let data: Buffer;
    try {
      data = fs.readFileSync(this.blobPath(hash));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw new ChatStoreError('missing-blob', `snapshot blob ${hash} is missing from ${path.relative(this.root, this.blobPath(hash))}`);
      throw e;
    }
    if (nodeSha256(data) !== hash) throw new ChatStoreError('missing-blob', `snapshot blob ${hash} is damaged (its content does not match its hash)`);
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
      return (obj.chats as unknown[]).filter((c): c is ChatIndexEntry => isObj(c) && typeof c.id === 'string' && CHAT_ID.test(c.id) && typeof c.title === 'string' && typeof c.turns === 'number' && typeof c.createdAt === 'string' && typeof c.updatedAt === 'string');
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
        turns = head.enc?.completedTurns ?? 0;
        title = titleFrom(head.enc?.turns[0]?.userText ?? '');
      } catch (e) {
        // Corrupt: readHead moved it aside.
        this.warnings.push((e as Error).message);
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
  if (v.v !== FORMAT_VERSION) throw new Error(`version ${String(v.v)} is not supported`);
  if (typeof v.turn !== 'number' || !Number.isInteger(v.turn) || v.turn < 0) throw new Error('turn must be an integer');
  if (!isObj(v.delta)) throw new Error('delta must be an object');
  if (typeof v.stateHash !== 'string' || !HEX64.test(v.stateHash)) throw new Error('stateHash must be a sha256');
  if (v.meta !== undefined && (!isObj(v.meta) || !Array.isArray(v.meta.attachments))) throw new Error('meta must be an object');
  if (v.imported !== undefined && (!isObj(v.imported) || !Array.isArray(v.imported.turns))) throw new Error('imported must be {from, turns}');
  return v as unknown as ChatLine;
}

function fileSize(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
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
        const how = i.mode === 'missing' ? 'file deleted, last snapshot kept' : i.mode === 'reference' ? 'referenced (sent earlier)' : 'sent in full';
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
