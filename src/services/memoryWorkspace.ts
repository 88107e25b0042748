/**
 * A workspace held in memory: the replay's virtual workspace (bench/trajectory.ts extends it with the
 * trajectory format), the benchmark's and the tests'. It applies exactly the pure isolation rules of
 * src/engine/isolation.ts (path shape, excludes, binary, size); there are no symlinks to resolve.
 * Every method answers synchronously, so `TurnPipeline.runSync` can drive it.
 */
import { IsolationPolicy, type Rejection } from '../engine/isolation';
import { GlobSet } from '../common/glob';
import { sha256HexNode } from './nodeHasher';
import { chatHolds, inputFor, notFound, specLabel, type AttachmentSpec, type FreshSource, type Resolved } from './workspacePort';
import type { DiagnosticInfo, EditorSelectionInfo, FileListing, ToolWorkspacePort } from './tools/toolPort';

export interface MemoryWorkspaceOptions {
  isolation?: IsolationPolicy;
  /**
   * `all` (default): `readFresh` returns every source asked for. `changed`: only the ones whose
   * content differs from what the chat holds (`FreshSource.contentHash`), as a file watcher would.
   */
  fresh?: 'all' | 'changed';
}

export class MemoryWorkspace implements ToolWorkspacePort {
  protected readonly files = new Map<string, string>();
  private policy: IsolationPolicy;
  private readonly freshMode: 'all' | 'changed';
  /** Content last seen by `readFresh` and its hash, by path (`changed` mode: hashed once per change). */
  private readonly lastSeen = new Map<string, { content: string; hash: string }>();
  /** Content that last passed the content checks, by path: a 5 MB file is scanned once, not every turn. */
  private readonly checked = new Map<string, string>();
  /** What the tools see of the editor: diagnostics by path, the current selection. */
  private diagnosticList: DiagnosticInfo[] = [];
  private currentSelection: EditorSelectionInfo | undefined;

  constructor(files: Iterable<[string, string]> | Record<string, string> = {}, options: MemoryWorkspaceOptions = {}) {
    const entries = Symbol.iterator in files ? (files as Iterable<[string, string]>) : Object.entries(files);
    for (const [p, v] of entries) this.files.set(p, v);
    this.policy = options.isolation ?? new IsolationPolicy();
    this.freshMode = options.fresh ?? 'all';
  }

  get isolation(): IsolationPolicy {
    return this.policy;
  }

  /** New excludes or size limit (the host's settings changed): later checks use them. */
  setIsolation(policy: IsolationPolicy): void {
    this.policy = policy;
    this.checked.clear();
  }

  read(path: string): string | undefined {
    return this.files.get(path);
  }

  write(path: string, content: string): void {
    this.files.set(path, content);
  }

  delete(path: string): void {
    this.files.delete(path);
  }

  /** The editor's diagnostics as the `get_diagnostics` tool sees them (replaces the earlier ones). */
  setDiagnostics(list: readonly DiagnosticInfo[]): void {
    this.diagnosticList = list.map((d) => ({ ...d }));
  }

  /** The user's current selection as the `get_selection` tool sees it (undefined: nothing selected). */
  setSelection(selection: EditorSelectionInfo | undefined): void {
    this.currentSelection = selection && { ...selection };
  }

  listFiles(glob: string, limit: number): FileListing {
    const set = new GlobSet([glob]);
    const all = [...this.files.keys()].filter((p) => set.match(p) !== undefined && this.isolation.checkPath(p).ok).sort();
    return { paths: all.slice(0, limit), more: all.length > limit };
  }

  diagnostics(path?: string): DiagnosticInfo[] {
    return this.diagnosticList.filter((d) => path === undefined || d.path === path).map((d) => ({ ...d }));
  }

  selection(): EditorSelectionInfo | undefined {
    return this.currentSelection && { ...this.currentSelection };
  }

  resolve(spec: AttachmentSpec): Resolved {
    const label = specLabel(spec);
    const checked = this.isolation.checkPath(spec.path, label);
    if (!checked.ok) return checked;
    const content = this.files.get(checked.path);
    if (content === undefined) return { ok: false, rejection: notFound(label) };
    const bad = this.contentCheck(checked.path, content, label);
    if (bad) return { ok: false, rejection: bad };
    return inputFor(spec, checked.path, content, label);
  }

  recheck(path: string, label: string): Rejection | undefined {
    const checked = this.isolation.checkPath(path, label);
    if (!checked.ok) return checked.rejection;
    const content = this.files.get(checked.path);
    return content === undefined ? undefined : this.contentCheck(checked.path, content, label);
  }

  readFresh(sources: readonly FreshSource[]): Map<string, string | null> {
    const out = new Map<string, string | null>();
    for (const src of sources) {
      const content = this.files.get(src.uri) ?? null;
      if (this.freshMode === 'changed' && content !== null && src.contentHash !== undefined) {
        let seen = this.lastSeen.get(src.uri);
        if (!seen || seen.content !== content) this.lastSeen.set(src.uri, (seen = { content, hash: sha256HexNode(content) }));
        // The chat holds exactly this content: nothing to report.
        if (chatHolds(src, seen.hash)) continue;
      }
      out.set(src.id, content);
    }
    return out;
  }

  private contentCheck(path: string, content: string, label: string): Rejection | undefined {
    if (this.checked.get(path) === content) return undefined;
    const bad = this.isolation.checkContent(content, label);
    if (!bad) this.checked.set(path, content);
    return bad;
  }
}
