import * as assert from 'node:assert/strict';
import { CACHE_LIFETIMES, CacheExpiry, cacheLifetimeSeconds, expiryAccuracy } from '../../../../src/services/pricing/cacheExpiry';
import { costLine, predictedPromptCost, tokensLine, turnCost } from '../../../../src/services/pricing/cost';
import { formatUsd } from '../../../../src/common/numberFormat';
import { PRICE_TABLE, parseModelLabel, priceRow, resolvePrices } from '../../../../src/services/pricing/prices';

/** Dollars compared to a tenth of a micro-dollar: float sums of per-token prices are not exact. */
function near(actual: number, expected: number): void {
  assert.ok(Math.abs(actual - expected) < 1e-7, `${actual} ≠ ${expected}`);
}

describe('prices', () => {
  it('has every offered model, each row with its source and the day it was read', () => {
    for (const id of ['gpt-4o', 'gpt-4o-mini', 'gpt-4.1', 'gpt-4.1-mini', 'gpt-4.1-nano', 'gpt-5', 'gpt-5-mini', 'gpt-5-nano'])
      assert.ok(priceRow('openai', id), id);
    for (const id of ['claude-sonnet-4-5', 'claude-opus-4-1', 'claude-haiku-4-5', 'claude-3-7-sonnet-latest', 'claude-3-5-haiku-latest'])
      assert.ok(priceRow('anthropic', id), id);
    for (const row of PRICE_TABLE) {
      assert.match(row.source, /^https:\/\//);
      assert.match(row.checked, /^\d{4}-\d{2}-\d{2}$/);
    }
  });

  it('matches dated ids but not a longer model name', () => {
    assert.strictEqual(priceRow('openai', 'gpt-4o-2024-08-06')?.model, 'gpt-4o');
    assert.strictEqual(priceRow('openai', 'gpt-4o-mini')?.model, 'gpt-4o-mini');
    assert.strictEqual(priceRow('anthropic', 'claude-sonnet-4-5-20250929')?.model, 'claude-sonnet-4-5');
    assert.strictEqual(priceRow('openai', 'gpt-4o-audio-preview'), undefined);
    assert.strictEqual(priceRow('anthropic', 'gpt-4o'), undefined);
  });

  it('Anthropic rows carry the documented cache multipliers', () => {
    assert.deepStrictEqual(priceRow('anthropic', 'claude-sonnet-4-5')!.prices, {
      input: 3,
      cachedInput: 0.3,
      cacheWrite5m: 3.75,
      cacheWrite1h: 6,
      output: 15,
    });
  });

  it('prices only the provider’s own endpoint from the table; others only through the setting', () => {
    assert.ok(resolvePrices('openai', 'gpt-4o', true, undefined));
    assert.strictEqual(resolvePrices('openai', 'gpt-4o', false, undefined), undefined);
    assert.strictEqual(resolvePrices('openai', 'my-local-model', false, { 'my-local-model': { input: 1 } }), undefined, 'no output price');
    assert.deepStrictEqual(resolvePrices('openai', 'my-local-model', false, { 'my-local-model': { input: 1, output: 2 } })?.prices, {
      input: 1,
      cachedInput: 1,
      cacheWrite5m: 1,
      cacheWrite1h: 1,
      output: 2,
    });
    const over = resolvePrices('openai', 'gpt-4o', true, { 'gpt-4o': { output: 9, input: -1 } as never })!;
    assert.strictEqual(over.prices.output, 9);
    assert.strictEqual(over.prices.input, 2.5, 'a negative price is ignored');
    assert.match(over.source, /strata\.prices/);
    assert.strictEqual(resolvePrices('vscode-lm', 'copilot-gpt-4o', false, undefined), undefined);
  });

  it('reads the model and the endpoint from the turn’s label', () => {
    assert.deepStrictEqual(parseModelLabel('openai', 'OpenAI · gpt-4o'), { model: 'gpt-4o', official: true });
    assert.deepStrictEqual(parseModelLabel('openai', 'Local imitation server · gpt-4o'), { model: 'gpt-4o', official: false });
    assert.deepStrictEqual(parseModelLabel('anthropic', 'Anthropic-compatible at x.example · claude-sonnet-4-5'), {
      model: 'claude-sonnet-4-5',
      official: false,
    });
    assert.strictEqual(parseModelLabel('openai', undefined), undefined);
  });
});

describe('cost arithmetic', () => {
  const gpt4o = priceRow('openai', 'gpt-4o')!.prices;
  const sonnet = priceRow('anthropic', 'claude-sonnet-4-5')!.prices;

  it('OpenAI: 10,000 prompt tokens of which 8,192 cached, 500 out', () => {
    // 1,808 × $2.50 + 8,192 × $1.25 + 500 × $10 per million = 0.00452 + 0.01024 + 0.005 = $0.01976
    // uncached: 10,000 × $2.50 + 500 × $10 = 0.025 + 0.005 = $0.030; saved $0.01024
    const c = turnCost({ input: 10_000, cacheRead: 8_192, cacheWrite: 0, output: 500 }, gpt4o);
    near(c.usd, 0.01976);
    near(c.uncachedUsd, 0.03);
    near(c.savedUsd, 0.01024);
    assert.strictEqual(costLine(c), '$0.020, saved $0.010');
  });

  it('Anthropic: a cache read of 20,000, a 5-minute write of 3,000, 1,000 plain, 800 out', () => {
    // plain 1,000 × $3 = 0.003; read 20,000 × $0.30 = 0.006; write 3,000 × $3.75 = 0.01125; out 800 × $15 = 0.012
    // total $0.03225; uncached 24,000 × $3 + 0.012 = $0.084; saved $0.05175
    const c = turnCost({ input: 24_000, cacheRead: 20_000, cacheWrite: 3_000, output: 800 }, sonnet, '5m');
    near(c.usd, 0.03225);
    near(c.uncachedUsd, 0.084);
    near(c.savedUsd, 0.05175);
  });

  it('Anthropic: the same with a 1-hour write', () => {
    // write 3,000 × $6 = 0.018 instead of 0.01125: total $0.039, saved $0.045
    const c = turnCost({ input: 24_000, cacheRead: 20_000, cacheWrite: 3_000, output: 800 }, sonnet, '1h');
    near(c.usd, 0.039);
    near(c.savedUsd, 0.045);
  });

  it('Anthropic: a first request only writes, so the cache costs extra', () => {
    // 10,000 written at $3.75 = 0.0375 + 100 out × $15 = 0.0015 → $0.039; uncached 0.03 + 0.0015 = $0.0315
    const c = turnCost({ input: 10_000, cacheRead: 0, cacheWrite: 10_000, output: 100 }, sonnet, '5m');
    near(c.usd, 0.039);
    near(c.savedUsd, -0.0075);
    assert.strictEqual(costLine(c), '$0.039, cache writes added $0.0075');
  });

  it('predicts the next prompt: OpenAI reads the cached part, Anthropic also writes the rest', () => {
    // OpenAI: 4,000 uncached × $2.50 + 6,000 × $1.25 = 0.01 + 0.0075 = $0.0175
    near(predictedPromptCost('openai', 10_000, 6_000, gpt4o).usd, 0.0175);
    // Anthropic: 6,000 read × $0.30 + 4,000 written × $3.75 = 0.0018 + 0.015 = $0.0168
    near(predictedPromptCost('anthropic', 10_000, 6_000, sonnet).usd, 0.0168);
    // Expired: nothing read, all 10,000 written → $0.0375
    near(predictedPromptCost('anthropic', 10_000, 0, sonnet).usd, 0.0375);
  });

  it('formats dollars and the tokens-only line', () => {
    assert.strictEqual(formatUsd(0), '$0.00');
    assert.strictEqual(formatUsd(0.00004), '<$0.0001');
    assert.strictEqual(formatUsd(0.01234), '$0.012');
    assert.strictEqual(formatUsd(12.345), '$12.35');
    assert.strictEqual(
      tokensLine({ input: 12_000, cacheRead: 8_000, cacheWrite: 0, output: 300 }),
      '12,000 tokens in (8,000 cached) · 300 out · no price known',
    );
  });
});

describe('cache expiry', () => {
  it('documents each provider’s lifetime with its source; the setting overrides it', () => {
    assert.strictEqual(CACHE_LIFETIMES['anthropic-5m'].seconds, 300);
    assert.strictEqual(CACHE_LIFETIMES['anthropic-1h'].seconds, 3600);
    assert.strictEqual(CACHE_LIFETIMES.openai.seconds, 300);
    for (const l of Object.values(CACHE_LIFETIMES)) assert.match(l.source, /^https:\/\//);
    assert.strictEqual(cacheLifetimeSeconds('anthropic', '1h', 0), 3600);
    assert.strictEqual(cacheLifetimeSeconds('anthropic', '5m', 0), 300);
    assert.strictEqual(cacheLifetimeSeconds('openai', '1h', 0), 300);
    assert.strictEqual(cacheLifetimeSeconds('openai', '5m', 2), 2);
    assert.strictEqual(cacheLifetimeSeconds('vscode-lm', '5m', 2), undefined);
  });

  it('expires exactly when the lifetime since the last request has passed (fake clock)', () => {
    let now = 1_000_000;
    const expiry = new CacheExpiry(() => now);
    assert.deepStrictEqual(expiry.status('c', 300), { expired: false }, 'no request yet');
    expiry.sent('c');
    now += 299_999;
    assert.deepStrictEqual(expiry.status('c', 300), { lastRequestAt: 1_000_000, expiresAt: 1_300_000, expired: false });
    now += 1;
    assert.strictEqual(expiry.status('c', 300).expired, true);
    assert.strictEqual(expiry.status('c', undefined).expired, false, 'an unknown lifetime never expires');
    expiry.sent('c');
    assert.strictEqual(expiry.status('c', 300).expired, false, 'a new request refreshes it');
  });

  it('falls back to the saved time of the last turn, and takes the later of the two', () => {
    let now = Date.parse('2026-01-01T00:10:00Z');
    const expiry = new CacheExpiry(() => now);
    assert.strictEqual(expiry.status('c', 300, '2026-01-01T00:04:00Z').expired, true);
    assert.strictEqual(expiry.status('c', 300, '2026-01-01T00:06:00Z').expired, false);
    now = Date.parse('2026-01-01T00:05:00Z');
    expiry.sent('c');
    now = Date.parse('2026-01-01T00:10:30Z');
    assert.strictEqual(expiry.status('c', 300, '2026-01-01T00:06:00Z').expired, false, 'saved later than sent');
    assert.strictEqual(expiry.status('c', 300, 'not a date').expired, true);
  });

  it('judges the prediction against the reported outcome', () => {
    assert.strictEqual(expiryAccuracy(true, 5000, 0), 'right');
    assert.strictEqual(expiryAccuracy(true, 5000, 4096), 'wrong');
    assert.strictEqual(expiryAccuracy(false, 5000, 4096), 'right');
    assert.strictEqual(expiryAccuracy(false, 5000, 0), 'wrong');
    assert.strictEqual(expiryAccuracy(false, 0, 0), undefined);
  });
});
