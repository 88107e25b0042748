/**
 * The workspace as the turn pipeline sees it (a port): the extension implements it over
 * `vscode.workspace.fs` and open documents (src/host/hostWorkspace.ts), the replay over a virtual
 * workspace. Isolation (DESIGN §3) happens behind it, on every read.
 */
import type { NewArtifactInput } from '../engine/artifacts';
import type { Rejection } from '../engine/isolation';

/** What the user asked to attach. Paths are workspace-relative ('/' separators; multi-root `<folder>/<path>`) or `untitled:<n>`. */
export type AttachmentSpec =
  | { kind: 'file'; path: string }
  | { kind: 'selection'; path: string; startLine: number; endLine: number };

export type Resolved = { ok: true; input: NewArtifactInput } | { ok: false; rejection: Rejection };

export interface WorkspacePort {
  /** Resolves, isolates (real path inside a workspace folder, excludes, binary, size) and reads one attachment. */
  resolve(spec: AttachmentSpec): Promise<Resolved>;
  /** Isolation again, on the real path, right before a provider call. */
  recheck(path: string, label: string): Promise<Rejection | undefined>;
  /** Current content of recoverable files; null = deleted. May omit ids known to be unchanged. */
  readFresh(sources: readonly { id: string; uri: string }[]): Promise<Map<string, string | null>>;
}
