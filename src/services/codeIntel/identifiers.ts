/**
 * The identifiers a piece of code uses, found by scanning its text: what the definition provider is
 * asked about for a selection. Language-neutral on purpose (the editor's providers know every
 * language and resolve each position; this scan only has to find the positions): comments and
 * string literals on a line are skipped, keywords of the common languages are not names unless they
 * are members (`filters.type`, `this.get`), and a bare name the text itself declares (`const x`,
 * `function f`, `class C`, `def g`) is left out, since its definition is the selection itself; a
 * member of the same name (`options.staleTime` beside `const staleTime`) is still a use.
 */

const KEYWORDS = new Set(
  (
    'abstract and any as assert async await bigint boolean break case catch char class const constructor continue ' +
    'debugger declare def default del delete do double elif else enum except export extends false final finally float fn ' +
    'for from func function get global go if impl implements import in infer instanceof int interface is keyof lambda let ' +
    'long match mod module mut namespace never new nil none None not null number object of or override package pass ' +
    'private protected pub public raise readonly require return satisfies self set short static string struct super ' +
    'switch symbol this throw throws trait true True False try type typeof undefined unknown use var void where while ' +
    'with yield'
  ).split(' '),
);

/** Names the text declares: what follows a declaring keyword. */
const DECLARES = /\b(?:const|let|var|function\*?|class|interface|type|enum|def|fn|func|struct|trait|namespace)\s+([A-Za-z_$][\w$]*)/g;

export interface IdentifierUse {
  name: string;
  /** 1-based line in the file and column of its first use. */
  line: number;
  column: number;
}

/** One occurrence of a name in the text, with what it is a member of. */
export interface IdentifierOccurrence extends IdentifierUse {
  /** The receiver the name is a member of, as written on its line (`this`, `this.#client.getQueryCache()`, `options`); `''` for a bare name; `'.'` when the chain starts on an earlier line. */
  receiver: string;
  /** Followed by `(` (or `<…>(`): the selection calls it. */
  called: boolean;
}

/** Blanks out string literals and comments on one line (kept the same length, so columns stay right). */
function codeOnly(line: string, inBlockComment: { open: boolean }): string {
  let out = '';
  let i = 0;
  while (i < line.length) {
    if (inBlockComment.open) {
      const end = line.indexOf('*/', i);
      if (end < 0) return out + ' '.repeat(line.length - i);
      out += ' '.repeat(end + 2 - i);
      i = end + 2;
      inBlockComment.open = false;
      continue;
    }
    const c = line[i];
    if (c === '/' && line[i + 1] === '/') return out + ' '.repeat(line.length - i);
    if (c === '#' && (i === 0 || /\s/.test(line[i - 1])) && !/^#(?:include|define|if|endif|region|endregion)/.test(line.slice(i)))
      return out + ' '.repeat(line.length - i);
    if (c === '/' && line[i + 1] === '*') {
      inBlockComment.open = true;
      out += '  ';
      i += 2;
      continue;
    }
    if (c === '`') {
      // A template literal's text is blanked; its `${…}` substitutions are code (on the same line).
      let j = i + 1;
      out += ' ';
      while (j < line.length && line[j] !== '`') {
        if (line[j] === '\\') {
          out += '  ';
          j += 2;
          continue;
        }
        if (line[j] === '$' && line[j + 1] === '{') {
          out += '  ';
          j += 2;
          let depth = 1;
          while (j < line.length && depth > 0) {
            if (line[j] === '{') depth++;
            else if (line[j] === '}') depth--;
            out += depth === 0 ? ' ' : line[j];
            j++;
          }
          continue;
        }
        out += ' ';
        j++;
      }
      if (j < line.length) out += ' ';
      i = Math.min(j + 1, line.length);
      out = out.slice(0, i);
      continue;
    }
    if (c === '"' || c === "'") {
      let j = i + 1;
      while (j < line.length && line[j] !== c) j += line[j] === '\\' ? 2 : 1;
      const end = Math.min(j + 1, line.length);
      out += ' '.repeat(end - i);
      i = end;
      continue;
    }
    out += c;
    i++;
  }
  return out;
}

/**
 * The identifiers `text` uses (its first line is line `firstLine` of the file), each once at its
 * first use, in order of first use; keywords and the names `text` declares left out.
 */
export function identifierUses(text: string, firstLine: number): IdentifierUse[] {
  const lines = text.split(/\r\n|\r|\n/);
  const block = { open: false };
  const code = lines.map((l) => codeOnly(l, block));
  const declared = new Set<string>();
  for (const l of code) for (const m of l.matchAll(DECLARES)) declared.add(m[1]);
  const seen = new Set<string>();
  const out: IdentifierUse[] = [];
  code.forEach((l, i) => {
    for (const m of l.matchAll(/[A-Za-z_$][\w$]*/g)) {
      const name = m[0];
      const at = m.index ?? 0;
      // A number's suffix (`10n`, `0x1f`) is not a name.
      if (at > 0 && /[0-9]/.test(l[at - 1])) continue;
      if (seen.has(name) || declared.has(name) || KEYWORDS.has(name) || name === '$' || name === '_') continue;
      seen.add(name);
      out.push({ name, line: firstLine + i, column: at + 1 });
    }
  });
  return out;
}

const IDENT = /[\w$]/;
/** The longest receiver kept as a key; a longer chain is cut from the left. */
const RECEIVER_CHARS = 120;

/** The member chain before `at` (`this.#client.getQueryCache()` before `.build`), scanning back over names, dots and balanced parentheses. */
function receiverBefore(l: string, at: number): string {
  let i = at - 1;
  while (i >= 0 && l[i] === ' ') i--;
  // `...x` spreads a bare name.
  if (i < 0 || l[i] !== '.' || l[i - 1] === '.') return '';
  let end = i;
  if (i > 0 && l[i - 1] === '?') end = i - 1;
  let j = end - 1;
  let depth = 0;
  while (j >= 0 && end - j < RECEIVER_CHARS) {
    const c = l[j];
    if (c === ')' || c === ']') depth++;
    else if (c === '(' || c === '[') {
      if (depth === 0) break;
      depth--;
    } else if (depth === 0 && !(IDENT.test(c) || c === '.' || c === '#' || c === '?' || c === '!')) break;
    j--;
  }
  const chain = l.slice(j + 1, end).trim();
  return chain.length > 0 ? chain : '.';
}

/** Whether the name ending at `end` is called: `(` next, or a type argument list and then `(`. */
function calledAfter(l: string, end: number): boolean {
  let i = end;
  while (i < l.length && l[i] === ' ') i++;
  if (l[i] === '(') return true;
  if (l[i] !== '<') return false;
  let depth = 0;
  for (; i < l.length; i++) {
    if (l[i] === '<') depth++;
    else if (l[i] === '>' && l[i - 1] !== '=' && --depth === 0) return l[i + 1] === '(';
  }
  return false;
}

/** A name followed by `:` at the start of a line or after `{` / `,`: an object literal's key (its own declaration), not a use. */
function isObjectKey(l: string, at: number, end: number): boolean {
  let i = end;
  while (i < l.length && l[i] === ' ') i++;
  if (l[i] !== ':' || l[i + 1] === ':') return false;
  let j = at - 1;
  while (j >= 0 && l[j] === ' ') j--;
  return j < 0 || l[j] === '{' || l[j] === ',';
}

/**
 * Every position the definition provider is asked about: each name `text` uses, at every
 * occurrence, in order (its first line is line `firstLine` of the file). Keywords are left out
 * unless they are members; bare names `text` declares, their declarations and object keys are left
 * out. Repeats are left to the caller, which knows what an answer resolved to.
 */
export function identifierOccurrences(text: string, firstLine: number): IdentifierOccurrence[] {
  const lines = text.split(/\r\n|\r|\n/);
  const block = { open: false };
  const code = lines.map((l) => codeOnly(l, block));
  const declared = new Set<string>();
  for (const l of code) for (const m of l.matchAll(DECLARES)) declared.add(m[1]);
  const out: IdentifierOccurrence[] = [];
  code.forEach((l, i) => {
    for (const m of l.matchAll(/[A-Za-z_$][\w$]*/g)) {
      const name = m[0];
      const at = m.index ?? 0;
      if (at > 0 && /[0-9]/.test(l[at - 1])) continue;
      if (name === '$' || name === '_') continue;
      // `#name` is a private member of `this` (or of what precedes it).
      const start = at > 0 && l[at - 1] === '#' ? at - 1 : at;
      const receiver = receiverBefore(l, start);
      if (receiver === '' && (KEYWORDS.has(name) || declared.has(name) || isObjectKey(l, start, at + name.length))) continue;
      out.push({ name, line: firstLine + i, column: at + 1, receiver, called: calledAfter(l, at + name.length) });
    }
  });
  return out;
}

/** The 1-based column of `symbol` as a whole word on `lineText`, or undefined. */
export function columnOf(lineText: string, symbol: string): number | undefined {
  const esc = symbol.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const m = new RegExp(`(?<![\\w$])${esc}(?![\\w$])`).exec(lineText);
  return m ? m.index + 1 : undefined;
}

/** A name an `import` (or `export … from`) statement brings in. */
export interface ImportedName {
  /** The name in the module (`a` of `a as b`); for a namespace import, the local name. */
  imported: string;
  /** The name in the importing file (`b` of `a as b`). */
  local: string;
  /** `import * as ns`: its members are what the file uses as `ns.x`. */
  namespace: boolean;
  /** 1-based position of `imported` (where the definition provider resolves it to the module's declaration). */
  line: number;
  column: number;
}

/** An import statement is read over at most this many lines (a list of names, one a line). */
const IMPORT_STATEMENT_LINES = 400;
/** Statements that bring names in from another module: `import …`, `export {…} from`, `export type {…} from`. */
const IMPORT_START = /^\s*(?:import(?:\s+[\w${*]|\s*[{*])|export\s+(?:type\s+)?\{)/;

/**
 * The names `text`'s import statements bring in, in source order, with where each is written.
 * A statement runs from its `import` to the first line where its braces are closed (semicolons
 * optional); comments and strings are skipped, so the module's specifier is never a name. Linear in
 * the text's length.
 */
export function importedNames(text: string): ImportedName[] {
  const lines = text.split(/\r\n|\r|\n/);
  const block = { open: false };
  const code = lines.map((l) => codeOnly(l, block));
  const out: ImportedName[] = [];
  for (let i = 0; i < code.length; i++) {
    if (!IMPORT_START.test(code[i])) continue;
    let depth = 0;
    /** The previous word (`as` after `*`: a namespace; `as` after a name: that name is imported, the next is local). */
    let prev: { name: string; line: number; column: number } | undefined;
    let afterAs: 'namespace' | 'alias' | undefined;
    const last = Math.min(code.length - 1, i + IMPORT_STATEMENT_LINES - 1);
    let j = i;
    for (; j <= last; j++) {
      const l = code[j];
      for (const m of l.matchAll(/[A-Za-z_$][\w$]*|[{}*]/g)) {
        const tok = m[0];
        const column = (m.index ?? 0) + 1;
        if (tok === '{') depth++;
        else if (tok === '}') depth--;
        if (tok === '{' || tok === '}') continue;
        if (tok === '*') {
          prev = { name: '*', line: j + 1, column };
          continue;
        }
        if (tok === 'as') {
          afterAs = prev?.name === '*' ? 'namespace' : 'alias';
          continue;
        }
        if (afterAs === 'namespace') out.push({ imported: tok, local: tok, namespace: true, line: j + 1, column });
        else if (afterAs === 'alias' && prev && out.length > 0 && out[out.length - 1].imported === prev.name)
          out[out.length - 1].local = tok;
        else if (!['import', 'export', 'type', 'typeof', 'from'].includes(tok))
          out.push({ imported: tok, local: tok, namespace: false, line: j + 1, column });
        afterAs = undefined;
        prev = { name: tok, line: j + 1, column };
      }
      if (depth <= 0) break;
    }
    i = j;
  }
  return out;
}
