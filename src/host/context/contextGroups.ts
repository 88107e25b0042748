/**
 * Attachments that come as a group (a folder's files, the lines Git sees changed): which specs the
 * group is, how many of them fit the budget, and what the user is told about the ones left out.
 * Each spec still goes through the one attach path (isolation, excludes, size); this file only
 * bounds and counts. No vscode import: unit tests load it in plain Node.
 */
import type { Rejection } from '../../engine/isolation';
import type { LineRange } from '../../engine/types';
import type { ChipView } from '../../protocol/messages';
import type { AttachmentSpec } from '../../services/workspacePort';
import { formatInt } from '../../common/numberFormat';

/** A folder group attaches at most this many files (a larger folder is cut, and says so). */
export const MAX_GROUP_FILES = 100;
/** A unified diff's hunk header: the new side's first line and its line count (1 when left out). */
const HUNK_HEADER = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@/;

/** Every folder that holds a listed file (`a/b/c.ts` gives `a` and `a/b`), sorted. */
export function foldersOf(paths: readonly string[]): string[] {
  const out = new Set<string>();
  for (const p of paths) {
    for (let i = p.indexOf('/'); i > 0; i = p.indexOf('/', i + 1)) out.add(p.slice(0, i));
  }
  return [...out].sort();
}

/** The listed files inside `folder` (any depth): shallow ones first, then by path. */
export function filesUnder(paths: readonly string[], folder: string): string[] {
  const prefix = folder.endsWith('/') ? folder : `${folder}/`;
  const depth = (p: string) => p.split('/').length;
  return paths.filter((p) => p.startsWith(prefix)).sort((a, b) => depth(a) - depth(b) || (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * The new side's changed lines of one file's unified diff, one range per hunk (the diff's context
 * lines included), overlapping or touching hunks merged. A hunk that only deletes has no new lines
 * and is counted in `deletionsOnly`. One pass over the lines, each header matched by a regular
 * expression without nested repetition (linear time).
 */
export function changedRanges(diff: string): { ranges: LineRange[]; deletionsOnly: number } {
  const ranges: LineRange[] = [];
  let deletionsOnly = 0;
  let start = 0;
  while (start < diff.length) {
    let end = diff.indexOf('\n', start);
    if (end < 0) end = diff.length;
    if (diff.startsWith('@@ ', start)) {
      const m = HUNK_HEADER.exec(diff.slice(start, Math.min(end, start + 200)));
      if (m) {
        const first = Number(m[1]);
        const count = m[2] === undefined ? 1 : Number(m[2]);
        if (count === 0) deletionsOnly++;
        else {
          const range = { startLine: first, endLine: first + count - 1 };
          const last = ranges[ranges.length - 1];
          if (last && range.startLine <= last.endLine + 1) last.endLine = Math.max(last.endLine, range.endLine);
          else ranges.push(range);
        }
      }
    }
    start = end + 1;
  }
  return { ranges, deletionsOnly };
}

/** The attach path for one spec (the session's: isolation, read, count), and taking back a chip it added. */
export interface GroupAttachPort {
  attachOne(spec: AttachmentSpec): Promise<{ ok: true; chip: ChipView } | { ok: false; rejection: Rejection }>;
  /** Takes a chip this group added off again (it did not fit). */
  drop(chipId: string): void;
  /** The chips on the next message before the group (a spec that names one again is not dropped). */
  chipIds(): ReadonlySet<string>;
}

export interface GroupResult {
  added: ChipView[];
  refused: Rejection[];
  /** Specs left out because the budget had no room for them (the first that did not fit and every one after). */
  overBudget: number;
  /** Tokens of the chips added. */
  tokens: number;
}

/**
 * Attaches `specs` in order while their tokens fit in `room` (the budget left for the next
 * message). The first one that does not fit is taken back, and the rest are not read.
 */
export async function attachWithinRoom(specs: readonly AttachmentSpec[], room: number, port: GroupAttachPort): Promise<GroupResult> {
  const before = port.chipIds();
  const out: GroupResult = { added: [], refused: [], overBudget: 0, tokens: 0 };
  for (const spec of specs) {
    if (out.overBudget > 0) {
      out.overBudget++;
      continue;
    }
    const r = await port.attachOne(spec);
    if (!r.ok) {
      out.refused.push(r.rejection);
      continue;
    }
    if (out.tokens + r.chip.tokens > room) {
      if (!before.has(r.chip.id)) port.drop(r.chip.id);
      out.overBudget++;
      continue;
    }
    out.tokens += r.chip.tokens;
    out.added.push(r.chip);
  }
  return out;
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${formatInt(n)} ${n === 1 ? one : many}`;
}

/**
 * What a group attach says: how many were attached (and their tokens), and how many were left
 * out and why — over the budget, refused by the guard, excluded, beyond the group's file cap, or
 * only deleted lines.
 */
export function groupSummary(
  what: string,
  unit: { one: string; many: string },
  r: GroupResult,
  also: { excluded?: number; capped?: number; deleted?: number } = {},
): string {
  const attached =
    r.added.length === 0
      ? `Nothing of ${what} was attached.`
      : `Attached ${plural(r.added.length, unit.one, unit.many)} of ${what} (${plural(r.tokens, 'token')}).`;
  const reasons: string[] = [];
  if (r.overBudget > 0) reasons.push(`${formatInt(r.overBudget)} over the budget`);
  if (r.refused.length > 0) reasons.push(`${formatInt(r.refused.length)} refused`);
  if (also.excluded) reasons.push(`${formatInt(also.excluded)} excluded by strata.context.exclude`);
  if (also.capped) reasons.push(`${formatInt(also.capped)} past the first ${formatInt(MAX_GROUP_FILES)} files`);
  if (also.deleted) reasons.push(`${formatInt(also.deleted)} deleted`);
  const left = r.overBudget + r.refused.length + (also.excluded ?? 0) + (also.capped ?? 0) + (also.deleted ?? 0);
  return left === 0 ? attached : `${attached} Left out ${formatInt(left)}: ${reasons.join(', ')}.`;
}
