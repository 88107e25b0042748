/**
 * `--provider`: the replay's requests sent through the real LangChain providers over HTTP to the
 * local imitation servers (which compute usage with the cache rules of docs/design.md#replay), with
 * a network guard that fails on any other destination. The reported cache figures must equal the
 * predicted ones.
 */
import * as assert from 'node:assert/strict';
import * as path from 'path';
import { ArgError, loadTrajectory, type ReplayReport } from '../../../bench/replay';
import { main, parseArgs } from '../../../bench/replayCli';
import { runAgainstProvider } from '../../../bench/providerRun';
import {
  startAnthropicImitation,
  startOpenAIImitation,
  type AnthropicImitationServer,
  type OpenAIImitationServer,
} from '../../support/imitationServers';
import { installNetworkGuard, type NetworkGuard } from '../../support/networkGuard';

const WALKTHROUGH = path.resolve(__dirname, '../../../../test/fixtures/trajectories/walkthrough-6.json');
const OPENAI_KEY = 'sk-test-bench-OPENAI-0123456789SECRET';
const ANTHROPIC_KEY = 'sk-ant-test-bench-ANTHROPIC-0123456789SECRET';

describe('replay --provider (bench/providerRun.ts)', function () {
  this.timeout(60_000);
  let guard: NetworkGuard;
  let openai: OpenAIImitationServer;
  let anthropic: AnthropicImitationServer;
  const logs: string[] = [];
  const log = (line: string) => logs.push(line);

  before(async () => {
    guard = installNetworkGuard();
    openai = await startOpenAIImitation({ apiKey: OPENAI_KEY });
    anthropic = await startAnthropicImitation({ apiKey: ANTHROPIC_KEY });
  });
  after(async () => {
    await openai?.close();
    await anthropic?.close();
    guard?.uninstall();
  });
  beforeEach(() => {
    logs.length = 0;
    openai.resetCache();
    anthropic.resetCache();
  });
  afterEach(() => assert.deepStrictEqual(guard.foreign, [], 'no request may leave this machine'));

  function sentText(server: OpenAIImitationServer | AnthropicImitationServer): string {
    return JSON.stringify(server.requests.map((r) => ({ headers: r.headers, body: r.body })));
  }

  it('OpenAI: reported cached tokens equal the predicted ones on walkthrough-6, turn by turn', async () => {
    const traj = loadTrajectory(WALKTHROUGH);
    const args = parseArgs([WALKTHROUGH, '--provider', 'openai', '--base-url', openai.url, '--model', 'imitation-gpt']);
    const before = openai.chatRequests.length;
    const report = await runAgainstProvider(traj, args, { env: { OPENAI_API_KEY: OPENAI_KEY }, log });
    const turns = report.strategies[0].turns;
    assert.strictEqual(report.strategies[0].name, 'transcript');
    assert.strictEqual(turns.length, traj.turns.length);
    assert.strictEqual(openai.chatRequests.length - before, traj.turns.length);
    for (const t of turns) {
      assert.ok(t.provider, `turn ${t.turn} has provider usage`);
      assert.strictEqual(t.provider.input, t.promptTokens, `turn ${t.turn} prompt tokens`);
      assert.strictEqual(t.provider.cacheRead, t.cached.openai, `turn ${t.turn} cached tokens`);
      assert.strictEqual(t.provider.cacheWrite, 0);
    }
    assert.deepStrictEqual(
      turns.map((t) => t.cached.openai),
      [0, 2560, 4352, 4736, 7552, 7936],
      'the later turns are cache hits (the check is not vacuous)',
    );
    // The key went to the server (it requires it) but is in no log line and not in the report.
    assert.ok(!logs.join('\n').includes(OPENAI_KEY));
    assert.ok(!JSON.stringify(report).includes(OPENAI_KEY));
    assert.ok(logs.some((l) => /transcript turn 6: .*cached \d+ predicted \/ \d+ reported/.test(l)));
    // One chat: a stable prompt_cache_key, the conversation id.
    const keys = new Set(openai.chatRequests.slice(before).map((r) => (r.body as { prompt_cache_key?: string }).prompt_cache_key));
    assert.deepStrictEqual([...keys], ['walkthrough-6']);
  });

  it('Anthropic: reported cache reads and writes equal the predicted ones on walkthrough-6, turn by turn', async () => {
    const traj = loadTrajectory(WALKTHROUGH);
    const args = parseArgs([WALKTHROUGH, '--provider', 'anthropic', '--base-url', anthropic.url, '--model', 'imitation-claude']);
    const report = await runAgainstProvider(traj, args, { env: { ANTHROPIC_API_KEY: ANTHROPIC_KEY }, log });
    const turns = report.strategies[0].turns;
    for (const t of turns) {
      assert.ok(t.provider, `turn ${t.turn} has provider usage`);
      assert.strictEqual(t.provider.input, t.promptTokens, `turn ${t.turn} prompt tokens`);
      assert.strictEqual(t.provider.cacheRead, t.cached.anthropic.read, `turn ${t.turn} cache read`);
      assert.strictEqual(t.provider.cacheWrite, t.cached.anthropic.write, `turn ${t.turn} cache write`);
    }
    assert.deepStrictEqual(
      turns.map((t) => t.cached.anthropic.read),
      [0, 2592, 4439, 4758, 7617, 7957],
      'the later turns read the cache (the check is not vacuous)',
    );
    assert.ok(!logs.join('\n').includes(ANTHROPIC_KEY));
    assert.ok(!JSON.stringify(report).includes(ANTHROPIC_KEY));
  });

  it('several strategies (engine layouts and baselines): each is its own chat and matches its prediction (OpenAI)', async () => {
    const traj = loadTrajectory(WALKTHROUGH);
    const args = parseArgs([
      WALKTHROUGH,
      '--strategy',
      'library,transcript,inline-every-turn,latest-copy',
      '--provider',
      'openai',
      '--base-url',
      openai.url,
      '--model',
      'imitation-gpt',
    ]);
    const report = await runAgainstProvider(traj, args, { env: { OPENAI_API_KEY: OPENAI_KEY }, log });
    assert.deepStrictEqual(
      report.strategies.map((s) => s.name),
      ['library', 'transcript', 'inline-every-turn', 'latest-copy'],
    );
    for (const s of report.strategies) {
      for (const t of s.turns) {
        assert.ok(t.provider, `${s.name} turn ${t.turn}`);
        assert.strictEqual(t.provider.cacheRead, t.cached.openai, `${s.name} turn ${t.turn} cached tokens`);
      }
    }
    assert.strictEqual(report.timings.providerRequests, 4 * traj.turns.length);
  });

  it('the scripted reply is the history whatever the model answers', async () => {
    const traj = loadTrajectory(WALKTHROUGH);
    const args = parseArgs([WALKTHROUGH, '--provider', 'openai', '--base-url', openai.url, '--model', 'imitation-gpt']);
    const before = openai.chatRequests.length;
    openai.queueReply(...traj.turns.map((_, i) => `something else entirely ${i}`));
    await runAgainstProvider(traj, args, { env: { OPENAI_API_KEY: OPENAI_KEY }, log });
    const second = openai.chatRequests[before + 1].body as { messages: { role: string; content: string }[] };
    const assistant = second.messages.filter((m) => m.role === 'assistant');
    assert.deepStrictEqual(
      assistant.map((m) => m.content),
      [traj.turns[0].reply],
    );
  });

  it('a missing key for a remote endpoint is a clear argument error (exit 2), before any request', async () => {
    const traj = loadTrajectory(WALKTHROUGH);
    const before = guard.foreign.length + guard.local.length;
    for (const [name, variable] of [
      ['openai', 'OPENAI_API_KEY'],
      ['anthropic', 'ANTHROPIC_API_KEY'],
    ] as const) {
      const args = parseArgs([WALKTHROUGH, '--provider', name, '--base-url', 'https://api.example.invalid/v1', '--model', 'm']);
      await assert.rejects(
        runAgainstProvider(traj, args, { env: {}, log }),
        (e: unknown) => e instanceof ArgError && e.message.includes(variable),
      );
    }
    assert.strictEqual(guard.foreign.length + guard.local.length, before, 'nothing was contacted');

    // Through the CLI: exit code 2 and the message on stderr.
    const saved = process.env.OPENAI_API_KEY;
    delete process.env.OPENAI_API_KEY;
    const writes: string[] = [];
    const orig = process.stderr.write.bind(process.stderr);
    (process.stderr as { write: unknown }).write = (s: string) => (writes.push(String(s)), true);
    try {
      const code = await main([WALKTHROUGH, '--provider', 'openai', '--base-url', 'https://api.example.invalid/v1', '--model', 'm']);
      assert.strictEqual(code, 2);
    } finally {
      (process.stderr as { write: unknown }).write = orig;
      if (saved !== undefined) process.env.OPENAI_API_KEY = saved;
    }
    assert.match(writes.join(''), /OPENAI_API_KEY is not set/);
  });

  it('a provider failure names the turn and never shows the key', async () => {
    const traj = loadTrajectory(WALKTHROUGH);
    const args = parseArgs([WALKTHROUGH, '--provider', 'openai', '--base-url', openai.url, '--model', 'imitation-gpt']);
    // The imitation server echoes the key it was given in its 401 message, like a careless server.
    await assert.rejects(
      runAgainstProvider(traj, args, { env: { OPENAI_API_KEY: 'sk-wrong-key-0123456789abcdef' }, log }),
      (e: unknown) => e instanceof Error && /turn 1/.test(e.message) && !e.message.includes('sk-wrong-key-0123456789abcdef'),
    );
    assert.ok(!logs.join('\n').includes('sk-wrong-key-0123456789abcdef'));
  });

  it('the CLI prints the report with provider usage as JSON', async () => {
    const saved = process.env.ANTHROPIC_API_KEY;
    process.env.ANTHROPIC_API_KEY = ANTHROPIC_KEY;
    const out: string[] = [];
    const err: string[] = [];
    const ow = process.stdout.write.bind(process.stdout);
    const ew = process.stderr.write.bind(process.stderr);
    (process.stdout as { write: unknown }).write = (s: string) => (out.push(String(s)), true);
    (process.stderr as { write: unknown }).write = (s: string) => (err.push(String(s)), true);
    let code: number;
    try {
      code = await main([WALKTHROUGH, '--json', '--provider', 'anthropic', '--base-url', anthropic.url, '--model', 'imitation-claude']);
    } finally {
      (process.stdout as { write: unknown }).write = ow;
      (process.stderr as { write: unknown }).write = ew;
      if (saved === undefined) delete process.env.ANTHROPIC_API_KEY;
      else process.env.ANTHROPIC_API_KEY = saved;
    }
    assert.strictEqual(code, 0);
    const report = JSON.parse(out.join('')) as ReplayReport;
    assert.ok(report.strategies[0].turns.every((t) => t.provider && t.provider.cacheRead === t.cached.anthropic.read));
    assert.ok(!out.join('').includes(ANTHROPIC_KEY) && !err.join('').includes(ANTHROPIC_KEY));
    assert.ok(!sentText(anthropic).includes('sk-test-bench-OPENAI'), 'each provider gets only its own key');
  });
});
