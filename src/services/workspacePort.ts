/**
 * The workspace as the turn pipeline sees it (a port): where attachments are resolved, isolated and
 * read, and where recoverable files are re-read for freshness. The host implements it over
 * `vscode.workspace.fs` and open documents (src/host); the replay, the benchmark and the tests use
 * `MemoryWorkspace` (src/services/memoryWorkspace.ts). The pure isolation rules live in
 * src/engine/isolation.ts; a port adds what only it can know (real paths, symlinks, open buffers).
 *
 * Methods may answer synchronously (an in-memory workspace) or with a promise (the editor): the
 * pipeline accepts both, which is what lets the replay stay synchronous on the very same code.
 */
import { sliceLines, type NewArtifactInput } from '../engine/artifacts';
import type { Rejection } from '../engine/isolation';

/** What the user attached, before it is read. */
export type AttachmentSpec =
  /** Workspace-relative path ('/' separators; multi-root `<folder>/<path>`), or `untitled:<n>`. */
  | { kind: 'file'; path: string }
  /** 1-based inclusive lines; an `endLine` past the end of the file is clamped. */
  | { kind: 'selection'; path: string; startLine: number; endLine: number };

export type Resolved = { ok: true; input: NewArtifactInput } | { ok: false; rejection: Rejection };

export type MaybePromise<T> = T | Promise<T>;

/** A recoverable artifact the engine wants re-read (`PromptContextEngine.recoverableSources()`). */
export interface FreshSource {
  id: string;
  uri: string;
  /**
   * What the chat holds now for it: its newest version's content hash, and whether that version is
   * marked missing. A port may leave a file out only when it knows the file's current content has
   * this hash (a turn that read a change but was never committed still holds the old hash).
   */
  contentHash?: string;
  missing?: boolean;
}

/** Whether the chat already holds the content whose hash a port last saw for `src` (then the port may leave it out). */
export function chatHolds(src: FreshSource, seenHash: string | undefined): boolean {
  return seenHash !== undefined && !src.missing && src.contentHash !== undefined && seenHash === src.contentHash;
}

export interface WorkspacePort {
  /**
   * Resolve + isolate (real path inside a workspace folder, excludes, binary, size) + read (the
   * editor's buffer when the document is open, dirty or not). Selections are sliced with
   * `sliceSelection`. Only regular files are read; `signal` ends a read in progress (Stop).
   */
  resolve(spec: AttachmentSpec, signal?: AbortSignal): MaybePromise<Resolved>;
  /**
   * Isolation again, on the real path, right before a provider call, for a path about to be sent:
   * outside the workspace (a symlink pointing out), excluded, binary or too large now. A file that no
   * longer exists is not a rejection: freshness marks it missing and keeps its last snapshot.
   */
  recheck(path: string, label: string): MaybePromise<Rejection | undefined>;
  /**
   * Current content of recoverable files for freshness; null = deleted. A port may return only the
   * ids whose content differs from what the chat holds (`FreshSource.contentHash`: a file watcher),
   * or all of them.
   */
  readFresh(sources: readonly FreshSource[]): MaybePromise<Map<string, string | null>>;
  /**
   * Optional: `recheck` of every source and `readFresh` of the ones not refused, in one pass (for a
   * port that resolves a file's real path anyway to re-read it). Rejections by source id, with the
   * same meaning as `recheck`'s; `fresh` as `readFresh` would answer for the others.
   */
  refresh?(sources: readonly FreshSource[]): MaybePromise<{ rejections: Map<string, Rejection>; fresh: Map<string, string | null> }>;
}

/** The label rejections use for a spec: `path` or `path#L3-L9`. */
export function specLabel(spec: AttachmentSpec): string {
  return spec.kind === 'selection' ? `${spec.path}#L${spec.startLine}-L${spec.endLine}` : spec.path;
}

/**
 * The artifact input for `spec` once its (normalized) path passed isolation and `content` was read:
 * the whole file, or the selection's snapshot — sliced with `sliceLines`, `endLine` clamped, and the
 * requested end kept in `requestedEndLine` when it was past the end of the file.
 */
export function inputFor(spec: AttachmentSpec, path: string, content: string, label = specLabel(spec)): Resolved {
  if (spec.kind === 'file') return { ok: true, input: { kind: 'file', uri: path, content } };
  const slice = sliceLines(content, { startLine: spec.startLine, endLine: spec.endLine });
  if (!slice)
    return {
      ok: false,
      rejection: { attachment: label, reason: 'not-found', message: `${label}: the file has no line ${spec.startLine}.` },
    };
  const input: NewArtifactInput = { kind: 'selection', uri: path, range: slice.range, content: slice.content };
  if (slice.range.endLine < spec.endLine) input.requestedEndLine = spec.endLine;
  return { ok: true, input };
}

/** `not-found` for a path that does not exist (the same sentence everywhere). */
export function notFound(label: string): Rejection {
  return { attachment: label, reason: 'not-found', message: `${label} does not exist in the workspace.` };
}

/** Workspace calls in flight at once when a turn checks the files a chat holds (each a few file system round trips). */
export const PORT_CONCURRENCY = 16;
