/**
 * The tool loop against the imitation servers: a turn whose model calls tools, through the
 * REAL LangChain providers (bindTools, streamed tool-call chunks) over HTTP, with the requests the
 * servers received asserted — every model request a pure append of the one before (cache hits
 * within the turn), each version's full block once, refusals for `.env` and `../` without content —
 * then Stop in the middle of the loop, and the step limit.
 */
import * as assert from 'node:assert/strict';
import { PromptContextEngine } from '../../../src/engine/engine';
import type { ChatMessage } from '../../../src/engine/types';
import { MemoryWorkspace } from '../../../src/services/memoryWorkspace';
import { AnthropicProvider, OpenAIProvider, type ChatProvider } from '../../../src/services/providers';
import { GuardedTokenizer } from '../../../src/services/tokenizer';
import { TOOL_DEFINITIONS } from '../../../src/services/tools/definitions';
import { ToolExecutor } from '../../../src/services/tools/executor';
import { TurnPipeline, type SendOptions, type TurnEvent } from '../../../src/services/turnPipeline';
import {
  startAnthropicImitation,
  startOpenAIImitation,
  type AnthropicImitationServer,
  type OpenAIImitationServer,
  type RecordedRequest,
} from '../../support/imitationServers';
import { installNetworkGuard, type NetworkGuard } from '../../support/networkGuard';

const tokenizer = new GuardedTokenizer('o200k_base');
const SECRET = 'ANTHROPIC_API_KEY=sk-ant-live-LOOPTEST-987654321';
/** Big enough (≈2,000 tokens) that the prefix of a later step passes the 1,024-token cache minimum. */
const SERVICE_TS =
  Array.from(
    { length: 120 },
    (_, i) => `export function handler${i}(req: Request): Response { return respond(req, ${i}); } // route ${i + 1}`,
  ).join('\n') + '\n';
const UTIL_TS = 'export function respond(req: Request, n: number): Response {\n  return new Response(String(n));\n}\n';

function workspace(): MemoryWorkspace {
  return new MemoryWorkspace({ 'src/service.ts': SERVICE_TS, 'src/util.ts': UTIL_TS, '.env': SECRET, 'README.md': '# svc\n' });
}

function plain(m: ChatMessage): unknown {
  return { role: m.role, texts: m.content.map((b) => b.text), toolCalls: m.toolCalls, toolCallId: m.toolCallId };
}

function assertAppends(requests: RecordedRequest[]): void {
  for (let i = 1; i < requests.length; i++) {
    const prev = requests[i - 1].messages!;
    const next = requests[i].messages!;
    assert.ok(next.length > prev.length, `request ${i + 1} grew`);
    assert.deepEqual(next.slice(0, prev.length).map(plain), prev.map(plain), `request ${i + 1} is a pure append of request ${i}`);
  }
}

function allText(messages: readonly ChatMessage[]): string {
  return messages.map((m) => m.content.map((b) => b.text).join('')).join('\n');
}

function count(hay: string, needle: string): number {
  let n = 0;
  for (let i = hay.indexOf(needle); i >= 0; i = hay.indexOf(needle, i + 1)) n++;
  return n;
}

describe('tool loop through the LangChain providers against the imitation servers', function () {
  this.timeout(60_000);
  let guard: NetworkGuard;
  let openai: OpenAIImitationServer;
  let anthropic: AnthropicImitationServer;

  before(async () => {
    guard = installNetworkGuard();
    openai = await startOpenAIImitation({ deltaChars: 4 });
    anthropic = await startAnthropicImitation({ deltaChars: 4 });
  });
  after(async () => {
    await openai?.close();
    await anthropic?.close();
    guard?.uninstall();
  });
  afterEach(() => assert.deepEqual(guard.foreign, [], 'no request may leave this machine'));

  const apis: [string, () => ChatProvider, () => OpenAIImitationServer | AnthropicImitationServer][] = [
    ['OpenAI', () => new OpenAIProvider({ baseURL: openai.url }), () => openai],
    ['Anthropic', () => new AnthropicProvider({ baseURL: anthropic.url }), () => anthropic],
  ];

  function pipeline(chat: string): { ws: MemoryWorkspace; pipeline: TurnPipeline } {
    const ws = workspace();
    const engine = new PromptContextEngine({
      conversationId: chat,
      layout: 'transcript',
      policy: 'append-version',
      tokenizer,
      system: 'You are a coding assistant. Read the workspace with the tools.',
      limits: { contextWindow: 128_000, maxOutputTokens: 1024 },
      tools: true,
    });
    return { ws, pipeline: new TurnPipeline({ engine, port: ws, check: true }) };
  }

  function send(ws: MemoryWorkspace, events: TurnEvent[], over: Partial<SendOptions> = {}, maxSteps = 8): SendOptions {
    return {
      model: 'imitation-model',
      maxOutputTokens: 256,
      onEvent: (e) => events.push(e),
      tools: { definitions: TOOL_DEFINITIONS, executor: new ToolExecutor(ws, tokenizer), maxSteps, maxTurnTokens: 60_000 },
      ...over,
    };
  }

  for (const [name, makeProvider, server] of apis) {
    it(`${name}: each step a pure append, each version's block once, refusals for .env and ../, cache hits within the turn`, async () => {
      const s = server();
      const before = s.chatRequests.length;
      s.queueReply(
        {
          text: 'Reading the service and the env file.',
          toolCalls: [
            { name: 'read_file', args: { path: 'src/service.ts' } },
            { name: 'read_file', args: { path: '.env' } },
          ],
        },
        {
          toolCalls: [
            { name: 'read_file', args: { path: '../deploy/secrets.json' } },
            { name: 'read_file', args: { path: 'src/service.ts', startLine: 3, endLine: 9 } },
            { name: 'read_file', args: { path: 'src/util.ts' } },
          ],
        },
        'handler2 calls respond(req, 2).',
      );
      const { ws, pipeline: p } = pipeline(`loop-${name.toLowerCase()}`);
      const events: TurnEvent[] = [];
      const outcome = await p.run({ userText: 'What does handler2 return?' }, makeProvider(), send(ws, events));
      assert.equal(outcome.status, 'done', JSON.stringify(outcome.status === 'error' ? outcome.error : outcome.status));
      assert.deepEqual(outcome.violations, []);
      const reqs = s.chatRequests.slice(before);
      assert.equal(reqs.length, 3, 'three model requests');
      assertAppends(reqs);
      for (const r of reqs)
        assert.deepEqual(
          r.tools,
          TOOL_DEFINITIONS.map((d) => d.name),
          'the tools in every request',
        );
      const last = reqs[2].messages!;
      const text = allText(last);
      assert.equal(count(text, SERVICE_TS), 1, 'service.ts once in full');
      assert.equal(count(text, UTIL_TS), 1);
      assert.ok(!JSON.stringify(reqs.map((r) => r.body)).includes('sk-ant-live-LOOPTEST'), 'no secret in any request');
      const results = last.filter((m) => m.role === 'tool').map((m) => allText([m]));
      assert.equal(results.length, 5);
      assert.match(results[1], /^read_file refused \(excluded\): \.env matches the exclude pattern/);
      assert.match(results[2], /^read_file refused \(outside-workspace\): \.\.\/deploy\/secrets\.json is outside the workspace/);
      assert.match(
        results[3],
        /^<ref id="file:src\/service\.ts" version="1" sha="[0-9a-f]{8}"\/> \(read again, unchanged: lines 3-9 of it/,
      );
      // The calls went back with the ids the server gave them.
      const ids = reqs[0].toolCalls!.map((c) => c.id).concat(reqs[1].toolCalls!.map((c) => c.id));
      assert.deepEqual(
        last.filter((m) => m.role === 'tool').map((m) => m.toolCallId),
        ids,
      );
      // Cache hits within the turn: each later request reads what the one before wrote.
      assert.ok(reqs[1].usage!.cacheRead === 0 || name === 'OpenAI', 'step 1 wrote; nothing before it');
      // Anthropic reads all of step 2's request (it wrote it); OpenAI serves whole 128-token blocks of it.
      assert.equal(
        reqs[2].usage!.cacheRead,
        name === 'OpenAI' ? 2816 : 2919,
        `step 3 reads step 2's prefix (${JSON.stringify(reqs[2].usage)})`,
      );
      assert.ok(reqs[2].usage!.cacheRead >= reqs[1].usage!.input - 128, 'nearly all of the previous request is a cache hit');
      // The panel's view of the steps, and the reply.
      assert.deepEqual(
        outcome.toolSteps.map((v) => `${v.name}:${v.status}${v.reused ? ':reused' : ''}`),
        ['read_file:done', 'read_file:refused', 'read_file:refused', 'read_file:done:reused', 'read_file:done'],
      );
      assert.ok(
        outcome.toolSteps.every((v) => v.cachedReported === true),
        'cached tokens as the provider reported them',
      );
      assert.equal(outcome.status === 'done' && outcome.reply, 'handler2 calls respond(req, 2).');
      assert.ok(
        events.some((e) => e.type === 'toolCall' && e.args === undefined),
        'a toolCall event while the call streamed',
      );
      // The next turn extends the last request.
      s.queueReply('Nothing else.');
      const next = await p.run({ userText: 'Anything else?' }, makeProvider(), send(ws, []));
      assert.equal(next.status, 'done');
      const after = s.chatRequests[s.chatRequests.length - 1].messages!;
      assert.deepEqual(after.slice(0, last.length).map(plain), last.map(plain), 'turn 2 extends the tool turn');
      assert.ok(s.chatRequests[s.chatRequests.length - 1].usage!.cacheRead > reqs[2].usage!.cacheRead);
    });
  }

  it('Stop in the middle of the loop ends it at once: no further request; the steps done and the streamed text are kept', async () => {
    const slow = await startOpenAIImitation({ deltaChars: 2, chunkDelayMs: 30 });
    try {
      slow.queueReply(
        { toolCalls: [{ name: 'read_file', args: { path: 'src/util.ts' } }] },
        'This reply streams slowly, and the user stops it half way through, so only part of it is kept.',
        'never sent',
      );
      const { ws, pipeline: p } = pipeline('loop-stop');
      const controller = new AbortController();
      const events: TurnEvent[] = [];
      let chunks = 0;
      const t0 = Date.now();
      let stoppedAt = 0;
      const outcome = await p.run(
        { userText: 'Read util' },
        new OpenAIProvider({ baseURL: slow.url }),
        send(ws, events, {
          signal: controller.signal,
          onEvent: (e) => {
            events.push(e);
            if (e.type === 'text' && ++chunks === 5) {
              stoppedAt = Date.now();
              controller.abort();
            }
          },
        }),
      );
      const ended = Date.now();
      assert.equal(outcome.status, 'stopped');
      assert.equal(outcome.status === 'stopped' && outcome.kept, true);
      assert.ok(ended - stoppedAt < 500, `the loop ended ${ended - stoppedAt} ms after Stop`);
      assert.equal(slow.chatRequests.length, 2, 'the step request, then the one that was stopped; no third');
      for (let i = 0; i < 50 && slow.chatRequests[1].clientClosedAt === undefined; i++) await new Promise((r) => setTimeout(r, 20));
      assert.ok(slow.chatRequests[1].clientClosedAt !== undefined, 'the stopped stream was closed');
      const rec = p.engine.state.turns[0];
      assert.equal(rec.steps!.length, 1);
      assert.equal(rec.reply, 'This reply', 'what streamed before Stop (five chunks of two characters)');
      assert.ok(Date.now() - t0 < 10_000);
    } finally {
      await slow.close();
    }
  });

  it('the step limit: a model that keeps calling tools gets notes past the limit, then its next answer ends the turn', async () => {
    const before = openai.chatRequests.length;
    openai.queueReply(
      { toolCalls: [{ name: 'list_files', args: { glob: '**/*' } }] },
      { toolCalls: [{ name: 'read_file', args: { path: 'README.md' } }] },
      { text: 'One more.', toolCalls: [{ name: 'read_file', args: { path: 'src/util.ts' } }] },
    );
    const { ws, pipeline: p } = pipeline('loop-limit');
    const outcome = await p.run({ userText: 'Look around' }, new OpenAIProvider({ baseURL: openai.url }), send(ws, [], {}, 1));
    assert.equal(outcome.status, 'done');
    const reqs = openai.chatRequests.slice(before);
    assert.equal(reqs.length, 3, 'one round of tools, one answered with a note, one last call');
    assertAppends(reqs);
    assert.match(allText(reqs[2].messages!.slice(-1)), /^\[read_file was not run: the limit of 1 tool steps in one turn was reached/);
    assert.equal(outcome.status === 'done' && outcome.reply, 'One more.', 'the last answer is the reply; its calls are not run');
  });
});
