/**
 * What Strata needs to know about a model to budget a request: context window, output tokens and
 * the tokenizer that counts like the provider does. Known families by id prefix; anything else gets
 * a conservative default and is marked as an estimate.
 */
import type { EncodingName } from './tokenizer';

export type ModelProviderKind = 'openai' | 'anthropic' | 'vscode-lm';

export interface ModelInfo {
  provider: ModelProviderKind;
  model: string;
  contextWindow: number;
  maxOutputTokens: number;
  encoding: EncodingName;
  /** The tokenizer is not the provider's own (Anthropic, editor models, unknown models): counts are estimates. */
  estimated: boolean;
}

interface Family {
  prefix: RegExp;
  contextWindow: number;
  maxOutputTokens: number;
  encoding: EncodingName;
  estimated: boolean;
}

/** First match wins; order from specific to general. */
const FAMILIES: readonly Family[] = [
  { prefix: /^gpt-5/, contextWindow: 400_000, maxOutputTokens: 128_000, encoding: 'o200k_base', estimated: false },
  { prefix: /^gpt-4\.1/, contextWindow: 1_047_576, maxOutputTokens: 32_768, encoding: 'o200k_base', estimated: false },
  { prefix: /^gpt-4o/, contextWindow: 128_000, maxOutputTokens: 16_384, encoding: 'o200k_base', estimated: false },
  { prefix: /^(o1|o3|o4)/, contextWindow: 200_000, maxOutputTokens: 100_000, encoding: 'o200k_base', estimated: false },
  { prefix: /^gpt-4-turbo/, contextWindow: 128_000, maxOutputTokens: 4_096, encoding: 'cl100k_base', estimated: false },
  { prefix: /^gpt-4/, contextWindow: 8_192, maxOutputTokens: 4_096, encoding: 'cl100k_base', estimated: false },
  { prefix: /^gpt-3\.5/, contextWindow: 16_385, maxOutputTokens: 4_096, encoding: 'cl100k_base', estimated: false },
  { prefix: /^claude-(opus|sonnet|haiku)-4|^claude-(sonnet|opus)-4|^claude-4/, contextWindow: 200_000, maxOutputTokens: 32_000, encoding: 'o200k_base', estimated: true },
  { prefix: /^claude-3-7/, contextWindow: 200_000, maxOutputTokens: 64_000, encoding: 'o200k_base', estimated: true },
  { prefix: /^claude/, contextWindow: 200_000, maxOutputTokens: 8_192, encoding: 'o200k_base', estimated: true },
];

/** Used for models Strata does not know (local servers, new releases). */
export const DEFAULT_MODEL_LIMITS = { contextWindow: 128_000, maxOutputTokens: 4_096 } as const;

export const DEFAULT_MODELS: Record<'openai' | 'anthropic', string> = {
  openai: 'gpt-4o',
  anthropic: 'claude-sonnet-4-5',
};

/** Model ids offered in the model picker for providers that do not list their models. */
export const KNOWN_ANTHROPIC_MODELS: readonly string[] = ['claude-sonnet-4-5', 'claude-opus-4-1', 'claude-haiku-4-5', 'claude-3-7-sonnet-latest', 'claude-3-5-haiku-latest'];

/**
 * Limits and tokenizer for `model`. Editor (`vscode-lm`) models pass what the editor reports
 * (`maxInputTokens` is the whole prompt budget there).
 */
export function modelInfoFor(provider: ModelProviderKind, model: string, reported?: { maxInputTokens?: number; maxOutputTokens?: number }): ModelInfo {
  const id = model.toLowerCase().replace(/^.*\//, '');
  const family = FAMILIES.find((f) => f.prefix.test(id));
  if (provider === 'vscode-lm' && reported?.maxInputTokens) {
    const maxOutputTokens = Math.min(reported.maxOutputTokens ?? family?.maxOutputTokens ?? 4_096, 16_384);
    return { provider, model, contextWindow: reported.maxInputTokens + maxOutputTokens, maxOutputTokens, encoding: family?.encoding ?? 'o200k_base', estimated: true };
  }
  if (family) {
    return { provider, model, contextWindow: family.contextWindow, maxOutputTokens: family.maxOutputTokens, encoding: family.encoding, estimated: family.estimated || provider !== 'openai' };
  }
  return { provider, model, ...DEFAULT_MODEL_LIMITS, encoding: 'o200k_base', estimated: true };
}
