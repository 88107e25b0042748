/**
 * Code intelligence for TypeScript and JavaScript over files held in memory, through the TypeScript
 * compiler's language service: the same calls the editor answers with its language servers, answered
 * deterministically, so the replay, the benchmark and the tests script them without an editor.
 *
 * The files are the workspace's (every path workspace-relative); a `tsconfig.json` at the root gives
 * the compiler options, so `paths` aliases resolve as in the editor. The standard library's
 * declarations come from the installed `typescript` package; locations in them, as anywhere outside
 * the workspace, are left out.
 *
 * It lives beside the replay, never in the extension: the extension asks the editor's providers.
 */
import { createHash } from 'crypto';
import * as path from 'path';
import * as ts from 'typescript';
import type { CodeIntelPort, CodeLocation, CodeSymbol, WorkspaceSymbol } from '../src/services/codeIntel/codeIntelPort';

/** Where the workspace's files are, for the compiler (a name no real path starts with). */
const ROOT = '/workspace/';
const SCRIPT = /\.(?:[cm]?ts|tsx|[cm]?js|jsx)$/;

/**
 * One registry of parsed files for every workspace of the process (the benchmark makes many): the
 * standard library is parsed once. A file's version is its content's hash, so two workspaces share
 * a parsed file only when its text is the same.
 */
const REGISTRY = ts.createDocumentRegistry(true, ROOT);

/** The standard library's declaration files, read once per process (the compiler asks for them on every call). */
const LIB_TEXT = new Map<string, string | undefined>();

function readLib(f: string): string | undefined {
  if (!LIB_TEXT.has(f)) LIB_TEXT.set(f, ts.sys.readFile(f));
  return LIB_TEXT.get(f);
}

export interface MemoryFiles {
  /** Every path of the workspace (excluded ones too: the language server sees them, reads refuse them). */
  paths(): Iterable<string>;
  read(path: string): string | undefined;
}

const KINDS: Record<string, string> = {
  var: 'variable',
  let: 'variable',
  'local var': 'variable',
  const: 'constant',
  'local function': 'function',
  'enum member': 'enumMember',
  getter: 'property',
  setter: 'property',
  type: 'type',
  alias: 'alias',
};

function kindOf(kind: string): string {
  // Own keys only: `constructor` is a kind, and every object has a `constructor`.
  return Object.hasOwn(KINDS, kind) ? KINDS[kind] : kind;
}

/** Symbols an outline leaves out: imports, and the file itself. */
const HIDDEN = new Set(['alias', 'script', 'parameter', 'type parameter', 'index', 'call', 'construct']);

export class TsCodeIntel implements CodeIntelPort {
  private readonly versions = new Map<string, { content: string; version: string }>();
  private readonly service: ts.LanguageService;
  private readonly libDir = path.dirname(ts.getDefaultLibFilePath({}));
  private options: ts.CompilerOptions | undefined;
  private optionsFrom: string | undefined;

  constructor(private readonly files: MemoryFiles) {
    const host: ts.LanguageServiceHost = {
      getScriptFileNames: () => this.scriptPaths().map((p) => ROOT + p),
      getScriptVersion: (f) => this.versionOf(f),
      getScriptSnapshot: (f) => {
        const text = this.readAny(f);
        return text === undefined ? undefined : ts.ScriptSnapshot.fromString(text);
      },
      getCurrentDirectory: () => ROOT,
      getCompilationSettings: () => this.compilerOptions(),
      getDefaultLibFileName: (o) => path.join(this.libDir, ts.getDefaultLibFileName(o)),
      fileExists: (f) => this.readAny(f) !== undefined,
      readFile: (f) => this.readAny(f),
      directoryExists: (d) => this.directoryExists(d),
      getDirectories: () => [],
      useCaseSensitiveFileNames: () => true,
    };
    this.service = ts.createLanguageService(host, REGISTRY);
  }

  outline(p: string): CodeSymbol[] | undefined {
    const sf = this.sourceFile(p);
    if (!sf) return undefined;
    const tree = this.service.getNavigationTree(ROOT + p);
    return this.symbols(tree.childItems ?? [], sf);
  }

  definitions(p: string, line: number, column: number): CodeLocation[] {
    const pos = this.position(p, line, column);
    if (pos === undefined) return [];
    const defs = this.service.getDefinitionAtPosition(ROOT + p, pos) ?? [];
    return this.locations(defs.map((d) => ({ fileName: d.fileName, textSpan: d.textSpan })));
  }

  references(p: string, line: number, column: number): CodeLocation[] {
    const pos = this.position(p, line, column);
    if (pos === undefined) return [];
    const refs = this.service.getReferencesAtPosition(ROOT + p, pos) ?? [];
    return this.locations(refs).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0) || a.line - b.line || a.column - b.column);
  }

  workspaceSymbols(query: string, limit: number): WorkspaceSymbol[] {
    if (query.trim().length === 0) return [];
    const rank: Record<string, number> = { exact: 0, prefix: 1, substring: 2, camelCase: 3 };
    const items = this.service
      .getNavigateToItems(query, undefined, undefined, true)
      .filter((i) => i.fileName.startsWith(ROOT) && !i.fileName.includes('/node_modules/') && i.kind !== 'alias')
      .map((i) => {
        const p = i.fileName.slice(ROOT.length);
        const sf = this.sourceFile(p)!;
        const line = sf.getLineAndCharacterOfPosition(i.textSpan.start).line + 1;
        const sym: WorkspaceSymbol = { name: i.name, kind: kindOf(i.kind), path: p, line };
        if (i.containerName) sym.container = i.containerName;
        return { sym, rank: rank[i.matchKind] ?? 4 };
      });
    items.sort(
      (a, b) =>
        a.rank - b.rank ||
        (a.sym.name < b.sym.name ? -1 : a.sym.name > b.sym.name ? 1 : 0) ||
        (a.sym.path < b.sym.path ? -1 : a.sym.path > b.sym.path ? 1 : 0) ||
        a.sym.line - b.sym.line,
    );
    const out: WorkspaceSymbol[] = [];
    const seen = new Set<string>();
    for (const { sym } of items) {
      const key = `${sym.path}:${sym.line}:${sym.name}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(sym);
      if (out.length >= limit) break;
    }
    return out;
  }

  imports(p: string): string[] {
    const text = this.files.read(p);
    if (text === undefined || !SCRIPT.test(p)) return [];
    const options = this.compilerOptions();
    const host: ts.ModuleResolutionHost = {
      fileExists: (f) => this.readAny(f) !== undefined,
      readFile: (f) => this.readAny(f),
      directoryExists: (d) => this.directoryExists(d),
    };
    const out: string[] = [];
    for (const ref of ts.preProcessFile(text, true, true).importedFiles) {
      const r = ts.resolveModuleName(ref.fileName, ROOT + p, options, host).resolvedModule;
      if (!r || r.isExternalLibraryImport || !r.resolvedFileName.startsWith(ROOT)) continue;
      const target = r.resolvedFileName.slice(ROOT.length);
      if (target.includes('node_modules/') || target === p || out.includes(target) || this.files.read(target) === undefined) continue;
      out.push(target);
    }
    return out;
  }

  private scriptPaths(): string[] {
    return [...this.files.paths()].filter((p) => SCRIPT.test(p) && !p.includes('node_modules/')).sort();
  }

  private readAny(f: string): string | undefined {
    if (f.startsWith(ROOT)) return this.files.read(f.slice(ROOT.length));
    if (f.startsWith(this.libDir)) return readLib(f);
    return undefined;
  }

  private directoryExists(d: string): boolean {
    if (d.startsWith(this.libDir)) return true;
    if (!d.startsWith(ROOT.slice(0, -1))) return false;
    const prefix = d.length <= ROOT.length ? '' : `${d.slice(ROOT.length).replace(/\/$/, '')}/`;
    if (prefix.includes('node_modules')) return false;
    for (const p of this.files.paths()) if (p.startsWith(prefix)) return true;
    return false;
  }

  private versionOf(f: string): string {
    const text = this.readAny(f);
    if (text === undefined) return '';
    const seen = this.versions.get(f);
    if (seen && seen.content === text) return seen.version;
    const version = createHash('sha1').update(text).digest('hex');
    this.versions.set(f, { content: text, version });
    return version;
  }

  /** The root tsconfig.json's options (paths aliases included), read again when it changes. */
  private compilerOptions(): ts.CompilerOptions {
    const text = this.files.read('tsconfig.json');
    if (this.options && this.optionsFrom === text) return this.options;
    let options: ts.CompilerOptions = {};
    if (text !== undefined) {
      const parsed = ts.parseConfigFileTextToJson(ROOT + 'tsconfig.json', text);
      const raw = (parsed.config as { compilerOptions?: unknown } | undefined)?.compilerOptions;
      if (raw) options = ts.convertCompilerOptionsFromJson(raw, ROOT, 'tsconfig.json').options;
    }
    this.options = {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      ...options,
      allowJs: true,
      noEmit: true,
      skipLibCheck: true,
      types: [],
    };
    this.optionsFrom = text;
    return this.options;
  }

  private sourceFile(p: string): ts.SourceFile | undefined {
    if (!SCRIPT.test(p) || this.files.read(p) === undefined) return undefined;
    return this.service.getProgram()?.getSourceFile(ROOT + p);
  }

  private position(p: string, line: number, column: number): number | undefined {
    const sf = this.sourceFile(p);
    if (!sf || line < 1 || line > sf.getLineStarts().length) return undefined;
    const start = sf.getLineStarts()[line - 1];
    const end = line < sf.getLineStarts().length ? sf.getLineStarts()[line] : sf.text.length;
    return Math.min(start + Math.max(0, column - 1), end);
  }

  private locations(list: readonly { fileName: string; textSpan: ts.TextSpan }[]): CodeLocation[] {
    const out: CodeLocation[] = [];
    const seen = new Set<string>();
    for (const d of list) {
      if (!d.fileName.startsWith(ROOT)) continue;
      const p = d.fileName.slice(ROOT.length);
      if (p.includes('node_modules/')) continue;
      const sf = this.sourceFile(p);
      if (!sf) continue;
      const s = sf.getLineAndCharacterOfPosition(d.textSpan.start);
      const e = sf.getLineAndCharacterOfPosition(d.textSpan.start + d.textSpan.length);
      const key = `${p}:${s.line}:${s.character}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ path: p, line: s.line + 1, column: s.character + 1, endLine: e.line + 1 });
    }
    return out;
  }

  private symbols(items: readonly ts.NavigationTree[], sf: ts.SourceFile): CodeSymbol[] {
    const out: CodeSymbol[] = [];
    for (const item of items) {
      if (HIDDEN.has(item.kind) || item.spans.length === 0) continue;
      const start = Math.min(...item.spans.map((s) => s.start));
      const end = Math.max(...item.spans.map((s) => s.start + s.length));
      // The language service's spans start at the declaration's first token (its comments are outside).
      const first = start;
      const startLine = sf.getLineAndCharacterOfPosition(first).line + 1;
      const endLine = sf.getLineAndCharacterOfPosition(Math.max(first, end - 1)).line + 1;
      const nameAt = item.nameSpan ? item.nameSpan.start : first;
      const nameLine = sf.getLineAndCharacterOfPosition(nameAt).line + 1;
      const sym: CodeSymbol = { name: item.text, kind: kindOf(item.kind), startLine, endLine, nameLine };
      const detail = item.nameSpan ? detailAfter(sf, item.nameSpan.start + item.nameSpan.length) : undefined;
      if (detail) sym.detail = detail;
      const children = this.symbols(item.childItems ?? [], sf);
      if (children.length > 0) sym.children = children;
      out.push(sym);
    }
    return out.sort((a, b) => a.startLine - b.startLine || a.endLine - b.endLine);
  }
}

/** What follows a name on its line, up to its body: a signature or a type (`(a: A): B`, `extends C`). */
function detailAfter(sf: ts.SourceFile, at: number): string | undefined {
  const line = sf.getLineAndCharacterOfPosition(at).line;
  const starts = sf.getLineStarts();
  const end = line + 1 < starts.length ? starts[line + 1] : sf.text.length;
  let rest = sf.text.slice(at, end).trim();
  rest = rest.replace(/\s*(?:=>\s*)?\{\s*\}?;?$/, '').replace(/;$/, '');
  // An initializer's value is not a signature: only its type annotation is kept.
  const eq = rest.search(/\s=\s|^=\s?/);
  if (eq >= 0) rest = rest.slice(0, eq);
  rest = rest.trim();
  return rest.length > 0 ? rest : undefined;
}
