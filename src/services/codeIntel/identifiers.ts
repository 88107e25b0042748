/**
 * The identifiers a piece of code uses, found by scanning its text: what the definition provider is
 * asked about for a selection. Language-neutral on purpose (the editor's providers know every
 * language; this scan only has to find the names): comments and string literals on a line are
 * skipped, keywords of the common languages are not names, and the names the text itself declares
 * (`const x`, `function f`, `class C`, `def g`) are left out, since their definitions are the
 * selection itself.
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
    if (c === '"' || c === "'" || c === '`') {
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

/** The 1-based column of `symbol` as a whole word on `lineText`, or undefined. */
export function columnOf(lineText: string, symbol: string): number | undefined {
  const esc = symbol.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const m = new RegExp(`(?<![\\w$])${esc}(?![\\w$])`).exec(lineText);
  return m ? m.index + 1 : undefined;
}
