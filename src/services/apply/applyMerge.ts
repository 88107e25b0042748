/**
 * Merging a code block of a reply into a file, as a proposal the user reviews in a diff:
 * - the block is the whole file (it holds most of the file's lines, or every declaration the file
 *   has): it replaces the file;
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
  // A method: `name(…) {`, `get name() {`, `async *name<T>(…): T {` (not a call or a control statement).
  [
    'method',
    new RegExp(
      String.raw`^${MODIFIERS}(?:get\s+|set\s+)?\*?\s*(?!(?:if|for|while|switch|catch|return|function|new|await|typeof|else|do)\b)([A-Za-z_$][\w$]*)\s*(?:<[^>]*>)?\s*\([^;]*\)\s*(?::[^={;]+)?\s*\{\s*$`,
    ),
  ],
];

/** The declaration a line starts, if any. */
export function declarationHead(line: string): DeclarationHead | undefined {
  const t = line.trim();
  for (const [kind, re] of HEADS) {
    const m = re.exec(t);
    if (m) return { kind, name: m[1] };
  }
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
  const strip = (l: string) => l.replace(/(["'`])(?:\\.|(?!\1).)*\1/g, '""').replace(/\/\/.*$/, '');
  if (/:\s*$/.test(strip(lines[start]).replace(/#.*$/, ''))) return indentedBodyEnd(lines, start);
  let depth = 0;
  let opened = false;
  for (let i = start; i < lines.length; i++) {
    const code = strip(lines[i]);
    for (const ch of code) {
      if (ch === '{' || ch === '(' || ch === '[') {
        depth++;
        opened = true;
      } else if (ch === '}' || ch === ')' || ch === ']') depth--;
    }
    if (depth > 0) continue;
    const continues = /(?:[=,+\-*/&|?:.]|=>)\s*$/.test(code.trim()) || /^\s*[.?:]/.test(lines[i + 1] ?? '');
    if (!continues || (opened && /[}\])]\s*;?\s*$/.test(code) && !/^\s*[.?:]/.test(lines[i + 1] ?? ''))) return i;
  }
  return lines.length - 1;
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
  if (file.trim().length === 0 || isWholeFile(fileLines, blockLines)) return { kind: 'whole', content: join(blockLines) };

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
  const base = file.replace(/(\r?\n)*$/, '');
  return `${base}${eol}${eol}${body}${eol}`;
}
