/**
 * Keep-warm with a fake clock: when the ping is scheduled, when it is not sent, that it is the last
 * request cut at its last breakpoint with `max_tokens` 1, and that its cost is counted in the chat's.
 */
import * as assert from 'node:assert/strict';
import { formatUsd } from '../../../../src/common/numberFormat';
import type { ChatMessage } from '../../../../src/engine/types';
import { DEFAULT_PRICING, type PricingSettings } from '../../../../src/services/pricing/chatCost';
import { turnCost } from '../../../../src/services/pricing/cost';
import { resolvePrices } from '../../../../src/services/pricing/prices';
import type { ChatProvider, ChatRequest, ProviderUsage, StreamEvent } from '../../../../src/services/providers/types';
import { TOOL_DEFINITIONS } from '../../../../src/services/tools/definitions';
import { ChatCosts } from '../../../../src/services/session/chatCosts';
import { ACTIVE_WITHIN_MS, cachedPrefix, KeepWarm, pingEconomics, type KeepWarmClock } from '../../../../src/services/session/keepWarm';
import type { TurnMeta } from '../../../../src/services/store/chatTypes';

const LABEL = 'Anthropic · claude-sonnet-4-5';

class FakeClock implements KeepWarmClock {
  t = 1_000_000;
  private timers: { at: number; fn: () => void; id: number }[] = [];
  private ids = 0;
  now(): number {
    return this.t;
  }
  setTimeout(fn: () => void, ms: number): unknown {
    const id = ++this.ids;
    this.timers.push({ at: this.t + ms, fn, id });
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.timers = this.timers.filter((x) => x.id !== handle);
  }
  /** Moves the clock on by `ms`, running the timers that fall due, in order. */
  async advance(ms: number): Promise<void> {
    const end = this.t + ms;
    for (;;) {
      this.timers.sort((a, b) => a.at - b.at);
      const next = this.timers[0];
      if (!next || next.at > end) break;
      this.timers.shift();
      this.t = Math.max(this.t, next.at);
      next.fn();
      await new Promise((r) => setImmediate(r));
    }
    this.t = end;
  }
}

/** A provider that records each request and reports the whole prompt as read from the cache. */
class RecordingProvider implements ChatProvider {
  readonly label = 'fake';
  readonly supportsTools = true;
  readonly requests: ChatRequest[] = [];
  constructor(
    readonly kind: 'anthropic' | 'openai',
    private readonly prefixTokens: number,
  ) {}
  async *stream(req: ChatRequest): AsyncGenerator<StreamEvent> {
    this.requests.push(req);
    const usage: ProviderUsage = { input: this.prefixTokens, cacheRead: this.prefixTokens, cacheWrite: 0, output: 1 };
    yield { type: 'text', text: 'k', seq: 0 };
    yield { type: 'usage', usage };
    yield { type: 'done', text: 'k', usage, attempts: 1 };
  }
}

const b = (text: string, cacheBreakpoint = false) =>
  cacheBreakpoint ? { type: 'text' as const, text, cacheBreakpoint } : { type: 'text' as const, text };
const MESSAGES: ChatMessage[] = [
  { role: 'system', content: [b('You are Strata.', true)] },
  { role: 'user', content: [b('Layers '), b('and the question', true), b(' and what follows')] },
];
const TOOLS = TOOL_DEFINITIONS;

interface Setup {
  clock: FakeClock;
  kw: KeepWarm;
  provider: RecordingProvider;
  pinged: { chatId: string; usage: ProviderUsage; usd: number }[];
  current: { chatId: string; label: string | undefined; windowActive: boolean };
  settings: { enabled: boolean; pricing: PricingSettings };
  logs: string[];
}

function setup(kind: 'anthropic' | 'openai' = 'anthropic', prefixTokens = 20_000): Setup {
  const clock = new FakeClock();
  const provider = new RecordingProvider(kind, prefixTokens);
  const pinged: Setup['pinged'] = [];
  const current = { chatId: 'chat-1', label: LABEL as string | undefined, windowActive: true };
  const settings = { enabled: true, pricing: { ...DEFAULT_PRICING } };
  const logs: string[] = [];
  const kw = new KeepWarm({
    enabled: () => settings.enabled,
    pricing: () => settings.pricing,
    current: () => current,
    pinged: (chatId, usage, usd) => pinged.push({ chatId, usage, usd }),
    log: (l) => logs.push(l),
    clock,
  });
  return { clock, kw, provider, pinged, current, settings, logs };
}

/** A turn's request through the watched provider, as the pipeline sends it. */
async function sendTurn(s: Setup): Promise<void> {
  s.kw.activity();
  const watched = s.kw.watch(s.provider, LABEL);
  const req: ChatRequest = {
    messages: MESSAGES,
    tools: TOOLS,
    model: 'claude-sonnet-4-5',
    conversationId: 'chat-1',
    maxOutputTokens: 4096,
  };
  for await (const ev of watched.stream(req)) void ev;
}

describe('keep-warm (fake clock)', () => {
  it('pings 30 s before the 5-minute lifetime ends, with the cached prefix, the same tools and max_tokens 1', async () => {
    const s = setup();
    await sendTurn(s);
    assert.equal(s.kw.scheduled, true);
    await s.clock.advance(270_000 - 1);
    assert.equal(s.provider.requests.length, 1, 'nothing before the moment');
    await s.clock.advance(1);
    assert.equal(s.provider.requests.length, 2, 'the ping went out');
    const ping = s.provider.requests[1];
    const turn = s.provider.requests[0];
    assert.deepEqual(ping.messages, [MESSAGES[0], { role: 'user', content: [b('Layers '), b('and the question', true)] }]);
    assert.equal(ping.tools, turn.tools, 'the same tool list');
    assert.equal(ping.model, turn.model);
    assert.equal(ping.maxOutputTokens, 1);
    assert.equal(s.pinged.length, 1);
    const prices = resolvePrices('anthropic', 'claude-sonnet-4-5', true, {})!.prices;
    assert.equal(s.pinged[0].usd, turnCost(s.pinged[0].usage, prices, '5m').usd);
    // The lifetime restarts from the ping: the next one 270 s after it, while the user is still active.
    await s.clock.advance(270_000);
    assert.equal(s.provider.requests.length, 3);
  });

  it('stops once the user has done nothing in the panel for 10 minutes', async () => {
    const s = setup();
    await sendTurn(s);
    await s.clock.advance(3 * 270_000);
    // Pings at 4:30 and 9:00; at 13:30 the last activity is more than ACTIVE_WITHIN_MS ago.
    assert.ok(3 * 270_000 > ACTIVE_WITHIN_MS);
    assert.equal(s.provider.requests.length, 3);
    assert.ok(s.logs.some((l) => l.includes('user-inactive')));
    assert.equal(s.kw.scheduled, false);
  });

  it('sends nothing when the user was not active recently', async () => {
    const s = setup();
    await sendTurn(s);
    s.clock.t += ACTIVE_WITHIN_MS + 1; // the timer fires late, long after the send
    await s.clock.advance(0);
    assert.equal(s.provider.requests.length, 1);
    assert.equal(s.kw.skipReason(), 'user-inactive');
  });

  it('sends nothing for a provider that is not Anthropic', async () => {
    const s = setup('openai');
    assert.equal(s.kw.watch(s.provider, 'OpenAI · gpt-4o'), s.provider, 'not even watched');
    s.kw.completed(
      s.provider,
      'OpenAI · gpt-4o',
      { messages: MESSAGES, model: 'gpt-4o', conversationId: 'chat-1', maxOutputTokens: 9 },
      {
        input: 5000,
        cacheRead: 5000,
        cacheWrite: 0,
        output: 1,
      },
    );
    assert.equal(s.kw.scheduled, false);
    await s.clock.advance(3_600_000);
    assert.equal(s.provider.requests.length, 0);
  });

  it('sends nothing when the setting is off', async () => {
    const s = setup();
    s.settings.enabled = false;
    await sendTurn(s);
    assert.equal(s.kw.scheduled, false);
    await s.clock.advance(3_600_000);
    assert.equal(s.provider.requests.length, 1);
  });

  it('sends nothing when the saving does not exceed the ping’s cost', async () => {
    // Below 1,024 tokens nothing is cached: no saving at all.
    const small = setup('anthropic', 900);
    await sendTurn(small);
    await small.clock.advance(270_000);
    assert.equal(small.provider.requests.length, 1);
    assert.ok(small.logs.some((l) => l.includes('saving-below-cost')));
    // Prices where a cache write costs no more than a read: nothing to save.
    const flat = setup();
    flat.settings.pricing = { ...DEFAULT_PRICING, prices: { 'claude-sonnet-4-5': { cacheWrite5m: 0.3 } } };
    await sendTurn(flat);
    await flat.clock.advance(270_000);
    assert.equal(flat.provider.requests.length, 1);
    assert.equal(flat.kw.skipReason(), 'saving-below-cost');
  });

  it('the saving and the cost are priced by the price table', () => {
    const e = pingEconomics(20_000, DEFAULT_PRICING, LABEL)!;
    // Sonnet 4.5: $3 input, $0.30 cache read, $3.75 5-minute write, $15 output per million.
    assert.ok(Math.abs(e.saving - 20_000 * (3.75 - 0.3) * 1e-6) < 1e-12);
    assert.ok(Math.abs(e.cost - (20_000 * 0.3 + 15) * 1e-6) < 1e-12);
    assert.equal(pingEconomics(20_000, DEFAULT_PRICING, 'Local imitation server · claude-sonnet-4-5'), undefined, 'no guessed price');
    const hour = pingEconomics(20_000, { ...DEFAULT_PRICING, anthropicCacheTtl: '1h' }, LABEL)!;
    assert.ok(Math.abs(hour.saving - 20_000 * (6 - 0.3) * 1e-6) < 1e-12);
  });

  it('is cancelled when the chat is closed, the model changes or the window goes inactive', async () => {
    const closed = setup();
    await sendTurn(closed);
    closed.current.chatId = 'chat-2';
    await closed.clock.advance(270_000);
    assert.equal(closed.provider.requests.length, 1);
    assert.ok(closed.logs.some((l) => l.includes('chat-closed')));

    const model = setup();
    await sendTurn(model);
    model.current.label = 'Anthropic · claude-opus-4-1';
    await model.clock.advance(270_000);
    assert.equal(model.provider.requests.length, 1);
    assert.ok(model.logs.some((l) => l.includes('model-changed')));

    const away = setup();
    await sendTurn(away);
    away.current.windowActive = false;
    await away.clock.advance(270_000);
    assert.equal(away.provider.requests.length, 1);

    const cancelled = setup();
    await sendTurn(cancelled);
    cancelled.kw.cancel();
    assert.equal(cancelled.kw.scheduled, false);
    await cancelled.clock.advance(3_600_000);
    assert.equal(cancelled.provider.requests.length, 1);

    // The provider resolved again (a setting, the key or the models changed).
    const resolved = setup();
    await sendTurn(resolved);
    resolved.kw.watch(new RecordingProvider('anthropic', 20_000), LABEL);
    assert.equal(resolved.kw.scheduled, false);
    await resolved.clock.advance(3_600_000);
    assert.equal(resolved.provider.requests.length, 1);
  });

  it('follows the documented lifetimes, never strata.cache.lifetimeSeconds: a 1-second setting is not 750 pings', async () => {
    const short = setup();
    short.settings.pricing = { ...DEFAULT_PRICING, cacheLifetimeSeconds: 1 };
    await sendTurn(short);
    await short.clock.advance(10 * 60_000);
    // The documented 5 minutes: pings at 4.5 and 9 minutes, the cap of two per sign of activity.
    assert.equal(short.provider.requests.length - 1, 2, 'pings in 10 minutes');
    const hour = setup();
    hour.settings.pricing = { ...DEFAULT_PRICING, anthropicCacheTtl: '1h' };
    await sendTurn(hour);
    await hour.clock.advance(3_000_000);
    hour.kw.activity(); // the user is still at it 50 minutes later
    await hour.clock.advance(570_000 - 1);
    assert.equal(hour.provider.requests.length, 1);
    await hour.clock.advance(1);
    assert.equal(hour.provider.requests.length, 2);
  });

  it('cuts a request at its last breakpoint', () => {
    const withCalls: ChatMessage[] = [
      { role: 'user', content: [b('a', true)] },
      { role: 'assistant', content: [b('b', true), b('c')], toolCalls: [{ id: 'x', name: 'read_file', args: {} }] },
    ];
    assert.deepEqual(cachedPrefix(withCalls), [withCalls[0], { role: 'assistant', content: [b('b', true)] }]);
    assert.deepEqual(cachedPrefix(MESSAGES.slice(0, 1)), MESSAGES.slice(0, 1));
    assert.equal(cachedPrefix([{ role: 'user', content: [b('no breakpoint')] }]), undefined);
  });
});

describe('keep-warm cost in the chat’s cost', () => {
  const meta: TurnMeta = {
    turn: 1,
    at: new Date(1_000_000).toISOString(),
    attachments: [],
    pinned: [],
    detached: [],
    pruned: [],
    compacted: [],
    missing: [],
    usage: { input: 20_000, cacheRead: 0, cacheWrite: 20_000, output: 100 },
    model: LABEL,
    provider: 'anthropic',
  };

  it('adds the pings to the chat total and the cost view, and restarts the expiry clock', () => {
    let now = 1_000_000;
    const costs = new ChatCosts(
      {
        pricing: () => DEFAULT_PRICING,
        active: () => ({ chatId: 'chat-1', provider: 'anthropic', label: LABEL, lastMeta: meta }),
        turnMetas: () => [meta],
        log: () => {},
      },
      () => now,
    );
    const row = { id: 'chat-1', title: 'A chat', turns: 1, updatedAt: meta.at! };
    const before = costs.summary(row, [meta]).cost;
    assert.equal(costs.expiresAt(), 1_000_000 + 300_000);
    now += 270_000;
    const prices = resolvePrices('anthropic', 'claude-sonnet-4-5', true, {})!.prices;
    const pingUsd = turnCost({ input: 20_000, cacheRead: 20_000, cacheWrite: 0, output: 1 }, prices).usd;
    costs.keptWarm('chat-1', pingUsd);
    assert.equal(costs.expiresAt(), now + 300_000, 'the lifetime restarts from the ping');
    const turnUsd = turnCost(meta.usage!, prices).usd;
    assert.equal(before, formatUsd(turnUsd));
    assert.equal(costs.summary(row, [meta]).cost, formatUsd(turnUsd + pingUsd));
    const report = costs.report('A chat', [meta]);
    assert.match(report, new RegExp(`keep-warm ${formatUsd(pingUsd).replace('$', '\\$').replace('.', '\\.')}: 1 ping `));
    assert.match(
      report,
      new RegExp(
        `\\*\\*${formatUsd(turnUsd + pingUsd)
          .replace('$', '\\$')
          .replace('.', '\\.')}\\*\\*`,
      ),
    );
    assert.deepEqual(costs.keepWarmSpent('chat-1'), { pings: 1, usd: pingUsd });
  });
});
