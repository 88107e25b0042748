/**
 * Breadth-first imports within a depth and a token budget: the named files first in the order
 * given, each file once, a file too large for what is left goes in as its outline (or is skipped
 * when that does not fit either, its imports still followed), refused files are reported and not
 * followed; the same answer synchronously and through promises.
 */
import * as assert from 'node:assert/strict';
import { filesWithImports, type ImportClosure } from '../../../../src/services/codeIntel/importGraph';
import { renderOutline } from '../../../../src/services/codeIntel/outline';
import type { CodeSymbol } from '../../../../src/services/codeIntel/codeIntelPort';
import { asyncPort, FakeIntel } from './fakeIntel';

const D_OUTLINE: CodeSymbol[] = [{ name: 'big', kind: 'function', startLine: 1, endLine: 1, nameLine: 1, detail: '(): void' }];
const files = {
  'a.ts': 'A'.repeat(100),
  'b.ts': 'B'.repeat(50),
  'c.ts': 'C'.repeat(60),
  'd.ts': 'D'.repeat(400),
  'e.ts': 'E'.repeat(30),
  'f.ts': 'F'.repeat(10),
  'z.ts': 'Z'.repeat(20),
  'id_rsa.ts': 'secret',
};
const answers = {
  imports: {
    'a.ts': ['b.ts', 'c.ts'],
    'b.ts': ['d.ts'],
    'c.ts': ['b.ts', 'e.ts'],
    'e.ts': ['f.ts'],
    'z.ts': ['a.ts'],
    'id_rsa.ts': ['f.ts'],
  },
  outlines: { 'd.ts': D_OUTLINE },
};
const count = (t: string) => t.length;
const summary = (c: ImportClosure) => c.files.map((f) => `${f.path}@${f.depth}:${f.as}:${f.tokens}`);

describe('codeIntel / filesWithImports', () => {
  const outlineTokens = renderOutline('d.ts', D_OUTLINE).length;

  it('breadth first, named files first in their order, each file once, down to the depth', () => {
    const port = new FakeIntel(files, answers);
    const c = filesWithImports(port, ['a.ts', 'z.ts'], { depth: 2, budgetTokens: 10_000, countTokens: count }) as ImportClosure;
    assert.deepEqual(summary(c), [
      'a.ts@0:file:100',
      'z.ts@0:file:20',
      'b.ts@1:file:50',
      'c.ts@1:file:60',
      'd.ts@2:file:400',
      'e.ts@2:file:30',
    ]);
    // f.ts is three levels down: not read, and the depth-2 files' imports are not even asked.
    assert.ok(!port.calls.includes('imports d.ts') && !port.calls.includes('imports e.ts'));
    assert.deepEqual(c.rejections, []);
    assert.deepEqual(c.skipped, []);
  });

  it('a file larger than what is left goes in as its outline; smaller files after it still fit', () => {
    const budget = 100 + 20 + 50 + 60 + outlineTokens + 30;
    const c = filesWithImports(new FakeIntel(files, answers), ['a.ts', 'z.ts'], {
      depth: 2,
      budgetTokens: budget,
      countTokens: count,
    }) as ImportClosure;
    assert.deepEqual(summary(c), [
      'a.ts@0:file:100',
      'z.ts@0:file:20',
      'b.ts@1:file:50',
      'c.ts@1:file:60',
      `d.ts@2:outline:${outlineTokens}`,
      'e.ts@2:file:30',
    ]);
    const d = c.files[4].input;
    assert.deepEqual({ kind: d.kind, tool: d.tool, uri: d.uri }, { kind: 'tool', tool: 'get_outline', uri: 'd.ts' });
    assert.equal(d.content, renderOutline('d.ts', D_OUTLINE));
  });

  it('what fits neither whole nor as an outline is skipped, and the budget is never passed', () => {
    const budget = 100 + 20 + 50 + 60 + 30;
    const c = filesWithImports(new FakeIntel(files, answers), ['a.ts', 'z.ts'], {
      depth: 2,
      budgetTokens: budget,
      countTokens: count,
    }) as ImportClosure;
    assert.deepEqual(summary(c), ['a.ts@0:file:100', 'z.ts@0:file:20', 'b.ts@1:file:50', 'c.ts@1:file:60', 'e.ts@2:file:30']);
    assert.deepEqual(c.skipped, [{ path: 'd.ts', depth: 2, tokens: 400 }]);
    assert.ok(c.files.reduce((n, f) => n + f.tokens, 0) <= budget);
  });

  it('the named files come first even when the budget runs out on them', () => {
    const c = filesWithImports(new FakeIntel(files, answers), ['z.ts', 'a.ts'], {
      depth: 1,
      budgetTokens: 125,
      countTokens: count,
    }) as ImportClosure;
    assert.deepEqual(summary(c), ['z.ts@0:file:20', 'a.ts@0:file:100']);
    assert.deepEqual(
      c.skipped.map((s) => s.path),
      ['b.ts', 'c.ts'],
    );
  });

  it('depth 0: the named files alone', () => {
    const port = new FakeIntel(files, answers);
    const c = filesWithImports(port, ['a.ts'], { depth: 0, budgetTokens: 10_000, countTokens: count }) as ImportClosure;
    assert.deepEqual(summary(c), ['a.ts@0:file:100']);
    assert.ok(!port.calls.some((x) => x.startsWith('imports')));
  });

  it('an excluded file is refused with its reason and its imports are not followed', () => {
    const port = new FakeIntel(files, answers);
    const c = filesWithImports(port, ['id_rsa.ts', 'z.ts'], { depth: 3, budgetTokens: 10_000, countTokens: count }) as ImportClosure;
    assert.deepEqual(
      c.rejections.map((r) => [r.attachment, r.reason]),
      [['id_rsa.ts', 'excluded']],
    );
    assert.ok(!port.calls.includes('imports id_rsa.ts'));
    assert.ok(!c.files.some((f) => f.path === 'id_rsa.ts'));
  });

  it('the same closure through a port that answers with promises', async () => {
    const opts = { depth: 2, budgetTokens: 100 + 20 + 50 + 60 + outlineTokens + 30, countTokens: count };
    const sync = filesWithImports(new FakeIntel(files, answers), ['a.ts', 'z.ts'], opts) as ImportClosure;
    const pending = filesWithImports(asyncPort(new FakeIntel(files, answers)), ['a.ts', 'z.ts'], opts);
    assert.ok(pending instanceof Promise);
    assert.deepEqual(await pending, sync);
  });
});
