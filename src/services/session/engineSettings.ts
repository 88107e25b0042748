/**
 * The session's settings as the engine takes them: defaults filled in (the product prompt, no
 * instructions, the default thresholds), the model's limits with the reserved output applied, and
 * invalid thresholds replaced by the defaults (the session reports them; the engine keeps working).
 */
import { DEFAULT_THRESHOLDS, validateThresholds } from '../../engine/budget';
import type { EngineOptions } from '../../engine/engine';
import type { SessionSettings } from '../chatSession';
import type { ModelInfo } from '../modelInfo';
import { PRODUCT_PROMPT } from '../productPrompt';

type Filled = 'requestTimeoutMs' | 'reservedOutputTokens' | 'tools' | 'pricing';
export type ResolvedSettings = Required<Omit<SessionSettings, Filled>> & Pick<SessionSettings, Filled>;

export function resolvedSettings(s: SessionSettings): ResolvedSettings {
  return { ...s, system: s.system ?? PRODUCT_PROMPT, instructions: s.instructions ?? [], thresholds: s.thresholds ?? DEFAULT_THRESHOLDS };
}

/** The model's window, and its output reserve: the setting when positive (below the window), else the model's maximum. */
export function modelLimits(
  model: ModelInfo,
  reservedOutputTokens: number | undefined,
): { contextWindow: number; maxOutputTokens: number } {
  return {
    contextWindow: model.contextWindow,
    maxOutputTokens:
      reservedOutputTokens && reservedOutputTokens > 0 ? Math.min(reservedOutputTokens, model.contextWindow - 1) : model.maxOutputTokens,
  };
}

/** What `updateOptions` takes when settings change: everything the settings decide, thresholds checked. */
export function engineSettings(s: ResolvedSettings, model: ModelInfo): Omit<EngineOptions, 'conversationId' | 'tokenizer' | 'hasher'> {
  return {
    layout: s.layout,
    policy: s.policy,
    system: s.system,
    instructions: s.instructions,
    limits: modelLimits(model, s.reservedOutputTokens),
    thresholds: validateThresholds(s.thresholds) ? DEFAULT_THRESHOLDS : s.thresholds,
    tools: !!s.tools?.enabled,
  };
}
