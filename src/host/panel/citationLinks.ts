/**
 * Citations in replies (`src/a.ts:12-20`, `src/a.ts#L3`, a backticked path) become links only for
 * paths the host vouches for: files inside the workspace on their real path, not excluded (the
 * attach path's checks). Opening a link checks the path again and selects the cited lines.
 */
import * as vscode from 'vscode';
import type { Citation } from '../../protocol/citations';
import type { HostWorkspace } from '../context/hostWorkspace';

/** The paths among `paths` that are files the panel may link to, in the order asked. */
export async function resolveCitationPaths(workspace: HostWorkspace, paths: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const path of new Set(paths)) {
    const checked = await workspace.checkTarget(path);
    if (!checked.ok || !checked.exists) continue;
    const stat = await vscode.workspace.fs.stat(checked.uri).then(
      (s) => s,
      () => undefined,
    );
    if (stat && stat.type & vscode.FileType.File) out.push(path);
  }
  return out;
}

/** Opens the cited file with the cited lines selected (clamped to the file), in view. */
export async function openCitation(workspace: HostWorkspace, citation: Citation): Promise<vscode.TextEditor> {
  const checked = await workspace.checkTarget(citation.path);
  if (!checked.ok) throw new Error(`Strata does not open ${citation.path}: ${checked.message}`);
  if (!checked.exists) throw new Error(vscode.l10n.t('{0} does not exist in the workspace.', citation.path));
  const doc = await vscode.workspace.openTextDocument(checked.uri);
  let selection: vscode.Range | undefined;
  if (citation.startLine !== undefined) {
    const last = doc.lineCount - 1;
    const start = Math.min(citation.startLine - 1, last);
    const end = Math.min((citation.endLine ?? citation.startLine) - 1, last);
    selection = new vscode.Range(start, 0, end, doc.lineAt(end).text.length);
  }
  const editor = await vscode.window.showTextDocument(doc, { preview: true, selection });
  if (selection) editor.revealRange(selection, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  return editor;
}
