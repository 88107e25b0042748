/**
 * Providers end to end: the REAL LangChain clients (ChatOpenAI / ChatAnthropic) over real HTTP to the
 * imitation servers on 127.0.0.1, with a network guard that fails on any other destination.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import type { ChatMessage, TextBlock } from '../../../../src/engine/types';
import { ChatCacheSimulator } from '../../../../src/services/cacheModel';
import {
  AnthropicProvider,
  OpenAIProvider,
  ProviderError,
  collectReply,
  parseRetryAfter,
  redact,
  toProviderError,
  streamWithPruneRetry,
  toAnthropicMessages,
  type ChatProvider,
  type ChatRequest,
  type ProviderUsage,
  type StreamEvent,
} from '../../../../src/services/providers';
import {
  AnthropicImitationServer,
  OpenAIImitationServer,
  startAnthropicImitation,
  startOpenAIImitation,
  type Fault,
} from '../../../support/imitationServers';
import { installNetworkGuard, type NetworkGuard } from '../../../support/networkGuard';
import { projectTokenizer } from '../../../support/tokenizers';

const OPENAI_KEY = 'sk-test-OPENAI-0123456789abcdefSECRET';
const ANTHROPIC_KEY = 'sk-ant-test-ANTHROPIC-0123456789SECRET';
const tokenizer = projectTokenizer('o200k_base');

function block(text: string, bp = false): TextBlock {
  return bp ? { type: 'text', text, cacheBreakpoint: true } : { type: 'text', text };
}

interface Trajectory {
  name: string;
  system: string;
  files: Record<string, string>;
  turns: { user: string; attach: { file?: string }[]; reply: string }[];
}

function loadTrajectory(name: string): Trajectory {
  const candidates = [
    path.resolve(__dirname, `../../../../../test/fixtures/trajectories/${name}.json`),
    path.resolve(__dirname, `../../../../../../shared/trajectories/${name}.json`),
  ];
  for (const c of candidates) if (fs.existsSync(c)) return JSON.parse(fs.readFileSync(c, 'utf8')) as Trajectory;
  // Self-contained fallback: a synthetic conversation of the same shape.
  const para = (n: number, w: string) => Array.from({ length: n }, (_, i) => `${w} line ${i}: const value${i} = compute(${i});`).join('\n');
  return {
    name: `synthetic-${name}`,
    system: 'You are a careful coding assistant.',
    files: { 'a.ts': para(300, 'a'), 'b.ts': para(200, 'b') },
    turns: [
      { user: 'Summarize this', attach: [{ file: 'a.ts' }], reply: 'A summary of a.ts.' },
      { user: 'And this one?', attach: [{ file: 'b.ts' }], reply: 'b.ts adds things.' },
      { user: 'Compare', attach: [], reply: 'They differ.' },
      { user: 'Refactor?', attach: [{ file: 'a.ts' }], reply: 'Maybe.' },
    ],
  };
}

const fileBlock = (t: Trajectory, f: string) => `<file path="${f}">\n${t.files[f]}\n</file>\n`;

/**
 * The engine's two layouts (docs/design.md#layouts) as requests, files only (selections skipped).
 * - transcript: system → past turns re-sent byte-identical → current user message; a file's full
 *   block is sent in the turn that first attaches it. Breakpoints: end of the system message, end of
 *   the previous request (the previous user message: the last prefix that was written; a breakpoint
 *   after the previous reply was never written, so it could not be read), last block.
 * - library: system = L1 + every file seen so far (grows: everything after it falls out of the
 *   cache) → history → current user message. Breakpoints: end of L1, end of L2, last history block,
 *   last block.
 */
function conversation(t: Trajectory, layout: 'transcript' | 'library'): { requests: ChatMessage[][]; replies: string[] } {
  const system = `${t.system}\n\n${'Rules: answer precisely, cite file and line. '.repeat(3)}`;
  const seen: string[] = [];
  const userBlocks: TextBlock[][] = [];
  const requests: ChatMessage[][] = [];
  t.turns.forEach((turn, i) => {
    const files = turn.attach.map((a) => a.file).filter((f): f is string => !!f && f in t.files);
    const blocks: TextBlock[] = [];
    const fresh = files.filter((f) => !seen.includes(f));
    for (const f of files) {
      if (layout === 'transcript') blocks.push(block(fresh.includes(f) ? fileBlock(t, f) : `[see ${f} above]\n`));
      else blocks.push(block(fresh.includes(f) ? fileBlock(t, f) : `[see ${f} in the Context Library]\n`));
    }
    for (const f of fresh) seen.push(f);
    blocks.push(block(turn.user));
    userBlocks.push(blocks);
    const last = (bs: TextBlock[]) => bs.map((b, k) => block(b.text, k === bs.length - 1));
    if (layout === 'transcript') {
      const msgs: ChatMessage[] = [{ role: 'system', content: [block(system, true)] }];
      for (let j = 0; j < i; j++) {
        msgs.push({ role: 'user', content: j === i - 1 ? last(userBlocks[j]) : userBlocks[j].map((b) => block(b.text)) });
        msgs.push({ role: 'assistant', content: [block(t.turns[j].reply)] });
      }
      msgs.push({ role: 'user', content: last(blocks) });
      requests.push(msgs);
    } else {
      const library = seen.filter((f) => !fresh.includes(f)).map((f) => block(fileBlock(t, f)));
      const sys: TextBlock[] = [block(system, true), ...(library.length ? [block('# Context Library\n'), ...last(library)] : [])];
      const msgs: ChatMessage[] = [{ role: 'system', content: sys }];
      for (let j = 0; j < i; j++) {
        msgs.push({ role: 'user', content: [block(t.turns[j].user)] });
        msgs.push({ role: 'assistant', content: [block(t.turns[j].reply, j === i - 1)] });
      }
      msgs.push({ role: 'user', content: last(blocks) });
      requests.push(msgs);
    }
  });
  return { requests, replies: t.turns.map((x) => x.reply) };
}

async function drain(events: AsyncIterable<StreamEvent>): Promise<{ events: StreamEvent[]; error?: unknown; ms: number }> {
  const out: StreamEvent[] = [];
  const t0 = Date.now();
  try {
    for await (const e of events) out.push(e);
    return { events: out, ms: Date.now() - t0 };
  } catch (error) {
    return { events: out, error, ms: Date.now() - t0 };
  }
}

function req(messages: ChatMessage[], extra: Partial<ChatRequest> = {}): ChatRequest {
  return { messages, model: 'imitation-model', conversationId: 'chat-1', maxOutputTokens: 512, timeoutMs: 5000, ...extra };
}

const simple: ChatMessage[] = [
  { role: 'system', content: [block('You are a test assistant.', true)] },
  { role: 'user', content: [block('Hello '), block('there', true)] },
];

describe('providers (real LangChain clients → imitation servers on 127.0.0.1)', function () {
  this.timeout(20000);
  let guard: NetworkGuard;
  let oai: OpenAIImitationServer;
  let ant: AnthropicImitationServer;
  let openai: OpenAIProvider;
  let anthropic: AnthropicProvider;
  const retries: number[] = [];
  const savedEnv: Record<string, string | undefined> = {};

  before(async () => {
    for (const k of ['LANGCHAIN_TRACING_V2', 'LANGSMITH_TRACING', 'LANGSMITH_API_KEY', 'LANGCHAIN_API_KEY']) savedEnv[k] = process.env[k];
    // A user environment that would normally send every prompt to LangSmith:
    process.env.LANGCHAIN_TRACING_V2 = 'true';
    process.env.LANGSMITH_TRACING = 'true';
    process.env.LANGSMITH_API_KEY = 'lsv2-test-not-a-real-key';
    guard = installNetworkGuard(['127.0.0.1']);
    oai = await startOpenAIImitation({ tokenizer, apiKey: OPENAI_KEY, models: ['imitation-model', 'gpt-4o'] });
    ant = await startAnthropicImitation({ tokenizer, apiKey: ANTHROPIC_KEY, models: ['imitation-model'] });
    const fast = { baseDelayMs: 10, maxDelayMs: 50, maxAttempts: 3 };
    openai = new OpenAIProvider({ apiKey: OPENAI_KEY, baseURL: oai.url, retry: fast, onRetry: (r) => retries.push(r.delayMs) });
    anthropic = new AnthropicProvider({ apiKey: ANTHROPIC_KEY, baseURL: ant.url, retry: fast, onRetry: (r) => retries.push(r.delayMs) });
  });

  after(async () => {
    await oai?.close();
    await ant?.close();
    guard?.uninstall();
    for (const [k, v] of Object.entries(savedEnv)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });

  afterEach(() => {
    assert.deepStrictEqual(guard.foreign, [], `foreign network attempts: ${guard.foreign.join(', ')}`);
  });

  const both = (): [string, () => ChatProvider, () => OpenAIImitationServer | AnthropicImitationServer][] => [
    ['openai', () => openai, () => oai],
    ['anthropic', () => anthropic, () => ant],
  ];

  for (const [name, provider, server] of both()) {
    describe(`${name}: streaming`, () => {
      it('streams the reply in order and complete, then usage, then done', async () => {
        const reply = 'Streaming works: ' + Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ') + ' — ünïcödé 🐴 end.';
        server().queueReply(reply);
        const { events, error } = await drain(provider().stream(req(simple)));
        assert.strictEqual(error, undefined);
        const texts = events.filter((e): e is Extract<StreamEvent, { type: 'text' }> => e.type === 'text');
        assert.ok(texts.length > 5, `expected several deltas, got ${texts.length}`);
        texts.forEach((e, i) => assert.strictEqual(e.seq, i));
        assert.strictEqual(texts.map((e) => e.text).join(''), reply);
        const last = events[events.length - 1];
        assert.strictEqual(last.type, 'done');
        assert.strictEqual(last.type === 'done' && last.text, reply);
        assert.strictEqual(events[events.length - 2].type, 'usage');
        const rec = server().chatRequests.at(-1)!;
        assert.deepStrictEqual((last as { usage?: ProviderUsage }).usage, rec.usage);
        assert.strictEqual(rec.usage!.output, tokenizer.count(reply));
        assert.deepStrictEqual(
          rec.messages!.map((m) => m.content.map((b) => b.text).join('')),
          simple.map((m) => m.content.map((b) => b.text).join('')),
        );
      });
    });
  }

  describe('openai: request shape', () => {
    it('sends stream_options.include_usage, max_tokens and prompt_cache_key = conversation id', async () => {
      await collectReply(openai.stream(req(simple, { conversationId: 'conv-42', maxOutputTokens: 77 })));
      const body = oai.chatRequests.at(-1)!.body as Record<string, unknown>;
      assert.strictEqual(body.stream, true);
      assert.deepStrictEqual(body.stream_options, { include_usage: true });
      assert.strictEqual(body.prompt_cache_key, 'conv-42');
      assert.strictEqual(body.max_tokens, 77);
      assert.strictEqual(oai.chatRequests.at(-1)!.headers.authorization, `Bearer ${OPENAI_KEY}`);
    });

    it('omits prompt_cache_key when the setting is off; sends text parts when asked', async () => {
      const p = new OpenAIProvider({ apiKey: OPENAI_KEY, baseURL: oai.url, promptCacheKey: false, contentFormat: 'parts' });
      await collectReply(p.stream(req(simple)));
      const body = oai.chatRequests.at(-1)!.body as { prompt_cache_key?: unknown; messages: { content: unknown }[] };
      assert.ok(!('prompt_cache_key' in body));
      assert.deepStrictEqual(body.messages[1].content, [
        { type: 'text', text: 'Hello ' },
        { type: 'text', text: 'there' },
      ]);
    });

    it('lists models (GET /v1/models)', async () => {
      assert.deepStrictEqual(await openai.listModels(), ['gpt-4o', 'imitation-model']);
    });
  });

  describe('anthropic: cache_control', () => {
    it('puts cache_control on the breakpoint blocks (system as system blocks), at most 4, ttl 1h when set', async () => {
      const many: ChatMessage[] = [
        { role: 'system', content: [block('S1', true), block('S2', true)] },
        { role: 'user', content: [block('u1', true)] },
        { role: 'assistant', content: [block('a1', true)] },
        { role: 'user', content: [block('u2a', true), block(''), block('u2b', true)] },
      ];
      const p = new AnthropicProvider({ apiKey: ANTHROPIC_KEY, baseURL: ant.url, cacheTtl: '1h' });
      await collectReply(p.stream(req(many)));
      type Wire = { type?: string; text: string; cache_control?: unknown };
      const body = ant.chatRequests.at(-1)!.body as { system: Wire[]; messages: { content: Wire[] }[] };
      assert.deepStrictEqual(body.system, [
        { type: 'text', text: 'S1' },
        { type: 'text', text: 'S2' },
      ]);
      const flagged = ([] as Wire[])
        .concat(body.system, ...body.messages.map((m) => m.content))
        .filter((b) => b.cache_control)
        .map((b) => b.text);
      assert.deepStrictEqual(flagged, ['u1', 'a1', 'u2a', 'u2b']); // the last four
      for (const b of body.messages.flatMap((m) => m.content))
        if (b.cache_control) assert.deepStrictEqual(b.cache_control, { type: 'ephemeral', ttl: '1h' });
      assert.ok(
        body.messages.every((m) => m.content.every((b) => b.text.length > 0)),
        'no empty blocks',
      );
    });

    it('moves the breakpoint of an empty block to the previous block of its message', () => {
      const lc = toAnthropicMessages([{ role: 'user', content: [block('x'), block('', true)] }]);
      assert.deepStrictEqual(lc[0].content, [{ type: 'text', text: 'x', cache_control: { type: 'ephemeral' } }]);
    });
  });

  describe('usage: provider-reported equals the cache model prediction, every turn', () => {
    const rows: string[] = [];
    after(() => {
      if (process.env.STRATA_TEST_VERBOSE) console.log(rows.join('\n'));
    });
    const cases: [string, 'transcript' | 'library'][] = [
      ['walkthrough-6', 'transcript'],
      ['walkthrough-6', 'library'],
      ['long-session-20', 'transcript'],
      ['long-session-20', 'library'],
    ];
    // The tokens the caches serve over each whole conversation (the sums of the per-turn predictions).
    const openaiCached: Record<string, number> = {
      'walkthrough-6/transcript': 26624,
      'walkthrough-6/library': 18816,
      'long-session-20/transcript': 513280,
      'long-session-20/library': 477056,
    };
    const anthropicReads: Record<string, number> = {
      'walkthrough-6/transcript': 26916,
      'walkthrough-6/library': 10572,
      'long-session-20/transcript': 514674,
      'long-session-20/library': 380967,
    };
    for (const [trajectory, layout] of cases) {
      const { requests, replies } = conversation(loadTrajectory(trajectory), layout);

      it(`openai: ${trajectory} (${layout}, ${requests.length} turns): input and cached tokens`, async () => {
        oai.resetCache();
        const sim = new ChatCacheSimulator(tokenizer);
        let cached = 0;
        for (let i = 0; i < requests.length; i++) {
          const predicted = sim.observe(requests[i]);
          oai.queueReply(replies[i]);
          const r = await collectReply(openai.stream(req(requests[i], { conversationId: `${trajectory}-${layout}` })));
          assert.strictEqual(r.text, replies[i]);
          const expected: ProviderUsage = {
            input: predicted.promptTokens,
            cacheRead: predicted.openai.cached,
            cacheWrite: 0,
            output: tokenizer.count(replies[i]),
          };
          assert.deepStrictEqual(r.usage, expected, `turn ${i + 1}`);
          cached += expected.cacheRead;
          rows.push(
            `openai ${trajectory}/${layout} turn ${i + 1}: input ${r.usage!.input} cached ${r.usage!.cacheRead} (predicted ${predicted.openai.cached})`,
          );
        }
        assert.equal(cached, openaiCached[`${trajectory}/${layout}`], 'the cached tokens of all turns');
      });

      it(`anthropic: ${trajectory} (${layout}, ${requests.length} turns): input, cache read and cache write`, async () => {
        ant.resetCache();
        const sim = new ChatCacheSimulator(tokenizer);
        let reads = 0;
        for (let i = 0; i < requests.length; i++) {
          const predicted = sim.observe(requests[i]);
          ant.queueReply(replies[i]);
          const r = await collectReply(anthropic.stream(req(requests[i])));
          assert.strictEqual(r.text, replies[i]);
          const expected: ProviderUsage = {
            input: predicted.promptTokens,
            cacheRead: predicted.anthropic.read,
            cacheWrite: predicted.anthropic.write,
            output: tokenizer.count(replies[i]),
          };
          assert.deepStrictEqual(r.usage, expected, `turn ${i + 1}`);
          reads += expected.cacheRead;
          rows.push(
            `anthropic ${trajectory}/${layout} turn ${i + 1}: input ${r.usage!.input} read ${r.usage!.cacheRead} write ${r.usage!.cacheWrite}`,
          );
        }
        assert.equal(reads, anthropicReads[`${trajectory}/${layout}`], 'the cache reads of all turns');
      });
    }
  });

  for (const [name, provider, server] of both()) {
    describe(`${name}: faults`, () => {
      const keyFree = (e: ProviderError) => {
        assert.ok(!e.message.includes(name === 'openai' ? OPENAI_KEY : ANTHROPIC_KEY), `key leaked: ${e.message}`);
        assert.ok(!/SECRET/.test(e.message), `key fragment leaked: ${e.message}`);
        assert.ok(!/SECRET/.test(JSON.stringify(e)), 'key in error fields');
        assert.ok(e.message.length > 10 && e.message.length < 500, `clear, short message: ${e.message}`);
      };
      const expectFault = async (
        fault: Fault | undefined,
        code: ProviderError['code'],
        extra: Partial<ChatRequest> = {},
        p?: ChatProvider,
        times = 1,
      ) => {
        if (fault) server().injectFault(fault, times);
        const { events, error } = await drain((p ?? provider()).stream(req(simple, extra)));
        assert.ok(error instanceof ProviderError, `expected ProviderError, got ${String(error)}`);
        assert.strictEqual(error.code, code, error.message);
        keyFree(error);
        assert.ok(!events.some((e) => e.type === 'done' || e.type === 'usage'), 'no completed result');
        return { error, events };
      };

      it('401 → bad-key, and the key the server echoed back is not in the message', async () => {
        const { error } = await expectFault(
          undefined,
          'bad-key',
          {},
          name === 'openai'
            ? new OpenAIProvider({ apiKey: 'sk-wrong-SECRET-key-123456789', baseURL: oai.url })
            : new AnthropicProvider({ apiKey: 'sk-ant-wrong-SECRET-123456789', baseURL: ant.url }),
        );
        assert.match(error.message, /API key/);
        assert.ok(!error.message.includes('sk-wrong') && !error.message.includes('sk-ant-wrong'));
        await expectFault({ kind: 'bad-key' }, 'bad-key');
      });

      it('404 unknown model → unknown-model naming the model', async () => {
        const { error } = await expectFault(undefined, 'unknown-model', { model: 'no-such-model' });
        assert.match(error.message, /no-such-model/);
      });

      it('400 context length → context-length (no retry); streamWithPruneRetry prunes harder once', async () => {
        const before = server().chatRequests.length;
        await expectFault({ kind: 'context-length' }, 'context-length');
        assert.strictEqual(server().chatRequests.length, before + 1, 'not retried');
        server().injectFault({ kind: 'context-length' });
        const calls: boolean[] = [];
        const evs: string[] = [];
        for await (const ev of streamWithPruneRetry(provider(), (harder) => (calls.push(harder), req(simple)))) evs.push(ev.type);
        assert.deepStrictEqual(calls, [false, true]);
        assert.strictEqual(evs[0], 'pruned-harder');
        assert.strictEqual(evs.at(-1), 'done');
      });

      it('429 with retry-after is retried after the advertised delay and succeeds', async () => {
        retries.length = 0;
        server().injectFault({ kind: 'rate-limit', retryAfter: '0.15' });
        const t0 = Date.now();
        const r = await collectReply(provider().stream(req(simple)));
        const ms = Date.now() - t0;
        assert.strictEqual(r.attempts, 2);
        assert.deepStrictEqual(retries, [150]);
        assert.ok(ms >= 140, `waited ${ms} ms`);
      });

      it('429 persisting past the attempts → rate-limited with the wait time', async () => {
        const { error } = await expectFault({ kind: 'rate-limit', retryAfter: '0' }, 'rate-limited', {}, undefined, 3);
        assert.strictEqual(error.attempts, 3);
        assert.match(error.message, /rate/i);
      });

      it('429 with a retry-after longer than the cap is reported at once', async () => {
        const before = server().chatRequests.length;
        const { error } = await expectFault({ kind: 'rate-limit', retryAfter: '3600' }, 'rate-limited');
        assert.strictEqual(server().chatRequests.length, before + 1);
        assert.strictEqual(error.retryAfterMs, 3_600_000);
        assert.match(error.message, /3600 s/);
      });

      it('500 is retried with backoff; persisting → server', async () => {
        server().injectFault({ kind: 'server-error' });
        const r = await collectReply(provider().stream(req(simple)));
        assert.strictEqual(r.attempts, 2);
        const { error } = await expectFault({ kind: 'server-error' }, 'server', {}, undefined, 3);
        assert.strictEqual(error.attempts, 3);
        assert.match(error.message, /500/);
      });

      it('connection reset mid-stream → network, partial text discarded, not retried', async () => {
        const before = server().chatRequests.length;
        const { events } = await expectFault({ kind: 'reset', afterChunks: 2 }, 'network');
        assert.ok(
          events.some((e) => e.type === 'text'),
          'some text had streamed',
        );
        assert.strictEqual(server().chatRequests.length, before + 1, 'never retried after output started');
      });

      it('malformed SSE → bad-response', async () => {
        await expectFault({ kind: 'malformed' }, 'bad-response');
      });

      it('a stall longer than the timeout → timeout (before and after the first token)', async () => {
        const t0 = Date.now();
        const { error } = await expectFault({ kind: 'stall', ms: 10_000 }, 'timeout', { timeoutMs: 300 });
        const ms = Date.now() - t0;
        assert.ok(ms >= 280 && ms < 1500, `timed out after ${ms} ms`);
        assert.match(error.message, /timeout/);
        const { error: e2 } = await expectFault({ kind: 'stall', ms: 10_000, afterChunks: 2 }, 'timeout', { timeoutMs: 300 });
        assert.match(e2.message, /stalled/);
      });

      it('connection refused → network', async () => {
        const dead =
          name === 'openai'
            ? new OpenAIProvider({ apiKey: OPENAI_KEY, baseURL: 'http://127.0.0.1:9/v1' })
            : new AnthropicProvider({ apiKey: ANTHROPIC_KEY, baseURL: 'http://127.0.0.1:9' });
        const { error } = await expectFault(undefined, 'network', {}, dead);
        assert.match(error.message, /127\.0\.0\.1:9/);
      });
    });
  }

  describe('cancellation', () => {
    let slowO: OpenAIImitationServer;
    let slowA: AnthropicImitationServer;
    const latencies: number[] = [];
    before(async () => {
      slowO = await startOpenAIImitation({ tokenizer, chunkDelayMs: 25, deltaChars: 3 });
      slowA = await startAnthropicImitation({ tokenizer, chunkDelayMs: 25, deltaChars: 3 });
    });
    after(async () => {
      await slowO.close();
      await slowA.close();
      if (process.env.STRATA_TEST_VERBOSE) console.log(`abort latencies (ms): ${latencies.join(', ')}`);
    });

    const long = 'This reply is long enough to still be streaming when the stop button is pressed. '.repeat(10);
    for (const name of ['openai', 'anthropic'] as const) {
      it(`${name}: abort mid-stream stops the stream within 200 ms and closes the connection`, async () => {
        const server = name === 'openai' ? slowO : slowA;
        const p =
          name === 'openai'
            ? new OpenAIProvider({ apiKey: 'k', baseURL: slowO.url })
            : new AnthropicProvider({ apiKey: 'k', baseURL: slowA.url });
        server.queueReply(long);
        const ctrl = new AbortController();
        let abortedAt = 0;
        let texts = 0;
        let caught: unknown;
        try {
          for await (const ev of p.stream(req(simple, { signal: ctrl.signal }))) {
            if (ev.type === 'text' && ++texts === 3) {
              abortedAt = Date.now();
              ctrl.abort();
            }
            assert.notStrictEqual(ev.type, 'done');
          }
        } catch (e) {
          caught = e;
        }
        const latency = Date.now() - abortedAt;
        latencies.push(latency);
        assert.ok(ProviderError.is(caught, 'aborted'), String(caught));
        assert.ok(latency < 200, `abort took ${latency} ms`);
        const rec = server.chatRequests.at(-1)!;
        for (let i = 0; i < 40 && rec.clientClosedAt === undefined; i++) await new Promise((r) => setTimeout(r, 5));
        assert.ok(rec.clientClosedAt !== undefined, 'the server saw the connection close');
      });

      it(`${name}: abort while waiting for the first byte (stall) stops within 200 ms`, async () => {
        const server = name === 'openai' ? slowO : slowA;
        const p =
          name === 'openai'
            ? new OpenAIProvider({ apiKey: 'k', baseURL: slowO.url })
            : new AnthropicProvider({ apiKey: 'k', baseURL: slowA.url });
        server.injectFault({ kind: 'stall', ms: 10_000 });
        const ctrl = new AbortController();
        setTimeout(() => ctrl.abort(), 150);
        const { error, ms } = await drain(p.stream(req(simple, { signal: ctrl.signal })));
        latencies.push(ms - 150);
        assert.ok(ProviderError.is(error, 'aborted'), String(error));
        assert.ok(ms - 150 < 200, `abort took ${ms - 150} ms`);
      });
    }

    it('a consumer that stops reading (break) closes the connection', async () => {
      const p = new AnthropicProvider({ apiKey: 'k', baseURL: slowA.url });
      slowA.queueReply(long);
      let n = 0;
      for await (const ev of p.stream(req(simple))) if (ev.type === 'text' && ++n === 2) break;
      const rec = slowA.chatRequests.at(-1)!;
      for (let i = 0; i < 40 && rec.clientClosedAt === undefined; i++) await new Promise((r) => setTimeout(r, 5));
      assert.ok(rec.clientClosedAt !== undefined, 'the server saw the connection close');
    });

    it('abort during a retry wait stops at once; an already-aborted signal sends nothing', async () => {
      const p = new OpenAIProvider({ apiKey: 'k', baseURL: slowO.url });
      slowO.injectFault({ kind: 'rate-limit', retryAfter: '5' });
      const ctrl = new AbortController();
      setTimeout(() => ctrl.abort(), 100);
      const { error, ms } = await drain(p.stream(req(simple, { signal: ctrl.signal })));
      assert.ok(ProviderError.is(error, 'aborted'));
      assert.ok(ms < 300, `took ${ms} ms`);
      const before = slowO.chatRequests.length;
      const { error: e2 } = await drain(p.stream(req(simple, { signal: AbortSignal.abort() })));
      assert.ok(ProviderError.is(e2, 'aborted'));
      assert.strictEqual(slowO.chatRequests.length, before);
    });
  });

  describe('tracing and network', () => {
    it('LangSmith tracing env vars are pinned off by the providers', () => {
      assert.strictEqual(process.env.LANGCHAIN_TRACING_V2, 'false');
      assert.strictEqual(process.env.LANGSMITH_TRACING, 'false');
    });

    it('the guard sees the local traffic and would block anything else', async () => {
      assert.ok(
        guard.local.some((l) => l.startsWith('fetch 127.0.0.1')),
        'fetch traffic seen',
      );
      assert.ok(
        guard.local.some((l) => l.startsWith('net.')),
        `socket traffic seen: ${[...new Set(guard.local)].join(', ')}`,
      );
      const g2 = installNetworkGuard(['127.0.0.1']);
      try {
        await assert.rejects(fetch('https://api.openai.com/v1/models'));
        assert.deepStrictEqual(g2.foreign, ['fetch api.openai.com']);
      } finally {
        g2.uninstall();
      }
    });
  });
});

describe('providers: pure helpers', () => {
  it('parseRetryAfter: seconds, decimals, HTTP date, retry-after-ms, absent', () => {
    const h = (o: Record<string, string>) => new Headers(o);
    assert.strictEqual(parseRetryAfter(h({ 'retry-after': '7' })), 7000);
    assert.strictEqual(parseRetryAfter(h({ 'retry-after': '0.25' })), 250);
    const now = Date.parse('2025-01-01T00:00:00Z');
    assert.strictEqual(parseRetryAfter(h({ 'retry-after': 'Wed, 01 Jan 2025 00:00:30 GMT' }), now), 30_000);
    assert.strictEqual(parseRetryAfter(h({ 'retry-after-ms': '1200', 'retry-after': '9' })), 1200);
    assert.strictEqual(parseRetryAfter({ 'Retry-After': '3' }), 3000);
    assert.strictEqual(parseRetryAfter(h({})), undefined);
  });

  it('toProviderError maps socket, DNS, HTTP and LangChain errors without leaking the key', () => {
    const ctx = { provider: 'OpenAI', baseURL: 'https://user:pw@api.example.com/v1', model: 'm', apiKey: 'sk-live-SECRET-123456' };
    const code = (e: unknown) => toProviderError(e, ctx).code;
    const dns = Object.assign(new TypeError('fetch failed'), {
      cause: Object.assign(new Error('getaddrinfo ENOTFOUND api.example.com'), { code: 'ENOTFOUND' }),
    });
    assert.strictEqual(code(dns), 'network');
    assert.match(toProviderError(dns, ctx).message, /https:\/\/api\.example\.com/);
    assert.ok(!toProviderError(dns, ctx).message.includes('pw'), 'no credentials from the URL');
    assert.strictEqual(
      code(
        Object.assign(new TypeError('terminated'), { cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }) }),
      ),
      'network',
    );
    assert.strictEqual(code(Object.assign(new Error('Connection error.'), { cause: { code: 'ECONNRESET' } })), 'network');
    assert.strictEqual(code(Object.assign(new Error('403 forbidden'), { status: 403 })), 'bad-key');
    assert.strictEqual(
      code(Object.assign(new Error('413'), { status: 413, error: { message: 'prompt is too long: 300000 tokens' } })),
      'context-length',
    );
    assert.strictEqual(code(Object.assign(new Error('x'), { name: 'ContextOverflowError' })), 'context-length');
    assert.strictEqual(code(Object.assign(new Error('503'), { status: 503 })), 'server');
    assert.strictEqual(code(Object.assign(new Error('529'), { status: 529 })), 'server');
    assert.strictEqual(code(Object.assign(new Error('Request was aborted.'), { name: 'AbortError' })), 'aborted');
    assert.strictEqual(code(new SyntaxError('Unexpected end of JSON input')), 'bad-response');
    const bad = toProviderError(
      Object.assign(new Error('400 Unrecognized request argument supplied: prompt_cache_key (key sk-live-SECRET-123456)'), { status: 400 }),
      ctx,
    );
    assert.strictEqual(bad.code, 'bad-request');
    assert.match(bad.message, /strata\.promptCacheKey/);
    assert.ok(!bad.message.includes('SECRET'), bad.message);
  });

  it('redact removes the key and key-like strings', () => {
    const s = redact(
      'Incorrect API key provided: sk-abc123def456. Header Authorization: Bearer sk-zzz and x-api-key: hunter2hunter2',
      'hunter2hunter2',
    );
    assert.ok(!/sk-abc|sk-zzz|hunter2/.test(s), s);
  });

  it('a local OpenAI-compatible server needs no key (the SDK gets a placeholder)', async () => {
    const server = await startOpenAIImitation({ tokenizer, models: ['m2', 'm1'] });
    try {
      const r = await collectReply(new OpenAIProvider({ baseURL: server.url }).stream(req(simple, { model: 'm1' })));
      assert.equal(r.text, 'This is a streamed reply from the Strata imitation server.');
      assert.strictEqual(server.chatRequests.at(-1)!.headers.authorization, 'Bearer strata-local-no-key');
    } finally {
      await server.close();
    }
  });

  it('a missing key for a remote endpoint fails before any request', async () => {
    const { error } = await drain(new OpenAIProvider({}).stream(req(simple)));
    assert.ok(ProviderError.is(error, 'bad-key'), String(error));
    const { error: e2 } = await drain(new AnthropicProvider({}).stream(req(simple)));
    assert.ok(ProviderError.is(e2, 'bad-key'), String(e2));
  });
});
