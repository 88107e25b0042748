/**
 * Prices of the models Strata offers, in US dollars per million tokens, with where each row comes
 * from. Kept as data in the repository rather than a price package: the package that covers these
 * models carries every provider's prices (hundreds of kilobytes) for the dozen rows Strata needs.
 * A row applies only to the provider's own endpoint; any other endpoint (a compatible server, a
 * local one) is priced only through `strata.prices`, so no price is ever guessed.
 */

/** US dollars per million tokens. */
export interface ModelPrices {
  /** Prompt tokens billed at the base rate. */
  input: number;
  /** Prompt tokens served from the provider's cache. */
  cachedInput: number;
  /** Prompt tokens written to the cache with a 5-minute lifetime (Anthropic; OpenAI: the input price). */
  cacheWrite5m: number;
  /** Prompt tokens written to the cache with a 1-hour lifetime (Anthropic; OpenAI: the input price). */
  cacheWrite1h: number;
  output: number;
}

export type PricedProvider = 'openai' | 'anthropic';

export interface PriceRow {
  provider: PricedProvider;
  /** Model ids it prices: the id itself or the id with a date suffix. */
  model: string;
  prices: ModelPrices;
  /** The provider's page that publishes the figures, and the day they were last checked (against @pydantic/genai-prices 0.1.8's data). */
  source: string;
  checked: string;
}

const OPENAI_SOURCE = 'https://openai.com/api/pricing/';
const ANTHROPIC_SOURCE = 'https://docs.anthropic.com/en/docs/about-claude/pricing';
const CHECKED = '2026-11-26';

/** OpenAI charges nothing extra to write its automatic cache: a write is billed as input. */
function openai(model: string, input: number, cachedInput: number, output: number): PriceRow {
  return {
    provider: 'openai',
    model,
    prices: { input, cachedInput, cacheWrite5m: input, cacheWrite1h: input, output },
    source: OPENAI_SOURCE,
    checked: CHECKED,
  };
}

/** Anthropic bills a cache read at 0.1×, a 5-minute write at 1.25× and a 1-hour write at 2× the input price. */
function anthropic(model: string, input: number, output: number): PriceRow {
  const r = (n: number): number => Math.round(n * 1e6) / 1e6;
  return {
    provider: 'anthropic',
    model,
    prices: { input, cachedInput: r(input * 0.1), cacheWrite5m: r(input * 1.25), cacheWrite1h: r(input * 2), output },
    source: ANTHROPIC_SOURCE,
    checked: CHECKED,
  };
}

export const PRICE_TABLE: readonly PriceRow[] = [
  openai('gpt-4o', 2.5, 1.25, 10),
  openai('gpt-4o-mini', 0.15, 0.075, 0.6),
  openai('gpt-4.1', 2, 0.5, 8),
  openai('gpt-4.1-mini', 0.4, 0.1, 1.6),
  openai('gpt-4.1-nano', 0.1, 0.025, 0.4),
  openai('gpt-5', 1.25, 0.125, 10),
  openai('gpt-5-mini', 0.25, 0.025, 2),
  openai('gpt-5-nano', 0.05, 0.005, 0.4),
  openai('o3', 2, 0.5, 8),
  openai('o4-mini', 1.1, 0.275, 4.4),
  anthropic('claude-opus-4-1', 15, 75),
  anthropic('claude-opus-4-0', 15, 75),
  anthropic('claude-opus-4', 15, 75),
  anthropic('claude-sonnet-4-5', 3, 15),
  anthropic('claude-sonnet-4-0', 3, 15),
  anthropic('claude-sonnet-4', 3, 15),
  anthropic('claude-3-7-sonnet', 3, 15),
  anthropic('claude-haiku-4-5', 1, 5),
  anthropic('claude-3-5-haiku', 0.8, 4),
];

/** `strata.prices`: model id → the prices to use instead of (or, for a model not in the table, as) the table's. */
export type PriceOverrides = Readonly<Record<string, Partial<ModelPrices>>>;

/** Where a price came from: the table's row, or the user's setting. */
export interface ResolvedPrices {
  prices: ModelPrices;
  source: string;
}

const DATE_SUFFIX = /^(-\d{8}|-\d{4}-\d{2}-\d{2}|-latest)$/;

/** The table's row for `model` on the provider's own endpoint: the id itself, or it with a date or `-latest`. */
export function priceRow(provider: string, model: string): PriceRow | undefined {
  const id = model.toLowerCase();
  for (const row of PRICE_TABLE) {
    if (row.provider !== provider) continue;
    if (id === row.model || (id.startsWith(row.model) && DATE_SUFFIX.test(id.slice(row.model.length)))) return row;
  }
  return undefined;
}

const PRICE_FIELDS: readonly (keyof ModelPrices)[] = ['input', 'cachedInput', 'cacheWrite5m', 'cacheWrite1h', 'output'];

/** The figures of an override that are prices (finite, not negative); anything else is left out. */
export function validOverride(value: unknown): Partial<ModelPrices> {
  const out: Partial<ModelPrices> = {};
  if (typeof value !== 'object' || value === null) return out;
  for (const f of PRICE_FIELDS) {
    const v = (value as Record<string, unknown>)[f];
    if (typeof v === 'number' && Number.isFinite(v) && v >= 0) out[f] = v;
  }
  return out;
}

/**
 * The prices of `model` as `provider` bills them: the table's row when the request went to the
 * provider's own endpoint (`official`), with the setting's figures over it; for any other model or
 * endpoint, the setting's figures alone, which must give at least the input and output prices (the
 * cache figures default to the input price). Undefined: no price is known, so none is shown.
 */
export function resolvePrices(
  provider: string,
  model: string,
  official: boolean,
  overrides: PriceOverrides | undefined,
): ResolvedPrices | undefined {
  const row = official ? priceRow(provider, model) : undefined;
  const own = overrides && Object.prototype.hasOwnProperty.call(overrides, model) ? validOverride(overrides[model]) : {};
  const hasOwn = Object.keys(own).length > 0;
  if (row) {
    return hasOwn
      ? { prices: { ...row.prices, ...own }, source: `${row.source} (${row.checked}), with strata.prices` }
      : { prices: row.prices, source: `${row.source} (${row.checked})` };
  }
  if (own.input === undefined || own.output === undefined) return undefined;
  const input = own.input;
  return {
    prices: {
      input,
      cachedInput: own.cachedInput ?? input,
      cacheWrite5m: own.cacheWrite5m ?? input,
      cacheWrite1h: own.cacheWrite1h ?? input,
      output: own.output,
    },
    source: 'strata.prices',
  };
}

/** Provider names as the model label shows the provider's own endpoint ("OpenAI · gpt-4o"). */
const OFFICIAL_NAMES: Readonly<Record<string, string>> = { openai: 'OpenAI', anthropic: 'Anthropic' };

/**
 * A turn's `provider · model` label split into the model id and whether the provider's own endpoint
 * answered (a compatible, local or imitation server names itself differently).
 */
export function parseModelLabel(provider: string | undefined, label: string | undefined): { model: string; official: boolean } | undefined {
  if (!label) return undefined;
  const at = label.lastIndexOf(' · ');
  if (at < 0) return { model: label, official: false };
  const where = label.slice(0, at);
  return { model: label.slice(at + 3), official: provider !== undefined && OFFICIAL_NAMES[provider] === where };
}
