/**
 * The check before every request, for what a chat holds of workspace files besides whole files: a
 * selection, a range a tool read, the lines of a search or of diagnostics. Each file they came from
 * is checked again through the workspace port; an excerpt of a file that is now excluded, or now a
 * link out of the workspace, is removed from the context and reported as a rejection, as a whole
 * file is. A listing of lines keeps the lines of the files that still pass (a new version of it, sent
 * once in this turn); the lines of the others go.
 *
 * Only those two reasons remove an excerpt: they are what keeps content private. A file that is now
 * too large, binary or gone does not make a snapshot taken earlier private.
 */
import type { AttachmentRef } from '../../engine/engine';
import type { WithdrawnReason } from '../../engine/turnTypes';
import type { NewArtifactInput } from '../../engine/artifacts';
import type { ExcerptSource } from '../../engine/excerptSources';
import type { Rejection } from '../../engine/isolation';
import { mapBounded, wait, type Step } from '../../common/steps';
import { PORT_CONCURRENCY, type WorkspacePort } from '../workspacePort';

export interface ExcerptVerdict {
  rejections: Rejection[];
  /** Excerpts to remove (by artifact id). */
  detach: AttachmentRef[];
  /** Listings that keep some lines: the new version that replaces the removed one. */
  replacements: NewArtifactInput[];
}

function why(bad: Rejection): string {
  return bad.reason === 'excluded'
    ? 'now matches an exclude pattern (strata.context.exclude)'
    : 'is now outside the workspace (a link that points out of it)';
}

/** Only these two reasons reach the verdict (see the file comment). */
function withdrawnReason(bad: Rejection): WithdrawnReason {
  return bad.reason === 'excluded' ? 'excluded' : 'outside-workspace';
}

function plural(n: number, one: string): string {
  return `${n} ${one}${n === 1 ? '' : 's'}`;
}

/** Checks the files `sources` came from; what fails is removed (see the file comment). */
export function* checkExcerpts(port: WorkspacePort, sources: readonly ExcerptSource[]): Step<ExcerptVerdict> {
  const verdict: ExcerptVerdict = { rejections: [], detach: [], replacements: [] };
  if (sources.length === 0) return verdict;
  const paths = new Set<string>();
  for (const src of sources) {
    if (src.path !== undefined) paths.add(src.path);
    for (const line of src.lines ?? []) for (const p of line) paths.add(p);
  }
  const list = [...paths];
  const checks = yield* wait(mapBounded(list, PORT_CONCURRENCY, (p) => port.recheck(p, p)));
  const failed = new Map<string, Rejection>();
  for (const [i, p] of list.entries()) {
    const bad = checks[i];
    if (bad && (bad.reason === 'excluded' || bad.reason === 'outside-workspace')) failed.set(p, bad);
  }
  if (failed.size === 0) return verdict;
  for (const src of sources) {
    if (src.kind === 'whole') {
      const bad = failed.get(src.path!);
      if (!bad) continue;
      verdict.rejections.push({
        attachment: src.label,
        reason: bad.reason,
        message: `${src.label} was removed from the context: ${src.path} ${why(bad)}.`,
      });
      verdict.detach.push({ kind: 'file', uri: src.id, withdrawn: withdrawnReason(bad) });
      continue;
    }
    const lines = src.content.split('\n');
    const kept: string[] = [];
    const from = new Map<string, Rejection>();
    let removed = 0;
    for (const [i, line] of lines.entries()) {
      const bad = src.lines![i].map((p) => [p, failed.get(p)] as const).find(([, r]) => r !== undefined);
      if (!bad) kept.push(line);
      else {
        removed++;
        from.set(bad[0], bad[1]!);
      }
    }
    if (removed === 0) continue;
    const [first] = from.values();
    verdict.rejections.push({
      attachment: src.label,
      reason: first.reason,
      message: `${src.label}: ${plural(removed, 'line')} from ${[...from.keys()].join(', ')} ${removed === 1 ? 'was' : 'were'} removed from the context: ${[...from].map(([p, r]) => `${p} ${why(r)}`).join('; ')}.`,
    });
    verdict.detach.push({ kind: 'file', uri: src.id, withdrawn: withdrawnReason(first) });
    if (kept.join('\n').trim().length > 0)
      verdict.replacements.push({ kind: src.artifactKind, uri: src.uri, id: src.id, content: kept.join('\n') });
  }
  return verdict;
}
