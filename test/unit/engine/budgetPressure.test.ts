import * as assert from 'node:assert/strict';
import * as path from 'path';
import { loadTrajectory } from '../../../bench/replay';
import { replay } from '../../../bench/replayCore';
import { extractBody } from '../../../src/engine/render';
import { sliceLines } from '../../../src/engine/artifacts';
import { expandFileValue } from '../../../bench/trajectory';
import { getTokenizer } from '../../../src/services/tokenizer';

const file = path.resolve(__dirname, '../../../../test/fixtures/trajectories/budget-pressure.json');

describe('budget-pressure trajectory', () => {
  const traj = loadTrajectory(file);
  const sel = traj.turns[0].attach![0].selection!;
  const snapshot = sliceLines(expandFileValue(traj.files[sel.file]), sel)!.content;

  for (const layout of ['transcript', 'library'] as const) {
    it(`${layout}: every request fits the budget, the pinned selection is verbatim in every request after the pin, cuts are reported`, () => {
      const turns = [...replay(traj, { layout, policy: 'append-version', tokenizer: getTokenizer('o200k_base') })];
      assert.strictEqual(turns.length, 10);
      let cuts = 0;
      let breaks = 0;
      let prunedTurns = 0;
      const resent: string[] = [];
      for (const t of turns) {
        const env = t.envelope;
        assert.deepStrictEqual(t.violations, []);
        assert.strictEqual(env.blocked, undefined);
        assert.ok(env.totalTokens <= env.budget, `turn ${t.turn}: ${env.totalTokens} > ${env.budget}`);
        assert.strictEqual(env.budget, 13632);
        if (t.turn >= 2) {
          const blocks = env.layers
            .flatMap((l) => l.segments)
            .filter((g) => g.kind === 'artifact' && g.artifactKey?.startsWith('sel:docs/commander-readme.md#L1-L12@'));
          assert.strictEqual(blocks.length, 1, `turn ${t.turn}: the pinned selection is sent once`);
          assert.strictEqual(extractBody(blocks[0].text), snapshot, `turn ${t.turn}: verbatim`);
          const item = env.ledger.layers.flatMap((l) => l.items).find((i) => i.id === blocks[0].id)!;
          assert.strictEqual(item.essential, true);
        }
        for (const p of env.pruned) {
          assert.ok(!p.item.startsWith('sel:'), 'the pinned selection is never cut');
          assert.ok(p.preTokens >= p.postTokens);
          assert.ok(p.kept.length > 0 && p.lost.length > 0 && p.reason.length > 0);
        }
        // Budget cuts; a compacted preview superseded by its content sent in full again (library)
        // is reported too, but it is not a cut for the budget.
        const budgetCuts = env.pruned.filter((p) => p.reason !== 'resent-in-full');
        for (const p of env.pruned) if (p.reason === 'resent-in-full') resent.push(`${t.turn} ${p.item}`);
        cuts += budgetCuts.length;
        if (budgetCuts.length > 0) prunedTurns++;
        if (env.prefixBreak) breaks++;
      }
      // Pruning happens, and hysteresis keeps it to a few turns rather than every turn after it starts.
      assert.equal(cuts, layout === 'library' ? 6 : 8, 'the trajectory is built to need pruning');
      assert.equal(prunedTurns, layout === 'library' ? 3 : 2, `pruned in ${prunedTurns} turns`);
      if (layout === 'transcript') assert.strictEqual(breaks, prunedTurns, 'in transcript only a pruning turn breaks the prefix');
      // Library: the compacted files re-attached in turns 7–10 supersede their previews there.
      assert.deepStrictEqual(
        resent,
        layout === 'library'
          ? ['7 file:docs/commander-readme.md', '8 file:src/p-queue.js', '9 file:src/p-retry.js', '10 file:src/picomatch/scan.js']
          : [],
      );
    });
  }
});
