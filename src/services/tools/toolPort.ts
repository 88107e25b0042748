/**
 * What the workspace tools need from a workspace beyond attachments (a port, like WorkspacePort):
 * listing files, the editor's diagnostics and the user's current selection. The host implements it
 * with `vscode.workspace.findFiles`, `vscode.languages.getDiagnostics` and the active editor
 * (src/host/context/hostWorkspace.ts); `MemoryWorkspace` (the replay, the benchmark, the tests) with its
 * files, and diagnostics and a selection given to it (a trajectory's, or none).
 *
 * Reading goes through `WorkspacePort.resolve`, so a tool reads exactly what an attachment would,
 * with the same isolation (real path inside the workspace, excludes, binary, size).
 */
import type { MaybePromise, WorkspacePort } from '../workspacePort';

export type DiagnosticSeverity = 'error' | 'warning' | 'info' | 'hint';

export interface DiagnosticInfo {
  /** Workspace-relative path (multi-root: `<folder>/<path>`). */
  path: string;
  /** 1-based. */
  line: number;
  /** 1-based. */
  column: number;
  severity: DiagnosticSeverity;
  message: string;
  source?: string;
  code?: string;
}

export interface EditorSelectionInfo {
  /** Workspace-relative path or `untitled:<n>`. */
  path: string;
  /** 1-based, inclusive. */
  startLine: number;
  endLine: number;
  /** The active editor's file is outside the workspace folders: `path` is then only its name. */
  outsideWorkspace?: boolean;
}

export interface FileListing {
  /** Workspace-relative paths, sorted, at most the limit asked for. */
  paths: string[];
  /** More files matched than `paths` holds. */
  more: boolean;
}

export interface ToolWorkspacePort extends WorkspacePort {
  /**
   * Files whose workspace-relative path matches `glob` (src/common/glob.ts), sorted, with the
   * isolation excludes and links out of the workspace already left out; at most `limit`.
   */
  listFiles(glob: string, limit: number, signal?: AbortSignal): MaybePromise<FileListing>;
  /** The editor's diagnostics for `path`, or for every file of the workspace when absent. */
  diagnostics(path?: string): MaybePromise<DiagnosticInfo[]>;
  /** The active editor's selection (undefined: no editor, or nothing selected). */
  selection(): MaybePromise<EditorSelectionInfo | undefined>;
}

export function isToolWorkspacePort(port: WorkspacePort): port is ToolWorkspacePort {
  const p = port as Partial<ToolWorkspacePort>;
  return typeof p.listFiles === 'function' && typeof p.diagnostics === 'function' && typeof p.selection === 'function';
}
