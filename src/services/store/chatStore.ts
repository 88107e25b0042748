/**
 * The chat store: per workspace, under the folder the host passes (`ExtensionContext.storageUri`),
 * every chat as an append-only JSONL file plus content-addressed blobs for artifact snapshots, so a
 * reloaded chat renders byte-identical requests even when the files changed on disk since. Plain Node
 * (fs), no vscode. The file layout and line format are in chatFormat.ts; this class is the façade over
 * the store's parts (the chat heads, blobs, index, token counts, export and import, the lock); a
 * turn's write is in turnAppend.ts, an import's line in chatImport.ts, the repairs on opening in
 * storeRepair.ts.
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
import * as fs from 'fs';
import * as path from 'path';
import { emptyState, type ChatState } from '../../engine/state';
import { decodeEngineMetaOf, stateBlobs, type EngineMeta } from '../../engine/stateCodec';
import { AppliedMarks, type AppliedBlock } from './appliedMarks';
import { appendDurably, fsyncDir } from './atomicFile';
import { BLOB_GRACE_MS, BlobStore, blobNamesIn } from './blobStore';
import { chatIdFor, CORRUPT_NAME, freeChatId, titleFrom, validateChatId } from './chatFormat';
import { baseOf, ChatCorrupt, readChatHead, readChatHeadSliced, type ChatHead } from './chatHead';
import { importLineSteps, parseImportSliced, writeImportFile } from './chatImport';
import { ChatIndex } from './chatIndex';
import {
  ChatStoreError,
  type AppendTurnInput,
  type AppendTurnResult,
  type ChatBase,
  type ChatConflict,
  type ChatIndexEntry,
  type ChatStoreOptions,
  type ImportResult,
  type LoadedChat,
  type TurnMeta,
} from './chatTypes';
import { chatToMarkdown, secretsOf, type ExportOptions } from './markdownExport';
import { parseChatExport, type ParsedExport } from './markdownImport';
import { SavedForms } from './savedForms';
import { decodeChatState } from './stateDecoding';
import { LockBusyError, StoreLock } from './storeLock';
import { reconcileIndex, removeStaleTemps } from './storeRepair';
import { TokenCountCache } from './tokenCounts';
import { runStepsSync } from '../../common/steps';
import type { TimeSlice } from '../timeSlice';
import { appendTurnLocked, cutLastLine, type StoreParts } from './turnAppend';

export { chatIdFor, validateChatId } from './chatFormat';
export { ChatStoreError } from './chatTypes';
export type {
  AppendTurnInput,
  AppendTurnResult,
  ChatBase,
  ChatConflict,
  ChatIndexEntry,
  ChatStoreErrorCode,
  ChatStoreOptions,
  EnvelopeFacts,
  ImportResult,
  LoadedChat,
  ProviderUsage,
  StoredRef,
  StoredTurnRequest,
  TurnAttachmentMeta,
  TurnMeta,
} from './chatTypes';

/** How long opening a store waits for another window's write before it skips checking the index. */
const OPEN_LOCK_WAIT_MS = 1000;

export class ChatStore {
  private readonly chatsDir: string;
  private readonly durable: boolean;
  private readonly now: () => Date;
  /** Each chat's head as last read or written (a read continues it with what was appended since). */
  private readonly heads = new Map<string, ChatHead>();
  private readonly blobs: BlobStore;
  private readonly index: ChatIndex;
  /** Token counts of the chats' texts (a cache, see `appendTokenCounts`). */
  private readonly counts: TokenCountCache;
  /** The encoded forms of what was saved, reused by the next save. */
  private readonly forms = new SavedForms();
  private readonly marks: AppliedMarks;
  /** Serializes writers across windows (and store instances). */
  readonly lock: StoreLock;
  /** Problems found while opening (index rebuilt, stale temp files removed). */
  readonly warnings: string[] = [];

  private constructor(
    readonly root: string,
    private readonly options: ChatStoreOptions,
  ) {
    this.chatsDir = path.join(root, 'chats');
    this.durable = options.durable ?? true;
    this.now = options.now ?? (() => new Date());
    this.blobs = new BlobStore(root, path.join(root, 'blobs'), this.durable);
    this.index = new ChatIndex(path.join(root, 'index.json'), this.durable, this.now, (w) => this.warnings.push(w));
    this.counts = new TokenCountCache(path.join(root, 'counts'));
    this.marks = new AppliedMarks(path.join(root, 'applied'), this.durable);
    this.lock = new StoreLock(path.join(root, 'store.lock'), options.lock);
  }

  /** Opens (creating if needed) the store of one workspace. */
  static open(root: string, options: ChatStoreOptions = {}): ChatStore {
    const store = new ChatStore(path.resolve(root), options);
    fs.mkdirSync(store.chatsDir, { recursive: true });
    fs.mkdirSync(store.blobs.dir, { recursive: true });
    StoreLock.removeStaleTokens(store.root, 'store.lock');
    // A window opening must not hang on another one's write: a short wait, then the chats as they are.
    try {
      store.locked(() => {
        removeStaleTemps(store.root, store.warnings);
        reconcileIndex(store.parts(), store.chatsDir, store.warnings);
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

  /** The parts a write under the lock reaches (turnAppend.ts, storeRepair.ts). */
  private parts(): StoreParts {
    return {
      heads: this.heads,
      forms: this.forms,
      blobs: this.blobs,
      index: this.index,
      lock: this.lock,
      durable: this.durable,
      now: this.now,
      chatPath: (id) => this.chatPath(id),
      readHead: (id, throughTurn, from) => this.readHead(id, throughTurn, from),
      corrupt: (id, why) => this.corrupt(id, why),
      appendLine: (file, text) => this.appendLine(file, text),
    };
  }

  // ---------------------------------------------------------------- listing

  /** The chats of this workspace, most recently updated first. */
  listChats(): ChatIndexEntry[] {
    return this.index
      .read()
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
    return this.locked(() => appendTurnLocked(this.parts(), id, input));
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
        state = decodeChatState(id, enc, this.blobs, opts.reuse);
        engine = decodeEngineMetaOf(enc);
        this.forms.rememberLoaded(state, enc);
      } catch (e) {
        if (e instanceof ChatStoreError) throw e;
        throw this.corruptAfterRecheck(id, (e as Error).message, opts.throughTurn);
      }
    }
    const entry = this.index.read().find((c) => c.id === id);
    return {
      id,
      title: entry?.title ?? titleFrom(state.turns[0]?.userText ?? ''),
      state,
      engine,
      turns: this.marks.merged(id, head),
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
    return this.marks.merged(chatId, this.syncHead(validateChatId(chatId)));
  }

  /** Records the state of a reply's code block, beside the chat file (appliedMarks.ts); returns the turn's metadata with it. */
  setApplied(chatId: string, turn: number, mark: AppliedBlock): TurnMeta {
    return this.locked(() => this.marks.set(chatId, this.syncHead(validateChatId(chatId)), turn, mark));
  }

  /**
   * Reads chat `chatId`'s file ahead of `loadChat`, giving the event loop a turn every few ms, so that
   * `loadChat` then reads only what was appended since. A file that does not read back is left for
   * `loadChat` to report.
   */
  async preloadChat(chatId: string, slice: TimeSlice): Promise<void> {
    const id = validateChatId(chatId);
    try {
      const head = await readChatHeadSliced(this.chatPath(id), id, () => this.lock.heldByOther(), this.heads.get(id), slice);
      this.heads.set(id, head);
    } catch {
      // loadChat reads it again and says what is wrong.
    }
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
        if (enc) decodeChatState(id, enc, this.blobs);
      } catch (e) {
        if (e instanceof ChatCorrupt) return this.corrupt(id, e.message);
        if (e instanceof ChatStoreError) return e;
        return this.corrupt(id, (e as Error).message);
      }
      return new ChatStoreError('busy', `chat ${id} changed while it was being read (${why}); try again`);
    });
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
      this.index.write(this.index.read().filter((c) => c.id !== id));
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
      const index = this.index.read();
      const i = index.findIndex((c) => c.id === id);
      if (i < 0) throw new ChatStoreError('not-found', `there is no chat ${id} in this workspace`);
      index[i] = { ...index[i], title: clean };
      this.index.write(index);
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
      const cut = cutLastLine(this.parts(), id, head);
      const turns = cut.chain?.turnCount ?? 0;
      const index = this.index.read();
      const i = index.findIndex((c) => c.id === id);
      if (i >= 0) {
        index[i] = { ...index[i], turns, updatedAt: this.now().toISOString() };
        this.index.write(index);
      }
      return { turns };
    });
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
      const index = this.index.read();
      if (!found && !index.some((c) => c.id === id)) throw new ChatStoreError('not-found', `there is no chat ${id} in this workspace`);
      for (const beside of [this.counts, this.marks]) beside.remove(id);
      this.heads.delete(id);
      this.forms.forget(id);
      this.index.write(index.filter((c) => c.id !== id));
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
      return this.blobs.collect(referenced, opts.released, grace);
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
  exportMarkdown(chatId: string, extraSecrets: readonly string[] = [], options: ExportOptions = {}): string {
    const loaded = this.loadChat(chatId);
    const secrets = [...new Set([...secretsOf(this.options), ...extraSecrets.filter((x) => x.length >= 8)])];
    return chatToMarkdown(loaded, secrets, options);
  }

  /**
   * Imports a chat exported by `exportMarkdown` as a new chat of this workspace. Every attachment
   * path is checked with `isAllowedPath` (the host's workspace isolation guard); disallowed ones are
   * dropped with everything that named them, and reported. Snapshots are verified by hash.
   */
  importMarkdown(text: string, opts: { isAllowedPath: (path: string) => boolean; chatId?: string }): ImportResult {
    return this.writeImport(parseChatExport(text, opts.isAllowedPath), opts.chatId);
  }

  /**
   * `importMarkdown` with the event loop given a turn every few ms while the export is decoded and
   * checked and the new line's digest is prepared (a long chat's export is megabytes).
   */
  async importMarkdownSliced(
    text: string,
    opts: { isAllowedPath: (path: string) => boolean; chatId?: string },
    slice: TimeSlice,
  ): Promise<ImportResult> {
    const { parsed, line } = await parseImportSliced(text, opts.isAllowedPath, slice);
    const file = await writeImportFile(this.root, line, this.durable);
    try {
      return this.writeImport(parsed, opts.chatId, { file });
    } finally {
      // Renamed into place on success; left over only when the import failed.
      await fs.promises.rm(file, { force: true });
    }
  }

  /**
   * Writes an imported chat as a new chat: its one line (see `importLineSteps`) appended to a new file,
   * or a file already holding it renamed into place.
   */
  private writeImport(
    { chat, state, full, turns, dropped, warnings }: ParsedExport,
    chatId: string | undefined,
    line: { text: string } | { file: string } = { text: runStepsSync(importLineSteps({ chat, full, turns })) },
  ): ImportResult {
    return this.locked(() => {
      const id = chatId !== undefined ? validateChatId(chatId) : freeChatId(chatIdFor(chat.id), (c) => this.hasChat(c));
      if (this.hasChat(id)) throw new ChatStoreError('conflict', `a chat ${id} already exists in this workspace`);
      this.marks.remove(id);
      for (const b of stateBlobs(state)) {
        this.blobs.write(b.hash, b.text);
        this.lock.touch();
      }
      this.lock.assertHeld();
      if ('text' in line) this.appendLine(this.chatPath(id), line.text);
      else {
        fs.renameSync(line.file, this.chatPath(id));
        if (this.durable) fsyncDir(this.chatsDir);
      }
      this.index.upsert(id, full.completedTurns, chat.title);
      return { chatId: id, turns: full.completedTurns, dropped, warnings };
    });
  }

  // ---------------------------------------------------------------- files

  /** The file of chat `id` (the history search reads it without the lock, as a reader may). */
  chatPath(id: string): string {
    return path.join(this.chatsDir, `${id}.jsonl`);
  }

  /** Reads chat `id`'s head (see `readChatHead`); a torn last line is a write in progress while another window holds the lock. */
  private readHead(id: string, throughTurn?: number, from?: ChatHead): ChatHead {
    return readChatHead(this.chatPath(id), id, () => this.lock.heldByOther(), throughTurn, from);
  }

  /**
   * Token counts of texts a chat's requests carried, by sha256 (its first 32 hex digits): a cache
   * beside the chat, so that a window opening the chat does not tokenize its whole history again
   * before its first meter. One line per turn, appended; never part of the chat's state (deleting the
   * file loses nothing but time). Returns false when it could not be written (the turn is saved anyway).
   */
  appendTokenCounts(chatId: string, counter: string, counts: readonly (readonly [string, number])[]): boolean {
    return this.counts.append(validateChatId(chatId), counter, counts);
  }

  /**
   * The counts saved for a chat by tokenizers like `counter` (an encoding and its guard settings:
   * counts of another are not these), empty when none; a damaged line is skipped.
   */
  loadTokenCounts(chatId: string, counter: string): Map<string, number> {
    return this.counts.load(validateChatId(chatId), counter);
  }

  /** Appends one chat line (one write + fsync). */
  private appendLine(file: string, text: string): number {
    return appendDurably(file, text, this.durable);
  }
}
