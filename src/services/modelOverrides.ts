/**
 * `strata.models`: the user's own figures for a model — its context window, its maximum output and
 * its prices — keyed by `<provider>/<model>` (one provider's model) or `<model>` (that id on any
 * provider). They go over what the server says and over Strata's table (docs/design.md#budget).
 * A window Strata learned in this session from a server that cut a prompt (see ./turn/serverCut.ts)
 * goes over everything when it is smaller: the server showed that the larger figure does not hold.
 */
import type { ModelPrices } from './pricing/prices';
import { validOverride } from './pricing/prices';
import type { ModelInfo } from './modelInfo';

/** One model's entry. */
export interface ModelOverride {
  contextWindow?: number;
  maxOutputTokens?: number;
  /** US dollars per million tokens; over `strata.prices` for the same model, figure by figure. */
  prices?: Partial<ModelPrices>;
}

/** `strata.models` as read: key → entry. */
export type ModelOverrides = Readonly<Record<string, ModelOverride>>;

/** The smallest window an entry may give: the system prompt and a short question must fit. */
export const MIN_CONTEXT_WINDOW = 256;

/** The entry for `provider` / `model`: `<provider>/<model>` first, then the bare `<model>`. */
export function overrideFor(overrides: ModelOverrides | undefined, provider: string, model: string): ModelOverride | undefined {
  if (!overrides) return undefined;
  const own = (key: string) => (Object.prototype.hasOwnProperty.call(overrides, key) ? overrides[key] : undefined);
  return own(`${provider}/${model}`) ?? own(model);
}

/**
 * The well-formed part of the setting's value, and a sentence for each figure left out (the user
 * sees why an entry does not apply; the rest of it still does).
 */
export function parseModelOverrides(value: unknown): { overrides: ModelOverrides; problems: string[] } {
  const overrides: Record<string, ModelOverride> = {};
  const problems: string[] = [];
  if (value === undefined || value === null) return { overrides, problems };
  if (typeof value !== 'object' || Array.isArray(value)) {
    problems.push('strata.models must be an object of model entries; it is ignored.');
    return { overrides, problems };
  }
  for (const [key, entry] of Object.entries(value as Record<string, unknown>)) {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      problems.push(`strata.models["${key}"] must be an object; it is ignored.`);
      continue;
    }
    const e = entry as Record<string, unknown>;
    const out: ModelOverride = {};
    if (e.contextWindow !== undefined) {
      if (isWhole(e.contextWindow) && e.contextWindow >= MIN_CONTEXT_WINDOW) out.contextWindow = e.contextWindow;
      else problems.push(`strata.models["${key}"].contextWindow must be a whole number of at least ${MIN_CONTEXT_WINDOW}; it is ignored.`);
    }
    if (e.maxOutputTokens !== undefined) {
      if (isWhole(e.maxOutputTokens) && e.maxOutputTokens >= 1) out.maxOutputTokens = e.maxOutputTokens;
      else problems.push(`strata.models["${key}"].maxOutputTokens must be a whole number of at least 1; it is ignored.`);
    }
    if (e.prices !== undefined) {
      const prices = validOverride(e.prices);
      const given = typeof e.prices === 'object' && e.prices !== null ? Object.keys(e.prices as object).length : 1;
      if (Object.keys(prices).length > 0) out.prices = prices;
      if (Object.keys(prices).length !== given)
        problems.push(
          `strata.models["${key}"].prices takes input, cachedInput, cacheWrite5m, cacheWrite1h and output as numbers of at least 0; the others are ignored.`,
        );
    }
    overrides[key] = out;
  }
  return { overrides, problems };
}

function isWhole(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v);
}

/**
 * `info` with the user's entry over it (window, maximum output: `windowSource` / `outputSource`
 * become `user`), then a window learned from the server in this session when that is smaller.
 */
export function applyModelOverride(info: ModelInfo, overrides: ModelOverrides | undefined, learnedWindow?: number): ModelInfo {
  const entry = overrideFor(overrides, info.provider, info.model);
  let out = info;
  if (entry?.contextWindow !== undefined || entry?.maxOutputTokens !== undefined) {
    out = { ...info };
    if (entry.contextWindow !== undefined) {
      out.contextWindow = entry.contextWindow;
      out.windowSource = 'user';
    }
    if (entry.maxOutputTokens !== undefined) {
      out.maxOutputTokens = entry.maxOutputTokens;
      out.outputSource = 'user';
    }
  }
  if (learnedWindow !== undefined && learnedWindow < out.contextWindow)
    out = { ...out, contextWindow: learnedWindow, windowSource: 'server' };
  return out;
}

/** `<provider>/<model>`: the key a learned window is remembered by (the same shape as the setting's keys). */
export function modelKey(info: Pick<ModelInfo, 'provider' | 'model'>): string {
  return `${info.provider}/${info.model}`;
}
