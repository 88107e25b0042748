/**
 * The extension's WorkspacePort: attachments and fresh reads through the file system and the
 * editor's open documents (a dirty buffer is read as the editor shows it; untitled documents of this
 * window are attachable by the user), with workspace isolation on the real path:
 *
 * - the path must lie in one of this window's workspace folders, and so must its real path (a
 *   symlink that points out of the workspace is refused as `outside-workspace`; its target goes to
 *   the log, never into a message);
 * - neither the path nor its real path may match `strata.context.exclude`;
 * - only regular files are read, and exactly the file whose real path was checked
 *   (src/services/regularFileRead.ts); a FIFO, socket or device is `not-regular`;
 * - over `strata.context.maxFileBytes` is `too-large` (checked on the size before reading), a NUL
 *   byte makes it `binary`, a missing file is `not-found`.
 *
 * Paths in specs are workspace-relative with '/' separators; in a multi-root workspace they start
 * with the folder's name (`<folder>/<path>`), as artifact ids do.
 *
 * It is also the workspace tools' port: `listFiles` over `vscode.workspace.findFiles` (then the same
 * glob rules, excludes and real-path check as everywhere), `diagnostics` from
 * `vscode.languages.getDiagnostics`, `selection` from the active editor. Reading is `resolve`.
 */
import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import * as vscode from 'vscode';
import { sliceLines, type NewArtifactInput } from '../../engine/artifacts';
import { LONG_INPUT } from '../../engine/engine';
import {
  binaryRejection,
  IsolationPolicy,
  normalizeRelativePath,
  tooLargeRejection,
  type Rejection,
  type RejectionReason,
} from '../../engine/isolation';
import { GlobSet } from '../../common/glob';
import { relativeInside } from '../../common/pathContainment';
import { readRegularFile, readRegularFileHead } from '../../services/regularFileRead';
import { headOfBytes, headOfText, type HeadResolved } from '../../services/fileHead';
import { missingPathVerdict } from '../../services/missingPath';
import { newFileTarget } from '../../services/apply/newFileTarget';
import { chatHolds, PORT_CONCURRENCY, specLabel, type AttachmentSpec, type FreshSource, type Resolved } from '../../services/workspacePort';
import { mapBounded } from '../../common/steps';
import { rememberSha256, sha256HexBytes, sha256HexBytesSliced, sha256HexNode, sha256HexSliced } from '../../services/nodeHasher';
import { TimeSlice } from '../../services/timeSlice';
import type {
  DiagnosticInfo,
  DiagnosticSeverity,
  EditorSelectionInfo,
  FileListing,
  ToolWorkspacePort,
} from '../../services/tools/toolPort';
import type { CodeIntelPort } from '../../services/codeIntel/codeIntelPort';
import { EditorCodeIntel } from './editorCodeIntel';

export interface IsolationSettings {
  excludes: readonly string[];
  maxFileBytes: number;
}

/**
 * Where a workspace path points: its folder, the URI, and the relative path inside the folder;
 * once isolated, the real path that was checked (a file on disk).
 */
interface Located {
  folder: vscode.WorkspaceFolder;
  uri: vscode.Uri;
  relative: string;
  real?: string;
}

/** Real paths, and what a file is, are compared with the rules of the platform the host runs on. */
const hostPaths = nodePath;

const UNTITLED_PREFIX = 'untitled:';

function reject(attachment: string, reason: RejectionReason, message: string): { ok: false; rejection: Rejection } {
  return { ok: false, rejection: { attachment, reason, message } };
}

async function statOf(uri: vscode.Uri): Promise<{ size: number; mtime: number; type: vscode.FileType }> {
  if (uri.scheme !== 'file') return vscode.workspace.fs.stat(uri);
  const st = await fs.promises.stat(uri.fsPath);
  return { size: st.size, mtime: st.mtimeMs, type: st.isDirectory() ? vscode.FileType.Directory : vscode.FileType.File };
}

/**
 * Binary and size checks for text the editor holds (the same rules as IsolationPolicy.checkContent,
 * with Node's native byte count: the engine's pure-JS count takes ~150 ms on 5 MB before it is optimized).
 */
function checkText(content: string, label: string, maxFileBytes: number): Rejection | undefined {
  if (content.includes('\u0000')) return binaryRejection(label);
  const bytes = Buffer.byteLength(content, 'utf8');
  if (bytes > maxFileBytes) return tooLargeRejection(label, bytes, maxFileBytes);
  return undefined;
}

function hasNulByte(bytes: Uint8Array): boolean {
  return bytes.indexOf(0) >= 0;
}

export class HostWorkspace implements ToolWorkspacePort, CodeIntelPort {
  /**
   * Size, mtime and content hash of files as last read, so an unchanged file whose content the chat
   * already holds is not re-read every turn (a watcher event forgets the entry).
   */
  private readonly lastRead = new Map<string, { size: number; mtime: number; hash: string }>();
  /** Open documents' text by version (a closed document is dropped with its object). */
  private readonly documents = new WeakMap<vscode.TextDocument, { version: number; hash: string }>();
  /** Code intelligence through the editor's language providers, naming files as this port does. */
  private readonly intel = new EditorCodeIntel(
    (path) => this.uriOf(path),
    (uri) => HostWorkspace.pathOf(uri),
  );
  readonly outline: CodeIntelPort['outline'] = (path, signal) => this.intel.outline(path, signal);
  readonly definitions: CodeIntelPort['definitions'] = (path, line, column, signal) => this.intel.definitions(path, line, column, signal);
  readonly references: CodeIntelPort['references'] = (path, line, column, signal) => this.intel.references(path, line, column, signal);
  readonly workspaceSymbols: CodeIntelPort['workspaceSymbols'] = (query, limit, signal) =>
    this.intel.workspaceSymbols(query, limit, signal);
  readonly imports: CodeIntelPort['imports'] = (path, signal) => this.intel.imports(path, signal);

  /**
   * `log`: where the absolute target of a refused link goes (the model and the panel only hear
   * "a link that points outside the workspace").
   */
  constructor(
    private readonly settings: () => IsolationSettings,
    private readonly log: (line: string) => void = () => undefined,
  ) {}

  private policy(): IsolationPolicy {
    const s = this.settings();
    return new IsolationPolicy(s.excludes, s.maxFileBytes);
  }

  private static folders(): readonly vscode.WorkspaceFolder[] {
    return vscode.workspace.workspaceFolders ?? [];
  }

  /** The workspace path of a document or file URI (the form specs and artifact ids use). */
  static pathOf(uri: vscode.Uri): string | undefined {
    if (uri.scheme === 'untitled') {
      const m = /^Untitled-(\d+)$/.exec(uri.path);
      return `${UNTITLED_PREFIX}${m ? m[1] : uri.path}`;
    }
    const folder = vscode.workspace.getWorkspaceFolder(uri);
    if (!folder) return undefined;
    const relative =
      uri.scheme === 'file' && folder.uri.scheme === 'file'
        ? relativeInside(hostPaths, folder.uri.fsPath, uri.fsPath)
        : relativeInside(nodePath.posix, folder.uri.path, uri.path);
    if (!relative) return undefined;
    return HostWorkspace.folders().length > 1 ? `${folder.name}/${relative}` : relative;
  }

  /** A label for messages about a URI that may be outside the workspace. */
  static labelOf(uri: vscode.Uri): string {
    return HostWorkspace.pathOf(uri) ?? (uri.scheme === 'file' ? uri.fsPath : uri.toString(true));
  }

  private locate(path: string): Located | undefined {
    const folders = HostWorkspace.folders();
    if (folders.length === 0) return undefined;
    let folder: vscode.WorkspaceFolder | undefined;
    let rest: string;
    if (folders.length > 1) {
      const slash = path.indexOf('/');
      if (slash <= 0) return undefined;
      folder = folders.find((f) => f.name === path.slice(0, slash));
      rest = path.slice(slash + 1);
    } else {
      folder = folders[0];
      rest = path;
    }
    if (!folder) return undefined;
    const relative = normalizeRelativePath(rest);
    if (relative === undefined) return undefined;
    return { folder, uri: vscode.Uri.joinPath(folder.uri, ...relative.split('/')), relative };
  }

  private untitledDocument(path: string): vscode.TextDocument | undefined {
    const n = path.slice(UNTITLED_PREFIX.length);
    return vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'untitled' && (d.uri.path === `Untitled-${n}` || d.uri.path === n));
  }

  private openDocument(uri: vscode.Uri): vscode.TextDocument | undefined {
    const key = uri.toString();
    return vscode.workspace.textDocuments.find((d) => !d.isClosed && d.uri.toString() === key);
  }

  /**
   * Path shape, excludes and the real path. For files on disk the real path (symlinks resolved)
   * must be inside the real path of the workspace folder, and must not be excluded either.
   * `folderReals`: the folders' real paths, shared by the checks of one batch (a turn re-reads every
   * file the chat holds); without it each check resolves its folder's real path itself.
   */
  private async isolate(
    path: string,
    label: string,
    policy: IsolationPolicy,
    folderReals?: Map<string, Promise<string>>,
  ): Promise<{ ok: true; located: Located } | { ok: false; rejection: Rejection; absent?: true }> {
    const located = this.locate(path);
    if (!located) {
      return reject(
        label,
        'outside-workspace',
        `${label} is outside this window's workspace folders; only files inside them can be attached.`,
      );
    }
    const checked = policy.checkPath(located.relative, label);
    if (!checked.ok) return checked;
    if (located.uri.scheme !== 'file') return { ok: true, located };
    const folderPath = located.folder.uri.fsPath;
    let folderRealP = folderReals?.get(folderPath);
    if (!folderRealP) {
      folderRealP = fs.promises.realpath(folderPath).catch(() => folderPath);
      folderReals?.set(folderPath, folderRealP);
    }
    let real: string;
    const folderReal = await folderRealP;
    const linkOut = (target: string | undefined) => {
      this.log(`refused ${label}: a link to ${target ?? 'a link loop'}, outside the workspace folder ${folderReal}`);
      return reject(
        label,
        'outside-workspace',
        `${label} is a link that points outside the workspace; only files inside this window's workspace folders can be attached.`,
      );
    };
    const pointsTo = (realRelative: string, reason: RejectionReason) =>
      reject(
        label,
        reason,
        `${label} points to ${realRelative}, which ${reason === 'excluded' ? 'matches strata.context.exclude' : 'is not allowed'}; it was not attached.`,
      );
    try {
      real = await fs.promises.realpath(located.uri.fsPath);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      // A path that does not resolve gets the answer a file there would get: through a link out of
      // the workspace or to an excluded folder, the refusal, so no answer tells which files exist
      // there (src/services/missingPath.ts).
      const verdict = await missingPathVerdict(folderReal, located.uri.fsPath, located.relative, (rel) => !policy.checkPath(rel).ok);
      const absent = code === 'ENOENT' || code === 'ENOTDIR' ? ({ absent: true } as const) : {};
      if (verdict.kind === 'outside-workspace') return { ...linkOut(verdict.real), ...absent };
      if (verdict.kind === 'excluded') return { ...pointsTo(verdict.realRelative, 'excluded'), ...absent };
      if (absent.absent) {
        // A document that exists only in the editor (created, not yet saved) is still readable.
        if (this.openDocument(located.uri)) return { ok: true, located };
        return { ...reject(label, 'not-found', `${label} does not exist in the workspace.`), absent: true };
      }
      return reject(label, 'not-found', `${label} could not be read (${code ?? 'error'}).`);
    }
    const realRelative = relativeInside(hostPaths, folderReal, real);
    if (realRelative === undefined) return linkOut(real);
    if (realRelative !== located.relative && realRelative.length > 0) {
      const realChecked = policy.checkPath(realRelative, label);
      if (!realChecked.ok) return pointsTo(realRelative, realChecked.rejection.reason);
    }
    return { ok: true, located: { ...located, real } };
  }

  /** Reads a located file: the open document's text (dirty or not), else the bytes on disk. */
  private async read(
    located: Located,
    label: string,
    policy: IsolationPolicy,
    signal?: AbortSignal,
  ): Promise<{ ok: true; content: string } | { ok: false; rejection: Rejection }> {
    const doc = this.openDocument(located.uri);
    if (doc) {
      const content = doc.getText();
      const bad = checkText(content, label, policy.maxFileBytes);
      return bad ? { ok: false, rejection: bad } : { ok: true, content };
    }
    const disk =
      located.uri.scheme === 'file' ? await this.readDisk(located, label, policy, signal) : await this.readFs(located, label, policy);
    if (!disk.ok) return disk;
    const { bytes, stat } = disk;
    if (hasNulByte(bytes)) return { ok: false, rejection: binaryRejection(label, located.relative, bytes.subarray(0, 16)) };
    // One native decode (5 MB: ~4 ms); the size was checked on the stat, NUL bytes on the bytes.
    // Strict first: when the bytes are valid UTF-8, the text's UTF-8 is those bytes (after a BOM,
    // which the decoder drops), and the hash below is taken of them, not of the text re-encoded.
    let content: string;
    let exact = true;
    try {
      content = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      exact = false;
      content = new TextDecoder('utf-8').decode(bytes);
    }
    // Its hash (to leave the file out of later turns while the chat holds it) a piece at a time:
    // decoding and hashing 5 MB in one go held the host for 40–60 ms on a busy machine (the hash
    // of the text alone ~27 ms in the editor's extension host, of the bytes 10–15 ms).
    const bom = exact && bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
    let hash: string;
    if (content.length < LONG_INPUT) hash = exact ? sha256HexBytes(bytes.subarray(bom)) : sha256HexNode(content);
    else {
      const slice = new TimeSlice(undefined, signal);
      await slice.pause();
      hash = exact ? await sha256HexBytesSliced(bytes.subarray(bom), slice) : await sha256HexSliced(content, slice);
    }
    // The request built after an attach hashes the same text: it finds this hash.
    if (exact) rememberSha256(content, hash);
    this.lastRead.set(located.uri.toString(), { size: stat.size, mtime: stat.mtime, hash });
    return { ok: true, content };
  }

  /**
   * A file on disk, through its checked real path: only a regular file, only the file that was
   * checked (Node's fs reads off the main thread; workspace.fs would carry the bytes over the host's
   * IPC in one message).
   */
  private async readDisk(
    located: Located,
    label: string,
    policy: IsolationPolicy,
    signal?: AbortSignal,
  ): Promise<{ ok: true; bytes: Uint8Array; stat: { size: number; mtime: number } } | { ok: false; rejection: Rejection }> {
    if (located.real === undefined) return reject(label, 'not-found', `${label} does not exist in the workspace.`);
    const r = await readRegularFile(located.real, policy.maxFileBytes, signal);
    if (r.ok) return { ok: true, bytes: r.bytes, stat: { size: r.size, mtime: r.mtimeMs } };
    switch (r.why) {
      case 'not-regular':
        return r.kind === 'folder'
          ? reject(label, 'not-found', `${label} is a folder, not a file.`)
          : reject(label, 'not-regular', `${label} is a ${r.kind}, not a regular file; only regular files are read.`);
      case 'too-large':
        return { ok: false, rejection: tooLargeRejection(label, r.size ?? 0, policy.maxFileBytes) };
      case 'changed':
        this.log(`refused ${label}: ${located.real} changed between its check and its read`);
        return reject(label, 'not-found', `${label} changed while it was being read; it was not read.`);
      case 'aborted':
        return reject(label, 'not-found', `${label}: the read was stopped.`);
      case 'missing':
        return reject(label, 'not-found', `${label} does not exist in the workspace.`);
      default:
        return reject(label, 'not-found', `${label} could not be read${r.code ? ` (${r.code})` : ''}.`);
    }
  }

  /** A file of another file system provider, through workspace.fs. */
  private async readFs(
    located: Located,
    label: string,
    policy: IsolationPolicy,
  ): Promise<{ ok: true; bytes: Uint8Array; stat: { size: number; mtime: number } } | { ok: false; rejection: Rejection }> {
    let stat: vscode.FileStat;
    try {
      stat = await vscode.workspace.fs.stat(located.uri);
    } catch {
      return reject(label, 'not-found', `${label} does not exist in the workspace.`);
    }
    if (stat.type & vscode.FileType.Directory) return reject(label, 'not-found', `${label} is a folder, not a file.`);
    if (!(stat.type & vscode.FileType.File))
      return reject(label, 'not-regular', `${label} is not a regular file; only regular files are read.`);
    if (stat.size > policy.maxFileBytes) return { ok: false, rejection: tooLargeRejection(label, stat.size, policy.maxFileBytes) };
    try {
      return { ok: true, bytes: await vscode.workspace.fs.readFile(located.uri), stat: { size: stat.size, mtime: stat.mtime } };
    } catch {
      return reject(label, 'not-found', `${label} could not be read.`);
    }
  }

  async resolve(spec: AttachmentSpec, signal?: AbortSignal): Promise<Resolved> {
    // The port's label (`path#L3-L9`), as the replay's workspace words its refusals.
    const label = specLabel(spec);
    const policy = this.policy();
    let content: string;
    let path = spec.path;
    if (spec.path.startsWith(UNTITLED_PREFIX)) {
      const doc = this.untitledDocument(spec.path);
      if (!doc) return reject(label, 'not-found', `${label} is not open in this window.`);
      content = doc.getText();
      const bad = checkText(content, label, policy.maxFileBytes);
      if (bad) return { ok: false, rejection: bad };
    } else {
      const isolated = await this.isolate(spec.path, label, policy);
      if (!isolated.ok) return isolated;
      const read = await this.read(isolated.located, label, policy, signal);
      if (!read.ok) return read;
      content = read.content;
      path =
        HostWorkspace.folders().length > 1 ? `${isolated.located.folder.name}/${isolated.located.relative}` : isolated.located.relative;
    }
    if (spec.kind === 'file') return { ok: true, input: { kind: 'file', uri: path, content } };
    const slice = sliceLines(content, { startLine: spec.startLine, endLine: spec.endLine });
    if (!slice) return reject(label, 'not-found', `${label}: the file has no line ${spec.startLine}.`);
    const input: NewArtifactInput = { kind: 'selection', uri: path, range: slice.range, content: slice.content };
    if (slice.range.endLine < spec.endLine) input.requestedEndLine = spec.endLine;
    return { ok: true, input };
  }

  /**
   * The first lines of `path` that fit `strata.context.maxFileBytes` (a file over it), through the
   * same isolation as `resolve` (outside the workspace, excluded, links out); binary is refused.
   */
  async resolveHead(path: string, signal?: AbortSignal): Promise<HeadResolved> {
    const policy = this.policy();
    if (path.startsWith(UNTITLED_PREFIX)) {
      const doc = this.untitledDocument(path);
      return doc ? headOfText(path, doc.getText(), policy.maxFileBytes) : reject(path, 'not-found', `${path} is not open in this window.`);
    }
    const isolated = await this.isolate(path, path, policy);
    if (!isolated.ok) return isolated;
    const doc = this.openDocument(isolated.located.uri);
    if (doc) return headOfText(path, doc.getText(), policy.maxFileBytes);
    const real = isolated.located.real;
    if (real === undefined) return reject(path, 'not-found', `${path}: only a file on disk can be read in part.`);
    const r = await readRegularFileHead(real, policy.maxFileBytes, signal);
    if (!r.ok) return reject(path, 'not-found', `${path} could not be read${r.code ? ` (${r.code})` : ` (${r.why})`}.`);
    return headOfBytes(path, r, policy.maxFileBytes);
  }

  /**
   * A file that no longer exists is not refused here (the port contract, as the replay's workspace):
   * freshness marks it missing and the chat keeps its last snapshot. Refusing it would detach
   * a deleted file from the chat with a "does not exist" notice instead.
   */
  async recheck(path: string, label: string): Promise<Rejection | undefined> {
    if (path.startsWith(UNTITLED_PREFIX)) return undefined;
    const isolated = await this.isolate(path, label, this.policy());
    return isolated.ok || isolated.absent ? undefined : isolated.rejection;
  }

  /**
   * The sources whose content changed (null: gone). A long chat holds hundreds of files: they are
   * checked a few at a time ({@link PORT_CONCURRENCY}), each a few file system calls, not one after the other.
   * A source that fails isolation or can no longer be read as text is reported gone here; `refresh`
   * tells those apart.
   */
  async readFresh(sources: readonly FreshSource[]): Promise<Map<string, string | null>> {
    const { fresh, rejections } = await this.refresh(sources);
    if (rejections.size === 0) return fresh;
    const out = new Map<string, string | null>();
    for (const src of sources) {
      if (rejections.has(src.id)) out.set(src.id, null);
      else if (fresh.has(src.id)) out.set(src.id, fresh.get(src.id)!);
    }
    return out;
  }

  /**
   * The re-check and the freshness read before a turn in one pass (the port's optional `refresh`):
   * each file's real path is resolved once, not once to re-check it and again to re-read it. A file
   * refused now (a link out of the workspace, newly excluded, binary or over the size limit) comes
   * back as a rejection, as `recheck` gives it; a removed one as gone (null): it is marked missing.
   */
  async refresh(sources: readonly FreshSource[]): Promise<{ rejections: Map<string, Rejection>; fresh: Map<string, string | null> }> {
    const policy = this.policy();
    const folderReals = new Map<string, Promise<string>>();
    const found = await mapBounded(sources, PORT_CONCURRENCY, (src) => this.freshOne(src, policy, folderReals));
    const fresh = new Map<string, string | null>();
    const rejections = new Map<string, Rejection>();
    sources.forEach((src, k) => {
      const v = found[k];
      if (v === undefined) return;
      if (typeof v === 'object' && v !== null) rejections.set(src.id, v.rejection);
      else fresh.set(src.id, v);
    });
    return { rejections, fresh };
  }

  /**
   * One source's current content when it differs from what the chat holds (null: gone; undefined:
   * unchanged), or why it is refused now.
   */
  private async freshOne(
    src: FreshSource,
    policy: IsolationPolicy,
    folderReals: Map<string, Promise<string>>,
  ): Promise<string | null | undefined | { rejection: Rejection }> {
    if (src.uri.startsWith(UNTITLED_PREFIX)) {
      const doc = this.untitledDocument(src.uri);
      return doc ? this.checkedText(this.documentText(doc, src), src.uri, policy) : null;
    }
    // Isolation again on every re-read: a file that became a link out of the workspace, or now
    // matches an exclude, is refused (detached, with the reason); one that is gone is marked missing.
    const isolated = await this.isolate(src.uri, src.uri, policy, folderReals);
    if (!isolated.ok) return isolated.absent ? null : { rejection: isolated.rejection };
    const located = isolated.located;
    const key = located.uri.toString();
    const doc = this.openDocument(located.uri);
    // An open document (dirty or not): its text changes only with its version; a changed text is
    // held to the same limits as a file read from disk (10 MB pasted into it is not sent).
    if (doc) return this.checkedText(this.documentText(doc, src), src.uri, policy);
    // Unchanged on disk since the last read (size, mtime, no watcher event) and the chat holds that content: nothing to re-read.
    let stat: { size: number; mtime: number } | undefined;
    try {
      stat = await statOf(located.uri);
    } catch {
      stat = undefined;
    }
    if (!stat) {
      this.lastRead.delete(key);
      return null;
    }
    // Over the size limit (it grew, or the limit was lowered): refused even when the chat holds it, as the replay refuses it.
    // Anything but a regular file is refused by the read below, which is never skipped for it.
    if (stat.size > policy.maxFileBytes) return { rejection: tooLargeRejection(src.uri, stat.size, policy.maxFileBytes) };
    const seen = this.lastRead.get(key);
    if (seen && seen.size === stat.size && seen.mtime === stat.mtime && chatHolds(src, seen.hash)) return undefined;
    const read = await this.read(located, src.uri, policy);
    if (read.ok) return read.content;
    // Now binary or over the size limit: refused as `recheck` refuses it; gone between the stat and the read: missing.
    const reason = read.rejection.reason;
    return reason === 'binary' || reason === 'too-large' || reason === 'not-regular' ? { rejection: read.rejection } : null;
  }

  /** A changed editor text, or why it can no longer be sent (binary, over the size limit). */
  private checkedText(text: string | undefined, label: string, policy: IsolationPolicy): string | undefined | { rejection: Rejection } {
    if (text === undefined) return undefined;
    const bad = checkText(text, label, policy.maxFileBytes);
    return bad ? { rejection: bad } : text;
  }

  /**
   * An open document's text, or undefined when the chat holds exactly that text (known from the hash
   * taken when its version last changed: an unedited document is neither copied nor compared).
   */
  private documentText(doc: vscode.TextDocument, src: FreshSource): string | undefined {
    const seen = this.documents.get(doc);
    if (seen && seen.version === doc.version && chatHolds(src, seen.hash)) return undefined;
    const content = doc.getText();
    const hash = sha256HexNode(content);
    this.documents.set(doc, { version: doc.version, hash });
    return chatHolds(src, hash) ? undefined : content;
  }

  // ------------------------------------------------------------------ the tools' port

  async listFiles(glob: string, limit: number, signal?: AbortSignal): Promise<FileListing> {
    const folders = HostWorkspace.folders();
    const policy = this.policy();
    const matcher = new GlobSet([glob]);
    const multi = folders.length > 1;
    // Dependencies and VCS internals are not listed unless the glob asks for them by name.
    const skip = /node_modules/.test(glob) ? undefined : '**/node_modules/**';
    const cts = new vscode.CancellationTokenSource();
    const onAbort = () => cts.cancel();
    signal?.addEventListener('abort', onAbort, { once: true });
    const found: { path: string; uri: vscode.Uri; folder: vscode.WorkspaceFolder }[] = [];
    let more = false;
    const slice = new TimeSlice();
    try {
      for (const folder of folders) {
        let pattern = glob;
        if (multi) {
          // `<folder>/<glob>` names one folder; any other glob is tried against every folder's paths.
          if (glob.startsWith(`${folder.name}/`)) pattern = glob.slice(folder.name.length + 1);
          else if (!glob.startsWith('**')) continue;
        }
        const uris = await vscode.workspace.findFiles(new vscode.RelativePattern(folder, pattern), skip, limit * 4 + 1, cts.token);
        if (uris.length > limit * 4) more = true;
        for (const uri of uris) {
          // Thousands of names are matched and checked: the event loop gets a turn every few ms.
          if (slice.due) await slice.pause();
          const path = HostWorkspace.pathOf(uri);
          if (!path) continue;
          const relative = multi ? path.slice(folder.name.length + 1) : path;
          if (matcher.match(path) === undefined && matcher.match(relative) === undefined) continue;
          if (!policy.checkPath(relative).ok) continue;
          found.push({ path, uri, folder });
        }
      }
    } finally {
      signal?.removeEventListener('abort', onAbort);
      cts.dispose();
    }
    // The file search follows linked folders: a name is listed only when its real path is inside
    // its workspace folder and not excluded either (a link to `.git` or out of the workspace is not).
    const folderReals = new Map<string, Promise<string>>();
    const kept = await mapBounded(found, PORT_CONCURRENCY, async (f) =>
      (await this.realPathAllowed(f, policy, folderReals)) ? f.path : undefined,
    );
    const paths = kept.filter((p): p is string => p !== undefined).sort();
    if (paths.length > limit) more = true;
    return { paths: paths.slice(0, limit), more };
  }

  /** Whether a listed file's real path is inside its folder's real path and not excluded (the refused target goes to the log). */
  private async realPathAllowed(
    f: { path: string; uri: vscode.Uri; folder: vscode.WorkspaceFolder },
    policy: IsolationPolicy,
    folderReals: Map<string, Promise<string>>,
  ): Promise<boolean> {
    if (f.uri.scheme !== 'file') return true;
    const folderPath = f.folder.uri.fsPath;
    let folderRealP = folderReals.get(folderPath);
    if (!folderRealP) {
      folderRealP = fs.promises.realpath(folderPath).catch(() => folderPath);
      folderReals.set(folderPath, folderRealP);
    }
    const [folderReal, real] = await Promise.all([folderRealP, fs.promises.realpath(f.uri.fsPath).catch(() => undefined)]);
    if (real === undefined) return false;
    const realRelative = relativeInside(hostPaths, folderReal, real);
    if (realRelative === undefined) {
      this.log(`not listed ${f.path}: a link to ${real}, outside the workspace folder ${folderReal}`);
      return false;
    }
    return realRelative.length > 0 && policy.checkPath(realRelative).ok;
  }

  diagnostics(path?: string): DiagnosticInfo[] {
    const severity = (s: vscode.DiagnosticSeverity): DiagnosticSeverity =>
      s === vscode.DiagnosticSeverity.Error
        ? 'error'
        : s === vscode.DiagnosticSeverity.Warning
          ? 'warning'
          : s === vscode.DiagnosticSeverity.Information
            ? 'info'
            : 'hint';
    const entries: [vscode.Uri, readonly vscode.Diagnostic[]][] = [];
    if (path !== undefined) {
      const uri = this.uriOf(path);
      if (uri) entries.push([uri, vscode.languages.getDiagnostics(uri)]);
    } else entries.push(...vscode.languages.getDiagnostics());
    const out: DiagnosticInfo[] = [];
    for (const [uri, list] of entries) {
      const p = HostWorkspace.pathOf(uri);
      if (!p) continue;
      for (const d of list) {
        const info: DiagnosticInfo = {
          path: p,
          line: d.range.start.line + 1,
          column: d.range.start.character + 1,
          severity: severity(d.severity),
          message: d.message,
        };
        if (d.source) info.source = d.source;
        const code = typeof d.code === 'object' && d.code !== null ? d.code.value : d.code;
        if (code !== undefined) info.code = String(code);
        out.push(info);
      }
    }
    return out;
  }

  selection(): EditorSelectionInfo | undefined {
    const editor = vscode.window.activeTextEditor;
    if (!editor || editor.selection.isEmpty) return undefined;
    const uri = editor.document.uri;
    const path = HostWorkspace.pathOf(uri);
    const sel = editor.selection;
    let endLine = sel.end.line;
    // A selection that ends at the very start of a line (whole lines selected) does not include it.
    if (sel.end.character === 0 && sel.end.line > sel.start.line) endLine -= 1;
    const lines = { startLine: sel.start.line + 1, endLine: endLine + 1 };
    // A document outside the workspace is named only by its file name (its absolute path is not the model's to know).
    if (path === undefined) return { path: nodePath.posix.basename(uri.path), outsideWorkspace: true, ...lines };
    return { path, ...lines };
  }

  /** The URI of a workspace path (`untitled:<n>` gives the open untitled document's). */
  uriOf(path: string): vscode.Uri | undefined {
    if (path.startsWith(UNTITLED_PREFIX)) return this.untitledDocument(path)?.uri;
    return this.locate(path)?.uri;
  }

  /**
   * The attach path's isolation checks for a path Strata would open or write (Apply, a citation):
   * inside a workspace folder on its real path, not excluded. `exists` is false for a file that is
   * not there yet (a new file Apply may create). `message` says why a path is refused.
   */
  async checkTarget(
    path: string,
  ): Promise<{ ok: true; uri: vscode.Uri; path: string; exists: boolean; real?: vscode.Uri } | { ok: false; message: string }> {
    if (path.startsWith(UNTITLED_PREFIX)) return { ok: false, message: `${path} is not a file in the workspace.` };
    const shown = (l: Located) => (HostWorkspace.folders().length > 1 ? `${l.folder.name}/${l.relative}` : l.relative);
    const isolated = await this.isolate(path, path, this.policy());
    if (isolated.ok) {
      const real = isolated.located.real;
      return {
        ok: true,
        uri: isolated.located.uri,
        path: shown(isolated.located),
        exists: true,
        ...(real ? { real: vscode.Uri.file(real) } : {}),
      };
    }
    if (isolated.absent) {
      const located = this.locate(path);
      if (located && located.uri.scheme === 'file') {
        // Creating follows links: the write goes to the real path checked here (src/services/apply/newFileTarget.ts).
        const policy = this.policy();
        const real = await newFileTarget(located.folder.uri.fsPath, located.relative, (rel) => !policy.checkPath(rel).ok, path);
        if (!real.ok) {
          if (real.reason === 'outside-workspace') this.log(`refused to create ${path}: its folder is a link outside the workspace`);
          return { ok: false, message: real.message };
        }
        return { ok: true, uri: vscode.Uri.file(real.real), path: shown(located), exists: false };
      }
      if (located) return { ok: true, uri: located.uri, path: shown(located), exists: false };
    }
    return { ok: false, message: isolated.rejection.message.replace(/;? ?(?:it )?(?:was|and was) not attached\.?$/, '.') };
  }

  /**
   * Synchronous isolation check of a path for chat import (the store's import callback is
   * synchronous): inside a workspace folder on its real path, not excluded. Content is not read.
   */
  isAllowedPathSync(path: string): boolean {
    if (path.startsWith(UNTITLED_PREFIX)) return false;
    const located = this.locate(path);
    if (!located) return false;
    const policy = this.policy();
    if (!policy.checkPath(located.relative).ok) return false;
    if (located.uri.scheme !== 'file') return true;
    try {
      const folderReal = fs.realpathSync(located.folder.uri.fsPath);
      const real = fs.existsSync(located.uri.fsPath) ? fs.realpathSync(located.uri.fsPath) : located.uri.fsPath;
      const realRelative = relativeInside(hostPaths, folderReal, real);
      if (realRelative === undefined) return false;
      return realRelative.length === 0 || policy.checkPath(realRelative).ok;
    } catch {
      return false;
    }
  }

  /** Forgets cached stats (a file watcher saw a change the mtime may not show). */
  invalidate(uri?: vscode.Uri): void {
    if (uri) this.lastRead.delete(uri.toString());
    else this.lastRead.clear();
  }
}
