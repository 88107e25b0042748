/**
 * The outline renderer: one line per symbol (`kind name detail  Lstart-Lend`), two spaces per level,
 * the read_file hint last; signatures and types follow the name as in the source; long details are
 * cut; the same symbols give the same bytes. And the enclosing symbol of a line.
 */
import * as assert from 'node:assert/strict';
import { enclosingSymbol, OUTLINE_DETAIL_CHARS, renderOutline } from '../../../../src/services/codeIntel/outline';
import type { CodeSymbol } from '../../../../src/services/codeIntel/codeIntelPort';

const SYMBOLS: CodeSymbol[] = [
  {
    name: 'Point',
    kind: 'interface',
    startLine: 2,
    endLine: 5,
    nameLine: 2,
    children: [
      { name: 'x', kind: 'property', startLine: 3, endLine: 3, nameLine: 3, detail: ': number' },
      { name: 'y', kind: 'property', startLine: 4, endLine: 4, nameLine: 4, detail: ': number' },
    ],
  },
  { name: 'add', kind: 'function', startLine: 7, endLine: 9, nameLine: 7, detail: '(a: number, b: number): number' },
  {
    name: 'Calc',
    kind: 'class',
    startLine: 11,
    endLine: 20,
    nameLine: 11,
    detail: 'extends Base',
    children: [{ name: 'plus', kind: 'method', startLine: 13, endLine: 16, nameLine: 13, detail: '(n: number): this' }],
  },
];

describe('codeIntel / renderOutline', () => {
  it('renders kinds, names, details and line ranges, nested, then the read_file hint', () => {
    assert.equal(
      renderOutline('src/b.ts', SYMBOLS),
      [
        'interface Point  L2-L5',
        '  property x: number  L3-L3',
        '  property y: number  L4-L4',
        'function add(a: number, b: number): number  L7-L9',
        'class Calc extends Base  L11-L20',
        '  method plus(n: number): this  L13-L16',
        '[Outline of src/b.ts: call read_file with path "src/b.ts", startLine and endLine to read a symbol\'s lines.]',
      ].join('\n'),
    );
  });

  it('is deterministic and cuts a long detail to one line', () => {
    const long: CodeSymbol[] = [
      { name: 'f', kind: 'function', startLine: 1, endLine: 1, nameLine: 1, detail: `(a:\n  ${'x'.repeat(300)})` },
    ];
    const a = renderOutline('a.ts', long);
    assert.equal(a, renderOutline('a.ts', structuredClone(long)));
    const first = a.split('\n')[0];
    assert.ok(!first.includes('\n'));
    assert.ok(first.includes('…'));
    assert.equal(first.length, 'function f'.length + OUTLINE_DETAIL_CHARS + '  L1-L1'.length);
  });

  it('an empty outline is the hint alone', () => {
    assert.equal(
      renderOutline('x.md', []),
      '[Outline of x.md: call read_file with path "x.md", startLine and endLine to read a symbol\'s lines.]',
    );
  });

  it('enclosingSymbol: the smallest symbol holding a line; the class only when nothing smaller does', () => {
    assert.equal(enclosingSymbol(SYMBOLS, 14)?.name, 'plus');
    assert.equal(enclosingSymbol(SYMBOLS, 18)?.name, 'Calc');
    assert.equal(enclosingSymbol(SYMBOLS, 3)?.name, 'x');
    assert.equal(enclosingSymbol(SYMBOLS, 6), undefined);
  });
});
