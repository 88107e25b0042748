/**
 * The module specifiers a JavaScript or TypeScript file names (`import … from 'x'`, `import 'x'`,
 * `export … from 'x'`, `require('x')`, `import('x')`), with where each is, so the editor's definition
 * provider can resolve them as it resolves a Go to Definition on the specifier (path aliases, index
 * files, `.js` written for `.ts`). A scanner, not a parser: comments and the insides of strings and
 * template literals are skipped, so `// import x from 'y'` names nothing. No vscode import: unit
 * tests load this file in plain Node.
 */

export interface ImportSpecifier {
  specifier: string;
  /** 1-based line and column of the specifier's first character (inside the quotes). */
  line: number;
  column: number;
}

/** Language ids (and file extensions) the scanner reads. */
const SCRIPT_LANGUAGES = new Set(['typescript', 'typescriptreact', 'javascript', 'javascriptreact']);
const SCRIPT_EXTENSION = /\.(?:[cm]?[jt]s|[jt]sx)$/i;

export function isScriptFile(languageId: string, path: string): boolean {
  return SCRIPT_LANGUAGES.has(languageId) || SCRIPT_EXTENSION.test(path);
}

/** What comes before a string that makes it a specifier: `from`, a bare `import`, `require(` / `import(`. */
const BEFORE_SPECIFIER = /(?:\bfrom|(?:^|[^.\w$])(?:import|(?:require|import)\s*\())\s*$/;

/**
 * The specifiers of `text` in source order (each occurrence; the caller de-duplicates after
 * resolving, since two spellings may name one file).
 */
export function importSpecifiers(text: string): ImportSpecifier[] {
  const out: ImportSpecifier[] = [];
  // The code before each string, with comments and strings replaced: what BEFORE_SPECIFIER looks at.
  let code = '';
  let line = 1;
  let lineStart = 0;
  const n = text.length;
  let i = 0;
  while (i < n) {
    // Only the last 40 characters are ever looked at: keeping the rest would make each look copy
    // the whole text so far (a file of many strings would cost quadratic time).
    if (code.length > 4096) code = code.slice(-40);
    const c = text[i];
    if (c === '\n') {
      line++;
      lineStart = i + 1;
      code += c;
      i++;
      continue;
    }
    if (c === '/' && text[i + 1] === '/') {
      while (i < n && text[i] !== '\n') i++;
      code += ' ';
      continue;
    }
    if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      const stop = end < 0 ? n : end + 2;
      for (let j = i; j < stop; j++)
        if (text[j] === '\n') {
          line++;
          lineStart = j + 1;
        }
      code += ' ';
      i = stop;
      continue;
    }
    if (c === "'" || c === '"') {
      let j = i + 1;
      while (j < n && text[j] !== c && text[j] !== '\n') j += text[j] === '\\' ? 2 : 1;
      const value = text.slice(i + 1, Math.min(j, n));
      if (text[j] === c && value.length > 0 && !value.includes('\\') && BEFORE_SPECIFIER.test(code.slice(-40)))
        out.push({ specifier: value, line, column: i + 1 - lineStart + 1 });
      code += ' "" ';
      i = Math.min(j + 1, n);
      continue;
    }
    if (c === '`') {
      let j = i + 1;
      while (j < n && text[j] !== '`') {
        if (text[j] === '\\') j++;
        else if (text[j] === '\n') {
          line++;
          lineStart = j + 1;
        }
        j++;
      }
      code += ' "" ';
      i = Math.min(j + 1, n);
      continue;
    }
    code += c;
    i++;
  }
  return out;
}
