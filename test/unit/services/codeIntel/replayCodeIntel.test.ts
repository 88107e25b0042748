/**
 * Code intelligence in the replay: the `attach` forms `{ "file", "withImports" }` and
 * `{ "selection", "withDefinitions" }` and the code tools in `tools`, expanded with the same
 * functions as the editor's commands; invalid forms refused (exit code 2, a message); ranges of a
 * file the request carries whole sent as references; the committed sample trajectory in sync with
 * its project and replayed without violations; the speed of a 30-line selection's definitions.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { replay, usesCodeIntel } from '../../../../bench/replayCore';
import { TrajectoryError, validateTrajectory, type Trajectory } from '../../../../bench/trajectory';
import { CodeIntelWorkspace } from '../../../../bench/codeIntelWorkspace';
import { CODEINTEL_TRAJECTORY, codeIntelTrajectory } from '../../../../bench/writeCodeIntelTrajectory';
import { loadProject, QUESTIONS, selectionFor } from '../../../../bench/codeIntelFixture';
import { getTokenizer } from '../../../../src/services/tokenizer';
import { definitionsForSelection, type SelectionDefinitions } from '../../../../src/services/codeIntel/selectionDefinitions';
import type { TurnEnvelope } from '../../../../src/engine/engine';
import { captureReplay } from '../../../support/replayCli';
import { withTempDir } from '../../../support/tempDir';
import { PROJECT } from './fakeIntel';

const tokenizer = getTokenizer('o200k_base');
const MODEL = { id: 'gpt-4o', contextWindow: 128000, maxOutputTokens: 4096, encoding: 'o200k_base' } as const;

function traj(turns: Trajectory['turns'], files: Record<string, string> = PROJECT): Trajectory {
  return validateTrajectory({ name: 'ci', model: { ...MODEL }, system: 'You help.', files, turns });
}

/** The text of a request's last user message. */
function lastUser(env: TurnEnvelope): string {
  const m = [...env.messages].reverse().find((x) => x.role === 'user')!;
  return m.content.map((b) => b.text).join('');
}

function run(t: Trajectory, layout: 'transcript' | 'library' = 'transcript') {
  return [...replay(t, { layout, policy: 'append-version', tokenizer })];
}

describe('codeIntel / the replay’s forms and tools', function () {
  this.timeout(120_000);

  it('refuses invalid forms with a message saying what is wrong', () => {
    const bad: [unknown, RegExp][] = [
      [{ file: 'src/main.ts', withDefinitions: true }, /"withDefinitions" goes with "selection"/],
      [{ selection: { file: 'src/main.ts', startLine: 1, endLine: 2 }, withImports: true }, /"withImports" goes with "file"/],
      [{ file: 'src/main.ts', withImports: 'yes' }, /withImports must be true/],
      [{ file: 'src/main.ts', depth: 2 }, /"depth" and "budget" need "withImports" or "withDefinitions"/],
      [{ file: 'src/main.ts', withImports: true, depth: -1 }, /depth must be an integer from 0 to 10/],
      [{ selection: { file: 'src/main.ts', startLine: 1, endLine: 2 }, withDefinitions: true, depth: 1 }, /depth goes with "withImports"/],
      [{ file: 'src/main.ts', withImports: true, budget: 0 }, /budget must be a positive integer/],
    ];
    for (const [a, message] of bad)
      assert.throws(
        () => traj([{ user: 'q', attach: [a as never], reply: 'r' }]),
        (e: Error) => e instanceof TrajectoryError && message.test(e.message),
      );
    // The forms belong to attach only.
    assert.throws(
      () => traj([{ user: 'q', pin: [{ file: 'src/main.ts', withImports: true } as never], reply: 'r' }]),
      (e: Error) => e instanceof TrajectoryError && /exactly one of "file" or "selection"/.test(e.message),
    );
    assert.throws(
      () => traj([{ user: 'q', tools: [{ name: 'get_definition', args: { path: 'a.ts', symbol: 'x' } }], reply: 'r' }]),
      (e: Error) => /"line" is required/.test(e.message),
    );
  });

  it('the command line exits 2 on an invalid form', async () => {
    await withTempDir('strata-ci-', async (dir) => {
      const file = path.join(dir, 't.json');
      fs.writeFileSync(
        file,
        JSON.stringify({
          name: 't',
          model: MODEL,
          system: 's',
          files: PROJECT,
          turns: [{ user: 'q', attach: [{ file: 'src/main.ts', withDefinitions: true }], reply: 'r' }],
        }),
      );
      const r = await captureReplay([file]);
      assert.equal(r.code, 2);
      assert.match(r.err, /"withDefinitions" goes with "selection"/);
    });
  });

  it('a selection with definitions: the selection, then each definition as a ranged excerpt, as definitionsForSelection finds them', () => {
    const sel = { file: 'src/main.ts', startLine: 13, endLine: 15 };
    const t = traj([{ user: 'q', attach: [{ selection: sel, withDefinitions: true }], reply: 'r' }]);
    assert.ok(usesCodeIntel(t));
    const [turn] = run(t);
    const defs = definitionsForSelection(
      new CodeIntelWorkspace(PROJECT),
      { path: sel.file, startLine: 13, endLine: 15 },
      {
        budgetTokens: 4000,
        countTokens: (x) => tokenizer.count(x),
      },
    ) as SelectionDefinitions;
    const inputs = turn.input.attachments!;
    assert.equal(inputs[0].kind, 'selection');
    assert.deepEqual(
      inputs.slice(1),
      defs.definitions.map((d) => d.input),
    );
    const text = lastUser(turn.envelope);
    for (const d of defs.definitions) assert.ok(text.includes(d.input.content), d.symbol);
    assert.deepEqual(turn.violations, []);
  });

  it('ranges of a file the request carries whole come back as references; a changed range is sent', () => {
    const sel = { file: 'src/main.ts', startLine: 13, endLine: 15 };
    const turns = run(
      traj([
        { user: 'one', attach: [{ file: 'src/geo.ts' }], reply: 'r1' },
        { user: 'two', attach: [{ selection: sel, withDefinitions: true }], reply: 'r2' },
        {
          user: 'three',
          edits: { 'src/geo.ts': PROJECT['src/geo.ts'].replace('return a + b;', 'return b + a;') },
          attach: [{ selection: sel, withDefinitions: true }],
          reply: 'r3',
        },
      ]),
    );
    const two = lastUser(turns[1].envelope);
    assert.ok(two.includes('<ref id="file:src/geo.ts"'), two);
    assert.ok(!two.includes('path="src/geo.ts" lines='), 'no range of geo.ts is sent again');
    assert.ok(two.includes('path="src/util/fmt.ts" lines="1-1"'), 'ranges of other files are blocks');
    assert.equal(two.split('export function add(').length, 1, 'add is not sent again');
    // Turn three: geo.ts changed (its new version is sent by freshness); the changed range is a block of its own.
    const three = lastUser(turns[2].envelope);
    assert.ok(three.includes('path="src/geo.ts" lines="10-12"'), three);
    for (const t of turns) assert.deepEqual(t.violations, []);
  });

  it('a file with imports: the file and its imports, breadth first, as files', () => {
    const [turn] = run(traj([{ user: 'q', attach: [{ file: 'src/main.ts', withImports: true, depth: 1 }], reply: 'r' }]));
    assert.deepEqual(
      turn.input.attachments!.map((a) => `${a.kind} ${a.uri}`),
      ['file src/main.ts', 'file src/geo.ts', 'file src/util/fmt.ts', 'file src/secret/limits.ts'],
    );
    assert.deepEqual(
      turn.rejections.map((r) => [r.attachment, r.reason]),
      [],
    );
  });

  it('the committed sample trajectory is what its script writes, and replays without violations in both layouts', () => {
    assert.equal(fs.readFileSync(CODEINTEL_TRAJECTORY, 'utf8'), JSON.stringify(codeIntelTrajectory(), null, 2) + '\n');
    const t = validateTrajectory(JSON.parse(fs.readFileSync(CODEINTEL_TRAJECTORY, 'utf8')));
    for (const layout of ['transcript', 'library'] as const) {
      const turns = run(t, layout);
      for (const x of turns) assert.deepEqual(x.violations, [], `${layout} turn ${x.turn}`);
      assert.equal(turns[2].requests.length, 5, 'five tool steps in turn 3');
    }
    const again = run(t).map((x) => x.envelope.messages);
    assert.deepEqual(
      run(t).map((x) => x.envelope.messages),
      again,
      'deterministic',
    );
  });

  it('speed: the definitions of a 30-line selection of the sample project (printed)', () => {
    const ws = new CodeIntelWorkspace(loadProject());
    const sel = selectionFor(ws, QUESTIONS[0]);
    const opts = { budgetTokens: 4000, countTokens: (x: string) => tokenizer.count(x) };
    let t0 = performance.now();
    const first = definitionsForSelection(
      ws,
      { path: sel.file, startLine: sel.startLine, endLine: sel.endLine },
      opts,
    ) as SelectionDefinitions;
    const cold = performance.now() - t0;
    const warm: number[] = [];
    for (let i = 0; i < 5; i++) {
      t0 = performance.now();
      definitionsForSelection(ws, { path: sel.file, startLine: sel.startLine, endLine: sel.endLine }, opts);
      warm.push(performance.now() - t0);
    }
    warm.sort((a, b) => a - b);
    assert.equal(first.definitions.length, 19);
    console.log(
      `      ${sel.endLine - sel.startLine + 1}-line selection, ${first.definitions.length} definitions: first ${cold.toFixed(0)} ms (builds the program), then median ${warm[2].toFixed(1)} ms (in-memory TypeScript port)`,
    );
  });
});
