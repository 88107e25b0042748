/**
 * The store's write path for one turn, run under the store lock: the chat's head as on disk now, the
 * caller's base checked against it (a `conflict` naming whether another window appended, rewrote or
 * deleted), Regenerate's cut of the last line, a torn tail cut off, then the new blobs, one line
 * (write + fsync) and the index. See chatStore.ts for the rules two windows keep.
 */
import * as fs from 'fs';
import { deltaEntryKeys, diffState, engineMeta, stateBlobs } from '../../engine/stateCodec';
import { fileIno, truncateDurably } from './atomicFile';
import type { BlobStore } from './blobStore';
import { canonicalize, StateChain } from './chatChain';
import { CHAT_FORMAT, LINE_VERSION, titleFrom, type ChatLine } from './chatFormat';
import { baseOf, ChatCorrupt, emptyHead, type ChatHead } from './chatHead';
import type { ChatIndex } from './chatIndex';
import { ChatStoreError, type AppendTurnInput, type AppendTurnResult, type ChatBase, type ChatConflict } from './chatTypes';
import type { SavedForms } from './savedForms';
import type { StoreLock } from './storeLock';
import { sha256HexNode } from '../nodeHasher';
import { buildTurnMeta } from './turnMeta';

/** The parts of the store a write reaches (the caller holds the lock). */
export interface StoreParts {
  /** Each chat's head as last read or written. */
  heads: Map<string, ChatHead>;
  forms: SavedForms;
  blobs: BlobStore;
  index: ChatIndex;
  lock: StoreLock;
  durable: boolean;
  now: () => Date;
  chatPath: (id: string) => string;
  readHead: (id: string, throughTurn?: number, from?: ChatHead) => ChatHead;
  /** Moves a damaged chat file aside; returns the error to throw. */
  corrupt: (id: string, why: string) => ChatStoreError;
  /** Appends one chat line (one write + fsync); returns the bytes written. */
  appendLine: (file: string, text: string) => number;
}

/** `ChatStore.appendTurn` under the lock. */
export function appendTurnLocked(s: StoreParts, id: string, input: AppendTurnInput): AppendTurnResult {
  const file = s.chatPath(id);
  const warnings: string[] = [];
  const current = headForWrite(s, id, warnings);
  let head = current.head;
  // A file this call had to move aside: the caller's state is the best copy there is.
  if (input.base && !current.movedAside) checkBase(id, head, current.exists, input.base);
  if (input.replaceLast) head = cutLastLine(s, id, head);
  if (head.validBytes < head.fileBytes) {
    fs.truncateSync(file, head.validBytes);
    warnings.push(`chat ${id}: cut off ${head.fileBytes - head.validBytes} bytes of a torn last line before appending`);
    head = { ...head, fileBytes: head.validBytes };
  }
  const headEnc = head.chain?.encoded();
  const meta = input.engine ? ('tokenizer' in input.engine ? engineMeta(input.engine) : input.engine) : headEnc?.engine;
  const save = s.forms.encode(id, input.state, meta, head.chain);
  const enc = save.enc;
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
  const next = s.forms.canonicalize(enc);
  const prev = head.chain && !head.chain.canonical ? canonicalize(headEnc).value : headEnc;
  const delta = diffState(prev, next.value);
  for (const b of stateBlobs(input.state, deltaEntryKeys(delta))) {
    s.blobs.write(b.hash, b.text);
    s.lock.touch();
  }
  // Applied in place: a long chat's chain is not copied at every save. Should anything below fail
  // before the line is on disk, the cached head is dropped (the next access reads the file again).
  const chain = head.chain ?? new StateChain();
  s.heads.delete(id);
  chain.apply(delta, next.canonical);
  const stateHash = chain.digest();
  s.forms.remember(id, chain, input.state, save);
  const line: ChatLine = {
    format: CHAT_FORMAT,
    v: LINE_VERSION,
    turn: enc.completedTurns,
    delta,
    stateHash,
    meta: buildTurnMeta(input, s.now),
  };
  const json = JSON.stringify(line);
  const text = (head.needsNewline ? '\n' : '') + json + '\n';
  s.lock.assertHeld();
  const bytes = s.appendLine(file, text);
  const lineStart = head.fileBytes + (head.needsNewline ? 1 : 0);
  const saved = meta ? { ...line.meta!, engine: meta } : line.meta!;
  const lineHashes = head.lineHashes;
  lineHashes.set(enc.completedTurns, stateHash);
  const ino = head.ino >= 0 ? head.ino : fileIno(file);
  const fileBytes = head.fileBytes + bytes;
  s.heads.set(id, {
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
  s.index.upsert(id, enc.completedTurns, input.title ?? titleFrom(first));
  return { bytes, warnings, meta: saved, turn: enc.completedTurns, base: { turns: enc.completedTurns, stateHash } };
}

/**
 * The chat's head as on disk now, for a writer (under the lock): the cached head continued with
 * what was appended since; a missing file is an empty head; a corrupt one is moved aside.
 */
function headForWrite(s: StoreParts, id: string, warnings: string[]): { head: ChatHead; exists: boolean; movedAside: boolean } {
  try {
    const head = s.readHead(id, undefined, s.heads.get(id));
    s.heads.set(id, head);
    return { head, exists: true, movedAside: false };
  } catch (e) {
    if (e instanceof ChatStoreError && e.code === 'not-found') {
      s.heads.delete(id);
      return { head: emptyHead(), exists: false, movedAside: false };
    }
    if (!(e instanceof ChatCorrupt)) throw e;
    const err = s.corrupt(id, e.message);
    warnings.push(`${err.message}; the chat continues from the current state in a new file`);
    return { head: emptyHead(), exists: false, movedAside: true };
  }
}

function checkBase(id: string, head: ChatHead, exists: boolean, base: ChatBase): void {
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
export function cutLastLine(s: StoreParts, id: string, head: ChatHead): ChatHead {
  if (!head.chain || head.chain.turnCount === 0) throw new ChatStoreError('not-found', `chat ${id} has no turn to remove`);
  if (head.lastLineTurns !== 1)
    throw new ChatStoreError(
      'conflict',
      `the last ${head.lastLineTurns} turns of chat ${id} were imported together and cannot be removed one by one`,
    );
  truncateDurably(s.chatPath(id), head.lastLineStart, s.durable);
  s.heads.delete(id);
  const again = s.readHead(id);
  s.heads.set(id, again);
  return again;
}
