/**
 * What a turn cost in money, from the usage the provider reported, and what the cache saved: the
 * same tokens billed with no cache, minus what was billed. Pure arithmetic, in US dollars.
 */
import { costText, formatInt } from '../../common/numberFormat';
import type { ModelPrices } from './prices';

/** The usage a provider reports for one request: `input` counts every prompt token, cached or not. */
export interface BilledUsage {
  input: number;
  cacheRead: number;
  cacheWrite: number;
  output: number;
}

/** The lifetime Anthropic's cache writes were asked for (`strata.anthropicCacheTtl`); OpenAI's writes cost the input price. */
export type CacheTtl = '5m' | '1h';

export interface TurnCost {
  /** What the request was billed. */
  usd: number;
  /** The same tokens with no cache: every prompt token at the input price. */
  uncachedUsd: number;
  /** `uncachedUsd − usd`: negative when cache writes cost more than the reads saved. */
  savedUsd: number;
}

const PER_TOKEN = 1 / 1_000_000;

/** The cost of a request's reported usage at `prices`. */
export function turnCost(usage: BilledUsage, prices: ModelPrices, ttl: CacheTtl = '5m'): TurnCost {
  const read = Math.max(0, usage.cacheRead);
  const write = Math.max(0, usage.cacheWrite);
  const plain = Math.max(0, usage.input - read - write);
  const writePrice = ttl === '1h' ? prices.cacheWrite1h : prices.cacheWrite5m;
  const usd = (plain * prices.input + read * prices.cachedInput + write * writePrice + usage.output * prices.output) * PER_TOKEN;
  const uncachedUsd = (Math.max(usage.input, read + write) * prices.input + usage.output * prices.output) * PER_TOKEN;
  return { usd, uncachedUsd, savedUsd: uncachedUsd - usd };
}

/** Both providers cache nothing shorter than this prefix. */
const MIN_CACHED_PREFIX = 1024;

/**
 * The prompt of the next request, priced before it is sent: `cachedTokens` read from the cache, and
 * for Anthropic the rest written to it (the request's last breakpoint is its end). Output is not
 * known before the reply, so it is left out.
 */
export function predictedPromptCost(
  provider: string,
  promptTokens: number,
  cachedTokens: number,
  prices: ModelPrices,
  ttl: CacheTtl = '5m',
): TurnCost {
  const cached = Math.min(Math.max(0, cachedTokens), promptTokens);
  const write = provider === 'anthropic' && promptTokens >= MIN_CACHED_PREFIX ? promptTokens - cached : 0;
  return turnCost({ input: promptTokens, cacheRead: cached, cacheWrite: write, output: 0 }, prices, ttl);
}

/** The cost line under a reply: "$0.012, saved $0.0045" (or what the cache writes added). */
export function costLine(cost: TurnCost): string {
  return costText(cost.usd, cost.savedUsd);
}

/** The line under a reply when no price is known for its model: its tokens only. */
export function tokensLine(usage: BilledUsage): string {
  const cached = usage.cacheRead > 0 ? ` (${formatInt(usage.cacheRead)} cached)` : '';
  const written = usage.cacheWrite > 0 ? ` (${formatInt(usage.cacheWrite)} written to cache)` : '';
  return `${formatInt(usage.input)} tokens in${cached}${written} · ${formatInt(usage.output)} out · no price known`;
}
