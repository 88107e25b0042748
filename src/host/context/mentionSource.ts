/**
 * The `@` picker's entries and what picking one attaches. Files come from the tools' `listFiles`
 * (the same isolation: excluded files and links out of the workspace are never listed), open
 * editors and symbols are checked against the same rules, and everything picked is attached through
 * the attach path every attachment takes (isolation again, refusals with their reasons).
 */
import * as vscode from 'vscode';
import { fuzzyMatch, rankFuzzy } from '../../common/fuzzy';
import type { MentionRef, MentionResult, MentionView } from '../../protocol/mentions';
import { problemCounts, problemsSnapshot } from '../../services/problemsSnapshot';
import type { AttachmentSpec } from '../../services/workspacePort';
import { fileSpec, openEditorDocuments, selectionLines, selectionSpecs, uriSpec, type SpecOrRefusal } from './attachFromEditor';
import { HostWorkspace } from './hostWorkspace';
import { readSetting } from '../settings/config';
import { binaryKindOfName } from '../../common/binaryKind';
import { sizeOverLimit } from '../../engine/isolation';

/** Entries the picker shows at most. */
export const MAX_MENTIONS = 50;
/** Workspace files ranked at most (a larger workspace is ranked on its first ones, sorted by path). */
export const MAX_LISTED_FILES = 20_000;
/** How long a file listing is used as it is (after this, it answers while a new one is taken). */
const LISTING_TTL_MS = 10_000;
const MAX_SYMBOLS = 30;

export interface MentionDeps {
  workspace: Pick<HostWorkspace, 'listFiles' | 'isAllowedPathSync' | 'diagnostics'>;
  /** A workspace file's size in bytes (undefined when it cannot be told), and the limit an attachment is held to. */
  fileSize(path: string): Promise<number | undefined>;
  maxFileBytes(): number;
  /** The attach path: isolation, chips, refusals shown with their reasons. */
  attachSpecs(specs: SpecOrRefusal[]): Promise<{ label: string }[]>;
}

/** A workspace file's size, by its path (metadata only: nothing is read). */
export function workspaceFileSize(workspace: Pick<HostWorkspace, 'uriOf'>): (path: string) => Promise<number | undefined> {
  return async (path) => {
    const uri = workspace.uriOf(path);
    return uri ? (await vscode.workspace.fs.stat(uri)).size : undefined;
  };
}

function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

function hhmm(d: Date): string {
  return `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
}

export class MentionSource {
  /** The last complete listing, and when it was taken. */
  private listed: { at: number; paths: string[] } | undefined;
  /** A listing under way. */
  private listing: Promise<string[]> | undefined;
  private stale = false;

  constructor(private readonly deps: MentionDeps) {}

  /** The picker of this window's workspace: sizes from the file system, the limit from `strata.context.maxFileBytes`. */
  static forWorkspace(workspace: HostWorkspace, attachSpecs: MentionDeps['attachSpecs']): MentionSource {
    return new MentionSource({
      workspace,
      attachSpecs,
      fileSize: workspaceFileSize(workspace),
      maxFileBytes: () => readSetting('context.maxFileBytes'),
    });
  }

  /**
   * The workspace's files. Listing a large workspace takes a while (a file search, then the real path
   * of every file), so a listing is reused while the user types; once it is older than a few seconds,
   * or files were created or deleted, the next keystroke is answered from it while a new one is taken.
   * Only the very first listing is waited for (`prefetch` takes it before the first `@`).
   */
  private async files(): Promise<string[]> {
    const fresh = this.listed && !this.stale && Date.now() - this.listed.at < LISTING_TTL_MS;
    if (fresh) return this.listed!.paths;
    const next = this.relist();
    return this.listed ? this.listed.paths : next;
  }

  private relist(): Promise<string[]> {
    if (this.listing) return this.listing;
    this.stale = false;
    const at = Date.now();
    const run = Promise.resolve(this.deps.workspace.listFiles('**/*', MAX_LISTED_FILES)).then(
      (l) => {
        this.listed = { at, paths: l.paths };
        return l.paths;
      },
      (e: unknown) => {
        this.stale = true;
        throw e;
      },
    );
    this.listing = run;
    void run.then(
      () => (this.listing = undefined),
      () => (this.listing = undefined),
    );
    return run;
  }

  /** Lists the files ahead of the first `@` (the panel loaded). */
  prefetch(): void {
    if (!this.listed) void this.relist().catch(() => undefined);
  }

  /** Files were created or deleted: the next keystroke takes a new listing (and is answered from this one). */
  invalidate(): void {
    this.stale = true;
  }

  /** The entries for `query` (what follows `@`): `#name` searches symbols. */
  async list(query: string): Promise<MentionView[]> {
    if (query.startsWith('#')) return this.symbols(query.slice(1));
    const specials = this.specials();
    const editors = this.openEditorEntries();
    const shown = new Set(editors.map((e) => (e.ref.kind === 'file' ? e.ref.path : '')));
    const files = (await this.files()).filter((p) => !shown.has(p));
    const entries: { view: MentionView; bonus: number }[] = [
      ...specials.map((view) => ({ view, bonus: 2 })),
      ...editors.map((view) => ({ view, bonus: 3 })),
    ];
    const out: { view: MentionView; score: number; order: number }[] = [];
    entries.forEach(({ view, bonus }, order) => {
      const m = fuzzyMatch(query, view.label);
      if (m) out.push({ view: { ...view, matches: m.positions }, score: m.score + bonus, order });
    });
    for (const { item, match } of rankFuzzy(query, files, (p) => p, MAX_MENTIONS)) {
      const view: MentionView = { kind: 'file', label: item, ref: { kind: 'file', path: item }, matches: match.positions };
      out.push({ view, score: match.score, order: entries.length + out.length });
    }
    // Without a query: the editor's own context first, then open editors, then files by path.
    out.sort((a, b) => (query.length === 0 ? a.order - b.order : b.score - a.score || a.order - b.order));
    return this.markRefused(out.slice(0, MAX_MENTIONS).map((o) => o.view));
  }

  /**
   * Marks the files shown that an attach would refuse, with the reason: binary by name, over the
   * size limit by their size (only the entries shown are looked at, a few file system calls).
   */
  private async markRefused(views: MentionView[]): Promise<MentionView[]> {
    const limit = this.deps.maxFileBytes();
    return Promise.all(
      views.map(async (v) => {
        if (v.refused || v.ref.kind !== 'file' || v.ref.path.startsWith('untitled:')) return v;
        const kind = binaryKindOfName(v.ref.path);
        if (kind) return { ...v, refused: `binary (${kind})` };
        const size = await this.deps.fileSize(v.ref.path).catch(() => undefined);
        return size !== undefined && size > limit ? { ...v, refused: sizeOverLimit(size, limit) } : v;
      }),
    );
  }

  /** `selection`, `problems` and `open editors`, when the editor has them. */
  private specials(): MentionView[] {
    const out: MentionView[] = [];
    const editor = vscode.window.activeTextEditor;
    const path = editor ? HostWorkspace.pathOf(editor.document.uri) : undefined;
    if (editor && path && !editor.selection.isEmpty) {
      const { startLine, endLine } = selectionLines(editor.selection);
      out.push({ kind: 'selection', label: 'selection', detail: `${baseName(path)}:${startLine}-${endLine}`, ref: { kind: 'selection' } });
    }
    if (editor && path && !path.startsWith('untitled:') && this.deps.workspace.isAllowedPathSync(path)) {
      const found = this.deps.workspace.diagnostics(path);
      const count = Array.isArray(found) ? problemCounts(found) : 'problems';
      out.push({ kind: 'problems', label: 'problems', detail: `${count} in ${baseName(path)} (a snapshot)`, ref: { kind: 'problems' } });
    }
    const open = openEditorDocuments().length;
    if (open > 1) out.push({ kind: 'openEditors', label: 'open editors', detail: `${open} files`, ref: { kind: 'openEditors' } });
    return out;
  }

  /** Files open in editor tabs that the isolation allows (an open `.env` is not listed). */
  private openEditorEntries(): MentionView[] {
    const out: MentionView[] = [];
    for (const uri of openEditorDocuments()) {
      const path = HostWorkspace.pathOf(uri);
      if (!path) continue;
      if (path.startsWith('untitled:')) {
        out.push({ kind: 'editor', label: uri.path, detail: 'open editor, unsaved', ref: { kind: 'file', path } });
        continue;
      }
      // An open excluded file is shown, marked: picking it says why it is not attached.
      const allowed = this.deps.workspace.isAllowedPathSync(path);
      out.push({
        kind: 'editor',
        label: path,
        detail: 'open editor',
        ref: { kind: 'file', path },
        ...(allowed ? {} : { refused: 'excluded' }),
      });
    }
    return out;
  }

  private async symbols(query: string): Promise<MentionView[]> {
    if (query.trim().length === 0) return [];
    const found =
      (await vscode.commands.executeCommand<vscode.SymbolInformation[] | undefined>('vscode.executeWorkspaceSymbolProvider', query)) ?? [];
    const allowed = new Map<string, boolean>();
    const candidates: { name: string; path: string; container: string; range: vscode.Range }[] = [];
    for (const s of found) {
      const path = HostWorkspace.pathOf(s.location.uri);
      if (!path || path.startsWith('untitled:')) continue;
      let ok = allowed.get(path);
      if (ok === undefined) {
        ok = this.deps.workspace.isAllowedPathSync(path);
        allowed.set(path, ok);
      }
      if (ok) candidates.push({ name: s.name, path, container: s.containerName, range: s.location.range });
      if (candidates.length >= 500) break;
    }
    return rankFuzzy(query, candidates, (c) => c.name, MAX_SYMBOLS).map(({ item, match }) => {
      const { startLine, endLine } = selectionLines(item.range);
      return {
        kind: 'symbol',
        label: item.name,
        detail: `${item.container ? `${item.container} · ` : ''}${item.path}:${startLine}`,
        matches: match.positions,
        ref: { kind: 'range', path: item.path, startLine, endLine },
      };
    });
  }

  /** Attaches what `ref` names through the attach path; `@problems` also gives the snapshot text. */
  async attach(ref: MentionRef): Promise<MentionResult> {
    const editor = vscode.window.activeTextEditor;
    let specs: SpecOrRefusal[];
    switch (ref.kind) {
      case 'file':
        specs = [{ ok: true, spec: { kind: 'file', path: ref.path } }];
        break;
      case 'range':
        specs = [{ ok: true, spec: { kind: 'selection', path: ref.path, startLine: ref.startLine, endLine: ref.endLine } }];
        break;
      case 'openEditors':
        specs = openEditorDocuments().map(uriSpec);
        if (specs.length === 0) throw new Error('No editors are open.');
        break;
      case 'selection':
        if (!editor) throw new Error('Select lines in an editor first.');
        specs = selectionSpecs(editor);
        if (specs.length === 0) throw new Error('The editor has no selection. Select the lines to attach first.');
        break;
      case 'activeEditor':
        if (!editor) throw new Error('Open a file in the editor first.');
        specs = editor.selection.isEmpty ? [fileSpec(editor.document)] : selectionSpecs(editor);
        break;
      case 'problems':
        return this.attachProblems(editor);
    }
    const chips = await this.deps.attachSpecs(specs);
    return { labels: chips.map((c) => c.label) };
  }

  /** The active file as a chip (through isolation first: an excluded file's problems are not shown either), then the snapshot. */
  private async attachProblems(editor: vscode.TextEditor | undefined): Promise<MentionResult> {
    if (!editor) throw new Error('Open a file in the editor first: @problems lists the active file’s problems.');
    const spec = fileSpec(editor.document);
    const path = spec.ok ? (spec.spec as AttachmentSpec).path : undefined;
    const chips = await this.deps.attachSpecs([spec]);
    if (!path || chips.length === 0) return { labels: [] };
    const found = await this.deps.workspace.diagnostics(path);
    const text = problemsSnapshot(path, found, hhmm(new Date()));
    if (!text) throw new Error(`${baseName(path)} has no problems right now (it was attached).`);
    return { labels: chips.map((c) => c.label), insertText: text };
  }
}
