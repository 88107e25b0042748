/**
 * What "attach" means in the editor: the active file, the active selections, every open text
 * editor. Produces attachment specs (paths as the workspace port names them) or, for documents that
 * cannot be named, the refusal to show.
 */
import * as vscode from 'vscode';
import type { Rejection } from '../../engine/isolation';
import type { AttachWhat } from '../../protocol/messages';
import type { AttachmentSpec } from '../../services/workspacePort';
import { HostWorkspace } from './hostWorkspace';

export type SpecOrRefusal = { ok: true; spec: AttachmentSpec } | { ok: false; rejection: Rejection };

const ATTACHABLE_SCHEMES = new Set(['file', 'untitled', 'vscode-remote', 'vscode-vfs', 'vscode-userdata']);

function outside(uri: vscode.Uri): SpecOrRefusal {
  const label = HostWorkspace.labelOf(uri);
  return {
    ok: false,
    rejection: {
      attachment: label,
      reason: 'outside-workspace',
      message: `${label} is outside this window's workspace folders; only files inside them can be attached.`,
    },
  };
}

function pathFor(uri: vscode.Uri): string | undefined {
  if (!ATTACHABLE_SCHEMES.has(uri.scheme)) return undefined;
  return HostWorkspace.pathOf(uri);
}

/** The file of a document (untitled documents included). */
export function fileSpec(doc: vscode.TextDocument): SpecOrRefusal {
  const path = pathFor(doc.uri);
  return path ? { ok: true, spec: { kind: 'file', path } } : outside(doc.uri);
}

/**
 * 1-based inclusive lines of a selection. A selection that ends at the very start of a line (the
 * usual result of selecting whole lines) does not include that line.
 */
export function selectionLines(sel: vscode.Selection | vscode.Range): { startLine: number; endLine: number } {
  let endLine = sel.end.line;
  if (sel.end.character === 0 && sel.end.line > sel.start.line) endLine -= 1;
  return { startLine: sel.start.line + 1, endLine: endLine + 1 };
}

/** The non-empty selections of an editor, as selection specs (in document order, de-duplicated). */
export function selectionSpecs(editor: vscode.TextEditor): SpecOrRefusal[] {
  const path = pathFor(editor.document.uri);
  if (!path) return [outside(editor.document.uri)];
  const seen = new Set<string>();
  const out: SpecOrRefusal[] = [];
  const sorted = [...editor.selections].filter((s) => !s.isEmpty).sort((a, b) => a.start.compareTo(b.start));
  for (const sel of sorted) {
    const { startLine, endLine } = selectionLines(sel);
    const key = `${startLine}-${endLine}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ ok: true, spec: { kind: 'selection', path, startLine, endLine } });
  }
  return out;
}

/** Every text document open in an editor tab (all groups), in tab order, de-duplicated. */
export function openEditorDocuments(): vscode.Uri[] {
  const seen = new Set<string>();
  const out: vscode.Uri[] = [];
  for (const group of vscode.window.tabGroups.all) {
    for (const tab of group.tabs) {
      const input = tab.input;
      const uri = input instanceof vscode.TabInputText ? input.uri : input instanceof vscode.TabInputTextDiff ? input.modified : undefined;
      if (!uri || seen.has(uri.toString())) continue;
      seen.add(uri.toString());
      out.push(uri);
    }
  }
  return out;
}

export function uriSpec(uri: vscode.Uri): SpecOrRefusal {
  const path = pathFor(uri);
  return path ? { ok: true, spec: { kind: 'file', path } } : outside(uri);
}

/** The specs of an attach from the editor: the active file, its selections, or every open editor. */
export function editorSpecs(what: AttachWhat): SpecOrRefusal[] {
  const editor = vscode.window.activeTextEditor;
  if (what === 'openEditors') {
    const specs = openEditorDocuments().map(uriSpec);
    if (specs.length === 0) throw new Error('No editors are open.');
    return specs;
  }
  if (!editor) throw new Error(what === 'selection' ? 'Select lines in an editor first.' : 'Open a file in the editor first.');
  if (what !== 'selection') return [fileSpec(editor.document)];
  const specs = selectionSpecs(editor);
  if (specs.length === 0) throw new Error('The editor has no selection. Select the lines to attach first.');
  return specs;
}
