/**
 * The replay with scripted tool calls (the trajectory's `tools`, per-step request dumps): the
 * 17-turn exploration trajectory runs without violations, writes `turn-NNN.step-K.json` for every
 * earlier step and `turn-NNN.json` for the last request, each step a pure append of the one before;
 * the report lists the steps; the tools-plain baseline replays the same calls; bad `tools` entries
 * are refused.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { validateTrajectory, TrajectoryError } from '../../../bench/trajectory';
import { captureReplay } from '../../support/replayCli';
import { withTempDir } from '../../support/tempDir';

const root = path.resolve(__dirname, '../../../..');
const TOOL_TRAJECTORY = path.join(root, 'test/fixtures/trajectories-extra/tool-exploration-17.json');

const capture = captureReplay;

interface DumpMessage {
  role: string;
  toolCallId?: string;
  content: { type: 'text'; text: string; cacheBreakpoint?: true }[];
  toolCalls?: { id: string; name: string; args: Record<string, unknown> }[];
}

function read(dir: string, name: string): { turn: number; step?: number; messages: DumpMessage[] } {
  return JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8'));
}

const strip = (m: DumpMessage) => ({ role: m.role, toolCallId: m.toolCallId, texts: m.content.map((b) => b.text), toolCalls: m.toolCalls });

describe('replay with scripted tool calls (trajectory tools, per-step dumps)', function () {
  this.timeout(120_000);
  const traj = JSON.parse(fs.readFileSync(TOOL_TRAJECTORY, 'utf8')) as {
    turns: { tools?: { name: string; args: Record<string, unknown> }[] }[];
  };

  it('the exploration trajectory: 15+ turns, every tool, refusals scripted', () => {
    validateTrajectory(traj);
    assert.ok(traj.turns.length >= 15);
    const names = new Set(traj.turns.flatMap((t) => (t.tools ?? []).map((c) => c.name)));
    assert.deepEqual([...names].sort(), ['get_diagnostics', 'get_selection', 'list_files', 'read_file', 'search_text']);
    const paths = traj.turns.flatMap((t) => (t.tools ?? []).map((c) => c.args.path));
    assert.ok(paths.includes('.env') && paths.some((p) => typeof p === 'string' && p.startsWith('../')), '.env and ../ are tried');
  });

  for (const layout of ['transcript', 'library'] as const) {
    it(`${layout}: step dumps, each a pure append; the final request per turn; no violations`, async () => {
      await withTempDir('strata-replay-tools-', async (dir) => {
        const r = await capture([TOOL_TRAJECTORY, '--layout', layout, '--requests', dir, '--json']);
        assert.equal(r.code, 0, r.err);
        const report = JSON.parse(r.out);
        const s = report.strategies[0];
        assert.equal(s.totals.violations, 0);
        traj.turns.forEach((t, i) => {
          const n = t.tools?.length ?? 0;
          const turn = String(i + 1).padStart(3, '0');
          const files = [...Array.from({ length: n }, (_, k) => `turn-${turn}.step-${k + 1}.json`), `turn-${turn}.json`];
          for (const f of files) assert.ok(fs.existsSync(path.join(dir, f)), `${f} written`);
          assert.equal(fs.existsSync(path.join(dir, `turn-${turn}.step-${n + 1}.json`)), false);
          const dumps = files.map((f) => read(dir, f));
          dumps.slice(0, -1).forEach((d, k) => assert.equal(d.step, k + 1));
          assert.equal(dumps[dumps.length - 1].step, undefined);
          for (let k = 1; k < dumps.length; k++) {
            const prev = dumps[k - 1].messages;
            const next = dumps[k].messages;
            assert.deepEqual(
              next.slice(0, prev.length).map(strip),
              prev.map(strip),
              `turn ${i + 1}: request ${k + 1} extends request ${k}`,
            );
            const added = next.slice(prev.length);
            assert.equal(added[0].role, 'assistant');
            assert.deepEqual(added[0].toolCalls, [{ id: `call_${i + 1}_${k}`, name: t.tools![k - 1].name, args: t.tools![k - 1].args }]);
            assert.equal(added[1].role, 'tool');
            assert.equal(added[1].toolCallId, `call_${i + 1}_${k}`);
          }
          // The report counts every request of the turn.
          const tr = s.turns[i];
          assert.equal(tr.steps?.length ?? 0, n);
          if (n > 0) {
            const steps = tr.steps as { promptTokens: number }[];
            const stepSum = steps.reduce((x, st) => x + st.promptTokens, 0);
            assert.ok(tr.promptTokens > stepSum, 'the turn counts its steps and its last request');
            for (let k = 1; k < steps.length; k++)
              assert.ok(steps[k].promptTokens > steps[k - 1].promptTokens, 'each step longer than the last');
          }
        });
        // The turn that reads .env: a refusal and no secret anywhere.
        const all = fs
          .readdirSync(dir)
          .map((f) => fs.readFileSync(path.join(dir, f), 'utf8'))
          .join('\n');
        assert.ok(!all.includes('s3cr3t-pr0d-passw0rd'), 'the .env content is in no request');
        assert.match(all, /read_file refused \(excluded\): \.env matches the exclude pattern/);
        assert.match(all, /read_file refused \(outside-workspace\): \.\.\/deploy\/config\.json is outside the workspace/);
      });
    });
  }

  it('tools-plain: the same calls as plain messages, every result in full each time', async () => {
    const r = await capture([TOOL_TRAJECTORY, '--strategy', 'transcript,tools-plain', '--json']);
    assert.equal(r.code, 0, r.err);
    const [engine, plain] = JSON.parse(r.out).strategies;
    assert.equal(plain.name, 'tools-plain');
    assert.deepEqual(
      plain.turns.map((t: { steps?: unknown[] }) => t.steps?.length ?? 0),
      engine.turns.map((t: { steps?: unknown[] }) => t.steps?.length ?? 0),
      'one request per step in both',
    );
    assert.ok(
      engine.costUnits.openai < plain.costUnits.openai,
      `OpenAI cost: engine ${engine.costUnits.openai} < plain ${plain.costUnits.openai}`,
    );
    assert.ok(
      engine.costUnits.anthropic < plain.costUnits.anthropic,
      `Anthropic cost: engine ${engine.costUnits.anthropic} < plain ${plain.costUnits.anthropic}`,
    );
  });

  it('refuses bad tools entries with a message saying what is wrong', () => {
    const base = { name: 't', model: { id: 'm', contextWindow: 1000, maxOutputTokens: 10, encoding: 'o200k_base' }, system: '', files: {} };
    const bad = (tools: unknown, why: RegExp) =>
      assert.throws(
        () => validateTrajectory({ ...base, turns: [{ user: 'u', reply: 'r', tools }] }),
        (e: Error) => e instanceof TrajectoryError && why.test(e.message),
      );
    bad('x', /turns\[0\]\.tools must be an array/);
    bad(
      [{ name: 'write_file', args: {} }],
      /turns\[0\]\.tools\[0\]\.name must be one of read_file, list_files, search_text, get_diagnostics, get_selection/,
    );
    bad([{ name: 'read_file', args: {} }], /turns\[0\]\.tools\[0\]: read_file: the argument "path" is required/);
    bad([{ name: 'read_file' }], /must be \{"name": string, "args": object\}/);
    bad([{ name: 'list_files', args: { glob: '*' }, extra: 1 }], /unknown field "extra"/);
    assert.throws(
      () => validateTrajectory({ ...base, turns: [{ user: 'u', reply: 'r', selection: { file: 'a', startLine: 0, endLine: 1 } }] }),
      /selection must be null or/,
    );
    assert.throws(
      () =>
        validateTrajectory({
          ...base,
          turns: [{ user: 'u', reply: 'r', diagnostics: [{ path: 'a', line: 1, severity: 'fatal', message: 'x' }] }],
        }),
      /severity must be error, warning, info or hint/,
    );
  });
});
