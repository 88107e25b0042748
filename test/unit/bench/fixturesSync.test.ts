/**
 * The trajectories the tests use are copied into test/fixtures/trajectories so a clone is
 * self-contained; the copies must stay byte-identical to ../shared/trajectories when that folder
 * exists next to the repository. Without it, the fixtures folder itself must be complete.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadTrajectory } from '../../../bench/replay';

const repoRoot = path.resolve(__dirname, '../../../..');
const fixtures = path.join(repoRoot, 'test/fixtures/trajectories');
const shared = path.resolve(repoRoot, '../shared/trajectories');
const EXPECTED = [
  'README.md',
  'adversarial.json',
  'budget-pressure.json',
  'long-session-20.json',
  'selection-heavy.json',
  'walkthrough-6.json',
];

const list = (dir: string) =>
  fs
    .readdirSync(dir)
    .filter((f) => fs.statSync(path.join(dir, f)).isFile())
    .sort();

describe('trajectory fixtures', () => {
  it('the fixtures folder holds the five shared trajectories and their README, each a valid trajectory named after its file', () => {
    assert.deepEqual(list(fixtures), EXPECTED);
    for (const f of EXPECTED.filter((x) => x.endsWith('.json'))) {
      assert.equal(loadTrajectory(path.join(fixtures, f)).name, f.slice(0, -'.json'.length));
    }
  });

  if (fs.existsSync(shared)) {
    it(`every fixture is byte-identical to its original in ${shared}`, () => {
      const originals = new Set(list(shared));
      for (const f of list(fixtures)) {
        assert.ok(originals.has(f), `${f} has no original in ${shared}`);
        assert.ok(
          fs.readFileSync(path.join(fixtures, f)).equals(fs.readFileSync(path.join(shared, f))),
          `${f} differs from ${path.join(shared, f)}; copy it again`,
        );
      }
    });

    it('no shared trajectory is missing from the fixtures', () => {
      assert.deepEqual(
        list(shared).filter((f) => f.endsWith('.json')),
        list(fixtures).filter((f) => f.endsWith('.json')),
      );
    });
  }
});
