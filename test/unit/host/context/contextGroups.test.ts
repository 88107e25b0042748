import * as assert from 'node:assert/strict';
import type { Rejection } from '../../../../src/engine/isolation';
import type { ChipView } from '../../../../src/protocol/messages';
import type { AttachmentSpec } from '../../../../src/services/workspacePort';
import {
  attachWithinRoom,
  changedRanges,
  filesUnder,
  foldersOf,
  groupSummary,
  type GroupAttachPort,
} from '../../../../src/host/context/contextGroups';

/** The attach path's answers by path: tokens of a chip, or a refusal. */
function port(answers: Record<string, number | Rejection>, existing: string[] = []) {
  const attached: string[] = [];
  const dropped: string[] = [];
  const p: GroupAttachPort = {
    chipIds: () => new Set(existing),
    attachOne: async (spec: AttachmentSpec) => {
      attached.push(spec.path);
      const a = answers[spec.path];
      if (typeof a !== 'number') return { ok: false, rejection: a };
      const chip = { id: `chip:${spec.path}`, label: spec.path, tokens: a } as ChipView;
      return { ok: true, chip };
    },
    drop: (id) => dropped.push(id),
  };
  return { p, attached, dropped };
}

const file = (path: string): AttachmentSpec => ({ kind: 'file', path });
const binary: Rejection = { attachment: 'a/logo.png', reason: 'binary', message: 'a/logo.png is binary.' };

describe('context groups (Add Context: a folder, the Git changes)', () => {
  it('lists every folder that holds a file, and a folder’s files shallow first', () => {
    const paths = ['src/b.ts', 'src/deep/x/y.ts', 'src/a.ts', 'README.md', 'test/t.ts', 'src/deep/c.ts'];
    assert.deepEqual(foldersOf(paths), ['src', 'src/deep', 'src/deep/x', 'test']);
    assert.deepEqual(filesUnder(paths, 'src'), ['src/a.ts', 'src/b.ts', 'src/deep/c.ts', 'src/deep/x/y.ts']);
    assert.deepEqual(filesUnder(paths, 'src/deep/'), ['src/deep/c.ts', 'src/deep/x/y.ts']);
    // A folder whose name starts like another's is not inside it.
    assert.deepEqual(filesUnder(['srcx/a.ts', 'src/a.ts'], 'src'), ['src/a.ts']);
  });

  it('attaches while the budget has room; the first that does not fit is taken back and the rest are not read', async () => {
    const { p, attached, dropped } = port({ 'a/1.ts': 400, 'a/2.ts': 500, 'a/3.ts': 200, 'a/4.ts': 10 });
    const r = await attachWithinRoom([file('a/1.ts'), file('a/2.ts'), file('a/3.ts'), file('a/4.ts')], 1000, p);
    assert.deepEqual(
      r.added.map((c) => c.label),
      ['a/1.ts', 'a/2.ts'],
    );
    assert.equal(r.tokens, 900);
    assert.equal(r.overBudget, 2);
    assert.deepEqual(attached, ['a/1.ts', 'a/2.ts', 'a/3.ts']);
    assert.deepEqual(dropped, ['chip:a/3.ts']);
  });

  it('keeps refusals with their reasons, and never drops a chip that was there before the group', async () => {
    const { p, dropped } = port({ 'a/logo.png': binary, 'a/big.ts': 5000 }, ['chip:a/big.ts']);
    const r = await attachWithinRoom([file('a/logo.png'), file('a/big.ts')], 100, p);
    assert.deepEqual(r.refused, [binary]);
    assert.equal(r.overBudget, 1);
    assert.deepEqual(dropped, []);
    assert.deepEqual(r.added, []);
  });

  it('says how many were attached and why the others were left out', () => {
    const added = [{ id: '1', label: 'a/1.ts', tokens: 1200 } as ChipView, { id: '2', label: 'a/2.ts', tokens: 34 } as ChipView];
    assert.equal(
      groupSummary('a', { one: 'file', many: 'files' }, { added, refused: [binary], overBudget: 3, tokens: 1234 }, { excluded: 2 }),
      'Attached 2 files of a (1,234 tokens). Left out 6: 3 over the budget, 1 refused, 2 excluded by strata.context.exclude.',
    );
    assert.equal(
      groupSummary('the working tree', { one: 'change', many: 'changes' }, { added: [added[1]], refused: [], overBudget: 0, tokens: 34 }),
      'Attached 1 change of the working tree (34 tokens).',
    );
    assert.equal(
      groupSummary('big', { one: 'file', many: 'files' }, { added: [], refused: [], overBudget: 0, tokens: 0 }, { capped: 5, deleted: 1 }),
      'Nothing of big was attached. Left out 6: 5 past the first 100 files, 1 deleted.',
    );
  });

  it('reads the new side of each hunk, merging hunks that touch, counting deletion-only hunks', () => {
    const diff = [
      'diff --git a/src/cart.ts b/src/cart.ts',
      'index 1111111..2222222 100644',
      '--- a/src/cart.ts',
      '+++ b/src/cart.ts',
      '@@ -1,6 +1,7 @@ export class Cart {',
      ' a',
      '+b',
      '@@ -10,7 +8,7 @@',
      ' c',
      '@@ -20,3 +18,0 @@',
      '-gone',
      '@@ -40 +40 @@ function total()',
      '-x',
      '+y',
      '@@ -60,2 +61,4 @@',
      '+@@ -1,1 +999,1 @@ a line that only looks like a header',
    ].join('\n');
    assert.deepEqual(changedRanges(diff), {
      ranges: [
        { startLine: 1, endLine: 14 },
        { startLine: 40, endLine: 40 },
        { startLine: 61, endLine: 64 },
      ],
      deletionsOnly: 1,
    });
    assert.deepEqual(changedRanges(''), { ranges: [], deletionsOnly: 0 });
  });

  it('reads a long diff in linear time', () => {
    const hunk = '@@ -1,1 +1,1 @@' + ' '.repeat(200_000);
    const started = process.cpuUsage();
    const r = changedRanges(`${hunk}\n${'@'.repeat(300_000)}\n@@ -${'9'.repeat(100_000)}`);
    const used = process.cpuUsage(started);
    const cpuMs = (used.user + used.system) / 1000;
    assert.deepEqual(r, { ranges: [{ startLine: 1, endLine: 1 }], deletionsOnly: 0 });
    assert.ok(cpuMs < 500, `${cpuMs} ms`);
  });
});
