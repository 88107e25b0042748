import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * .github/workflows/release.yml: on a version tag it runs the tests, packages the VSIX once and
 * publishes that one file to the Marketplace and to Open VSX (CONTRIBUTING.md, "Releasing").
 */

// js-yaml comes with the dev tools (vsce) and has no type declarations in this tree.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const yaml = require('js-yaml') as { load(text: string): unknown };

interface Step {
  name?: string;
  uses?: string;
  run?: string;
  env?: Record<string, string>;
}
interface Workflow {
  on: { push: { tags: string[] } };
  jobs: Record<string, { env?: Record<string, string>; steps: Step[]; 'timeout-minutes'?: number }>;
}

const root = path.resolve(__dirname, '../../../..');
const workflow = yaml.load(fs.readFileSync(path.join(root, '.github', 'workflows', 'release.yml'), 'utf8')) as Workflow;
const jobs = Object.values(workflow.jobs);
const steps = jobs.flatMap((j) => j.steps);
const runs = steps.map((s) => s.run ?? '');
const indexOf = (pattern: RegExp) => {
  const found = runs.map((r, i) => (pattern.test(r) ? i : -1)).filter((i) => i >= 0);
  assert.equal(found.length, 1, `exactly one step runs ${pattern}: ${JSON.stringify(runs)}`);
  return found[0]!;
};

describe('release workflow', () => {
  it('runs on version tags, in one job within the 90-minute CI budget', () => {
    assert.deepEqual(workflow.on.push.tags, ['v*']);
    assert.equal(jobs.length, 1);
    assert.equal(jobs[0]!['timeout-minutes'], 90);
  });

  it('runs the whole test suite (.ci/run, which ends in npm test) before packaging', () => {
    assert.ok(indexOf(/^\.ci\/run$/) < indexOf(/scripts\/package\.js/));
  });

  it('packages exactly once, into the file both publish steps name', () => {
    const file = jobs[0]!.env?.VSIX;
    assert.equal(file, 'strata-${{ github.ref_name }}.vsix');
    assert.equal(runs[indexOf(/scripts\/package\.js/)], 'node scripts/package.js "$VSIX"');
    assert.equal(runs.filter((r) => /vsce package|\.vsix/.test(r)).length, 0, 'no other step makes or names another VSIX');
  });

  it('publishes that file to the Marketplace with vsce --packagePath and the VSCE_PAT secret', () => {
    const i = indexOf(/vsce publish/);
    assert.equal(runs[i], 'npx vsce publish --packagePath "$VSIX"');
    assert.deepEqual(steps[i]!.env, { VSCE_PAT: '${{ secrets.VSCE_PAT }}' });
    assert.ok(i > indexOf(/scripts\/package\.js/));
  });

  it('publishes the same file to Open VSX with ovsx and the OVSX_PAT secret', () => {
    const i = indexOf(/ovsx(@[\d.]+)? publish/);
    assert.match(runs[i]!, /^npx --yes ovsx@\d+\.\d+\.\d+ publish "\$VSIX"$/);
    assert.deepEqual(steps[i]!.env, { OVSX_PAT: '${{ secrets.OVSX_PAT }}' });
    assert.ok(i > indexOf(/scripts\/package\.js/));
  });

  it('names no token anywhere but in the two publish steps', () => {
    const withSecrets = steps.filter((s) => JSON.stringify(s).includes('secrets.'));
    assert.deepEqual(
      withSecrets.map((s) => s.name),
      ['Publish to the Visual Studio Marketplace', 'Publish to Open VSX'],
    );
  });
});
