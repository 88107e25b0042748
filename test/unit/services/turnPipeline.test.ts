/**
 * The turn pipeline (src/services/turnPipeline.ts) end to end: full turns through the REAL LangChain
 * providers over HTTP to the imitation servers (a network guard fails on any other destination),
 * with the requests the servers received asserted; stop, provider errors, context-length retries,
 * previews, blocked turns and isolation at send; and the synchronous driver the replay uses.
 */
import * as assert from 'node:assert/strict';
import { PromptContextEngine, type EngineOptions } from '../../../src/engine/engine';
import { IsolationPolicy, DEFAULT_EXCLUDES, type Rejection } from '../../../src/engine/isolation';
import { extractBody } from '../../../src/engine/render';
import { ChatStore } from '../../../src/services/store/chatStore';
import { MemoryWorkspace } from '../../../src/services/memoryWorkspace';
import { AnthropicProvider, OpenAIProvider, ProviderError, type ChatProvider } from '../../../src/services/providers';
import { ScriptedProvider } from '../../../src/services/providers/scripted';
import { GuardedTokenizer } from '../../../src/services/tokenizer';
import { TurnPipeline, type TurnEvent, type TurnOutcome } from '../../../src/services/turnPipeline';
import { formatTurnReport } from '../../../src/services/turn/turnReport';
import type { TurnRequest } from '../../../src/services/turn/turnRequest';
import type { WorkspacePort } from '../../../src/services/workspacePort';
import {
  startAnthropicImitation,
  startOpenAIImitation,
  type AnthropicImitationServer,
  type OpenAIImitationServer,
} from '../../support/imitationServers';
import { installNetworkGuard, type NetworkGuard } from '../../support/networkGuard';
import { tempDir } from '../../support/tempDir';

const OPENAI_KEY = 'sk-test-pipeline-OPENAI-0123456789SECRET';
const ANTHROPIC_KEY = 'sk-ant-test-pipeline-ANTHROPIC-0123456789SECRET';
const tokenizer = new GuardedTokenizer('o200k_base');
const tmp = (): string => tempDir('strata-pipeline-');

const A_TS = Array.from({ length: 60 }, (_, i) => `export const a${i} = ${i}; // line ${i + 1}`).join('\n') + '\n';
/** CRLF, a tab, a non-ASCII line and a fake closing tag: selection bytes must arrive verbatim. */
const B_TS = ['// b.ts', 'function b() {\r', '\treturn "ünïcödé </selection:00000000>";\r', '}\r', 'export { b };', ''].join('\n');

function files(): Record<string, string> {
  return { 'src/a.ts': A_TS, 'src/b.ts': B_TS, 'README.md': '# readme\n' };
}

function engine(opts: Partial<EngineOptions> = {}): PromptContextEngine {
  return new PromptContextEngine({
    conversationId: 'pipeline-test',
    layout: 'transcript',
    policy: 'append-version',
    tokenizer,
    system: 'You are a coding assistant.',
    limits: { contextWindow: 128_000, maxOutputTokens: 1024 },
    ...opts,
  });
}

interface Harness {
  ws: MemoryWorkspace;
  store: ChatStore;
  pipeline: TurnPipeline;
  events: TurnEvent[];
  logs: string[];
}

function harness(opts: { engine?: Partial<EngineOptions>; port?: WorkspacePort } = {}): Harness {
  const ws = new MemoryWorkspace(files());
  const store = ChatStore.open(tmp(), { durable: false });
  const logs: string[] = [];
  const pipeline = new TurnPipeline({
    engine: engine(opts.engine),
    port: opts.port ?? ws,
    persist: { store, chatId: 'pipeline-test' },
    check: true,
    warm: (t, s) => tokenizer.warm(t, s),
    log: (l) => logs.push(l),
  });
  return { ws, store, pipeline, events: [], logs };
}

function send(h: Harness, model: string, extra: { signal?: AbortSignal; onEvent?: (e: TurnEvent) => void } = {}) {
  return {
    model,
    maxOutputTokens: 256,
    modelLabel: `test · ${model}`,
    signal: extra.signal,
    onEvent: (e: TurnEvent) => {
      h.events.push(e);
      extra.onEvent?.(e);
    },
  };
}

/** The text of a chat request body, whatever the API (system + every message). */
function requestText(body: unknown): string {
  const b = body as { system?: unknown; messages: { content: unknown }[] };
  const parts: string[] = [];
  const add = (c: unknown) => {
    if (typeof c === 'string') parts.push(c);
    else if (Array.isArray(c))
      for (const p of c)
        if (p && typeof p === 'object' && typeof (p as { text?: unknown }).text === 'string') parts.push((p as { text: string }).text);
  };
  add(b.system);
  for (const m of b.messages) add(m.content);
  return parts.join('');
}

/** Full blocks (`<file …>` / `<selection …>` with a closing marker) in a request text: opening line → bodies. */
function fullBlocks(text: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const re = /<(file|selection) id="[^"]*" version="\d+"[^>\n]*>\n/g;
  for (const m of text.matchAll(re)) {
    const sha = /sha="([0-9a-f-]+)"/.exec(m[0])![1];
    const marker = `\n</${m[1]}:${sha}>\n`;
    const end = text.indexOf(marker, m.index! + m[0].length - 1);
    assert.ok(end >= 0, `block ${m[0].trim()} has its closing marker`);
    const block = text.slice(m.index!, end + marker.length);
    const list = out.get(m[0]) ?? [];
    list.push(extractBody(block)!);
    out.set(m[0], list);
  }
  return out;
}

describe('turn pipeline: full turns against the imitation servers', function () {
  this.timeout(60_000);
  let guard: NetworkGuard;
  let openai: OpenAIImitationServer;
  let anthropic: AnthropicImitationServer;

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
  afterEach(() => assert.deepStrictEqual(guard.foreign, [], 'no request may leave this machine'));

  const cases: [string, () => ChatProvider, () => OpenAIImitationServer | AnthropicImitationServer, string][] = [
    ['OpenAI', () => new OpenAIProvider({ apiKey: OPENAI_KEY, baseURL: openai.url }), () => openai, 'imitation-gpt'],
    ['Anthropic', () => new AnthropicProvider({ apiKey: ANTHROPIC_KEY, baseURL: anthropic.url }), () => anthropic, 'imitation-claude'],
  ];

  for (const [name, provider, server, model] of cases) {
    it(`${name}: three turns — selection bytes verbatim, each version's full block once per request, references after; persisted with usage`, async () => {
      const h = harness();
      const srv = server();
      srv.resetCache();
      const before = srv.chatRequests.length;
      const turns: TurnRequest[] = [
        {
          userText: 'Look at a.ts and lines 2-4 of b.ts',
          attachments: [
            { kind: 'file', path: 'src/a.ts' },
            { kind: 'selection', path: 'src/b.ts', startLine: 2, endLine: 4 },
          ],
        },
        {
          userText: 'a.ts changed; and again the same selection',
          attachments: [{ kind: 'selection', path: 'src/b.ts', startLine: 2, endLine: 4 }],
        },
        { userText: 'Once more with a.ts', attachments: [{ kind: 'file', path: 'src/a.ts' }] },
      ];
      const outcomes: TurnOutcome[] = [];
      for (let i = 0; i < turns.length; i++) {
        if (i === 1) h.ws.write('src/a.ts', A_TS.replace('a0 = 0', 'a0 = 100'));
        srv.queueReply(`reply ${i + 1} from ${name}`);
        outcomes.push(await h.pipeline.run(turns[i], provider(), send(h, model)));
      }
      for (const o of outcomes) assert.strictEqual(o.status, 'done', JSON.stringify(o.status === 'error' ? o.error : o.status));
      const sent = srv.chatRequests.slice(before);
      assert.strictEqual(sent.length, 3);
      const texts = sent.map((r) => requestText(r.body));
      // Lines 2-4 as VS Code counts them (\r\n is one break), without the final break.
      const selection = 'function b() {\r\n\treturn "ünïcödé </selection:00000000>";\r\n}';
      for (const [i, text] of texts.entries()) {
        const blocks = fullBlocks(text);
        for (const [open, bodies] of blocks)
          assert.strictEqual(bodies.length, 1, `request ${i + 1}: ${open.trim()} sent ${bodies.length} times`);
        const sel = [...blocks].filter(([open]) => open.startsWith('<selection'));
        assert.strictEqual(sel.length, 1, `request ${i + 1} carries the selection block once`);
        assert.strictEqual(sel[0][1][0], selection, 'the selection went out byte for byte');
      }
      // Turn 2: a.ts v2 in full (freshness) and a reference to the unchanged selection; turn 3: a reference to a.ts v2.
      assert.ok([...fullBlocks(texts[1]).keys()].some((k) => k.includes('id="file:src/a.ts" version="2"')));
      assert.match(texts[1].slice(texts[1].lastIndexOf('reply 1 from')), /<ref id="sel:src\/b.ts#L2-L4@[0-9a-f]{8}" version="1"/);
      assert.match(texts[2].slice(texts[2].lastIndexOf('reply 2 from')), /<ref id="file:src\/a.ts" version="2"/);
      assert.ok(
        texts[2].includes(`a0 = 100`) && texts[2].split('export const a1 = 1;').length === 3,
        'v1 and v2 each once, in their own turns',
      );
      // Persisted, with the model and the usage the server reported, before `done` fired.
      const loaded = ChatStore.open(h.store.root, { durable: false }).loadChat('pipeline-test');
      assert.strictEqual(loaded.state.completedTurns, 3);
      assert.deepStrictEqual(
        loaded.state.turns.map((t) => t.reply),
        [1, 2, 3].map((i) => `reply ${i} from ${name}`),
      );
      for (const [i, meta] of loaded.turns.entries()) {
        assert.strictEqual(meta.model, `test · ${model}`);
        assert.deepStrictEqual(meta.usage, sent[i].usage);
        assert.strictEqual(
          Object.values(meta.layerTokens!).reduce((a, b) => a + b, 0),
          outcomes[i].envelope!.totalTokens,
        );
        assert.strictEqual(meta.stopped, undefined);
      }
      const seq = h.events.filter((e) => e.type === 'text').length;
      assert.ok(seq >= 3);
      const order = h.events.map((e) => e.type).filter((t) => t !== 'text' && t !== 'usage');
      assert.deepStrictEqual(order, ['built', 'persisted', 'done', 'built', 'persisted', 'done', 'built', 'persisted', 'done']);
      // The log line: hashes, prefix, predicted vs reported cache, timings; no key, no file content.
      assert.strictEqual(h.logs.length, 3);
      assert.match(
        h.logs[2],
        /turn 3 done: L1 [0-9a-f]{12} \(\d+\).*cached \d+ predicted \/ \d+ reported; prefix kept; build [\d.]+ ms, first token \d+ ms/,
      );
      for (const l of h.logs) assert.ok(!l.includes(OPENAI_KEY) && !l.includes(ANTHROPIC_KEY) && !l.includes('export const a1'), l);
    });
  }

  it('stop mid-stream: exactly the streamed text is kept, marked stopped and persisted', async () => {
    const slow = await startOpenAIImitation({ apiKey: OPENAI_KEY, chunkDelayMs: 30, deltaChars: 4 });
    try {
      const h = harness();
      slow.queueReply('one two three four five six seven eight nine ten eleven twelve thirteen fourteen');
      const ctrl = new AbortController();
      const seen: string[] = [];
      const outcome = await h.pipeline.run(
        { userText: 'Count slowly' },
        new OpenAIProvider({ apiKey: OPENAI_KEY, baseURL: slow.url }),
        send(h, 'imitation-gpt', {
          signal: ctrl.signal,
          onEvent: (e) => {
            if (e.type !== 'text') return;
            seen.push(e.text);
            if (seen.length === 3) ctrl.abort();
          },
        }),
      );
      assert.strictEqual(outcome.status, 'stopped');
      assert.ok(outcome.status === 'stopped' && outcome.kept);
      const text = seen.join('');
      assert.strictEqual(outcome.reply, text);
      assert.ok(text.length > 0 && text.length < 40, text);
      assert.strictEqual(h.pipeline.engine.state.turns[0].reply, text);
      const loaded = ChatStore.open(h.store.root, { durable: false }).loadChat('pipeline-test');
      assert.strictEqual(loaded.state.turns[0].reply, text);
      assert.strictEqual(loaded.turns[0].stopped, true);
      // A stop before anything streamed keeps nothing.
      const ctrl2 = new AbortController();
      ctrl2.abort();
      const none = await h.pipeline.run(
        { userText: 'never mind' },
        new OpenAIProvider({ apiKey: OPENAI_KEY, baseURL: slow.url }),
        send(h, 'imitation-gpt', { signal: ctrl2.signal }),
      );
      assert.ok(none.status === 'stopped' && !none.kept);
      assert.strictEqual(h.pipeline.engine.state.completedTurns, 1);
      assert.strictEqual(ChatStore.open(h.store.root, { durable: false }).loadChat('pipeline-test').state.completedTurns, 1);
    } finally {
      await slow.close();
    }
  });

  it('a provider error commits and persists nothing, and reports its code; the next turn works', async () => {
    const h = harness();
    openai.injectFault({ kind: 'bad-key' });
    const failed = await h.pipeline.run(
      { userText: 'hello', attachments: [{ kind: 'file', path: 'src/a.ts' }] },
      new OpenAIProvider({ apiKey: OPENAI_KEY, baseURL: openai.url }),
      send(h, 'imitation-gpt'),
    );
    assert.strictEqual(failed.status, 'error');
    assert.ok(failed.status === 'error' && failed.error.code === 'bad-key', JSON.stringify(failed));
    assert.strictEqual(h.pipeline.engine.state.completedTurns, 0);
    assert.strictEqual(h.store.hasChat('pipeline-test'), false);
    assert.strictEqual(h.events[h.events.length - 1].type, 'error');
    const ok = await h.pipeline.run(
      { userText: 'hello', attachments: [{ kind: 'file', path: 'src/a.ts' }] },
      new OpenAIProvider({ apiKey: OPENAI_KEY, baseURL: openai.url }),
      send(h, 'imitation-gpt'),
    );
    assert.strictEqual(ok.status, 'done');
    assert.strictEqual(ok.envelope!.turn, 1, 'the failed turn left no trace: this is turn 1 again');
  });

  it('a watcher-style workspace: a change read by a turn that failed is sent by the next turn; an unchanged file is not passed', async () => {
    const ws = new MemoryWorkspace(files(), { fresh: 'changed' });
    const h = harness({ port: ws });
    const p = new OpenAIProvider({ apiKey: OPENAI_KEY, baseURL: openai.url });
    assert.strictEqual(
      (await h.pipeline.run({ userText: 'first', attachments: [{ kind: 'file', path: 'src/a.ts' }] }, p, send(h, 'imitation-gpt'))).status,
      'done',
    );
    const sources = h.pipeline.engine.recoverableSources();
    assert.strictEqual(ws.readFresh(sources).size, 0, 'the chat holds what is on disk: nothing to pass');
    ws.write('src/a.ts', `${A_TS}// edited while the chat was idle\n`);
    openai.injectFault({ kind: 'bad-key' });
    const failed = await h.pipeline.run({ userText: 'second' }, p, send(h, 'imitation-gpt'));
    assert.strictEqual(failed.status, 'error');
    const before = openai.chatRequests.length;
    const ok = await h.pipeline.run({ userText: 'third' }, p, send(h, 'imitation-gpt'));
    assert.strictEqual(ok.status, 'done');
    assert.ok(ok.envelope!.newBlocks.includes('file:src/a.ts@v2'), `new blocks: ${ok.envelope!.newBlocks.join(', ')}`);
    assert.match(requestText(openai.chatRequests[before].body), /edited while the chat was idle/);
  });

  it('context-length: prunes harder (50% of the budget) and retries once', async () => {
    const big = Array.from({ length: 4000 }, (_, i) => `const filler${i} = "${'x'.repeat(20)}";`).join('\n');
    const h = harness({ engine: { limits: { contextWindow: 80_000, maxOutputTokens: 1024 } } });
    h.ws.write('src/big.ts', big);
    const p = new OpenAIProvider({ apiKey: OPENAI_KEY, baseURL: openai.url });
    assert.strictEqual(
      (await h.pipeline.run({ userText: 'first', attachments: [{ kind: 'file', path: 'src/big.ts' }] }, p, send(h, 'imitation-gpt')))
        .status,
      'done',
    );
    const before = openai.chatRequests.length;
    openai.injectFault({ kind: 'context-length' });
    h.events.length = 0;
    const o = await h.pipeline.run({ userText: 'second' }, p, send(h, 'imitation-gpt'));
    assert.strictEqual(o.status, 'done');
    assert.strictEqual(openai.chatRequests.length - before, 2, 'the request, then one retry');
    const built = h.events.filter((e): e is Extract<TurnEvent, { type: 'built' }> => e.type === 'built');
    assert.deepStrictEqual(
      built.map((b) => b.pruneHarder),
      [false, true],
    );
    assert.ok(
      built[1].envelope.totalTokens <= built[1].envelope.budget / 2,
      `${built[1].envelope.totalTokens} ≤ half of ${built[1].envelope.budget}`,
    );
    assert.ok(
      built[1].envelope.pruned.some((c) => c.reason === 'compacted'),
      'big.ts was compacted',
    );
    assert.ok(o.report.prunedHarder);
    assert.match(formatTurnReport(o.report), /pruned harder after a context-length error/);
    // A second context-length error is reported as such.
    openai.injectFault({ kind: 'context-length' }, 2);
    const again = await h.pipeline.run({ userText: 'third' }, p, send(h, 'imitation-gpt'));
    assert.ok(again.status === 'error' && again.error.code === 'context-length');
  });

  it('no provider: a preview of the exact request; nothing sent, committed or persisted', async () => {
    const h = harness();
    const before = openai.chatRequests.length;
    const o = await h.pipeline.run(
      { userText: 'what would you send?', attachments: [{ kind: 'file', path: 'README.md' }] },
      undefined,
      send(h, 'imitation-gpt'),
    );
    assert.strictEqual(o.status, 'preview');
    assert.ok(o.envelope!.messages.length >= 2);
    assert.ok(o.envelope!.messages[1].content.some((b) => b.text.includes('# readme')));
    assert.strictEqual(openai.chatRequests.length, before);
    assert.strictEqual(h.pipeline.engine.state.completedTurns, 0);
    assert.strictEqual(h.store.hasChat('pipeline-test'), false);
    // The same request is what goes out once a provider is there.
    const sent = await h.pipeline.run(
      { userText: 'what would you send?', attachments: [{ kind: 'file', path: 'README.md' }] },
      new OpenAIProvider({ apiKey: OPENAI_KEY, baseURL: openai.url }),
      send(h, 'imitation-gpt'),
    );
    assert.deepStrictEqual(sent.envelope!.messages, o.envelope!.messages);
  });

  it('a blocked turn (essentials over budget) sends nothing and says why', async () => {
    const h = harness({ engine: { limits: { contextWindow: 2000, maxOutputTokens: 500 } } });
    const before = openai.chatRequests.length;
    const o = await h.pipeline.run(
      { userText: 'word '.repeat(3000) },
      new OpenAIProvider({ apiKey: OPENAI_KEY, baseURL: openai.url }),
      send(h, 'imitation-gpt'),
    );
    assert.strictEqual(o.status, 'blocked');
    assert.ok(o.status === 'blocked' && /Nothing was sent: .* over the budget/.test(o.message));
    assert.strictEqual(openai.chatRequests.length, before);
    assert.strictEqual(h.pipeline.engine.state.completedTurns, 0);
  });

  it('isolation at send: a library file made excluded, a snapshot whose path is now excluded, and a removed file send none of their content', async () => {
    const h = harness();
    const p = new OpenAIProvider({ apiKey: OPENAI_KEY, baseURL: openai.url });
    h.ws.write('config/settings.ts', 'export const port = 80;\n');
    h.ws.write('src/gone.ts', 'export const gone = 1;\n');
    const t1 = await h.pipeline.run(
      {
        userText: 'look',
        attachments: [
          { kind: 'file', path: 'config/settings.ts' },
          { kind: 'file', path: 'src/a.ts' },
        ],
      },
      p,
      send(h, 'imitation-gpt'),
    );
    assert.strictEqual(t1.status, 'done');
    // The user adds an exclude, the file gains a secret, a removed file is attached, a snapshot of config/ is attached.
    h.ws.setIsolation(new IsolationPolicy([...DEFAULT_EXCLUDES, 'config/**']));
    h.ws.write('config/settings.ts', 'export const port = 80;\nexport const token = "SECRET-TOKEN-123";\n');
    h.ws.delete('src/gone.ts');
    const before = openai.chatRequests.length;
    const t2 = await h.pipeline.run(
      {
        userText: 'and now',
        attachments: [
          { kind: 'file', path: 'src/gone.ts' },
          {
            kind: 'snapshot',
            input: {
              kind: 'selection',
              uri: 'config/settings.ts',
              range: { startLine: 1, endLine: 1 },
              content: 'export const port = 80;',
            },
          },
        ],
      },
      p,
      send(h, 'imitation-gpt'),
    );
    assert.strictEqual(t2.status, 'done');
    assert.deepStrictEqual(
      t2.rejections.map((r) => [r.attachment, r.reason]),
      [
        ['src/gone.ts', 'not-found'],
        ['config/settings.ts#L1-L1', 'excluded'],
        ['config/settings.ts', 'excluded'],
      ],
    );
    const text = requestText(openai.chatRequests[before].body);
    assert.ok(!text.includes('SECRET-TOKEN-123'), 'the new content of the excluded file was not sent');
    assert.ok(!text.includes('export const gone'));
    assert.ok(!text.includes('export const port = 80;'), 'the old block was replaced by a stub (detached)');
    // Withdrawn by the check, not by the user: the stub says why.
    assert.match(
      text,
      /<removed id="file:config\/settings.ts" version="1"\/> \(removed from the context: its file is now excluded, so it is no longer sent\)/,
    );
    assert.ok(!text.includes('removed from the context by the user'));
    assert.ok(t2.envelope!.pruned.some((c) => c.item === 'file:config/settings.ts' && c.reason === 'detached'));
    assert.ok(text.includes('export const a1 = 1;'), 'the other file stays');
  });
});

describe('turn pipeline: synchronous driver and scripted provider', () => {
  it('runs a turn synchronously with a memory workspace and a scripted provider; refuses a promise', () => {
    const ws = new MemoryWorkspace(files());
    const pipeline = new TurnPipeline({ engine: engine(), port: ws, check: true });
    const o = pipeline.runSync(
      { userText: 'hi', attachments: [{ kind: 'file', path: 'src/a.ts' }] },
      new ScriptedProvider(() => 'scripted reply', { chunkChars: 4 }),
      { model: 'm', maxOutputTokens: 10 },
    );
    assert.strictEqual(o.status, 'done');
    assert.deepStrictEqual(o.violations, []);
    assert.strictEqual(pipeline.engine.state.turns[0].reply, 'scripted reply');
    const asyncPort: WorkspacePort = {
      resolve: async (s) => ws.resolve(s),
      recheck: (p, l) => ws.recheck(p, l),
      readFresh: (s) => ws.readFresh(s),
    };
    const p2 = new TurnPipeline({ engine: engine(), port: asyncPort });
    assert.throws(
      () =>
        p2.runSync({ userText: 'x', attachments: [{ kind: 'file', path: 'src/a.ts' }] }, undefined, { model: 'm', maxOutputTokens: 10 }),
      /answered with a promise; use run\(\)/,
    );
  });

  it('a port that re-checks and re-reads in one pass (refresh) gives the same turns as recheck then readFresh, and is used instead', async () => {
    // The same chat driven through both: a file made excluded, one made binary, one deleted, one changed.
    const drive = (withRefresh: boolean) => {
      const ws = new MemoryWorkspace({
        ...files(),
        'config/settings.ts': 'export const port = 80;\n',
        'src/bin.ts': 'export const bin = 1;\n',
        'src/gone.ts': 'export const gone = 1;\n',
      });
      const calls = { refresh: 0, recheck: 0, readFresh: 0 };
      const port: WorkspacePort = {
        resolve: (spec) => ws.resolve(spec),
        recheck: (path, label) => (calls.recheck++, ws.recheck(path, label)),
        readFresh: (sources) => (calls.readFresh++, ws.readFresh(sources)),
      };
      if (withRefresh) {
        port.refresh = (sources) => {
          calls.refresh++;
          const rejections = new Map<string, Rejection>();
          for (const src of sources) {
            const bad = ws.recheck(src.uri, src.uri);
            if (bad) rejections.set(src.id, bad);
          }
          return { rejections, fresh: ws.readFresh(sources.filter((src) => !rejections.has(src.id))) };
        };
      }
      const pipeline = new TurnPipeline({ engine: engine(), port });
      const provider = new ScriptedProvider();
      const turn = (userText: string, attach: string[] = []) => {
        provider.push(`reply to ${userText}`);
        return pipeline.runSync({ userText, attachments: attach.map((path) => ({ kind: 'file' as const, path })) }, provider, {
          model: 'm',
          maxOutputTokens: 64,
        });
      };
      const outcomes = [turn('first', ['config/settings.ts', 'src/bin.ts', 'src/gone.ts', 'src/a.ts'])];
      ws.setIsolation(new IsolationPolicy([...DEFAULT_EXCLUDES, 'config/**']));
      ws.write('src/bin.ts', 'export const bin = 1;\n\u0000\u0001');
      ws.delete('src/gone.ts');
      ws.write('src/a.ts', A_TS.replace('a0 = 0', 'a0 = 100'));
      outcomes.push(turn('second'), turn('third'));
      return { outcomes, calls, state: pipeline.engine.state };
    };
    const plain = drive(false);
    const one = drive(true);
    const view = (o: TurnOutcome) => ({
      status: o.status,
      rejections: o.rejections.map((r) => [r.attachment, r.reason]),
      messages: o.envelope?.messages,
      pruned: o.envelope?.pruned.map((c) => [c.item, c.reason]),
    });
    assert.deepStrictEqual(one.outcomes.map(view), plain.outcomes.map(view));
    assert.deepStrictEqual(
      one.outcomes[1].rejections.map((r) => [r.attachment, r.reason]),
      [
        ['config/settings.ts', 'excluded'],
        ['src/bin.ts', 'binary'],
      ],
    );
    assert.strictEqual(one.state.entries.get('file:src/gone.ts')?.missing, true, 'the deleted file is kept, marked missing');
    assert.deepStrictEqual(one.calls, { refresh: 2, recheck: 0, readFresh: 0 }, 'one pass per turn that holds files, no separate re-check');
    assert.deepStrictEqual(plain.calls.refresh, 0);
    assert.deepStrictEqual([plain.calls.recheck, plain.calls.readFresh], [6, 2]);
  });

  it('a scripted failure after some output is an error, not a retry; record the scripted reply when asked', async () => {
    const ws = new MemoryWorkspace(files());
    const pipeline = new TurnPipeline({ engine: engine(), port: ws });
    const provider = new ScriptedProvider(undefined, { chunkChars: 3 }).push(
      { text: 'partial reply', fail: new ProviderError('network', 'connection lost'), failAfterChunks: 2 },
      'what the model says',
    );
    const failed = await pipeline.run({ userText: 'a' }, provider, { model: 'm', maxOutputTokens: 10 });
    assert.ok(failed.status === 'error' && failed.error.code === 'network');
    assert.strictEqual(pipeline.engine.state.completedTurns, 0);
    const ok = await pipeline.run({ userText: 'a' }, provider, { model: 'm', maxOutputTokens: 10, recordReply: 'the scripted reply' });
    assert.ok(ok.status === 'done' && ok.reply === 'the scripted reply');
    assert.strictEqual(pipeline.engine.state.turns[0].reply, 'the scripted reply');
  });
});
