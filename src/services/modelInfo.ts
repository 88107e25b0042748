/**
 * What the engine needs to know about a model: its context window and maximum output (the budget,
 * docs/design.md#budget) and its token encoding. The window comes from, in this order: the user's
 * `strata.models` entry (see ./modelOverrides.ts), what the provider or its server says, Strata's
 * table of known models, and a conservative default; `windowSource` says which one won.
 */
import type { EncodingName } from './tokenizer';

/** Where a model's window came from: the user's setting, the server, Strata's table, or the conservative default. */
export type WindowSource = 'user' | 'server' | 'table' | 'assumed';

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
  /** Which of the user's setting, the server, Strata's table or the default gave `contextWindow`. */
  windowSource: WindowSource;
  /**
   * Which gave `maxOutputTokens`. An assumed maximum output is not reserved in full from a small
   * window (see `modelLimits` in ./session/engineSettings.ts).
   */
  outputSource?: WindowSource;
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

/** What a provider or its server says about a model (every figure optional). */
export interface ModelFacts {
  /** What the provider says (vscode-lm's `maxInputTokens`): the budget is then this minus the margin. */
  maxInputTokens?: number;
  contextWindow?: number;
  maxOutputTokens?: number;
  encoding?: EncodingName;
  /** The figures were read from the server that serves the model (Ollama, vLLM, llama.cpp, LM Studio). */
  source?: 'server';
}

/**
 * The model info for `provider` / `model`: what `facts` says (the provider or its server), else
 * Strata's table, else the default. The user's `strata.models` entry goes over this
 * (`applyModelOverride` in ./modelOverrides.ts).
 */
export function modelInfo(provider: string, model: string, facts: ModelFacts = {}): ModelInfo {
  const id = model.toLowerCase().replace(/^.*\//, '');
  const known = KNOWN_MODELS.find((k) => k.match.test(id));
  const fromTable: WindowSource = known ? 'table' : 'assumed';
  const maxOutputTokens = facts.maxOutputTokens ?? known?.maxOutputTokens ?? DEFAULT_MODEL_LIMITS.maxOutputTokens;
  const outputSource: WindowSource = facts.maxOutputTokens !== undefined ? 'server' : fromTable;
  let contextWindow = facts.contextWindow ?? known?.contextWindow ?? DEFAULT_MODEL_LIMITS.contextWindow;
  let windowSource: WindowSource = facts.contextWindow !== undefined ? 'server' : fromTable;
  if (facts.maxInputTokens !== undefined && facts.contextWindow === undefined) {
    contextWindow = facts.maxInputTokens + maxOutputTokens;
    windowSource = 'server';
  }
  const encoding = facts.encoding ?? known?.encoding ?? DEFAULT_MODEL_LIMITS.encoding;
  return {
    provider,
    model,
    contextWindow,
    maxOutputTokens,
    encoding,
    tokenizerEstimated: facts.encoding ? false : known ? known.estimated : true,
    windowSource,
    outputSource,
  };
}

/** How the meter, the status bar and Context Layers name where a window came from. */
export const WINDOW_SOURCE_TEXT: Readonly<Record<WindowSource, string>> = {
  user: 'your setting',
  server: 'from the server',
  table: "Strata's table",
  assumed: 'assumed',
};

/** Same provider, model, limits and encoding. */
export function sameModel(a: ModelInfo, b: ModelInfo): boolean {
  return (
    a.provider === b.provider &&
    a.model === b.model &&
    a.contextWindow === b.contextWindow &&
    a.maxOutputTokens === b.maxOutputTokens &&
    a.encoding === b.encoding &&
    a.windowSource === b.windowSource &&
    a.outputSource === b.outputSource
  );
}
