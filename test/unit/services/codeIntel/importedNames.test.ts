/**
 * "Attach File with Imports" with large modules: the names an import statement brings in (aliases,
 * namespaces, lists over several lines, `export … from`; comments and strings are not names), and,
 * with the in-memory TypeScript port, a module over `LARGE_MODULE_TOKENS` sent as the declarations
 * its importers name — a class as its outline, a called function whole, a namespace's members the
 * file uses — while small modules stay whole; under a small budget what does not fit is listed with
 * its reason, and a called function's body that does not fit is listed too; the items follow their
 * importer as ranged excerpts, and a range of a file the request carries whole becomes a reference.
 */
import * as assert from 'node:assert/strict';
import { filesWithImports, LARGE_MODULE_TOKENS, type ImportClosure } from '../../../../src/services/codeIntel/importGraph';
import { importedNames } from '../../../../src/services/codeIntel/identifiers';
import { importAttachments } from '../../../../src/services/codeIntel/contextAttachments';
import { emptyState } from '../../../../src/engine/state';
import { CodeIntelWorkspace } from '../../../../bench/codeIntelWorkspace';

const count = (t: string) => t.length;

/** Unused functions that make a module large. */
const filler = (prefix: string, n: number) =>
  Array.from({ length: n }, (_, i) => `export function ${prefix}${i}(value: number): number {\n  return value * ${i} + ${i};\n}\n`).join(
    '\n',
  );

const PROJECT: Record<string, string> = {
  'src/main.ts': [
    "import { small } from './small';",
    'import {',
    '  Store,',
    '  compute as run,',
    '  type Options,',
    "} from './big';",
    "import * as fmt from './format';",
    '// import { unused0 } from "./big";',
    '',
    'export function main(o: Options): string {',
    '  const s = new Store(o);',
    '  return fmt.label(run(s.size) + small);',
    '}',
    '',
  ].join('\n'),
  'src/small.ts': 'export const small = 1;\n',
  'src/big.ts': [
    '/** Options of a store. */',
    'export interface Options {',
    '  size: number;',
    '}',
    '',
    'export class Store {',
    '  readonly size: number;',
    '  constructor(o: Options) {',
    '    this.size = o.size;',
    '  }',
    '  clear(): void {',
    '    // nothing to clear',
    '  }',
    ...['grow', 'shrink', 'reset'].flatMap((m) => [
      `  ${m}(by: number): number {`,
      '    const before = this.size;',
      '    void by;',
      '    return before;',
      '  }',
    ]),
    '}',
    '',
    'export function compute(n: number): number {',
    '  let total = 0;',
    '  for (let i = 0; i < n; i++) {',
    '    total += i;',
    '  }',
    '  return total;',
    '}',
    '',
    filler('unused', 30),
  ].join('\n'),
  'src/format.ts': ['export function label(n: number): string {', '  return `#${n}`;', '}', '', filler('pad', 30)].join('\n'),
};

const rows = (c: ImportClosure) =>
  c.names.map((n) => [n.path, n.importedBy, n.definitions.map((d) => `${d.startLine}-${d.endLine} ${d.as} ${d.symbol}`)]);

describe('codeIntel / imported names of large modules', function () {
  this.timeout(60_000);

  it('reads the names of import statements: aliases, namespaces, several lines, export from; not comments or strings', () => {
    const text = [
      "import def, { a, b as c } from './m';",
      'import type {',
      '  T,',
      '  U as V,',
      "} from './t'",
      "import * as ns from './ns';",
      "// import { no } from './x';",
      "import './side-effect';",
      "export { e } from './e';",
      'export const f = 1;',
      "const lazy = import('./lazy');",
    ].join('\n');
    assert.deepEqual(
      importedNames(text).map(
        (n) => `${n.imported}${n.local !== n.imported ? `>${n.local}` : ''}${n.namespace ? ' ns' : ''}@${n.line}:${n.column}`,
      ),
      ['def@1:8', 'a@1:15', 'b>c@1:18', 'T@3:3', 'U>V@4:3', 'ns ns@6:13', 'e@9:10'],
    );
  });

  it('a large module goes as the declarations the file names: a class as its outline, a called function whole, a namespace’s members used', () => {
    assert.ok(count(PROJECT['src/big.ts']) > LARGE_MODULE_TOKENS && count(PROJECT['src/format.ts']) > LARGE_MODULE_TOKENS);
    const ws = new CodeIntelWorkspace(PROJECT);
    const c = filesWithImports(ws, ['src/main.ts'], { depth: 1, budgetTokens: 100_000, countTokens: count }) as ImportClosure;
    assert.deepEqual(
      c.files.map((f) => `${f.path}:${f.as}`),
      ['src/main.ts:file', 'src/small.ts:file'],
    );
    assert.deepEqual(rows(c), [
      ['src/big.ts', 'src/main.ts', ['31-37 excerpt compute', '6-29 outline Store', '2-4 excerpt Options']],
      ['src/format.ts', 'src/main.ts', ['1-3 excerpt label']],
    ]);
    const store = c.names[0].definitions[1].input;
    assert.deepEqual(
      { kind: store.kind, tool: store.tool, uri: store.uri, range: store.range },
      {
        kind: 'tool',
        tool: 'get_outline',
        uri: 'src/big.ts',
        range: { startLine: 6, endLine: 29 },
      },
    );
    assert.equal(
      store.content,
      [
        'export class Store {',
        '  L7-L7: readonly size: number;',
        '  L8-L10: constructor(o: Options) {',
        '  L11-L13: clear(): void {',
        '  L14-L18: grow(by: number): number {',
        '  L19-L23: shrink(by: number): number {',
        '  L24-L28: reset(by: number): number {',
        '[Outline of class Store, src/big.ts L6-L29: call read_file with path "src/big.ts", startLine and endLine to read a member\'s lines.]',
      ].join('\n'),
    );
    assert.deepEqual(
      c.names.map((n) => [n.moduleTokens, n.tokens]),
      [
        [count(PROJECT['src/big.ts']), c.names[0].definitions.reduce((s, d) => s + d.tokens, 0)],
        [count(PROJECT['src/format.ts']), count(PROJECT['src/format.ts'].split('\n').slice(0, 3).join('\n'))],
      ],
    );
  });

  it('under a small budget: what does not fit is listed with its reason, a called body that does not fit too', () => {
    const ws = new CodeIntelWorkspace(PROJECT);
    const main = count(PROJECT['src/main.ts']);
    const small = count(PROJECT['src/small.ts']);
    const all = filesWithImports(ws, ['src/main.ts'], { depth: 1, budgetTokens: 100_000, countTokens: count }) as ImportClosure;
    const outline = all.names[0].definitions[1].tokens;
    const signature = count('export function compute(n: number): number {');
    // Room for compute's signature and Store's outline: not for Options, compute's body or label.
    const budget = main + small + signature + outline;
    const c = filesWithImports(ws, ['src/main.ts'], { depth: 1, budgetTokens: budget, countTokens: count }) as ImportClosure;
    assert.deepEqual(rows(c), [
      ['src/big.ts', 'src/main.ts', ['31-31 signature compute', '6-29 outline Store']],
      ['src/format.ts', 'src/main.ts', []],
    ]);
    const optionsTokens = count(PROJECT['src/big.ts'].split('\n').slice(1, 4).join('\n'));
    assert.deepEqual(c.names[0].skippedForBudget, [
      {
        path: 'src/big.ts',
        startLine: 2,
        endLine: 4,
        symbol: 'Options',
        tokens: optionsTokens,
        reason: `${optionsTokens} tokens, 0 left of the ${budget}-token budget`,
      },
    ]);
    const computeTokens = count(PROJECT['src/big.ts'].split('\n').slice(30, 37).join('\n'));
    assert.deepEqual(c.names[0].bodiesLeftOut, [
      {
        path: 'src/big.ts',
        startLine: 31,
        endLine: 37,
        symbol: 'compute',
        tokens: computeTokens,
        reason: `its body: ${computeTokens - signature} more tokens, 0 left of the ${budget}-token budget`,
      },
    ]);
    const labelTokens = count(PROJECT['src/format.ts'].split('\n').slice(0, 3).join('\n'));
    assert.deepEqual(
      c.names[1].skippedForBudget.map((x) => [x.symbol, x.reason]),
      [['label', `${labelTokens} tokens, 0 left of the ${budget}-token budget`]],
    );
    assert.ok(c.files.reduce((n, f) => n + f.tokens, 0) + c.names.reduce((n, m) => n + m.tokens, 0) <= budget);
  });

  it('the items follow their importer; a range of a file the request carries whole goes as that file', () => {
    const ws = new CodeIntelWorkspace(PROJECT);
    const c = filesWithImports(ws, ['src/main.ts'], { depth: 1, budgetTokens: 100_000, countTokens: count }) as ImportClosure;
    const list = importAttachments(c, emptyState());
    assert.deepEqual(
      list.map((a) =>
        a.kind === 'file'
          ? `file ${a.path}`
          : a.kind === 'snapshot'
            ? `${a.input.tool} ${a.input.uri}:${a.input.range?.startLine}`
            : a.kind,
      ),
      [
        'file src/main.ts',
        'get_definition src/big.ts:31',
        'get_outline src/big.ts:6',
        'get_definition src/big.ts:2',
        'get_definition src/format.ts:1',
        'file src/small.ts',
      ],
    );
    // src/format.ts attached whole in the same turn: its range is not sent again.
    const withFormat = importAttachments(c, emptyState(), [{ kind: 'file', path: 'src/format.ts' }]);
    assert.equal(withFormat.filter((a) => a.kind === 'snapshot' && a.input.uri === 'src/format.ts').length, 0);
  });
});
