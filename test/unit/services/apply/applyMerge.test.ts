/** Merging a reply's code block into a file (src/services/apply/applyMerge.ts). */
import * as assert from 'node:assert/strict';
import { appendBlock, codeOf, declarationEnd, declarationHead, isWholeFile, mergeBlock } from '../../../../src/services/apply/applyMerge';

const FILE = [
  "import { round } from './round';",
  '',
  '/** Adds. */',
  'export function add(a: number, b: number): number {',
  '  return a + b;',
  '}',
  '',
  'export class Cart {',
  '  private items: number[] = [];',
  '',
  '  total(): number {',
  '    let sum = 0;',
  '    for (const i of this.items) {',
  '      sum += i;',
  '    }',
  '    return round(sum);',
  '  }',
  '}',
  '',
  'export const RATE = 0.2;',
  '',
].join('\n');

describe('apply: merge', () => {
  it('recognises declaration heads', () => {
    assert.deepEqual(declarationHead('export async function load(x) {'), { kind: 'function', name: 'load' });
    assert.deepEqual(declarationHead('export default class Cart extends Base {'), { kind: 'class', name: 'Cart' });
    assert.deepEqual(declarationHead('export const RATE = 0.2;'), { kind: 'const', name: 'RATE' });
    assert.deepEqual(declarationHead('export interface Item {'), { kind: 'interface', name: 'Item' });
    assert.deepEqual(declarationHead('  private async total(): Promise<number> {'), { kind: 'method', name: 'total' });
    assert.deepEqual(declarationHead('def area(r):'), { kind: 'function', name: 'area' });
    assert.deepEqual(declarationHead('pub fn parse(s: &str) -> u32 {'), { kind: 'function', name: 'parse' });
    assert.deepEqual(declarationHead('func (s *Server) Start() error {'), { kind: 'function', name: 'Start' });
    assert.equal(declarationHead('  if (x) {'), undefined);
    assert.equal(declarationHead('  foo(bar);'), undefined);
  });

  it('finds where a declaration ends', () => {
    const lines = FILE.split('\n');
    assert.equal(declarationEnd(lines, 3), 5);
    assert.equal(declarationEnd(lines, 7), 17);
    assert.equal(declarationEnd(lines, 10), 16);
    assert.equal(declarationEnd(lines, 19), 19);
    const py = ['def f(x):', '    y = x', '', '    return y', '', 'def g():', '    pass'];
    assert.equal(declarationEnd(py, 0), 3);
  });

  it('replaces the whole file when the block is the whole file', () => {
    const block = FILE.replace('return a + b;', 'return b + a;').trimEnd();
    const r = mergeBlock(FILE, block);
    assert.equal(r.kind, 'whole');
    assert.equal(r.kind === 'whole' && r.content, `${block}\n`);
    assert.ok(isWholeFile(FILE.split('\n'), block.split('\n')));
    assert.equal(mergeBlock('', 'x = 1').kind, 'whole');
  });

  it('a whole-file block without imports keeps the file’s imports (multi-line ones whole)', () => {
    const file = [
      '// Invoice totals.',
      "import { round } from './money';",
      'import {',
      '  taxFor,',
      '  type Region,',
      "} from './tax';",
      '',
      'export function add(a: number, b: number): number {',
      '  return round(a + b);',
      '}',
      '',
      'export function total(xs: number[], r: Region): number {',
      '  return xs.reduce(add, 0) + taxFor(0, r);',
      '}',
      '',
    ].join('\n');
    // Every declaration, changed, and no import: the model left the top out.
    const block = [
      'export function add(a: number, b: number): number {',
      '  return round(b + a);',
      '}',
      '',
      'export function total(xs: number[], r: Region): number {',
      '  return xs.reduce(add, 0) + taxFor(1, r);',
      '}',
    ].join('\n');
    const r = mergeBlock(file, block);
    assert.equal(r.kind, 'whole');
    assert.equal(r.kind === 'whole' && r.content, `${file.split('\n').slice(0, 6).join('\n')}\n\n${block}\n`);
    // A block with imports of its own replaces the file's.
    const own = `import { round } from './money';\n\n${block}`;
    const r2 = mergeBlock(file, own);
    assert.equal(r2.kind === 'whole' && r2.content, `${own}\n`);
    // Other languages' imports: Python, Go's parenthesized block, Rust.
    const py = mergeBlock(
      'import os\nfrom a import (\n    b,\n)\n\ndef f():\n    return 1\n\ndef g():\n    return 2\n',
      'def f():\n    return 3\n\ndef g():\n    return 4',
    );
    assert.equal(
      py.kind === 'whole' && py.content,
      'import os\nfrom a import (\n    b,\n)\n\ndef f():\n    return 3\n\ndef g():\n    return 4\n',
    );
    const go = mergeBlock(
      'package main\n\nimport (\n\t"fmt"\n)\n\nfunc a() {\n}\n\nfunc b() {\n}\n',
      'func a() {\n\tfmt.Println(1)\n}\n\nfunc b() {\n}',
    );
    assert.equal(
      go.kind === 'whole' && go.content,
      'package main\n\nimport (\n\t"fmt"\n)\n\nfunc a() {\n\tfmt.Println(1)\n}\n\nfunc b() {\n}\n',
    );
    const rs = mergeBlock('use std::io;\n\nfn a() {}\n\nfn b() {}\n', 'fn a() { x() }\n\nfn b() {}');
    assert.equal(rs.kind === 'whole' && rs.content, 'use std::io;\n\nfn a() { x() }\n\nfn b() {}\n');
  });

  it('replaces the declaration the block redefines, keeping the rest byte for byte', () => {
    const r = mergeBlock(FILE, 'export function add(a: number, b: number): number {\n  return round(a + b);\n}');
    assert.equal(r.kind, 'declaration');
    if (r.kind !== 'declaration') return;
    assert.equal(r.name, 'add');
    assert.deepEqual([r.startLine, r.endLine], [4, 6]);
    assert.equal(r.content, FILE.replace('  return a + b;', '  return round(a + b);'));
  });

  it('replaces a method, re-indented to the class', () => {
    const r = mergeBlock(FILE, 'total(): number {\n  return round(this.items.reduce((a, b) => a + b, 0));\n}');
    assert.equal(r.kind, 'declaration');
    if (r.kind !== 'declaration') return;
    const expected = FILE.split('\n');
    expected.splice(10, 7, '  total(): number {', '    return round(this.items.reduce((a, b) => a + b, 0));', '  }');
    assert.equal(r.content, expected.join('\n'));
  });

  it("replaces the file's doc comment when the block brings one", () => {
    const r = mergeBlock(FILE, '/** Adds two numbers. */\nexport function add(a: number, b: number): number {\n  return a + b;\n}');
    assert.equal(r.kind, 'declaration');
    assert.equal(r.kind === 'declaration' && r.content, FILE.replace('/** Adds. */', '/** Adds two numbers. */'));
  });

  it('replaces a const', () => {
    const r = mergeBlock(FILE, 'export const RATE = 0.25;');
    assert.equal(r.kind === 'declaration' && r.content, FILE.replace('0.2;', '0.25;'));
  });

  it('replaces a matched region when the block is no declaration', () => {
    const r = mergeBlock(FILE, 'let sum = 0;\nfor (const i of this.items) sum += i;\nreturn round(sum);');
    assert.equal(r.kind, 'region');
    if (r.kind !== 'region') return;
    assert.deepEqual([r.startLine, r.endLine], [12, 16]);
    assert.ok(r.content.includes('    let sum = 0;\n    for (const i of this.items) sum += i;\n    return round(sum);\n  }'));
  });

  it('reports no match, and appends on request', () => {
    assert.deepEqual(mergeBlock(FILE, 'export function divide(a: number, b: number) {\n  return a / b;\n}'), { kind: 'none' });
    assert.equal(appendBlock('a\n', 'b\n'), 'a\n\nb\n');
    assert.equal(appendBlock('', 'b'), 'b\n');
  });

  it("keeps the file's CRLF line endings", () => {
    const crlf = FILE.split('\n').join('\r\n');
    const r = mergeBlock(crlf, 'export const RATE = 0.3;');
    assert.equal(r.kind === 'declaration' && r.content, crlf.replace('0.2;', '0.3;'));
  });

  it('replaces a Python function by its indented body', () => {
    const py = 'import math\n\ndef area(r):\n    return math.pi * r * r\n\n\ndef other():\n    pass\n';
    const r = mergeBlock(py, 'def area(r):\n    """Area of a circle."""\n    return math.pi * r ** 2');
    assert.equal(
      r.kind === 'declaration' && r.content,
      py.replace('    return math.pi * r * r', '    """Area of a circle."""\n    return math.pi * r ** 2'),
    );
  });

  describe('hostile lines cost linear time (issue: one click on Apply froze the extension host)', () => {
    const cpuMs = (fn: () => void): number => {
      const before = process.cpuUsage();
      fn();
      const used = process.cpuUsage(before);
      return (used.user + used.system) / 1000;
    };

    it('an unclosed quote with 26 backslash pairs: the bracket scan ends in milliseconds, brackets in strings ignored', () => {
      // 2^26 steps for a pattern whose alternatives overlap on a backslash: seconds of a blocked host.
      const hostile = `  const p = "C:${'\\x'.repeat(26)};`;
      const lines = ['function f() {', hostile, '  return "}";', '}', 'const after = 1;'];
      let end = -1;
      const ms = cpuMs(() => (end = declarationEnd(lines, 0)));
      assert.equal(end, 3);
      assert.ok(ms < 200, `${ms.toFixed(1)} ms`);
    });

    it('the whole merge of a block holding that line stays under 200 ms', () => {
      const hostile = `  const p = "${'\\x'.repeat(30)}`;
      const file = 'function f() {\n  return 1;\n}\n\nfunction g() {\n  return 2;\n}\n';
      let kind = '';
      const ms = cpuMs(() => (kind = mergeBlock(file, `function f() {\n${hostile}\n  return 3;\n}`).kind));
      assert.equal(kind, 'declaration');
      assert.ok(ms < 200, `${ms.toFixed(1)} ms`);
    });

    it('a 100 KB line of spaces after const is no import line and costs milliseconds', () => {
      const line = `const${' '.repeat(100_000)}x`;
      let kind = '';
      const file = 'function f() {\n  return 1;\n}\n\nfunction g() {\n  return 2;\n}\n';
      const ms = cpuMs(() => (kind = mergeBlock(file, `${line}\nfunction f() {\n  return 3;\n}\n\nfunction g() {\n  return 4;\n}`).kind));
      assert.equal(kind, 'whole');
      assert.ok(ms < 200, `${ms.toFixed(1)} ms`);
    });

    it('a 100 KB method-like line is no declaration head and costs milliseconds', () => {
      const line = `m(${'):'.repeat(50_000)} {`;
      let head: unknown = 'unset';
      const ms = cpuMs(() => (head = declarationHead(line)));
      assert.equal(head, undefined);
      assert.ok(ms < 100, `${ms.toFixed(1)} ms`);
      // Ordinary heads still read as before.
      assert.deepEqual(declarationHead('  async *load<T>(a: (x) => T, b = {}): Promise<T> {'), { kind: 'method', name: 'load' });
      assert.deepEqual(declarationHead('get size(): number {'), { kind: 'method', name: 'size' });
      assert.equal(declarationHead('if (a) {'), undefined);
      assert.equal(declarationHead('foo(a); {'), undefined);
      assert.equal(declarationHead('m(a): T = x {'), undefined);
    });

    it('strings, comments and escapes are read as code would read them', () => {
      assert.equal(codeOf(`a("}", '{', \`)\`) // }`, false), 'a("", "", "") ');
      assert.equal(codeOf('x = "a\\"b" + 1 # c', true), 'x = "" + 1 ');
      assert.equal(codeOf('x = "unclosed {', false), 'x = "unclosed {');
    });

    it('a file ending in 100,000 line breaks is appended to in milliseconds', () => {
      let out = '';
      const ms = cpuMs(() => (out = appendBlock(`a${'\r\n'.repeat(100_000)}`, 'b')));
      assert.equal(out, 'a\r\n\r\nb\r\n');
      assert.ok(ms < 100, `${ms.toFixed(1)} ms`);
    });
  });
});
