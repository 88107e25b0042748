/**
 * The state of a reply's code blocks (Applied, Rejected, Undone), kept beside the chat
 * (`applied/<id>.jsonl`, see docs/design.md#storage). It is decided after the turn's line was
 * written, and a chat line is never rewritten, so each decision is one line appended here, naming
 * the turn, the block, the digest of the chat line holding that turn and the time the turn was
 * saved: a turn replaced since (Regenerate, another window) has another digest or time (the same
 * reply again has the same digest) and its old blocks' states no longer apply. The last line for a
 * block wins. Chat ids are validated by the caller, which holds the store lock.
 */
import * as fs from 'fs';
import * as path from 'path';
import { isObj } from '../../common/guards';
import { appendDurably } from './atomicFile';
import { HEX64 } from './chatFormat';
import type { ChatHead } from './chatHead';
import { ChatStoreError, type AppliedBlock, type TurnMeta } from './chatTypes';

export type { AppliedBlock } from './chatTypes';

/** A marks file larger than this is not read (one line is about 150 bytes). */
const MAX_MARKS_BYTES = 4 * 1024 * 1024;
/** Longest path a mark keeps (characters). */
export const MAX_MARK_PATH_CHARS = 4096;
const STATES: readonly string[] = ['applied', 'rejected', 'undone'];

/** One line of a marks file. */
interface MarkLine extends AppliedBlock {
  turn: number;
  /** The stateHash of the chat line that holds the turn when the mark was written. */
  line: string;
  /** The turn's `TurnMeta.at` then (absent when it had none). */
  at?: string;
}

const isCount = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;

/** Whether `v` is a block's state as the store keeps it (a mark's fields, a turn meta's `applied` entry). */
export function isAppliedBlock(v: unknown): v is AppliedBlock {
  return (
    isObj(v) &&
    isCount(v.block) &&
    (v.block as number) < 10_000 &&
    typeof v.state === 'string' &&
    STATES.includes(v.state) &&
    isCount(v.accepted) &&
    isCount(v.total) &&
    (v.accepted as number) <= (v.total as number) &&
    typeof v.path === 'string' &&
    v.path.length <= MAX_MARK_PATH_CHARS
  );
}

function isMarkLine(v: unknown): v is MarkLine {
  if (!isAppliedBlock(v)) return false;
  const r = v as unknown as Record<string, unknown>;
  return (
    Number.isSafeInteger(r.turn) &&
    (r.turn as number) >= 1 &&
    typeof r.line === 'string' &&
    HEX64.test(r.line) &&
    (r.at === undefined || (typeof r.at === 'string' && r.at.length <= 64))
  );
}

/** A block's state with exactly the fields the store keeps. */
export function appliedBlock(b: AppliedBlock): AppliedBlock {
  return { block: b.block, state: b.state, accepted: b.accepted, total: b.total, path: b.path };
}

export class AppliedMarks {
  constructor(
    readonly dir: string,
    private readonly durable: boolean,
  ) {}

  private pathOf(id: string): string {
    return path.join(this.dir, `${id}.jsonl`);
  }

  /**
   * Appends the state of block `mark.block` of turn `turn` of chat `id`, whose head as on disk is
   * `head` (the caller holds the store lock): one write + fsync. Returns the turn's metadata with it.
   */
  set(id: string, head: ChatHead, turn: number, mark: AppliedBlock): TurnMeta {
    if (!Number.isSafeInteger(turn) || turn < 1 || turn > (head.chain?.turnCount ?? 0))
      throw new ChatStoreError('not-found', `chat ${id} has no saved turn ${turn}`);
    const line = lineHashOf(
      [...head.lineHashes.keys()].sort((a, b) => a - b),
      head.lineHashes,
      turn,
    )!;
    const at = head.turns[turn - 1]?.at;
    const record: MarkLine = { turn, line, ...(at !== undefined ? { at } : {}), ...appliedBlock(mark) };
    if (!isMarkLine(record)) throw new Error(`the state of block ${String(mark.block)} of turn ${turn} is not well-formed`);
    fs.mkdirSync(this.dir, { recursive: true });
    // It starts with a newline too, so a line torn by a crash never runs into the next one.
    appendDurably(this.pathOf(id), '\n' + JSON.stringify(record) + '\n', this.durable);
    return this.merged(id, head)[turn - 1];
  }

  /** The marks of a chat in the order written; a damaged line is skipped. */
  private load(id: string): MarkLine[] {
    let text: string;
    try {
      const file = this.pathOf(id);
      if (fs.statSync(file).size > MAX_MARKS_BYTES) return [];
      text = fs.readFileSync(file, 'utf8');
    } catch {
      return [];
    }
    const out: MarkLine[] = [];
    for (const line of text.split('\n')) {
      if (line.length === 0) continue;
      try {
        const v: unknown = JSON.parse(line);
        if (isMarkLine(v)) out.push(v);
      } catch {
        // A line torn by a crash: the decision it held is lost, the others stand.
      }
    }
    return out;
  }

  /**
   * The head's turn metas, each turn's `applied` set from the marks that still name the chat line
   * holding it and its time. The metas are copied, never changed.
   */
  merged(id: string, { turns, lineHashes }: Pick<ChatHead, 'turns' | 'lineHashes'>): TurnMeta[] {
    const out = turns.slice();
    const marks = this.load(id);
    if (marks.length === 0) return out;
    const ends = [...lineHashes.keys()].sort((a, b) => a - b);
    const byTurn = new Map<number, Map<number, AppliedBlock>>();
    for (const m of marks) {
      if (m.turn > turns.length || lineHashOf(ends, lineHashes, m.turn) !== m.line || turns[m.turn - 1].at !== m.at) continue;
      const blocks = byTurn.get(m.turn) ?? new Map<number, AppliedBlock>();
      blocks.set(m.block, appliedBlock(m));
      byTurn.set(m.turn, blocks);
    }
    for (const [turn, blocks] of byTurn)
      out[turn - 1] = { ...out[turn - 1], applied: [...blocks.values()].sort((a, b) => a.block - b.block) };
    return out;
  }

  /** Removes a chat's marks (the chat was deleted, or a new chat takes its id). */
  remove(id: string): void {
    fs.rmSync(this.pathOf(id), { force: true });
  }
}

/** The stateHash of the line holding `turn`: the first line that ends at or after it (`ends` sorted). */
export function lineHashOf(ends: readonly number[], lineHashes: ReadonlyMap<number, string>, turn: number): string | undefined {
  const end = ends.find((e) => e >= turn);
  return end === undefined ? undefined : lineHashes.get(end);
}
