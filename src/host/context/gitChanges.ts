/**
 * The working tree's changes through the built-in Git extension's API (read only: the state and
 * `diffWithHEAD`, nothing that writes). Each changed file becomes the lines Git sees changed, as
 * selections of that file, so they go through the same attach path and guard as any selection; a
 * new file is attached whole; a deleted one has nothing to attach and is counted.
 */
import * as vscode from 'vscode';
import type { AttachmentSpec } from '../../services/workspacePort';
import { changedRanges } from './contextGroups';
import { HostWorkspace } from './hostWorkspace';

/** The part of the Git extension's API (version 1) read here. */
interface GitChange {
  readonly uri: vscode.Uri;
  readonly status: number;
}
interface GitRepository {
  readonly rootUri: vscode.Uri;
  readonly state: {
    readonly workingTreeChanges: readonly GitChange[];
    readonly indexChanges: readonly GitChange[];
    readonly untrackedChanges?: readonly GitChange[];
  };
  diffWithHEAD(path: string): Promise<string>;
}
interface GitApi {
  readonly repositories: readonly GitRepository[];
}
interface GitExtension {
  readonly enabled: boolean;
  getAPI(version: 1): GitApi;
}

/** The Git extension's `Status` values read here. */
const INDEX_ADDED = 1;
const INDEX_DELETED = 2;
const DELETED = 6;
const UNTRACKED = 7;

export interface GitChangeSpecs {
  specs: AttachmentSpec[];
  /** Changed files with no new lines to attach (deleted, or only lines removed). */
  deleted: number;
}

/** The Git API, or why there is none (the extension is missing or turned off). */
export async function gitApi(): Promise<GitApi | string> {
  const ext = vscode.extensions.getExtension<GitExtension>('vscode.git');
  if (!ext) return 'The Git extension is not available in this editor.';
  const exports = ext.isActive ? ext.exports : await ext.activate();
  if (!exports?.enabled) return 'Git is turned off (git.enabled).';
  return exports.getAPI(1);
}

/**
 * The working tree's and the index's changes, against HEAD, of every repository inside the
 * workspace, as attachment specs (paths as the workspace names them; a file outside it is skipped).
 */
export async function gitChangeSpecs(api: GitApi): Promise<GitChangeSpecs> {
  const out: GitChangeSpecs = { specs: [], deleted: 0 };
  const seen = new Set<string>();
  for (const repo of api.repositories) {
    const changes = [...repo.state.indexChanges, ...repo.state.workingTreeChanges, ...(repo.state.untrackedChanges ?? [])];
    for (const change of changes) {
      const path = HostWorkspace.pathOf(change.uri);
      if (!path || seen.has(path)) continue;
      seen.add(path);
      if (change.status === DELETED || change.status === INDEX_DELETED) {
        out.deleted++;
        continue;
      }
      if (change.status === UNTRACKED || change.status === INDEX_ADDED) {
        out.specs.push({ kind: 'file', path });
        continue;
      }
      const { ranges } = changedRanges(await repo.diffWithHEAD(change.uri.fsPath));
      if (ranges.length === 0) out.deleted++;
      for (const r of ranges) out.specs.push({ kind: 'selection', path, startLine: r.startLine, endLine: r.endLine });
    }
  }
  return out;
}
