/**
 * Golden snapshots of whole requests (CONTRIBUTING.md, "Golden snapshots"): every trajectory in
 * test/fixtures/trajectories × both layouts, policy append-version, the real o200k tokenizer.
 * Per turn: each message's role and blocks (segment layer / kind / id, text length, sha256 prefix,
 * cache breakpoint), layer tokens, total, prefix hash, cut reports and rejections; walkthrough-6
 * also keeps the full request text. Any change to what the engine sends shows up here as a diff.
 *
 * A missing snapshot is written (except under CI, where it fails); UPDATE_SNAPSHOTS=1 rewrites them
 * all. Review the git diff of test/unit/__snapshots__ before committing.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Layout } from '../../../src/engine/types';
import { loadTrajectory } from '../../../bench/replay';
import { replay } from '../../../bench/replayCore';
import type { Trajectory } from '../../../bench/trajectory';
import { getTokenizer } from '../../../src/services/tokenizer';
import { alignSegments, firstDifference, sha8, stableStringify } from '../helpers/snapshot';

const repoRoot = path.resolve(__dirname, '../../../..');
const fixtures = path.join(repoRoot, 'test/fixtures/trajectories');
const snapshots = path.join(repoRoot, 'test/unit/__snapshots__');
const update = process.env.UPDATE_SNAPSHOTS === '1';
const ci = !!process.env.CI && process.env.CI !== 'false';
const LAYOUTS: Layout[] = ['library', 'transcript'];
/** Trajectories whose snapshot also keeps the full request text. */
const FULL_TEXT = new Set(['walkthrough-6']);

function snapshotOf(name: string, traj: Trajectory, layout: Layout): unknown {
  const tokenizer = getTokenizer(traj.model.encoding);
  const turns = [...replay(traj, { layout, policy: 'append-version', tokenizer })].map((t) => {
    const env = t.envelope;
    const segs = alignSegments(env);
    return {
      turn: t.turn,
      messages: env.messages.map((m, mi) => ({
        role: m.role,
        blocks: m.content.map((b, bi) => {
          const g = segs[mi][bi];
          return {
            layer: g.layer,
            kind: g.kind,
            id: g.id,
            length: b.text.length,
            sha8: sha8(b.text),
            ...(b.cacheBreakpoint ? { cacheBreakpoint: true } : {}),
          };
        }),
      })),
      layers: Object.fromEntries(env.layers.map((l) => [l.id, l.tokens])),
      totalTokens: env.totalTokens,
      prefixHash: env.prefixHash,
      pruned: t.pruned,
      rejections: t.rejections,
      ...(env.blocked ? { blocked: env.blocked.message } : {}),
      ...(FULL_TEXT.has(name)
        ? {
            request: env.messages.map((m) => ({
              role: m.role,
              text: m.content
                .map((b) => b.text)
                .join('')
                .split('\n'),
            })),
          }
        : {}),
    };
  });
  return {
    trajectory: name,
    layout,
    policy: 'append-version',
    encoding: traj.model.encoding,
    contextWindow: traj.model.contextWindow,
    maxOutputTokens: traj.model.maxOutputTokens,
    turns,
  };
}

const names = fs
  .readdirSync(fixtures)
  .filter((f) => f.endsWith('.json'))
  .map((f) => f.slice(0, -'.json'.length))
  .sort();

describe('golden snapshots of every request (test/unit/__snapshots__)', function () {
  this.timeout(60_000);

  it('covers the five shared trajectories', () => {
    assert.deepEqual(names, ['adversarial', 'budget-pressure', 'long-session-20', 'selection-heavy', 'walkthrough-6']);
  });

  for (const name of names) {
    for (const layout of LAYOUTS) {
      it(`${name} (${layout})`, () => {
        const traj = loadTrajectory(path.join(fixtures, `${name}.json`));
        const actual = JSON.parse(JSON.stringify(snapshotOf(name, traj, layout))) as unknown;
        const file = path.join(snapshots, `${name}.${layout}.json`);
        const exists = fs.existsSync(file);
        if (update || (!exists && !ci)) {
          fs.mkdirSync(snapshots, { recursive: true });
          fs.writeFileSync(file, stableStringify(actual) + '\n');
          return;
        }
        assert.ok(
          exists,
          `${path.relative(repoRoot, file)} is missing; run the tests once without CI (or with UPDATE_SNAPSHOTS=1) and commit it`,
        );
        const expected = JSON.parse(fs.readFileSync(file, 'utf8')) as unknown;
        const diff = firstDifference(actual, expected);
        // A changed hash formula changes every prefixHash; say also where the request itself first differs.
        const content = diff && firstDifference(actual, expected, '$', new Set(['prefixHash']));
        const also = diff && content !== diff ? `\nFirst difference outside prefixHash: ${content ?? 'none'}` : '';
        assert.equal(
          diff,
          undefined,
          `${name} (${layout}) differs from ${path.relative(repoRoot, file)} at ${diff}${also}\nIf the change is intended, run with UPDATE_SNAPSHOTS=1 and review the diff.`,
        );
      });
    }
  }

  it('holds no snapshot of a trajectory or layout that no longer exists', () => {
    const expected = names.flatMap((n) => LAYOUTS.map((l) => `${n}.${l}.json`)).sort();
    const present = fs
      .readdirSync(snapshots)
      .filter((f) => /\.(library|transcript)\.json$/.test(f))
      .sort();
    assert.deepEqual(present, expected);
  });
});
