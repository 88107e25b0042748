/**
 * Merging a code block of a reply into a file, as a proposal the user reviews in a diff:
 * - the block is the whole file (it holds most of the file's lines, or every declaration the file
 *   has): it replaces the file, keeping the file's imports when the block has none (a model often
 *   leaves out the top it did not change);
 * - its first declaration (function, class, const, interface, type, enum, method, def, fn) has the
 *   name of one in the file: it replaces that declaration, re-indented to the file's indentation;
 * - its first and last lines are both found in the file, in order: it replaces that region;
 * - else nothing matches, and the host asks (insert at the end, or another file).
 * Pure; line endings follow the file's.
 */

export type MergeResult =
  | { kind: 'whole'; content: string }
  | { kind: 'declaration'; content: string; name: string; startLine: number; endLine: number }
  | { kind: 'region'; content: string; startLine: number; endLine: number }
  | { kind: 'none' };

/** A declaration's name and kind ('function', 'class', …), from one line of code. */
export interface DeclarationHead {
  kind: string;
  name: string;
}

const MODIFIERS = String.raw`(?:(?:export|default|declare|public|private|protected|internal|static|abstract|async|override|readonly|final|pub(?:\([^)]*\))?|unsafe|extern|const(?=\s+(?:fn|enum)))\s+)*`;
const HEADS: readonly [string, RegExp][] = [
  ['function', new RegExp(String.raw`^${MODIFIERS}function\s*\*?\s*([A-Za-z_$][\w$]*)`)],
  ['class', new RegExp(String.raw`^${MODIFIERS}(?:class|struct|trait|object)\s+([A-Za-z_$][\w$]*)`)],
  ['interface', new RegExp(String.raw`^${MODIFIERS}interface\s+([A-Za-z_$][\w$]*)`)],
  ['type', new RegExp(String.raw`^${MODIFIERS}type\s+([A-Za-z_$][\w$]*)`)],
  ['enum', new RegExp(String.raw`^${MODIFIERS}enum\s+([A-Za-z_$][\w$]*)`)],
  ['const', new RegExp(String.raw`^${MODIFIERS}(?:const|let|var)\s+([A-Za-z_$][\w$]*)`)],
  ['function', /^(?:async\s+)?def\s+([A-Za-z_]\w*)/],
  ['function', new RegExp(String.raw`^${MODIFIERS}fn\s+([A-Za-z_]\w*)`)],
  ['function', /^func\s+(?:\([^)]*\)\s*)?([A-Za-z_]\w*)/],
  ['impl', /^impl(?:<[^>]*>)?\s+(?:[\w:<>, ]+\s+for\s+)?([A-Za-z_]\w*)/],
];

/**
 * A method's head up to its opening parenthesis: `name(`, `get name(`, `async *name<T>(` (not a call
 * or a control statement). The rest of the line is checked by `methodTail`, without a regular
 * expression: a pattern over the parameters and the return type backtracks on long lines.
 */
const METHOD_HEAD = new RegExp(
  String.raw`^${MODIFIERS}(?:get\s+|set\s+)?\*?\s*(?!(?:if|for|while|switch|catch|return|function|new|await|typeof|else|do)\b)([A-Za-z_$][\w$]*)\s*(?:<[^>]*>)?\s*\(`,
);

/**
 * Lines longer than this start no declaration: the heads are a heuristic, and a bound on the line
 * keeps every pattern above to a bounded cost on a reply's or a file's longest lines.
 */
export const MAX_HEAD_LINE_CHARS = 1000;

/**
 * Whether `rest` (the text after a method's opening parenthesis, up to the line's end) closes the
 * parameters and opens the body: no `;`, a `)` followed by nothing or by a return type `: T` (no
 * `=`, `{` or `;` in it), then the `{` that ends the line.
 */
function methodTail(rest: string): boolean {
  if (!rest.endsWith('{')) return false;
  const body = rest.slice(0, -1).trimEnd();
  if (body.includes(';')) return false;
  let lastEqOrBrace = -1;
  for (let i = 0; i < body.length; i++) if (body[i] === '=' || body[i] === '{') lastEqOrBrace = i;
  for (let i = 0; i < body.length; i++) {
    if (body[i] !== ')') continue;
    let j = i + 1;
    while (j < body.length && /\s/.test(body[j])) j++;
    if (j === body.length) return true;
    if (body[j] === ':' && i > lastEqOrBrace) return true;
  }
  return false;
}

/** The declaration a line starts, if any. */
export function declarationHead(line: string): DeclarationHead | undefined {
  const t = line.trim();
  if (t.length > MAX_HEAD_LINE_CHARS) return undefined;
  for (const [kind, re] of HEADS) {
    const m = re.exec(t);
    if (m) return { kind, name: m[1] };
  }
  const m = METHOD_HEAD.exec(t);
  if (m && methodTail(t.slice(m[0].length))) return { kind: 'method', name: m[1] };
  return undefined;
}

function isPreamble(line: string): boolean {
  const t = line.trim();
  return t.length === 0 || t.startsWith('//') || t.startsWith('/*') || t.startsWith('*') || t.startsWith('#') || t.startsWith('@');
}

function indentOf(line: string): string {
  return /^[ \t]*/.exec(line)?.[0] ?? '';
}

/**
 * Index of the last line of the declaration starting at `start`: where its brackets balance again,
 * the line ending a bracketless statement, or (a line ending in `:`, as in Python) its indented body.
 */
export function declarationEnd(lines: readonly string[], start: number): number {
  if (codeOf(lines[start], true).trimEnd().endsWith(':')) return indentedBodyEnd(lines, start);
  let depth = 0;
  let opened = false;
  for (let i = start; i < lines.length; i++) {
    const code = codeOf(lines[i], false);
    for (const ch of code) {
      if (ch === '{' || ch === '(' || ch === '[') {
        depth++;
        opened = true;
      } else if (ch === '}' || ch === ')' || ch === ']') depth--;
    }
    if (depth > 0) continue;
    const next = lines[i + 1] ?? '';
    const nextContinues = /^[.?:]/.test(next.trimStart());
    const trimmed = code.trim();
    const continues = CONTINUATION_ENDS.has(trimmed.at(-1) ?? '') || trimmed.endsWith('=>') || nextContinues;
    if (!continues || (opened && closesBracket(trimmed) && !nextContinues)) return i;
  }
  return lines.length - 1;
}

/** A statement whose code ends in one of these (or in `=>`) goes on to the next line. */
const CONTINUATION_ENDS = new Set(['=', ',', '+', '-', '*', '/', '&', '|', '?', ':', '.']);

/** Whether trimmed code ends with a closing bracket, optionally followed by `;`. */
function closesBracket(trimmed: string): boolean {
  const t = trimmed.endsWith(';') ? trimmed.slice(0, -1).trimEnd() : trimmed;
  const last = t.at(-1);
  return last === '}' || last === ']' || last === ')';
}

/**
 * A line's code for bracket counting: each string literal (quoted with `"`, `'` or a backtick,
 * backslash escapes honoured, an unclosed one running to the line's end) becomes `""`, and a `//`
 * comment (with `hashComments`, also a `#` one) is dropped. One pass over the line, no regular
 * expression: a pattern for string literals backtracks exponentially on an unclosed quote.
 */
export function codeOf(line: string, hashComments: boolean): string {
  let out = '';
  let i = 0;
  while (i < line.length) {
    const ch = line[i];
    if (ch === '"' || ch === "'" || ch === '`') {
      let j = i + 1;
      while (j < line.length && line[j] !== ch) j += line[j] === '\\' ? 2 : 1;
      if (j >= line.length) {
        // An unclosed quote is not a string: its characters count as code, as before.
        out += ch;
        i++;
        continue;
      }
      out += '""';
      i = j + 1;
      continue;
    }
    if (ch === '/' && line[i + 1] === '/') break;
    if (hashComments && ch === '#') break;
    out += ch;
    i++;
  }
  return out;
}

/** An indentation-delimited body (Python): the lines after `start` indented deeper, or blank. */
function indentedBodyEnd(lines: readonly string[], start: number): number {
  const base = indentOf(lines[start]).length;
  let end = start;
  for (let i = start + 1; i < lines.length; i++) {
    if (lines[i].trim().length === 0) continue;
    if (indentOf(lines[i]).length <= base) break;
    end = i;
  }
  return end;
}

function reindent(lines: readonly string[], from: string, to: string): string[] {
  if (from === to) return [...lines];
  return lines.map((l) => (l.trim().length === 0 ? '' : to + (l.startsWith(from) ? l.slice(from.length) : l.trimStart())));
}

function trimBlank(lines: string[]): string[] {
  let a = 0;
  let b = lines.length;
  while (a < b && lines[a].trim().length === 0) a++;
  while (b > a && lines[b - 1].trim().length === 0) b--;
  return lines.slice(a, b);
}

/** The top-level declarations of a file (names at the least indentation that has any). */
function topLevelNames(lines: readonly string[]): Set<string> {
  const names = new Set<string>();
  for (const l of lines)
    if (indentOf(l).length === 0 && l.trim().length > 0) {
      const head = declarationHead(l);
      if (head && head.kind !== 'method') names.add(head.name);
    }
  return names;
}

/** Whether the block stands for the whole file rather than a part of it. */
export function isWholeFile(fileLines: readonly string[], blockLines: readonly string[]): boolean {
  const significant = (ls: readonly string[]) => ls.map((l) => l.trim()).filter((l) => l.length > 2);
  const file = significant(fileLines);
  if (file.length === 0) return true;
  const block = new Set(significant(blockLines));
  const covered = file.filter((l) => block.has(l)).length / file.length;
  if (covered >= 0.6) return true;
  const fileNames = topLevelNames(fileLines);
  if (fileNames.size < 2) return false;
  const blockNames = topLevelNames(blockLines);
  for (const n of fileNames) if (!blockNames.has(n)) return false;
  return true;
}

/**
 * A line that brings names in or names the module: `import`, `export … from`, `from x import`, `use`,
 * `#include`, `using`, `package`, a `require`. Anchored, no nested quantifiers: linear on any line.
 */
const IMPORT_LINE =
  /^(?:import\b|export\s+(?:\*|\{|type\s+\{)|from\s+\S+\s+import\b|use\s+\S|#include\b|#import\b|using\s+\S|package\s+\S|require\b|(?:const|let|var)\s[\w${},\s]*=\s*require\()/;

function isImportLine(line: string): boolean {
  return IMPORT_LINE.test(line.trim());
}

/**
 * The file's imports a whole-file block without any keeps: the file's top up to its last import line
 * (with what continues it: the names of a multi-line import and its closing line), before the first
 * top-level declaration. None when the block has an import of its own or the file has none.
 */
function keptImports(fileLines: readonly string[], blockLines: readonly string[]): string[] {
  if (blockLines.some(isImportLine)) return [];
  const first = fileLines.findIndex((l) => indentOf(l).length === 0 && declarationHead(l) !== undefined);
  const top = fileLines.slice(0, first < 0 ? fileLines.length : first);
  let last = -1;
  for (let i = 0; i < top.length; i++) if (isImportLine(top[i])) last = i;
  if (last < 0) return [];
  // The rest of a multi-line import: its indented names and its closing `}` / `)` line.
  while (
    last + 1 < top.length &&
    top[last + 1].trim().length > 0 &&
    (indentOf(top[last + 1]).length > 0 || /^[)}\]]/.test(top[last + 1].trim()))
  )
    last++;
  return [...top.slice(0, last + 1), ''];
}

function eolOf(text: string): string {
  return text.includes('\r\n') ? '\r\n' : '\n';
}

function splice(fileLines: readonly string[], start: number, end: number, replacement: readonly string[]): string[] {
  return [...fileLines.slice(0, start), ...replacement, ...fileLines.slice(end + 1)];
}

/** Merges `block` into `file` (see the module comment). */
export function mergeBlock(file: string, block: string): MergeResult {
  const eol = eolOf(file);
  const endsWithEol = file.length === 0 || /\r?\n$/.test(file);
  const fileLines = file.replace(/\r?\n$/, '').split(/\r?\n/);
  const blockLines = trimBlank(block.split(/\r?\n/));
  const join = (ls: readonly string[]) => ls.join(eol) + (endsWithEol ? eol : '');
  if (blockLines.length === 0) return { kind: 'none' };
  if (file.trim().length === 0) return { kind: 'whole', content: join(blockLines) };
  if (isWholeFile(fileLines, blockLines)) return { kind: 'whole', content: join([...keptImports(fileLines, blockLines), ...blockLines]) };

  const headAt = blockLines.findIndex((l) => !isPreamble(l));
  const head = headAt >= 0 ? declarationHead(blockLines[headAt]) : undefined;
  // A block that goes on past its first declaration is a region that happens to start with one.
  const spansBlock = head !== undefined && declarationEnd(blockLines, headAt) >= blockLines.length - 1;
  const declaration = () => (head ? replaceDeclaration(fileLines, blockLines, headAt, head, join) : undefined);
  const region = () => replaceRegion(fileLines, blockLines, join);
  return (spansBlock ? (declaration() ?? region()) : (region() ?? declaration())) ?? { kind: 'none' };
}

function replaceDeclaration(
  fileLines: readonly string[],
  blockLines: readonly string[],
  headAt: number,
  head: DeclarationHead,
  join: (ls: readonly string[]) => string,
): MergeResult | undefined {
  const sameKind = (h: DeclarationHead) =>
    h.name === head.name && (h.kind === head.kind || (h.kind === 'method') === (head.kind === 'method'));
  const at = fileLines.findIndex((l) => {
    const h = declarationHead(l);
    return h !== undefined && sameKind(h);
  });
  if (at < 0) return undefined;
  let start = at;
  // The block brings its own doc comment or decorators: they replace the file's.
  if (headAt > 0) while (start > 0 && isPreamble(fileLines[start - 1]) && fileLines[start - 1].trim().length > 0) start--;
  const end = declarationEnd(fileLines, at);
  const replacement = reindent(blockLines, indentOf(blockLines[headAt]), indentOf(fileLines[at]));
  return {
    kind: 'declaration',
    content: join(splice(fileLines, start, end, replacement)),
    name: head.name,
    startLine: start + 1,
    endLine: end + 1,
  };
}

/** The block's first and last lines found in the file, in order: the region between them. */
function replaceRegion(
  fileLines: readonly string[],
  blockLines: readonly string[],
  join: (ls: readonly string[]) => string,
): MergeResult | undefined {
  const first = blockLines[0].trim();
  const last = blockLines[blockLines.length - 1].trim();
  if (blockLines.length < 2 || first.length <= 2 || last.length <= 2) return undefined;
  const start = fileLines.findIndex((l) => l.trim() === first);
  if (start < 0) return undefined;
  let end = -1;
  for (let i = start + 1; i < fileLines.length; i++) {
    if (fileLines[i].trim() === last) {
      end = i;
      break;
    }
  }
  if (end <= start) return undefined;
  const replacement = reindent(blockLines, indentOf(blockLines[0]), indentOf(fileLines[start]));
  return { kind: 'region', content: join(splice(fileLines, start, end, replacement)), startLine: start + 1, endLine: end + 1 };
}

/** The block appended to the file, after one blank line. */
export function appendBlock(file: string, block: string): string {
  const eol = eolOf(file);
  const body = trimBlank(block.split(/\r?\n/)).join(eol);
  if (file.trim().length === 0) return body + eol;
  let cut = file.length;
  while (cut > 0 && (file[cut - 1] === '\n' || (file[cut - 1] === '\r' && file[cut] === '\n'))) cut--;
  const base = file.slice(0, cut);
  return `${base}${eol}${eol}${body}${eol}`;
}
