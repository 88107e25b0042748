/**
 * A tool turn against the imitation servers: one request per step, each with the usage the server
 * reports for it. The turn's metadata keeps every request's usage (the steps' in `stepUsage`, the
 * reply's in `usage`), and its cost is the sum of what each request the server answered costs.
 */
import * as assert from 'node:assert/strict';
import { ChatSession } from '../../../src/services/chatSession';
import { MemoryWorkspace } from '../../../src/services/memoryWorkspace';
import { modelInfo } from '../../../src/services/modelInfo';
import { billedUsage, costOfTurn, DEFAULT_PRICING } from '../../../src/services/pricing/chatCost';
import { turnCost } from '../../../src/services/pricing/cost';
import { resolvePrices } from '../../../src/services/pricing/prices';
import { AnthropicProvider, OpenAIProvider, type ChatProvider } from '../../../src/services/providers';
import { getTokenizer } from '../../../src/services/tokenizer';
import { startAnthropicImitation, startOpenAIImitation, type RecordedRequest } from '../../support/imitationServers';

/** What this test uses of either imitation server. */
interface Imitation {
  url: string;
  requests: RecordedRequest[];
  queueReply: (...replies: Parameters<Awaited<ReturnType<typeof startOpenAIImitation>>['queueReply']>) => void;
  close(): Promise<void>;
}
import { installNetworkGuard } from '../../support/networkGuard';
import { tempDir } from '../../support/tempDir';

const KEY = 'sk-test-tool-cost-0123456789abcdef';
const SYSTEM = Array.from({ length: 300 }, (_, i) => `Rule ${i}: answer precisely.`).join('\n');

describe('the cost of a tool turn against the imitation servers', function () {
  this.timeout(60_000);
  let guard: ReturnType<typeof installNetworkGuard>;
  before(() => (guard = installNetworkGuard()));
  after(() => guard.uninstall());

  const cases: [string, string, string, (url: string) => ChatProvider, (opts: { apiKey: string }) => Promise<Imitation>][] = [
    ['openai', 'gpt-4o', 'OpenAI · gpt-4o', (url) => new OpenAIProvider({ apiKey: KEY, baseURL: url }), startOpenAIImitation],
    [
      'anthropic',
      'claude-sonnet-4-5',
      'Anthropic · claude-sonnet-4-5',
      (url) => new AnthropicProvider({ apiKey: KEY, baseURL: url }),
      startAnthropicImitation,
    ],
  ];
  for (const [provider, model, label, make, start] of cases)
    it(`${provider}: every request's reported usage is kept and priced`, async () => {
      const server = await start({ apiKey: KEY });
      try {
        const s = ChatSession.open({
          storeRoot: tempDir('strata-tool-cost-'),
          port: new MemoryWorkspace({ 'src/a.ts': 'export const a = 1;\n', 'src/b.ts': 'export const b = 2;\n' }),
          tokenizer: (e) => getTokenizer(e),
          settings: () => ({
            layout: 'transcript',
            policy: 'append-version',
            system: SYSTEM,
            tools: { enabled: true, maxSteps: 4, maxResultTokens: 4000, maxTurnTokens: 20_000 },
          }),
          model: { ...modelInfo(provider, model), label },
          store: { durable: false },
        });
        server.queueReply(
          { toolCalls: [{ name: 'read_file', args: { path: 'src/a.ts' } }] },
          { toolCalls: [{ name: 'read_file', args: { path: 'src/b.ts' } }] },
          'Both files export a constant.',
        );
        const o = await s.send('What do src/a.ts and src/b.ts export?', make(server.url));
        assert.equal(o.status, 'done', JSON.stringify(o));
        const answered = server.requests.filter((r: RecordedRequest) => r.usage !== undefined);
        assert.equal(answered.length, 3, 'one request per step, then the reply');
        const reported = answered.map((r) => r.usage!);
        const meta = s.turnMetas()[0];
        assert.deepEqual(meta.stepUsage, reported.slice(0, 2));
        assert.deepEqual(meta.usage, reported[2]);
        const sum = reported.reduce((a, u) => ({
          input: a.input + u.input,
          cacheRead: a.cacheRead + u.cacheRead,
          cacheWrite: a.cacheWrite + u.cacheWrite,
          output: a.output + u.output,
        }));
        assert.deepEqual(billedUsage(meta), sum);
        const prices = resolvePrices(provider, model, true, {})!.prices;
        const each = reported.map((u) => turnCost(u, prices, '5m').usd);
        const cost = costOfTurn(meta, DEFAULT_PRICING)!;
        assert.ok(Math.abs(cost.usd - each.reduce((a, b) => a + b, 0)) < 1e-12, `${cost.usd} vs ${each.join(' + ')}`);
        assert.ok(cost.usd > each[2], 'more than the last request alone');
        assert.equal(s.messages().messages[1].cost?.usd, cost.usd);
      } finally {
        await server.close();
      }
    });
});
