/**
 * What Strata says about an attachment it refused, and what it offers to do instead: a file over
 * `strata.context.maxFileBytes` can go as its outline (when its language has symbols), as its first
 * lines (a bounded head, marked as partial), or the limit can be raised. A binary file, an excluded
 * one or one outside the workspace gets the reason alone. No vscode import: unit tests check it in plain Node.
 */
import { sizeOverLimit, type Rejection } from '../engine/isolation';
import { binaryKindOfName } from '../common/binaryKind';

export type RefusalAction = 'attachOutline' | 'attachHead' | 'raiseLimit';
export const REFUSAL_ACTIONS: readonly RefusalAction[] = ['attachOutline', 'attachHead', 'raiseLimit'];

/** The buttons' words, the same in the panel's banner and in the editor's notification. */
export const REFUSAL_ACTION_TITLES: Record<RefusalAction, string> = {
  attachOutline: 'Attach Outline',
  attachHead: 'Attach First Lines',
  raiseLimit: 'Raise Limit…',
};

/** The setting Raise Limit… opens. */
export const MAX_FILE_BYTES_SETTING = 'strata.context.maxFileBytes';

/**
 * Extensions of languages whose editor support lists symbols (the Outline view): for these an
 * outline is offered; plain text, logs and data files have none.
 */
const OUTLINE_EXTENSIONS = new Set([
  'ts', 'tsx', 'mts', 'cts', 'js', 'jsx', 'mjs', 'cjs', 'json', 'jsonc', 'md', 'markdown', 'css', 'scss', 'less', 'html', 'htm',
  'py', 'go', 'rs', 'java', 'kt', 'c', 'cc', 'cpp', 'cxx', 'h', 'hpp', 'cs', 'rb', 'php', 'swift', 'yaml', 'yml', 'xml', 'sql', 'lua', 'dart', 'scala',
]); // prettier-ignore

/** The workspace path a refusal names: its label without a selection's `#L3-L9`; undefined for a selection. */
export function refusedFilePath(r: Rejection): string | undefined {
  return /#L\d+-L\d+$/.test(r.attachment) ? undefined : r.attachment;
}

/** Whether `path`'s language lists symbols (by its extension), so an outline can stand in for it. */
export function mayHaveOutline(path: string): boolean {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  return dot > 0 && OUTLINE_EXTENSIONS.has(name.slice(dot + 1).toLowerCase());
}

/**
 * What can be done about a refusal: for a whole file over the size limit, its outline (when its
 * language has symbols), its first lines, and Raise Limit…; for a selection over it, Raise Limit…
 * alone; for anything else (binary, excluded, outside the workspace, missing) nothing.
 */
export function refusalActions(r: Rejection): RefusalAction[] {
  if (r.reason !== 'too-large') return [];
  const path = refusedFilePath(r);
  // Without its size (a head whose first line alone is over the limit) only the limit can help.
  if (path === undefined || r.bytes === undefined) return ['raiseLimit'];
  return [...(mayHaveOutline(path) ? (['attachOutline'] as const) : []), 'attachHead', 'raiseLimit'];
}

/** One message for refusals that offer nothing to do: the sentence of one, or each name with its reason. */
export function refusalsText(refused: readonly Rejection[]): string {
  if (refused.length === 1) return refused[0].message;
  return `${refused.length} attachments were refused: ${refused.map((r) => `${r.attachment} (${shortReason(r)})`).join('; ')}.`;
}

/** A refusal's reason in a few words: "20 MB (limit 8 MB)", "binary (PNG image)", "excluded". */
export function shortReason(r: Rejection): string {
  if (r.reason === 'too-large') return r.bytes !== undefined && r.limit !== undefined ? sizeOverLimit(r.bytes, r.limit) : 'too large';
  if (r.reason === 'binary') {
    const kind = r.binaryKind ?? binaryKindOfName(r.attachment);
    return kind ? `binary (${kind})` : 'binary';
  }
  return r.reason.replace(/-/g, ' ');
}
