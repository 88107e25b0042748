/**
 * A model's window, truthfully: where it comes from (the user's strata.models, the server, Strata's
 * table, the default), the output the request reserves inside it, a file larger than a small
 * window sent in a form that fits (and said so), and a server's silent cut noticed and remembered.
 * Turns go through the real session and pipeline with a memory workspace and a scripted provider.
 */
import * as assert from 'node:assert/strict';
import { ChatSession, type SessionSettings } from '../../../src/services/chatSession';
import { MemoryWorkspace } from '../../../src/services/memoryWorkspace';
import { DEFAULT_MODEL_LIMITS, modelInfo, type ModelInfo } from '../../../src/services/modelInfo';
import { applyModelOverride, parseModelOverrides } from '../../../src/services/modelOverrides';
import type { ChatRequest } from '../../../src/services/providers';
import { ScriptedProvider } from '../../../src/services/providers/scripted';
import { modelLimits } from '../../../src/services/session/engineSettings';
import { getTokenizer } from '../../../src/services/tokenizer';
import { detectServerCut } from '../../../src/services/turn/serverCut';
import { pricesForLabel, DEFAULT_PRICING } from '../../../src/services/pricing/chatCost';
import { computeBudget } from '../../../src/engine/budget';
import { tempDir } from '../../support/tempDir';

/** About 20,000 o200k tokens of TypeScript: 846 functions. */
const BIG_TS =
  Array.from(
    { length: 846 },
    (_, i) => `export function compute${i}(value: number, factor: number): number {\n  return value * factor + ${i};\n}\n`,
  ).join('\n') + '\n';

function ollama(window: number): ModelInfo {
  return { ...modelInfo('ollama', 'llama3.2', { contextWindow: window, source: 'server' }), label: `Ollama · llama3.2` };
}

function session(model: ModelInfo, settings: Partial<SessionSettings> = {}) {
  const ws = new MemoryWorkspace({ 'src/big.ts': BIG_TS, 'src/small.ts': 'export const x = 1;\n' });
  const s = ChatSession.open({
    storeRoot: tempDir('strata-window-'),
    port: ws,
    tokenizer: (e) => getTokenizer(e),
    settings: () => ({ layout: 'transcript', policy: 'append-version', system: 'You are a test assistant.', ...settings }),
    model,
    store: { durable: false },
    newChatId: () => 'chat-1',
    check: true,
  });
  return s;
}

describe('the model window', () => {
  describe('where it comes from', () => {
    it('the user setting wins, then the server, then the table, then the default; windowSource says which', () => {
      const server = modelInfo('ollama', 'gpt-4o', { contextWindow: 8192, source: 'server' });
      assert.equal(server.windowSource, 'server');
      assert.equal(server.contextWindow, 8192);
      const table = modelInfo('openai', 'gpt-4o');
      assert.deepEqual(
        [table.windowSource, table.contextWindow, table.outputSource, table.maxOutputTokens],
        ['table', 128_000, 'table', 16_384],
      );
      const assumed = modelInfo('ollama', 'mystery-model');
      assert.deepEqual(
        [assumed.windowSource, assumed.contextWindow, assumed.outputSource],
        ['assumed', DEFAULT_MODEL_LIMITS.contextWindow, 'assumed'],
      );
      const { overrides } = parseModelOverrides({ 'ollama/gpt-4o': { contextWindow: 6000 }, 'gpt-4o': { maxOutputTokens: 900 } });
      // `<provider>/<model>` is more specific than the bare id, and only its figures apply.
      const user = applyModelOverride(server, overrides);
      assert.deepEqual([user.windowSource, user.contextWindow, user.outputSource, user.maxOutputTokens], ['user', 6000, 'table', 16_384]);
      const bare = applyModelOverride(table, overrides);
      assert.deepEqual([bare.windowSource, bare.contextWindow, bare.outputSource, bare.maxOutputTokens], ['table', 128_000, 'user', 900]);
      // A window the server showed to be smaller wins over everything, as 'server'.
      const learned = applyModelOverride(server, overrides, 3000);
      assert.deepEqual([learned.windowSource, learned.contextWindow], ['server', 3000]);
      assert.equal(applyModelOverride(server, overrides, 7000).contextWindow, 6000);
    });

    it('reports what it cannot use in strata.models and keeps the rest', () => {
      const { overrides, problems } = parseModelOverrides({
        a: { contextWindow: 100, maxOutputTokens: 512 },
        b: 'big',
        c: { prices: { input: 1, output: -2 } },
      });
      assert.deepEqual(overrides, { a: { maxOutputTokens: 512 }, c: { prices: { input: 1 } } });
      assert.deepEqual(problems, [
        'strata.models["a"].contextWindow must be a whole number of at least 256; it is ignored.',
        'strata.models["b"] must be an object; it is ignored.',
        'strata.models["c"].prices takes input, cachedInput, cacheWrite5m, cacheWrite1h and output as numbers of at least 0; the others are ignored.',
      ]);
      assert.deepEqual(parseModelOverrides([1]).problems, ['strata.models must be an object of model entries; it is ignored.']);
    });

    it('prices from strata.models go over strata.prices for that model, figure by figure', () => {
      const settings = {
        ...DEFAULT_PRICING,
        prices: { 'llama3.2': { input: 1, output: 2 } },
        models: { 'ollama/llama3.2': { prices: { output: 3 } } },
      };
      assert.deepEqual(pricesForLabel('ollama', 'Ollama · llama3.2', settings)?.prices, {
        input: 1,
        cachedInput: 1,
        cacheWrite5m: 1,
        cacheWrite1h: 1,
        output: 3,
      });
      assert.equal(pricesForLabel('vllm', 'vLLM · llama3.2', settings)?.prices.output, 2);
    });

    it('the session follows strata.models when it changes, and the meter names the source', () => {
      const settings: Partial<SessionSettings> = {};
      const s = session(ollama(8192), settings);
      assert.deepEqual([s.meter().contextWindow, s.meter().windowSource], [8192, 'server']);
      const s2 = session(ollama(8192), { models: { 'ollama/llama3.2': { contextWindow: 4096 } } });
      assert.deepEqual([s2.meter().contextWindow, s2.meter().windowSource], [4096, 'user']);
      assert.equal(s2.modelInfo.windowSource, 'user');
    });
  });

  describe('the output reserved inside the window', () => {
    it('is the model maximum up to half the window, a quarter when only assumed, the user figure as given', () => {
      assert.deepEqual(modelLimits(ollama(8192), 0), { contextWindow: 8192, maxOutputTokens: 2048 });
      assert.deepEqual(modelLimits(ollama(4096), 0), { contextWindow: 4096, maxOutputTokens: 1024 });
      assert.deepEqual(modelLimits(modelInfo('openai', 'gpt-4'), 0), { contextWindow: 8192, maxOutputTokens: 4096 });
      assert.deepEqual(modelLimits(modelInfo('openai', 'gpt-4o'), 0), { contextWindow: 128_000, maxOutputTokens: 16_384 });
      assert.deepEqual(modelLimits(modelInfo('x', 'unknown'), 0), { contextWindow: 128_000, maxOutputTokens: 4096 });
      const user = applyModelOverride(ollama(8192), { llama3: {}, 'llama3.2': { maxOutputTokens: 6000 } });
      assert.deepEqual(modelLimits(user, 0), { contextWindow: 8192, maxOutputTokens: 6000 });
      assert.deepEqual(modelLimits(ollama(8192), 3000), { contextWindow: 8192, maxOutputTokens: 3000 });
    });

    it('the request asks for the reserved output, so prompt + output fit the window', async () => {
      const requests: ChatRequest[] = [];
      const s = session(ollama(8192));
      await s.attach({ kind: 'file', path: 'src/small.ts' });
      const out = await s.send('What is x?', new ScriptedProvider(() => 'x is 1.', { onRequest: (r) => requests.push(r) }));
      assert.equal(out.status, 'done');
      assert.equal(requests[0].maxOutputTokens, 2048);
      assert.equal(out.envelope!.budget, 8192 - 2048 - 163);
      assert.ok(out.envelope!.totalTokens + requests[0].maxOutputTokens <= 8192);
    });
  });

  describe('a 20K-token file against a small window', () => {
    const tokens = getTokenizer('o200k_base').count(BIG_TS);

    for (const window of [8192, 4096]) {
      it(`is answered with its outline in a ${window}-token window, and the cut is reported`, async () => {
        assert.equal(tokens, 20_304);
        const requests: ChatRequest[] = [];
        const s = session(ollama(window));
        await s.attach({ kind: 'file', path: 'src/big.ts' });
        const out = await s.send(
          'What does compute3 return?',
          new ScriptedProvider(() => 'value * factor + 3', { onRequest: (r) => requests.push(r) }),
        );
        assert.equal(out.status, 'done');
        const env = out.envelope!;
        assert.equal(env.budget, computeBudget({ contextWindow: window, maxOutputTokens: window / 4 }));
        assert.equal(env.totalTokens, 1127);
        assert.equal(requests[0].maxOutputTokens, window / 4);
        assert.deepEqual(env.pruned, [
          {
            layer: 'L3',
            item: 'file:src/big.ts',
            preTokens: 20_345,
            postTokens: 1105,
            kept: 'structure and first lines (120 of 3385 lines)',
            lost: 'the rest of src/big.ts; re-attach it to send it in full',
            reason: 'compacted',
          },
        ]);
        assert.deepEqual(s.messages().messages[1].notes, [
          'src/big.ts was sent as its outline to fit the context window: structure and first lines (120 of 3385 lines) (see Context Layers).',
        ]);
        assert.deepEqual(out.violations, []);
      });
    }

    it('is answered with the first part that fits a 2048-token window, where even its outline does not fit', async () => {
      const requests: ChatRequest[] = [];
      const s = session(ollama(2048));
      await s.attach({ kind: 'file', path: 'src/big.ts' });
      const out = await s.send(
        'What does compute3 return?',
        new ScriptedProvider(() => 'value * factor + 3', { onRequest: (r) => requests.push(r) }),
      );
      assert.equal(out.status, 'done');
      const env = out.envelope!;
      const budget = 2048 - 512 - 40;
      assert.equal(env.budget, budget);
      // Cut to the target (60% of the budget), so the reply's 512 tokens fit the window with room to spare.
      assert.ok(env.totalTokens <= Math.floor(budget * 0.6), `${env.totalTokens}`);
      assert.equal(requests[0].maxOutputTokens, 512);
      const cut = env.pruned.filter((p) => p.item === 'file:src/big.ts').at(-1)!;
      assert.equal(cut.reason, 'fitted');
      assert.equal(cut.layer, 'L3');
      assert.match(cut.kept, /^lines 1-\d+ of 3385 \(the first part\)$/);
      const sent = JSON.stringify(requests[0].messages);
      assert.ok(sent.includes('export function compute0(value: number, factor: number): number'));
      assert.ok(!sent.includes('compute845'));
      assert.match(
        sent,
        /\[cut to fit the model's context window: lines 1-\d+ of 3385 kept \(the first part\); the rest of src\/big\.ts was not sent\./,
      );
      const notes = s.messages().messages[1].notes ?? [];
      assert.equal(notes.length, 1);
      assert.match(
        notes[0],
        /^src\/big\.ts is larger than this model's context window leaves room for: the model saw lines 1-\d+ of 3385 \(the first part\), not the rest/,
      );
      assert.deepEqual(out.violations, []);
    });

    it('keeps the lines around a selection the chat holds in that file', async () => {
      const s = session(ollama(2048));
      await s.attach({ kind: 'selection', path: 'src/big.ts', startLine: 2001, endLine: 2003 });
      await s.attach({ kind: 'file', path: 'src/big.ts' });
      const requests: ChatRequest[] = [];
      const out = await s.send('Explain this', new ScriptedProvider(() => 'ok', { onRequest: (r) => requests.push(r) }));
      assert.equal(out.status, 'done');
      const cut = out.envelope!.pruned.filter((p) => p.item.startsWith('file:src/big.ts')).at(-1)!;
      assert.equal(cut.reason, 'fitted');
      const m = /^lines (\d+)-(\d+) of 3385 \(around the selection at lines 2001-2003\)$/.exec(cut.kept);
      assert.ok(m, cut.kept);
      assert.ok(Number(m[1]) < 2001 && Number(m[2]) > 2003, cut.kept);
    });
  });

  describe('a cut the server made on its own', () => {
    it('is noticed past the tolerance only', () => {
      assert.deepEqual(detectServerCut(3000, 2000, false), { sent: 3000, reported: 2000 });
      assert.equal(detectServerCut(3000, 2851, false), undefined);
      assert.equal(detectServerCut(3000, 2849, false)?.reported, 2849);
      assert.equal(detectServerCut(3000, 2300, true), undefined);
      assert.equal(detectServerCut(3000, 2249, true)?.reported, 2249);
      assert.equal(detectServerCut(100, 70, false), undefined);
      assert.equal(detectServerCut(3000, undefined, false), undefined);
    });

    it('is said under the reply, and the next request is built for the smaller window, from the server', async () => {
      const s = session(ollama(8192));
      await s.attach({ kind: 'file', path: 'src/big.ts' });
      const provider = new ScriptedProvider().push({
        text: 'It returns something.',
        usage: { input: 500, cacheRead: 0, cacheWrite: 0, output: 5 },
      });
      const out = await s.send('What does compute3 return?', provider);
      assert.equal(out.status, 'done');
      const sent = out.envelope!.totalTokens;
      assert.deepEqual(out.status === 'done' ? out.meta?.serverCut : undefined, { sent, reported: 500 });
      const note = s.messages().messages[1].notes?.at(-1);
      assert.equal(
        note,
        `The server took in 500 of the ${sent.toLocaleString('en-US')} prompt tokens Strata sent: it cut the rest without an error, so this reply may not have seen all of it. From now on Strata budgets llama3.2 to a 500-token window (set strata.models to change it).`,
      );
      assert.deepEqual([s.modelInfo.contextWindow, s.modelInfo.windowSource], [500, 'server']);
      assert.deepEqual([s.meter().contextWindow, s.meter().windowSource, s.meter().budget], [500, 'server', 500 - 125 - 10]);
      const requests: ChatRequest[] = [];
      const next = await s.send('And compute4?', new ScriptedProvider(() => 'Plus four.', { onRequest: (r) => requests.push(r) }));
      assert.equal(next.status, 'done');
      assert.ok(next.envelope!.totalTokens <= 500 - 125 - 10);
      assert.equal(requests[0].maxOutputTokens, 125);
      // A switch back to the same model keeps what was learned for this session.
      s.setModel(ollama(8192));
      assert.equal(s.modelInfo.contextWindow, 500);
    });

    it('is not looked for on the provider own endpoint, which refuses a prompt that is too long', async () => {
      const s = session({ ...modelInfo('openai', 'gpt-4o'), label: 'OpenAI · gpt-4o' });
      const provider = new ScriptedProvider().push({ text: 'Hi.', usage: { input: 3, cacheRead: 0, cacheWrite: 0, output: 1 } });
      const out = await s.send('Hello there, how are you today?', provider);
      assert.equal(out.status === 'done' ? out.meta?.serverCut : 'not done', undefined);
      assert.equal(s.modelInfo.contextWindow, 128_000);
    });
  });
});
