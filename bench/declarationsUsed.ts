/**
 * The declarations a selection uses, as the TypeScript compiler resolves them: the benchmark's
 * ground truth, independent of the code it measures (no definition provider, no outline, no scan of
 * the text). Every identifier and private name inside the selection is asked of the type checker;
 * an import is followed to what it imports; a shorthand property (`{ queryKey }`) counts as the
 * value it names. A declaration counts when it is in a workspace file (the standard library is left
 * out) and outside the selection (what the selection declares is there already).
 */
import * as ts from 'typescript';

export interface UsedDeclaration {
  path: string;
  /** 1-based line of the declaration's name (of the declaration itself when it has none). */
  line: number;
  /** `Class.member`, `name`, or `Class<T>` for a type parameter. */
  name: string;
  /** The syntax kind of the declaration (`MethodDeclaration`, `InterfaceDeclaration`, …). */
  kind: string;
  /** The first use in the selection that resolves to it (`line:column`). */
  usedAt: string;
}

const ROOT = '/project/';

/** A compiler program over `files` (workspace-relative paths), the standard library from the installed `typescript`. */
export class DeclarationOracle {
  private readonly program: ts.Program;
  private readonly checker: ts.TypeChecker;

  constructor(private readonly files: Record<string, string>) {
    const options: ts.CompilerOptions = {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      types: [],
    };
    const host = ts.createCompilerHost(options);
    const read = host.readFile.bind(host);
    const getSourceFile = host.getSourceFile.bind(host);
    const own = (f: string) => (f.startsWith(ROOT) ? this.files[f.slice(ROOT.length)] : undefined);
    host.readFile = (f) => own(f) ?? read(f);
    host.fileExists = (f) => (f.startsWith(ROOT) ? own(f) !== undefined : ts.sys.fileExists(f));
    host.getSourceFile = (f, lang, onError) => {
      const text = own(f);
      return text !== undefined ? ts.createSourceFile(f, text, lang, true) : getSourceFile(f, lang, onError);
    };
    host.directoryExists = (d) =>
      d.startsWith(ROOT.slice(0, -1)) ? Object.keys(this.files).some((p) => (ROOT + p).startsWith(`${d}/`)) : ts.sys.directoryExists(d);
    host.realpath = (f) => f;
    host.getCurrentDirectory = () => ROOT;
    const roots = Object.keys(files)
      .filter((p) => /\.tsx?$/.test(p))
      .map((p) => ROOT + p);
    this.program = ts.createProgram(roots, options, host);
    this.checker = this.program.getTypeChecker();
  }

  /** The declarations lines `startLine`–`endLine` (1-based, inclusive) of `path` use, in order of first use. */
  used(path: string, startLine: number, endLine: number): UsedDeclaration[] {
    const sf = this.program.getSourceFile(ROOT + path);
    if (!sf) throw new Error(`${path} is not in the program`);
    const starts = sf.getLineStarts();
    const from = starts[startLine - 1];
    const to = endLine < starts.length ? starts[endLine] : sf.text.length;
    const out: UsedDeclaration[] = [];
    const seen = new Set<ts.Declaration>();
    const visit = (node: ts.Node) => {
      if (node.end <= from || node.getStart(sf) >= to) return;
      if (ts.isIdentifier(node) || ts.isPrivateIdentifier(node)) this.add(node, sf, from, to, seen, out);
      ts.forEachChild(node, visit);
    };
    visit(sf);
    return out;
  }

  /** The declarations `path`'s import statements (and `export … from`) bring in, aliases followed, in source order. */
  imported(path: string): UsedDeclaration[] {
    const sf = this.program.getSourceFile(ROOT + path);
    if (!sf) throw new Error(`${path} is not in the program`);
    const out: UsedDeclaration[] = [];
    for (const st of sf.statements) {
      if (!((ts.isImportDeclaration(st) || ts.isExportDeclaration(st)) && st.moduleSpecifier)) continue;
      const at = (pos: number) => sf.getLineAndCharacterOfPosition(pos).line + 1;
      // A namespace import resolves to the module itself: its members are what the file uses, not the import.
      out.push(...this.used(path, at(st.getStart(sf)), at(st.end)).filter((u) => u.kind !== 'SourceFile'));
    }
    return out;
  }

  private add(node: ts.Node, sf: ts.SourceFile, from: number, to: number, seen: Set<ts.Declaration>, out: UsedDeclaration[]): void {
    const start = node.getStart(sf);
    if (start < from || start >= to) return;
    let symbol =
      ts.isShorthandPropertyAssignment(node.parent) && node.parent.name === node
        ? this.checker.getShorthandAssignmentValueSymbol(node.parent)
        : this.checker.getSymbolAtLocation(node);
    if (!symbol) return;
    if (symbol.flags & ts.SymbolFlags.Alias) symbol = this.checker.getAliasedSymbol(symbol);
    const at = sf.getLineAndCharacterOfPosition(start);
    for (const d of symbol.declarations ?? []) {
      const file = d.getSourceFile();
      if (!file.fileName.startsWith(ROOT)) continue;
      if (file === sf && d.getStart(file) >= from && d.end <= to) continue;
      // A declaration that holds the whole selection (the class of the method selected) is where it is, not what it uses.
      if (file === sf && d.getStart(file) <= from && d.end >= to) continue;
      if (seen.has(d)) continue;
      seen.add(d);
      const name = ts.getNameOfDeclaration(d);
      const line = file.getLineAndCharacterOfPosition((name ?? d).getStart(file)).line + 1;
      out.push({
        path: file.fileName.slice(ROOT.length),
        line,
        name: qualifiedName(d),
        kind: ts.SyntaxKind[d.kind],
        usedAt: `${at.line + 1}:${at.character + 1}`,
      });
    }
  }
}

function qualifiedName(d: ts.Declaration): string {
  const own = ts.getNameOfDeclaration(d)?.getText() ?? ts.SyntaxKind[d.kind];
  const parent = d.parent;
  if (ts.isTypeParameterDeclaration(d)) {
    const holder = ts.getNameOfDeclaration(parent as ts.Declaration)?.getText() ?? '?';
    return `${holder}<${own}>`;
  }
  if (ts.isClassLike(parent) || ts.isInterfaceDeclaration(parent) || ts.isTypeLiteralNode(parent) || ts.isEnumDeclaration(parent)) {
    const holder = ts.getNameOfDeclaration(parent as ts.Declaration)?.getText() ?? (ts.isTypeLiteralNode(parent) ? '{}' : '?');
    return `${holder}.${own}`;
  }
  return own;
}
