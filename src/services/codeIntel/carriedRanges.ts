/**
 * Ranges of a file whose whole current version the request already carries are not sent again: a
 * definition's lines, when the chat holds its file in full with those very lines, become a reference
 * to the file's block (the file attached again with the same content is a reference), so no content
 * goes twice. The same holds within one turn: ranges of a file attached whole in the same turn go.
 *
 * The tools get this from the engine (a ranged result carries its whole file, see
 * `ToolOutput.whole`); attachments get it here, before the turn is sent, from the chat's state.
 */
import { fileId, sliceLines } from '../../engine/artifacts';
import type { ChatState } from '../../engine/state';
import type { TurnAttachment } from '../turn/turnRequest';

/** The content of `path`'s newest version when the chat carries it in full now (present, not compacted, not missing). */
export function carriedFile(state: ChatState, path: string): string | undefined {
  const key = state.latest.get(fileId(path));
  const e = key === undefined ? undefined : state.entries.get(key);
  if (!e || e.presence !== 'present' || e.compacted || e.missing || e.artifact.kind !== 'file') return undefined;
  return e.artifact.content;
}

/**
 * `attachments` with every ranged snapshot of a file the request carries whole replaced by that file
 * (once; the engine answers it with a reference), and ranged snapshots of a file attached whole in
 * the same turn left out. Everything else keeps its place and order.
 */
export function withCarriedFiles(state: ChatState, attachments: readonly TurnAttachment[]): TurnAttachment[] {
  const wholeThisTurn = new Set(attachments.filter((a) => a.kind === 'file').map((a) => (a as { path: string }).path));
  const out: TurnAttachment[] = [];
  const added = new Set<string>();
  for (const a of attachments) {
    if (a.kind !== 'snapshot' || a.input.kind !== 'tool' || !a.input.range) {
      out.push(a);
      continue;
    }
    const path = a.input.uri;
    if (wholeThisTurn.has(path)) continue;
    const carried = carriedFile(state, path);
    if (carried === undefined || sliceLines(carried, a.input.range)?.content !== a.input.content) {
      out.push(a);
      continue;
    }
    if (added.has(path)) continue;
    added.add(path);
    out.push({ kind: 'file', path });
  }
  return out;
}
