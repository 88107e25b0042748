/**
 * Keep-warm against the Anthropic imitation server over real HTTP: a chat turn through the watched
 * provider, then the ping. The ping's prefix is the turn's request, byte for byte, up to its last
 * cache breakpoint, and the server reports that prefix read from its cache.
 */
import * as assert from 'node:assert/strict';
import { ChatSession } from '../../../../src/services/chatSession';
import { MemoryWorkspace } from '../../../../src/services/memoryWorkspace';
import { modelInfo } from '../../../../src/services/modelInfo';
import { DEFAULT_PRICING } from '../../../../src/services/pricing/chatCost';
import { AnthropicProvider, type ProviderUsage } from '../../../../src/services/providers';
import { KeepWarm, type KeepWarmClock } from '../../../../src/services/session/keepWarm';
import { getTokenizer } from '../../../../src/services/tokenizer';
import { startAnthropicImitation, type AnthropicImitationServer } from '../../../support/imitationServers';
import { installNetworkGuard } from '../../../support/networkGuard';
import { tempDir } from '../../../support/tempDir';

const KEY = 'sk-ant-test-keep-warm-0123456789abcdef';
const LABEL = 'Anthropic · claude-sonnet-4-5';
const SYSTEM = Array.from({ length: 300 }, (_, i) => `Rule ${i}: answer precisely.`).join('\n');

/** Timers that run only when the test says so; the HTTP in between is real. */
class ManualClock implements KeepWarmClock {
  t = 0;
  due: (() => void)[] = [];
  now(): number {
    return this.t;
  }
  setTimeout(fn: () => void): unknown {
    this.due.push(fn);
    return fn;
  }
  clearTimeout(handle: unknown): void {
    this.due = this.due.filter((f) => f !== handle);
  }
}

/** The text of `raw` from `"messages":` to the end of its last `cache_control` object. */
function prefixBytes(raw: string): string {
  const start = raw.indexOf('"messages":');
  const mark = raw.lastIndexOf('"cache_control":');
  assert.ok(start >= 0 && mark > start, 'a request with messages and a breakpoint');
  return raw.slice(start, raw.indexOf('}', mark) + 1);
}

describe('keep-warm against the Anthropic imitation server (real HTTP)', function () {
  this.timeout(60_000);
  let guard: ReturnType<typeof installNetworkGuard>;
  let server: AnthropicImitationServer;
  before(async () => {
    guard = installNetworkGuard();
    server = await startAnthropicImitation({ apiKey: KEY });
  });
  after(async () => {
    await server?.close();
    guard.uninstall();
  });

  it('re-sends the last request’s cached prefix byte for byte, and the server serves it from its cache', async () => {
    const s = ChatSession.open({
      storeRoot: tempDir('strata-keep-warm-'),
      port: new MemoryWorkspace({ 'src/a.ts': 'export const a = 1;\n' }),
      tokenizer: (e) => getTokenizer(e),
      settings: () => ({
        layout: 'transcript',
        policy: 'append-version',
        system: SYSTEM,
        tools: { enabled: true, maxSteps: 4, maxResultTokens: 4000, maxTurnTokens: 20_000 },
      }),
      model: { ...modelInfo('anthropic', 'claude-sonnet-4-5'), label: LABEL },
      store: { durable: false },
    });
    const clock = new ManualClock();
    let resolvePing: (p: { chatId: string; usage: ProviderUsage; usd: number }) => void = () => {};
    const pinged = new Promise<{ chatId: string; usage: ProviderUsage; usd: number }>((r) => (resolvePing = r));
    const kw = new KeepWarm({
      enabled: () => true,
      pricing: () => DEFAULT_PRICING,
      current: () => ({ chatId: s.activeChatId, label: LABEL, windowActive: true }),
      pinged: (chatId, usage, usd) => {
        s.chatCosts.keptWarm(chatId, usd);
        resolvePing({ chatId, usage, usd });
      },
      log: () => {},
      clock,
    });
    const provider = new AnthropicProvider({ apiKey: KEY, baseURL: server.url });
    kw.activity();
    server.queueReply('The first answer.');
    const o = await s.send('What does src/a.ts export?', kw.watch(provider, LABEL));
    assert.equal(o.status, 'done', JSON.stringify(o));
    assert.equal(clock.due.length, 1, 'a ping is scheduled');

    clock.t += 270_000;
    clock.due.shift()!();
    const ping = await pinged;

    const [turn, sent] = server.requests.filter((r) => r.method === 'POST');
    assert.ok(turn && sent, 'the turn and the ping reached the server');
    const turnBody = turn.body as { system: unknown; tools: unknown; max_tokens: number; model: string };
    const pingBody = sent.body as { system: unknown; tools: unknown; max_tokens: number; model: string };
    assert.equal(pingBody.max_tokens, 1);
    assert.equal(pingBody.model, turnBody.model);
    assert.equal(JSON.stringify(pingBody.system), JSON.stringify(turnBody.system), 'the same system, byte for byte');
    assert.equal(JSON.stringify(pingBody.tools), JSON.stringify(turnBody.tools), 'the same tools, byte for byte');
    assert.equal(prefixBytes(sent.rawBody!), prefixBytes(turn.rawBody!), 'the same messages up to the last breakpoint');
    // The transcript layout's last breakpoint ends the request: the ping is the turn's request but for max_tokens.
    const withoutMax = (raw: string) => raw.replace(/"max_tokens":\d+,/, '');
    assert.equal(withoutMax(sent.rawBody!), withoutMax(turn.rawBody!));

    const written = turn.usage!.cacheRead + turn.usage!.cacheWrite;
    assert.ok(written >= 1024, `the turn wrote a cacheable prefix (${written} tokens)`);
    assert.equal(sent.usage!.cacheRead, written, 'the ping read the whole prefix from the cache');
    assert.equal(sent.usage!.cacheWrite, 0);
    assert.deepEqual(ping.usage, sent.usage, 'the usage the provider reported');
    assert.equal(ping.chatId, s.activeChatId);
    assert.deepEqual(s.chatCosts.keepWarmSpent(s.activeChatId), { pings: 1, usd: ping.usd });
    assert.equal(ping.usd, 0.0008151);
    kw.dispose();
  });
});
