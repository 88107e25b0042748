/**
 * `--reload-at N` (docs/design.md#replay, #storage): saving through the real chat store after turn
 * N and resuming in a fresh engine gives byte-identical request dumps, reports, ledgers and hashes,
 * for every shared trajectory and both layouts, with the real tokenizer.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import * as fc from 'fast-check';
import { lastReload, reloadHook } from '../../../bench/reload';
import { loadTrajectory } from '../../../bench/replay';
import { main, parseArgs, runReplayWithReload as runReplay } from '../../../bench/replayCli';
import { replay, type ReplayOptions } from '../../../bench/replayCore';
import type { Trajectory } from '../../../bench/trajectory';
import { getTokenizer } from '../../../src/services/tokenizer';
import { ChatStore } from '../../../src/services/store/chatStore';
import { PromptContextEngine, type TurnEnvelope } from '../../../src/engine/engine';
import type { ChangedFilesPolicy, Layout } from '../../../src/engine/types';
import { buildTrajectory, cheapTokenizer, scenarioArb } from '../helpers/scenario';
import { tempDir } from '../../support/tempDir';

const root = path.resolve(__dirname, '../../../..');
const fixtures = path.join(root, 'test/fixtures/trajectories');
const files = fs
  .readdirSync(fixtures)
  .filter((f) => f.endsWith('.json'))
  .sort();
const tmp = (): string => tempDir('strata-reload-test-');

function readDir(dir: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  for (const f of fs.readdirSync(dir).sort()) out.set(f, fs.readFileSync(path.join(dir, f)));
  return out;
}

function assertSameDumps(a: string, b: string, label: string): void {
  const x = readDir(a);
  const y = readDir(b);
  assert.deepStrictEqual([...y.keys()], [...x.keys()], `${label}: same dump files`);
  for (const [f, buf] of x) assert.ok(buf.equals(y.get(f)!), `${label}: ${f} differs after reload`);
}

/** Everything of an envelope that is observable: messages, layers (tokens, hashes), ledger, prefix, cuts. */
function fingerprint(env: TurnEnvelope): string {
  return JSON.stringify(env);
}

function envelopes(traj: Trajectory, layout: Layout, policy: ChangedFilesPolicy, afterTurn?: ReplayOptions['afterTurn']): string[] {
  const tok = getTokenizer(traj.model.encoding);
  return [...replay(traj, { layout, policy, tokenizer: tok, afterTurn })].map(
    (t) => fingerprint(t.envelope) + JSON.stringify(t.violations),
  );
}

describe('replay --reload-at: byte-identical resume', function () {
  this.timeout(60_000);

  for (const file of files) {
    const full = path.join(fixtures, file);
    const traj = loadTrajectory(full);
    const mid = Math.max(1, Math.floor(traj.turns.length / 2));
    // budget-pressure also reloads late, when the state holds compacted previews and pruned items.
    const points = [...new Set(file === 'budget-pressure.json' ? [1, mid, traj.turns.length - 1] : [1, mid])];
    for (const layout of ['library', 'transcript'] as const) {
      it(`${file} ${layout}: every envelope (messages, breakpoints, ledger, layer and prefix hashes, cuts) identical with --reload-at ${points.join(', ')}`, () => {
        const tok = getTokenizer(traj.model.encoding);
        const plain = envelopes(traj, layout, 'append-version');
        for (const at of points) {
          const args = parseArgs([full, '--layout', layout, '--reload-at', String(at)]);
          const reloaded = envelopes(traj, layout, 'append-version', reloadHook(traj, layout, args, tok));
          assert.ok(lastReload && lastReload.turn >= at, `the reload at ${at} happened`);
          assert.strictEqual(reloaded.length, plain.length);
          reloaded.forEach((f, i) => assert.strictEqual(f, plain[i], `reload at ${at}: turn ${i + 1}`));
        }
      });
    }
  }

  for (const file of ['adversarial.json', 'budget-pressure.json']) {
    it(`${file}: request dumps (--requests) and the report are byte-identical with --reload-at, both layouts`, () => {
      const full = path.join(fixtures, file);
      const traj = loadTrajectory(full);
      const at = Math.floor(traj.turns.length / 2);
      const d0 = tmp();
      const d1 = tmp();
      const r0 = runReplay(traj, { ...parseArgs([full, '--strategy', 'library,transcript']), requestsDir: d0 });
      const r1 = runReplay(traj, { ...parseArgs([full, '--strategy', 'library,transcript', '--reload-at', String(at)]), requestsDir: d1 });
      for (const s of ['library', 'transcript']) assertSameDumps(path.join(d0, s), path.join(d1, s), `${file} ${s}`);
      assert.deepStrictEqual(r1.strategies, r0.strategies);
    });
  }

  it('long-session-20 under append-diff (both layouts) and refresh-in-place (library): identical after reload at 9', () => {
    const full = path.join(fixtures, 'long-session-20.json');
    const traj = loadTrajectory(full);
    const tok = getTokenizer(traj.model.encoding);
    for (const [policy, layout] of [
      ['append-diff', 'library'],
      ['append-diff', 'transcript'],
      ['refresh-in-place', 'library'],
    ] as const) {
      const plain = envelopes(traj, layout, policy);
      const args = parseArgs([full, '--layout', layout, '--policy', policy, '--reload-at', '9']);
      const reloaded = envelopes(traj, layout, policy, reloadHook(traj, layout, args, tok));
      reloaded.forEach((f, i) => assert.strictEqual(f, plain[i], `${policy} ${layout}: turn ${i + 1}`));
    }
  });

  it('the CLI (npm run replay -- … --reload-at N --requests DIR) writes the same dumps and exits 0', async () => {
    const full = path.join(fixtures, 'walkthrough-6.json');
    const d0 = tmp();
    const d1 = tmp();
    const out = (s: string) => s;
    const ow = process.stdout.write.bind(process.stdout);
    const chunks: string[] = [];
    (process.stdout as unknown as { write: unknown }).write = (s: string) => (chunks.push(out(String(s))), true);
    let c0: number, c1: number;
    try {
      c0 = await main([full, '--strategy', 'library,transcript', '--requests', d0, '--json']);
      c1 = await main([full, '--strategy', 'library,transcript', '--requests', d1, '--json', '--reload-at', '3']);
    } finally {
      (process.stdout as unknown as { write: unknown }).write = ow;
    }
    assert.strictEqual(c0, 0);
    assert.strictEqual(c1, 0);
    for (const s of ['library', 'transcript']) assertSameDumps(path.join(d0, s), path.join(d1, s), s);
    const [a, b] = chunks.map((c) => JSON.parse(c) as { strategies: unknown });
    assert.deepStrictEqual(b.strategies, a.strategies);
  });

  it('random chats (pins, detaches, edits, deletes, pruning, summaries; all policies): reloading after EVERY turn changes nothing', () => {
    const seen = { summary: 0, compacted: 0, pruned: 0, detached: 0, missing: 0, pinned: 0 };
    fc.assert(
      fc.property(scenarioArb({ maxTurns: 8, tokenizers: ['cheap'] }), (spec) => {
        const traj = buildTrajectory(spec);
        const opts = { layout: spec.layout, policy: spec.policy, tokenizer: cheapTokenizer };
        const plain = [...replay(traj, opts)].map((t) => fingerprint(t.envelope));
        const dir = tmp();
        const store = ChatStore.open(dir, { durable: false });
        const reloaded = [
          ...replay(traj, {
            ...opts,
            afterTurn: (_turn, engine) => {
              store.appendTurn('prop', { state: engine.state, engine: engine.options });
              const loaded = ChatStore.open(dir, { durable: false }).loadChat('prop');
              assert.deepStrictEqual(loaded.warnings, []);
              const es = [...loaded.state.entries.values()];
              if (loaded.state.summary) seen.summary++;
              if (es.some((e) => e.compacted)) seen.compacted++;
              if (es.some((e) => e.presence === 'pruned')) seen.pruned++;
              if (es.some((e) => e.presence === 'detached')) seen.detached++;
              if (es.some((e) => e.missing)) seen.missing++;
              if (es.some((e) => e.essential)) seen.pinned++;
              return new PromptContextEngine(engine.options, loaded.state);
            },
          }),
        ].map((t) => fingerprint(t.envelope));
        fs.rmSync(dir, { recursive: true, force: true });
        assert.strictEqual(reloaded.length, plain.length);
        reloaded.forEach((f, i) => assert.strictEqual(f, plain[i], `turn ${i + 1}`));
      }),
      { numRuns: 20, seed: 1 },
    );
    // The runs reloaded states holding each kind of chat state at least once.
    assert.deepEqual(seen, { summary: 2, compacted: 5, pruned: 4, detached: 15, missing: 4, pinned: 22 });
  });
});
