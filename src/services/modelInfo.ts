/**
 * What the engine needs to know about a model: its context window and maximum output (the budget,
 * docs/design.md#budget) and its token encoding. A table of known models, with a conservative
 * default for the others (a smaller window than most models have, so the budget is never
 * overestimated).
 */
import type { EncodingName } from './tokenizer';

export interface ModelInfo {
  /** `openai`, `anthropic`, `vscode-lm`, `scripted`, … */
  provider: string;
  model: string;
  contextWindow: number;
  maxOutputTokens: number;
  encoding: EncodingName;
  /** The encoding is not the model's own (Anthropic models, unknown models): counts are an estimate. */
  tokenizerEstimated: boolean;
  /** How the user sees who answered ("Local imitation server · gpt-4o"); default `provider · model`. */
  label?: string;
  /** Where `contextWindow` comes from: the user's setting, the serving server, Strata's table, or the default. */
  windowSource: 'user' | 'server' | 'table' | 'assumed';
}

interface KnownModel {
  /** Matched against the model id, lowercased; the first match wins (more specific patterns first). */
  match: RegExp;
  contextWindow: number;
  maxOutputTokens: number;
  encoding: EncodingName;
  estimated: boolean;
}

/** Published limits of the common models (context window, maximum output tokens). */
export const KNOWN_MODELS: readonly KnownModel[] = [
  { match: /^gpt-5/, contextWindow: 400_000, maxOutputTokens: 128_000, encoding: 'o200k_base', estimated: false },
  { match: /^gpt-4\.1/, contextWindow: 1_047_576, maxOutputTokens: 32_768, encoding: 'o200k_base', estimated: false },
  { match: /^gpt-4o/, contextWindow: 128_000, maxOutputTokens: 16_384, encoding: 'o200k_base', estimated: false },
  { match: /^chatgpt-4o/, contextWindow: 128_000, maxOutputTokens: 16_384, encoding: 'o200k_base', estimated: false },
  { match: /^o1-mini/, contextWindow: 128_000, maxOutputTokens: 65_536, encoding: 'o200k_base', estimated: false },
  { match: /^o[134](-|$)/, contextWindow: 200_000, maxOutputTokens: 100_000, encoding: 'o200k_base', estimated: false },
  {
    match: /^gpt-4-turbo|^gpt-4-(0125|1106)-preview/,
    contextWindow: 128_000,
    maxOutputTokens: 4_096,
    encoding: 'cl100k_base',
    estimated: false,
  },
  { match: /^gpt-4-32k/, contextWindow: 32_768, maxOutputTokens: 4_096, encoding: 'cl100k_base', estimated: false },
  { match: /^gpt-4(-|$)/, contextWindow: 8_192, maxOutputTokens: 4_096, encoding: 'cl100k_base', estimated: false },
  { match: /^gpt-3\.5-turbo/, contextWindow: 16_385, maxOutputTokens: 4_096, encoding: 'cl100k_base', estimated: false },
  // Anthropic does not publish its tokenizer: o200k_base is the estimate (the meter says so).
  { match: /^claude-(opus-4|4-opus)/, contextWindow: 200_000, maxOutputTokens: 32_000, encoding: 'o200k_base', estimated: true },
  {
    match: /^claude-(sonnet-4|4-sonnet|3-7-sonnet)/,
    contextWindow: 200_000,
    maxOutputTokens: 64_000,
    encoding: 'o200k_base',
    estimated: true,
  },
  { match: /^claude-3-5-(sonnet|haiku)/, contextWindow: 200_000, maxOutputTokens: 8_192, encoding: 'o200k_base', estimated: true },
  { match: /^claude-3-(opus|sonnet|haiku)/, contextWindow: 200_000, maxOutputTokens: 4_096, encoding: 'o200k_base', estimated: true },
  { match: /^claude-/, contextWindow: 200_000, maxOutputTokens: 8_192, encoding: 'o200k_base', estimated: true },
];

/** For a model nobody told us about: a 128 K window, 4,096 output tokens, o200k_base (estimated). */
export const DEFAULT_MODEL_LIMITS = { contextWindow: 128_000, maxOutputTokens: 4_096, encoding: 'o200k_base' as EncodingName };

export interface ModelFacts {
  /** What the provider says (vscode-lm's `maxInputTokens`): the budget is then this minus the margin. */
  maxInputTokens?: number;
  contextWindow?: number;
  maxOutputTokens?: number;
  encoding?: EncodingName;
  /** The figures came from the server that serves the model (its `/api/show`, `/v1/models`, `/props`). */
  source?: 'server';
}

/** The model info for `provider` / `model`: known limits, else what `facts` says, else the default. */
export function modelInfo(provider: string, model: string, facts: ModelFacts = {}): ModelInfo {
  const id = model.toLowerCase().replace(/^.*\//, '');
  const known = KNOWN_MODELS.find((k) => k.match.test(id));
  const maxOutputTokens = facts.maxOutputTokens ?? known?.maxOutputTokens ?? DEFAULT_MODEL_LIMITS.maxOutputTokens;
  let contextWindow = facts.contextWindow ?? known?.contextWindow ?? DEFAULT_MODEL_LIMITS.contextWindow;
  if (facts.maxInputTokens !== undefined && facts.contextWindow === undefined) contextWindow = facts.maxInputTokens + maxOutputTokens;
  const encoding = facts.encoding ?? known?.encoding ?? DEFAULT_MODEL_LIMITS.encoding;
  return {
    provider,
    model,
    contextWindow,
    maxOutputTokens,
    encoding,
    tokenizerEstimated: facts.encoding ? false : known ? known.estimated : true,
    windowSource: facts.contextWindow !== undefined || facts.maxInputTokens !== undefined ? 'server' : known ? 'table' : 'assumed',
  };
}

/** Same provider, model, limits and encoding. */
export function sameModel(a: ModelInfo, b: ModelInfo): boolean {
  return (
    a.provider === b.provider &&
    a.model === b.model &&
    a.contextWindow === b.contextWindow &&
    a.maxOutputTokens === b.maxOutputTokens &&
    a.encoding === b.encoding
  );
}
