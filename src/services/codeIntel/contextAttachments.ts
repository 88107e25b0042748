/**
 * What "with definitions" and "with imports" add to a turn, as the turn pipeline's attachments: the
 * same for the editor's commands and the replay's `attach` forms, so both send the same request.
 *
 * - A file of an import closure is attached as a file (read again by the pipeline: isolation,
 *   freshness, versions as for any file chip); an outline as a snapshot of the `get_outline` result;
 *   the declarations named of a large module as snapshots of their excerpts, after their importer.
 * - A definition is a snapshot of its ranged excerpt, checked again before the request as every
 *   excerpt is; ranges of files the request carries whole become references (`carriedRanges.ts`).
 */
import type { ChatState } from '../../engine/state';
import type { TurnAttachment } from '../turn/turnRequest';
import { withCarriedFiles } from './carriedRanges';
import type { ImportClosure } from './importGraph';
import type { SelectionDefinitions } from './selectionDefinitions';

/**
 * A closure's files in order, each followed by the declarations it names of the large modules it
 * imports (snapshots of their ranged excerpts); ranges of files the request carries whole become
 * references, as a selection's definitions do.
 */
export function importAttachments(closure: ImportClosure, state: ChatState, sameTurn: readonly TurnAttachment[] = []): TurnAttachment[] {
  const items: TurnAttachment[] = [];
  for (const f of closure.files) {
    items.push(f.as === 'file' ? { kind: 'file', path: f.path } : { kind: 'snapshot', input: f.input });
    for (const n of closure.names)
      if (n.importedBy === f.path) items.push(...n.definitions.map((d): TurnAttachment => ({ kind: 'snapshot', input: d.input })));
  }
  return withCarriedFiles(state, [...sameTurn, ...items]).slice(sameTurn.length);
}

/** The definitions as snapshots (after the selection itself, which the caller attaches as before). */
export function definitionAttachments(
  defs: SelectionDefinitions,
  state: ChatState,
  sameTurn: readonly TurnAttachment[] = [],
): TurnAttachment[] {
  const snapshots: TurnAttachment[] = defs.definitions.map((d) => ({ kind: 'snapshot', input: d.input }));
  const all = withCarriedFiles(state, [...sameTurn, ...snapshots]);
  return all.slice(sameTurn.length);
}
