/**
 * Code intelligence through the editor's language features: the `CodeIntelPort` answered by the
 * document symbol, definition, reference, workspace symbol and document link providers of every
 * language the user has installed. Locations are mapped to workspace paths with the same
 * containment rule as attachments (`HostWorkspace.pathOf`); a location outside the workspace
 * folders is left out.
 *
 * A provider runs in another process or extension and may be slow, throw or never answer: each call
 * is bounded by a timeout and by the caller's signal (Stop), and a failure is one clear error naming
 * the provider and the file. Mapping an answer is linear and small; a file's imports are resolved
 * one specifier at a time, so the extension host is never held.
 */
import * as vscode from 'vscode';
import type { CodeIntelPort, CodeLocation, CodeSymbol, WorkspaceSymbol } from '../../services/codeIntel/codeIntelPort';
import { importSpecifiers, isScriptFile } from './importSpecifiers';

/**
 * How long one provider call may take before it is given up with an error: a language server that
 * is still loading a large project answers its first requests only when the project is loaded.
 */
export const PROVIDER_TIMEOUT_MS = 20_000;

type Provider = 'document symbol' | 'definition' | 'reference' | 'workspace symbol' | 'document link';

/** Thrown when a provider fails or does not answer in time; the message says which and for what. */
export class CodeIntelProviderError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CodeIntelProviderError';
  }
}

function abortError(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return reason;
  const e = new Error('Stopped.');
  e.name = 'AbortError';
  return e;
}

function kindName(kind: vscode.SymbolKind): string {
  const name = vscode.SymbolKind[kind] as string | undefined;
  return name ? name.toLowerCase() : 'symbol';
}

function isLocationLink(x: vscode.Location | vscode.LocationLink): x is vscode.LocationLink {
  return (x as vscode.LocationLink).targetUri !== undefined;
}

/** A `node_modules` folder anywhere in the path: a package's file, never "the project's" import. */
function inPackages(path: string): boolean {
  return /(?:^|\/)node_modules\//.test(path);
}

export class EditorCodeIntel implements CodeIntelPort {
  /**
   * `uriOf` and `pathOf`: a workspace path's URI and a URI's workspace path (undefined outside the
   * workspace folders): the host workspace's, so code intelligence names files as attachments do.
   */
  constructor(
    private readonly uriOf: (path: string) => vscode.Uri | undefined,
    private readonly pathOf: (uri: vscode.Uri) => string | undefined,
    private readonly timeoutMs = PROVIDER_TIMEOUT_MS,
  ) {}

  /** Runs one provider command, bounded by the timeout and `signal`, failures made clear. */
  private async run<T>(
    provider: Provider,
    about: string,
    signal: AbortSignal | undefined,
    command: string,
    ...args: unknown[]
  ): Promise<T | undefined> {
    if (signal?.aborted) throw abortError(signal);
    let timer: ReturnType<typeof setTimeout> | undefined;
    let onAbort: (() => void) | undefined;
    const stopped = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new CodeIntelProviderError(`The ${provider} provider did not answer within ${this.timeoutMs / 1000} s for ${about}.`)),
        this.timeoutMs,
      );
      if (signal) {
        onAbort = () => reject(abortError(signal));
        signal.addEventListener('abort', onAbort, { once: true });
      }
    });
    try {
      const call = Promise.resolve(vscode.commands.executeCommand<T>(command, ...args)).catch((e: unknown) => {
        throw new CodeIntelProviderError(`The ${provider} provider failed for ${about}: ${e instanceof Error ? e.message : String(e)}`);
      });
      return await Promise.race([call, stopped]);
    } finally {
      clearTimeout(timer);
      if (signal && onAbort) signal.removeEventListener('abort', onAbort);
    }
  }

  private uri(path: string): vscode.Uri {
    const uri = this.uriOf(path);
    if (!uri) throw new CodeIntelProviderError(`${path} is not a file of this window's workspace folders.`);
    return uri;
  }

  /** The workspace path of a location's file, or undefined for anything outside the workspace folders. */
  private workspacePath(uri: vscode.Uri): string | undefined {
    if (uri.scheme === 'untitled') return undefined;
    return this.pathOf(uri);
  }

  private location(x: vscode.Location | vscode.LocationLink): CodeLocation | undefined {
    const uri = isLocationLink(x) ? x.targetUri : x.uri;
    const range = isLocationLink(x) ? (x.targetSelectionRange ?? x.targetRange) : x.range;
    const path = this.workspacePath(uri);
    if (path === undefined) return undefined;
    return { path, line: range.start.line + 1, column: range.start.character + 1, endLine: range.end.line + 1 };
  }

  private locations(answer: readonly (vscode.Location | vscode.LocationLink)[] | undefined): CodeLocation[] {
    const out: CodeLocation[] = [];
    const seen = new Set<string>();
    for (const x of answer ?? []) {
      const loc = this.location(x);
      if (!loc) continue;
      const key = `${loc.path}:${loc.line}:${loc.column}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(loc);
    }
    return out;
  }

  async outline(path: string, signal?: AbortSignal): Promise<CodeSymbol[] | undefined> {
    const uri = this.uri(path);
    const answer = await this.run<(vscode.SymbolInformation | vscode.DocumentSymbol)[]>(
      'document symbol',
      path,
      signal,
      'vscode.executeDocumentSymbolProvider',
      uri,
    );
    if (!answer) return undefined;
    return answer.length > 0 && 'location' in answer[0]
      ? EditorCodeIntel.outlineOfInformation(answer as vscode.SymbolInformation[])
      : EditorCodeIntel.outlineOfDocumentSymbols(answer as vscode.DocumentSymbol[]);
  }

  private static outlineOfDocumentSymbols(symbols: readonly vscode.DocumentSymbol[]): CodeSymbol[] {
    return [...symbols]
      .sort((a, b) => a.range.start.compareTo(b.range.start))
      .map((s) => {
        const out: CodeSymbol = {
          name: s.name,
          kind: kindName(s.kind),
          startLine: s.range.start.line + 1,
          endLine: s.range.end.line + 1,
          nameLine: s.selectionRange.start.line + 1,
        };
        if (s.detail) out.detail = s.detail;
        if (s.children?.length) out.children = EditorCodeIntel.outlineOfDocumentSymbols(s.children);
        return out;
      });
  }

  /** A flat `SymbolInformation` answer nested by containment of ranges (what the outline view does). */
  private static outlineOfInformation(symbols: readonly vscode.SymbolInformation[]): CodeSymbol[] {
    const sorted = [...symbols].sort(
      (a, b) => a.location.range.start.compareTo(b.location.range.start) || b.location.range.end.compareTo(a.location.range.end),
    );
    const roots: CodeSymbol[] = [];
    const stack: CodeSymbol[] = [];
    for (const s of sorted) {
      const r = s.location.range;
      const sym: CodeSymbol = {
        name: s.name,
        kind: kindName(s.kind),
        startLine: r.start.line + 1,
        endLine: r.end.line + 1,
        nameLine: r.start.line + 1,
      };
      while (stack.length > 0 && stack[stack.length - 1].endLine < sym.startLine) stack.pop();
      const parent = stack[stack.length - 1];
      if (parent && parent.endLine >= sym.endLine) (parent.children ??= []).push(sym);
      else roots.push(sym);
      stack.push(sym);
    }
    return roots;
  }

  private async definitionsAt(path: string, line: number, column: number, signal?: AbortSignal): Promise<CodeLocation[]> {
    const answer = await this.run<(vscode.Location | vscode.LocationLink)[]>(
      'definition',
      `${path}:${line}:${column}`,
      signal,
      'vscode.executeDefinitionProvider',
      this.uri(path),
      new vscode.Position(line - 1, column - 1),
    );
    return this.locations(answer);
  }

  /**
   * A provider that has not loaded the project yet (TypeScript's syntax-only server, while the
   * project loads) answers with the import that binds the name in the same file: that answer is
   * followed once from the import, and left out when it still points at an import.
   */
  async definitions(path: string, line: number, column: number, signal?: AbortSignal): Promise<CodeLocation[]> {
    const found = await this.definitionsAt(path, line, column, signal);
    const out: CodeLocation[] = [];
    for (const loc of found) {
      if (loc.path !== path || !(await this.isImportLine(loc))) {
        out.push(loc);
        continue;
      }
      if (loc.line === line) continue;
      for (const next of await this.definitionsAt(loc.path, loc.line, loc.column, signal))
        if (!(next.path === path && (await this.isImportLine(next))) && !out.some((o) => o.path === next.path && o.line === next.line))
          out.push(next);
    }
    return out;
  }

  private async isImportLine(loc: CodeLocation): Promise<boolean> {
    const uri = this.uriOf(loc.path);
    if (!uri) return false;
    const doc = await vscode.workspace.openTextDocument(uri);
    if (loc.line > doc.lineCount) return false;
    return /^\s*(?:import\b|export\s+(?:type\s+)?(?:\*|\{)[^;]*\bfrom\b)/.test(doc.lineAt(loc.line - 1).text);
  }

  async references(path: string, line: number, column: number, signal?: AbortSignal): Promise<CodeLocation[]> {
    const answer = await this.run<vscode.Location[]>(
      'reference',
      `${path}:${line}:${column}`,
      signal,
      'vscode.executeReferenceProvider',
      this.uri(path),
      new vscode.Position(line - 1, column - 1),
    );
    return this.locations(answer);
  }

  async workspaceSymbols(query: string, limit: number, signal?: AbortSignal): Promise<WorkspaceSymbol[]> {
    const answer = await this.run<vscode.SymbolInformation[]>(
      'workspace symbol',
      `"${query}"`,
      signal,
      'vscode.executeWorkspaceSymbolProvider',
      query,
    );
    const out: WorkspaceSymbol[] = [];
    for (const s of answer ?? []) {
      if (out.length >= limit) break;
      const path = this.workspacePath(s.location.uri);
      if (path === undefined || inPackages(path)) continue;
      const sym: WorkspaceSymbol = { name: s.name, kind: kindName(s.kind), path, line: s.location.range.start.line + 1 };
      if (s.containerName) sym.container = s.containerName;
      out.push(sym);
    }
    return out;
  }

  async imports(path: string, signal?: AbortSignal): Promise<string[]> {
    const uri = this.uri(path);
    const doc = await vscode.workspace.openTextDocument(uri);
    if (signal?.aborted) throw abortError(signal);
    const found: string[] = [];
    const keep = (target: string | undefined) => {
      if (target === undefined || target === path || inPackages(target) || found.includes(target)) return;
      found.push(target);
    };
    if (!isScriptFile(doc.languageId, path)) {
      const links = await this.run<vscode.DocumentLink[]>('document link', path, signal, 'vscode.executeLinkProvider', uri);
      for (const link of links ?? []) if (link.target?.scheme === 'file') keep(this.workspacePath(link.target.with({ fragment: '' })));
      return found;
    }
    // One specifier at a time: the language server answers each in a few milliseconds, and the
    // extension host runs other work between the answers.
    const resolved = new Map<string, string | undefined>();
    for (const s of importSpecifiers(doc.getText())) {
      if (resolved.has(s.specifier)) continue;
      const targets = await this.definitionsAt(path, s.line, s.column, signal);
      // A specifier's definition is the module's file; a package's resolves into node_modules (left out).
      const target = targets.find((t) => !inPackages(t.path))?.path;
      resolved.set(s.specifier, target);
      keep(target);
    }
    return found;
  }
}
