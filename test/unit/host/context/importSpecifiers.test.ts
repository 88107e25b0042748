/**
 * The module specifiers "Attach File with Imports" asks the editor to resolve: every import form,
 * with the position of the specifier's first character, and nothing from comments or strings.
 */
import * as assert from 'node:assert/strict';
import { importSpecifiers, isScriptFile } from '../../../../src/host/context/importSpecifiers';

describe('import specifiers of a script file', () => {
  it('finds every import form with its 1-based position', () => {
    const text = [
      "import { a } from './a';",
      "import type { B } from '@alias/b';",
      "import './side-effect';",
      'export * from "./reexport";',
      'export { c } from "./c.js";',
      "const d = require('./d');",
      "const e = await import('./e');",
      "import f = require('./f');",
    ].join('\n');
    assert.deepEqual(importSpecifiers(text), [
      { specifier: './a', line: 1, column: 20 },
      { specifier: '@alias/b', line: 2, column: 25 },
      { specifier: './side-effect', line: 3, column: 9 },
      { specifier: './reexport', line: 4, column: 16 },
      { specifier: './c.js', line: 5, column: 20 },
      { specifier: './d', line: 6, column: 20 },
      { specifier: './e', line: 7, column: 25 },
      { specifier: './f', line: 8, column: 21 },
    ]);
  });

  it('skips comments, strings and template literals, and counts their lines', () => {
    const text = [
      "// import x from './commented';",
      "/* export * from './block';",
      "   import './still-comment'; */",
      'const s = "import y from \'./in-string\'";',
      'const t = `',
      "import z from './in-template';`;",
      "obj.import('./not-dynamic-import');",
      "import { g } from './g';",
    ].join('\n');
    assert.deepEqual(importSpecifiers(text), [{ specifier: './g', line: 8, column: 20 }]);
  });

  it('reads CRLF files and multi-line imports', () => {
    const text = "import {\r\n  a,\r\n  b,\r\n} from './ab';\r\n";
    assert.deepEqual(importSpecifiers(text), [{ specifier: './ab', line: 4, column: 9 }]);
  });

  it('knows script files by language id or extension', () => {
    assert.equal(isScriptFile('typescript', 'x.weird'), true);
    assert.equal(isScriptFile('plaintext', 'src/a.mts'), true);
    assert.equal(isScriptFile('javascriptreact', 'a.jsx'), true);
    assert.equal(isScriptFile('python', 'a.py'), false);
  });
});
