/**
 * What a turn cost in money, from the usage the provider reported, and what the cache saved: the
 * same tokens billed with no cache, minus what was billed. Pure arithmetic, in US dollars.
 */
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

/** Dollars as the panel shows them: cents for a dollar or more, four decimals below, `<$0.0001` for dust. */
export function formatUsd(usd: number): string {
  const v = Math.abs(usd);
  const sign = usd < 0 ? '−' : '';
  if (v === 0) return '$0.00';
  if (v >= 1) return `${sign}$${v.toFixed(2)}`;
  if (v < 0.0001) return `${sign}<$0.0001`;
  return `${sign}$${v.toFixed(4)}`;
}

function formatInt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

/** The cost line under a reply: "$0.0123 · saved $0.0045 by cache" (or what the cache writes added). */
export function costLine(cost: TurnCost): string {
  const saved = cost.savedUsd;
  // Below a hundredth of a cent either way the cache made no difference worth a word.
  if (Math.abs(saved) < 0.00005) return formatUsd(cost.usd);
  return saved > 0
    ? `${formatUsd(cost.usd)} · saved ${formatUsd(saved)} by cache`
    : `${formatUsd(cost.usd)} · cache writes added ${formatUsd(-saved)}`;
}

/** The line under a reply when no price is known for its model: its tokens only. */
export function tokensLine(usage: BilledUsage): string {
  const cached = usage.cacheRead > 0 ? ` (${formatInt(usage.cacheRead)} cached)` : '';
  const written = usage.cacheWrite > 0 ? ` (${formatInt(usage.cacheWrite)} written to cache)` : '';
  return `${formatInt(usage.input)} tokens in${cached}${written} · ${formatInt(usage.output)} out · no price known`;
}
