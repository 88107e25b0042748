/**
 * A chat's cost as the panel, the chat list and "Show Chat Cost" show it: each turn's from its
 * reported usage and its model's prices, the chat's total, and the next message's before it is sent
 * (with the cache counted as expired once its lifetime has passed).
 */
import type { CostView } from '../../protocol/messages';
import type { TurnMeta } from '../store/chatTypes';
import type { ProviderUsage } from '../providers/types';
import { formatInt, formatUsd } from '../../common/numberFormat';
import { costLine, predictedPromptCost, tokensLine, turnCost, type CacheTtl, type TurnCost } from './cost';
import { parseModelLabel, resolvePrices, type PriceOverrides, type ResolvedPrices } from './prices';
import { overrideFor, type ModelOverrides } from '../modelOverrides';

/** The settings cost depends on. */
export interface PricingSettings {
  /** `strata.prices`. */
  prices: PriceOverrides;
  /** `strata.models`: an entry's `prices` go over `strata.prices` for the same model, figure by figure. */
  models?: ModelOverrides;
  /** `strata.anthropicCacheTtl`: the lifetime Anthropic cache writes are billed for. */
  anthropicCacheTtl: CacheTtl;
  /** `strata.cache.lifetimeSeconds` (0: the provider's documented lifetime). */
  cacheLifetimeSeconds: number;
}

export const DEFAULT_PRICING: PricingSettings = { prices: {}, anthropicCacheTtl: '5m', cacheLifetimeSeconds: 0 };

/** The prices a turn's model is billed at, from its `provider · model` label. */
export function pricesForLabel(
  provider: string | undefined,
  label: string | undefined,
  settings: PricingSettings,
): ResolvedPrices | undefined {
  const parsed = parseModelLabel(provider, label);
  if (!parsed || !provider) return undefined;
  return resolvePrices(provider, parsed.model, parsed.official, mergedPrices(settings, provider, parsed.model));
}

/** `strata.prices` for `model` with the `strata.models` entry's prices over it (a more specific setting wins). */
function mergedPrices(settings: PricingSettings, provider: string, model: string): PriceOverrides {
  const own = overrideFor(settings.models, provider, model)?.prices;
  if (!own) return settings.prices;
  const base = Object.prototype.hasOwnProperty.call(settings.prices, model) ? settings.prices[model] : {};
  return { ...settings.prices, [model]: { ...base, ...own } };
}

/**
 * What a turn's requests used, all of them: its tool steps' and the last one's (prices are per token,
 * so the sum's cost is the sum of the costs). Undefined when the last request's usage was not reported.
 */
export function billedUsage(meta: TurnMeta): ProviderUsage | undefined {
  if (!meta.usage) return undefined;
  const sum = { ...meta.usage };
  for (const u of meta.stepUsage ?? []) {
    sum.input += u.input;
    sum.cacheRead += u.cacheRead;
    sum.cacheWrite += u.cacheWrite;
    sum.output += u.output;
  }
  return sum;
}

/** A turn's cost (every request it made), when its usage was reported and its model has a price. */
export function costOfTurn(meta: TurnMeta, settings: PricingSettings): TurnCost | undefined {
  const usage = billedUsage(meta);
  if (!usage) return undefined;
  const prices = pricesForLabel(meta.provider, meta.model, settings);
  return prices ? turnCost(usage, prices.prices, settings.anthropicCacheTtl) : undefined;
}

/** The line under a reply: its cost, or its tokens when no price is known; nothing without reported usage. */
export function costView(meta: TurnMeta, settings: PricingSettings): CostView | undefined {
  const usage = billedUsage(meta);
  if (!usage) return undefined;
  const cost = costOfTurn(meta, settings);
  if (!cost) return { text: tokensLine(usage) };
  return { text: costLine(cost), usd: cost.usd, savedUsd: cost.savedUsd };
}

export interface ChatTotal {
  usd: number;
  savedUsd: number;
  /** Turns with a price, and turns with reported usage but none. */
  priced: number;
  unpriced: number;
}

export function chatTotal(metas: readonly TurnMeta[], settings: PricingSettings): ChatTotal {
  const t: ChatTotal = { usd: 0, savedUsd: 0, priced: 0, unpriced: 0 };
  for (const m of metas) {
    if (!m.usage) continue;
    const c = costOfTurn(m, settings);
    if (!c) {
      t.unpriced++;
      continue;
    }
    t.usd += c.usd;
    t.savedUsd += c.savedUsd;
    t.priced++;
  }
  return t;
}

/** The chat list's figure: the total of the priced turns ("$0.42"), "+" when some turns had no price. */
export function chatTotalText(total: ChatTotal): string | undefined {
  if (total.priced === 0) return undefined;
  return `${formatUsd(total.usd)}${total.unpriced > 0 ? '+' : ''}`;
}

export interface NextCost {
  /** The meter tooltip's sentence. */
  text: string;
  /** Set while the cache has likely expired: the panel's notice. */
  expired?: string;
}

/**
 * The next message's prompt priced before it is sent: `warmCached` tokens read from the cache while
 * it is warm, none once it has likely expired. Undefined when nothing is known to say.
 */
export function nextMessageCost(
  next: { provider: string; label: string | undefined; promptTokens: number; warmCached: number; expired: boolean },
  settings: PricingSettings,
): NextCost | undefined {
  const prices = pricesForLabel(next.provider, next.label, settings);
  const cached = next.expired ? 0 : next.warmCached;
  const expiredNotice = next.expired && next.warmCached > 0;
  if (!prices) {
    if (!expiredNotice) return undefined;
    const text = `cache likely expired — the next message sends ${formatInt(next.promptTokens)} tokens uncached (no price known for this model)`;
    return { text, expired: text };
  }
  const cost = predictedPromptCost(next.provider, next.promptTokens, cached, prices.prices, settings.anthropicCacheTtl);
  const split =
    cached > 0
      ? `${formatInt(cached)} of ${formatInt(next.promptTokens)} prompt tokens cached`
      : `${formatInt(next.promptTokens)} prompt tokens, none cached`;
  const out: NextCost = { text: `Next message: ~${formatUsd(cost.usd)} before the reply (${split}; prices: ${prices.source}).` };
  if (expiredNotice)
    out.expired = `cache likely expired — the next message costs ~${formatUsd(cost.usd)} (${formatInt(next.promptTokens)} tokens uncached)`;
  return out;
}

const BAR_WIDTH = 30;

/** Keep-warm pings sent for a chat (`strata.cache.keepWarm`) and what they cost, in US dollars. */
export interface KeepWarmSpent {
  pings: number;
  usd: number;
}

/** "Strata: Show Chat Cost": each turn's cost and saving as a Markdown table with a bar chart; keep-warm pings count in the total. */
export function chatCostReport(title: string, metas: readonly TurnMeta[], settings: PricingSettings, keepWarm?: KeepWarmSpent): string {
  const rows = metas.map((m) => ({ m, cost: costOfTurn(m, settings) }));
  const total = chatTotal(metas, settings);
  if (keepWarm) total.usd += keepWarm.usd;
  const max = Math.max(0, ...rows.map((r) => (r.cost ? Math.max(r.cost.uncachedUsd, r.cost.usd) : 0)));
  const lines = [`# Cost of “${title.replace(/[\r\n]+/g, ' ')}”`, ''];
  if (metas.length === 0) return `${lines.join('\n')}This chat has no turns yet.\n`;
  lines.push(
    total.priced > 0
      ? `**${formatUsd(total.usd)}** for ${total.priced} priced turn${total.priced === 1 ? '' : 's'}; the cache ${total.savedUsd >= 0 ? `saved **${formatUsd(total.savedUsd)}**` : `writes added **${formatUsd(-total.savedUsd)}**`}.`
      : 'No turn of this chat has a price: its model is not in the price table and `strata.prices` gives none.',
  );
  if (keepWarm && keepWarm.pings > 0)
    lines.push(
      '',
      `keep-warm ${formatUsd(keepWarm.usd)}: ${keepWarm.pings} ping${keepWarm.pings === 1 ? '' : 's'} that kept the prompt cache from expiring (in the total above).`,
    );
  if (total.unpriced > 0)
    lines.push('', `${total.unpriced} turn${total.unpriced === 1 ? ' has' : 's have'} usage but no known price (tokens only).`);
  lines.push('', '| Turn | Model | Tokens in (cached) / out | Cost | Saved by cache |', '|---:|---|---|---:|---:|');
  for (const { m, cost } of rows) {
    const u = billedUsage(m);
    const tokens = u ? `${formatInt(u.input)} (${formatInt(u.cacheRead)}) / ${formatInt(u.output)}` : 'not reported';
    const model = (m.model ?? '').replace(/\|/g, '\\|');
    lines.push(`| ${m.turn} | ${model} | ${tokens} | ${cost ? formatUsd(cost.usd) : '—'} | ${cost ? formatUsd(cost.savedUsd) : '—'} |`);
  }
  if (max > 0) {
    lines.push('', '## Per turn', '', '`█` billed, `░` saved by the cache (the same tokens billed without it).', '', '```text');
    const width = String(metas[metas.length - 1].turn).length;
    for (const { m, cost } of rows) {
      const label = `turn ${String(m.turn).padStart(width)}`;
      if (!cost) {
        lines.push(`${label}  (no price)`);
        continue;
      }
      const billed = Math.round((cost.usd / max) * BAR_WIDTH);
      const saved = Math.max(0, Math.round((cost.uncachedUsd / max) * BAR_WIDTH) - billed);
      lines.push(
        `${label}  ${'█'.repeat(billed)}${'░'.repeat(saved)}${' '.repeat(Math.max(0, BAR_WIDTH - billed - saved))}  ${formatUsd(cost.usd)}${cost.savedUsd > 0 ? ` (saved ${formatUsd(cost.savedUsd)})` : ''}`,
      );
    }
    lines.push('```');
  }
  lines.push(
    '',
    'Costs are of every request each turn made (its tool steps’ and its reply’s), from the usage the provider reported; prices per million tokens are from the provider’s published table unless `strata.prices` sets them.',
    '',
  );
  return lines.join('\n');
}
