/**
 * Cost in the session (src/services/session/chatCosts.ts through ChatSession): the line under a
 * reply, the chat list's total, the meter's next-message prediction, and the cache-expiry notice
 * with a fake clock; the per-turn log line judges the expiry prediction against the reported usage.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ChatSession, type SessionSettings } from '../../../../src/services/chatSession';
import { MemoryWorkspace } from '../../../../src/services/memoryWorkspace';
import { modelInfo } from '../../../../src/services/modelInfo';
import { DEFAULT_PRICING } from '../../../../src/services/pricing/chatCost';
import type { ProviderUsage } from '../../../../src/services/providers';
import { ScriptedProvider } from '../../../../src/services/providers/scripted';
import { getTokenizer } from '../../../../src/services/tokenizer';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

/** A product prompt long enough for the provider to cache (over 1,024 tokens). */
const LONG_SYSTEM = Array.from({ length: 300 }, (_, i) => `Rule ${i}: answer precisely.`).join('\n');

function openaiReplies(usage: ProviderUsage): ScriptedProvider {
  const p = new ScriptedProvider(() => ({ text: 'ok', usage }));
  // The turn records the provider kind that answered: this one bills as OpenAI.
  Object.defineProperty(p, 'kind', { value: 'openai' });
  return p;
}

function session(label: string, settings: Partial<SessionSettings> = {}) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-cost-'));
  dirs.push(root);
  // An hour ahead of the real clock, which dates the saved turns: the times this session sent count.
  let now = Date.now() + 3_600_000;
  const logs: string[] = [];
  const s = ChatSession.open({
    storeRoot: root,
    port: new MemoryWorkspace({}),
    tokenizer: (e) => getTokenizer(e),
    settings: () => ({ layout: 'transcript', policy: 'append-version', system: LONG_SYSTEM, ...settings }),
    log: (l) => logs.push(l),
    model: { ...modelInfo('openai', 'gpt-4o'), label },
    store: { durable: false },
    newChatId: () => 'chat-1',
    now: () => now,
  });
  return { s, logs, advance: (ms: number) => (now += ms), now: () => now };
}

describe('chat costs', () => {
  const usage: ProviderUsage = { input: 2000, cacheRead: 1024, cacheWrite: 0, output: 50 };

  it('puts the cost under the reply and the total in the chat list', async () => {
    const { s } = session('OpenAI · gpt-4o');
    await s.send('hello', openaiReplies(usage));
    // 976 × $2.50 + 1,024 × $1.25 + 50 × $10 per million = $0.00422; uncached $0.0055; saved $0.00128
    const reply = s.messages().messages[1];
    assert.strictEqual(reply.cost?.text, '$0.0042, saved $0.0013');
    assert.ok(Math.abs(reply.cost!.usd! - 0.00422) < 1e-9);
    assert.strictEqual(s.chats()[0].cost, '$0.0042');
    const report = s.chatCosts.report('hello', s.turnMetas());
    assert.match(report, /\| 1 \| OpenAI · gpt-4o \| 2,000 \(1,024\) \/ 50 \| \$0\.0042 \| \$0\.0013 \|/);
    assert.match(report, /turn 1 {2}█+░+ +\$0\.0042 \(saved \$0\.0013\)/);
  });

  it('a turn with tool steps costs every request it made, not only the last', async () => {
    const { s } = session('OpenAI · gpt-4o', { tools: { enabled: true, maxSteps: 4, maxResultTokens: 4000, maxTurnTokens: 20_000 } });
    const step: ProviderUsage = { input: 2000, cacheRead: 1024, cacheWrite: 0, output: 30 };
    const last: ProviderUsage = { input: 2100, cacheRead: 2000, cacheWrite: 0, output: 50 };
    const replies = [
      { text: '', toolCalls: [{ id: 'c1', name: 'list_files', args: { glob: '**/*' } }], usage: step },
      { text: 'done', usage: last },
    ];
    const p = new ScriptedProvider(() => replies.shift()!);
    Object.defineProperty(p, 'kind', { value: 'openai' });
    await s.send('what is there?', p);
    const meta = s.turnMetas()[0];
    assert.deepStrictEqual(meta.usage, last);
    assert.deepStrictEqual(meta.stepUsage, [step]);
    // Per million: step 976 × $2.50 + 1,024 × $1.25 + 30 × $10 = $0.00402; last 100 × $2.50 +
    // 2,000 × $1.25 + 50 × $10 = $0.00325; together $0.00727. Uncached: 2,000 × $2.50 + 30 × $10 +
    // 2,100 × $2.50 + 50 × $10 = $0.01105, so the cache saved $0.00378.
    const reply = s.messages().messages[1];
    assert.strictEqual(reply.cost?.text, '$0.0073, saved $0.0038');
    assert.ok(Math.abs(reply.cost!.usd! - 0.00727) < 1e-9, String(reply.cost!.usd));
    assert.ok(Math.abs(reply.cost!.savedUsd! - 0.00378) < 1e-9, String(reply.cost!.savedUsd));
    assert.strictEqual(s.chats()[0].cost, '$0.0073');
    const report = s.chatCosts.report('what is there?', s.turnMetas());
    assert.match(report, /\| 1 \| OpenAI · gpt-4o \| 4,100 \(3,024\) \/ 80 \| \$0\.0073 \| \$0\.0038 \|/);
  });

  it('shows tokens only for a model without a price, and prices it through the setting', async () => {
    const { s } = session('Local imitation server · gpt-4o');
    await s.send('hello', openaiReplies(usage));
    assert.strictEqual(s.messages().messages[1].cost?.text, '2,000 tokens in (1,024 cached) · 50 out · no price known');
    assert.strictEqual(s.chats()[0].cost, undefined);
    const priced = session('Local imitation server · gpt-4o', {
      pricing: { ...DEFAULT_PRICING, prices: { 'gpt-4o': { input: 1, output: 2, cachedInput: 0.5 } } },
    });
    await priced.s.send('hello', openaiReplies(usage));
    // 976 × $1 + 1,024 × $0.50 + 50 × $2 = $0.001588; uncached 2,000 + 100 = $0.0021
    assert.strictEqual(priced.s.messages().messages[1].cost?.text, '$0.0016, saved $0.0005');
  });

  it('predicts the next message’s cost, and says so once the cache has likely expired (fake clock)', async () => {
    const { s, advance, now, logs } = session('OpenAI · gpt-4o');
    const sentAt = now();
    await s.send('hello', openaiReplies(usage));
    const warm = s.meter();
    assert.match(
      warm.nextCost ?? '',
      /^Next message: ~\$0\.\d{4} before the reply \([\d,]+ of [\d,]+ prompt tokens cached; prices: https:\/\/openai\.com/,
    );
    assert.strictEqual(warm.cacheExpired, undefined);
    assert.strictEqual(s.chatCosts.expiresAt(), sentAt + 300_000);
    advance(299_000);
    assert.strictEqual(s.meter().cacheExpired, undefined);
    advance(1_000);
    const expired = s.meter();
    assert.match(expired.cacheExpired ?? '', /^cache likely expired — the next message costs ~\$0\.\d{4} \([\d,]+ tokens uncached\)$/);
    assert.match(expired.nextCost ?? '', /none cached/);
    assert.strictEqual(s.chatCosts.expiresAt(), undefined);
    // The provider reports a warm cache after all: the log line says the prediction was wrong.
    await s.send('again', openaiReplies(usage));
    assert.ok(
      logs.some((l) => /turn 2 done: .*cache predicted expired, 1024 reported cached: wrong/.test(l)),
      logs.join('\n'),
    );
    assert.strictEqual(s.meter().cacheExpired, undefined, 'the new request warmed it');
  });

  it('prices the first message before anything was sent, with nothing cached and no expiry', () => {
    const { s } = session('OpenAI · gpt-4o');
    const m = s.meter();
    assert.match(m.nextCost ?? '', /^Next message: ~\$0\.\d{4} before the reply \([\d,]+ prompt tokens, none cached;/);
    assert.strictEqual(m.cacheExpired, undefined);
    assert.strictEqual(s.chatCosts.expiresAt(), undefined);
  });

  it('uses strata.cache.lifetimeSeconds over the documented lifetime', async () => {
    const { s, advance } = session('OpenAI · gpt-4o', { pricing: { ...DEFAULT_PRICING, cacheLifetimeSeconds: 2 } });
    await s.send('hello', openaiReplies(usage));
    advance(1_999);
    assert.strictEqual(s.meter().cacheExpired, undefined);
    advance(1);
    assert.ok(s.meter().cacheExpired);
  });
});
