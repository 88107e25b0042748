/**
 * The head of a chat file: the state its valid lines add up to (a `StateChain`), each turn's metadata,
 * and where the file stands (valid bytes, the last line's place and bytes, the digest at each turn),
 * read without fetching blobs. A head read earlier is continued with only what was appended since,
 * when the file is still the same file with the same last line.
 *
 * Crash safety: only a torn last line can be lost (it is ignored with a warning and cut off by the
 * next writer); a reader that sees one while another window holds the store lock treats it as a write
 * in progress.
 */
import * as fs from 'fs';
import { isObj } from '../../common/guards';
import { checkEncodedShape } from '../../engine/stateCodec';
import { sha256HexBytes } from '../nodeHasher';
import { readRange } from './atomicFile';
import { StateChain } from './chatChain';
import { CHAT_FORMAT, LINE_VERSION, readLine } from './chatFormat';
import { ChatStoreError, type ChatBase, type TurnMeta } from './chatTypes';
import { runStepsSync, type Step } from '../../common/steps';
import type { TimeSlice } from '../timeSlice';
import { utf8DecodeSteps } from '../textSteps';

/** Bytes from which a line is decoded, parsed and checked in separate steps. */
const LONG_LINE = 256 * 1024;

/** A chat file that does not read back (thrown by `readChatHead`; moved aside only after a re-read under the lock). */
export class ChatCorrupt extends Error {}

export interface ChatHead {
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

export function emptyHead(): ChatHead {
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

/** The saved state a head is (what `appendTurn` checks a caller's base against). */
export function baseOf(head: ChatHead): ChatBase {
  return { turns: head.chain?.turnCount ?? 0, stateHash: head.lastHash };
}

/**
 * Reads and checks a chat file without fetching blobs; with `throughTurn`, only the lines up to that
 * turn (the state before later turns: Regenerate builds on it without touching the file). With
 * `from` (this chat's head read earlier), only what was appended after it is read, when the file
 * is still the same file with the same last line; otherwise the whole file. Throws `ChatCorrupt`
 * for a damaged file (the caller decides whether to move it aside) and `not-found`.
 */
export function readChatHead(file: string, id: string, writerActive: () => boolean, throughTurn?: number, from?: ChatHead): ChatHead {
  return runStepsSync(headSteps(file, id, writerActive, throughTurn, from));
}

/**
 * `readChatHead` (the whole head, no `throughTurn`) with the event loop given a turn every few ms: a
 * long chat's file is thousands of lines to parse and apply, hundreds of milliseconds in one piece.
 * The head is the one `readChatHead` returns; passed to it later as `from`, only what was appended
 * since is read again.
 */
export async function readChatHeadSliced(
  file: string,
  id: string,
  writerActive: () => boolean,
  from: ChatHead | undefined,
  slice: TimeSlice,
): Promise<ChatHead> {
  const steps = headSteps(file, id, writerActive, undefined, from);
  let r = steps.next();
  try {
    while (!r.done) {
      if (slice.due) await slice.pause();
      r = steps.next();
    }
  } finally {
    if (!r.done) steps.return(undefined as never);
  }
  return r.value;
}

/** The head read as steps: a step after each line (the file stays open until the last). */
function* headSteps(
  file: string,
  id: string,
  writerActive: () => boolean,
  throughTurn: number | undefined,
  from: ChatHead | undefined,
): Step<ChatHead> {
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
    return yield* parseLines(id, readRange(fd, offset, size - offset), offset, throughTurn, cont, st.ino, writerActive);
  } finally {
    fs.closeSync(fd);
  }
}

function* parseLines(
  id: string,
  buf: Buffer,
  offset: number,
  throughTurn: number | undefined,
  cont: ChatHead | undefined,
  ino: number,
  writerActive: () => boolean,
): Step<ChatHead> {
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
    // A long line (an imported chat is one line of megabytes) is decoded, parsed and applied in
    // separate steps: each of them alone holds the event loop for milliseconds.
    const long = end - start >= LONG_LINE;
    const text = long ? yield* utf8DecodeSteps(buf.subarray(start, end), { ignoreBOM: true }) : buf.subarray(start, end).toString('utf8');
    if (text.trim().length === 0 && !isLast) throw new ChatCorrupt(`line ${lineNo} is empty`);
    if (long) yield;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (e) {
      if (isLast) {
        // Another window writing this line right now is not damage.
        if (!writerActive())
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
    if (long) yield;
    try {
      const { line, written } = readLine(parsed);
      if (chain && line.turn <= chain.turnCount) throw new Error(`turn ${line.turn} does not follow turn ${chain.turnCount}`);
      lastLineTurns = line.turn - (chain?.turnCount ?? 0);
      chain ??= new StateChain();
      chain.apply(line.delta);
      if (chain.turnCount !== line.turn) throw new Error(`the state has ${chain.turnCount} turns, the line says ${line.turn}`);
      lastHash = line.stateHash;
      lastVersion = written;
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
    yield;
  }
  if (lastLocal) lastLineSha = sha256HexBytes(buf.subarray(lastLocal[0], lastLocal[1]));
  if (chain && applied > 0) {
    try {
      checkEncodedShape(chain.encoded());
    } catch (e) {
      throw new ChatCorrupt(`the state rebuilt from its lines is invalid: ${(e as Error).message}`);
    }
    yield* chain.digestSteps(lastVersion);
    if (!chain.matches(lastHash, lastVersion)) throw new ChatCorrupt('the state rebuilt from its lines does not match the recorded digest');
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

/**
 * Whether `from` (a head read earlier) is a prefix of the open file: same inode, at least as long,
 * and the last valid line's bytes unchanged (an append by another window keeps them; Regenerate's cut
 * or a file moved aside and recreated does not).
 */
function continues(fd: number, st: fs.Stats, from: ChatHead): boolean {
  if (from.ino !== st.ino || from.needsNewline || from.validBytes === 0 || st.size < from.validBytes) return false;
  const len = from.validBytes - from.lastLineStart;
  const buf = readRange(fd, from.lastLineStart, len);
  return buf.length === len && sha256HexBytes(buf) === from.lastLineSha;
}
