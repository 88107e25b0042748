/**
 * The session's settings as the engine takes them: defaults filled in (the product prompt, no
 * instructions, the default thresholds), the model's limits with the reserved output applied, and
 * invalid thresholds replaced by the defaults (the session reports them; the engine keeps working).
 */
import { DEFAULT_THRESHOLDS, validateThresholds, type Thresholds } from '../../engine/budget';
import type { EngineOptions, Instruction } from '../../engine/engine';
import type { ChangedFilesPolicy, Layout } from '../../engine/types';
import type { ModelOverrides } from '../modelOverrides';
import type { PricingSettings } from '../pricing/chatCost';
import type { ModelInfo } from '../modelInfo';
import { PRODUCT_PROMPT } from '../productPrompt';

/** What the session reads from the settings, each time it needs them. */
export interface SessionSettings {
  layout: Layout;
  policy: ChangedFilesPolicy;
  /** L1 product prompt (default `PRODUCT_PROMPT`). */
  system?: string;
  /** User and project instructions (L1 overlays). */
  instructions?: Instruction[];
  thresholds?: Thresholds;
  /** `strata.budget.reservedOutputTokens`; 0 or absent = the model's maximum output. */
  reservedOutputTokens?: number;
  /** `strata.models`: the user's window, maximum output and prices per model. */
  models?: ModelOverrides;
  /** `strata.requestTimeoutSeconds` × 1000. */
  requestTimeoutMs?: number;
  /** Workspace tools: `strata.tools.*`. Absent or disabled: no tools are offered. */
  tools?: ToolSettings;
  /** Prices and the cache lifetime (default: the built-in table and the documented lifetimes). */
  pricing?: PricingSettings;
}

export interface ToolSettings {
  enabled: boolean;
  maxSteps: number;
  maxResultTokens: number;
  maxTurnTokens: number;
}

type Filled = 'requestTimeoutMs' | 'reservedOutputTokens' | 'tools' | 'pricing' | 'models';
export type ResolvedSettings = Required<Omit<SessionSettings, Filled>> & Pick<SessionSettings, Filled>;

export function resolvedSettings(s: SessionSettings): ResolvedSettings {
  return { ...s, system: s.system ?? PRODUCT_PROMPT, instructions: s.instructions ?? [], thresholds: s.thresholds ?? DEFAULT_THRESHOLDS };
}

/**
 * The model's window, and its output reserve (what the request asks for at most, so the prompt and
 * the reply fit the window together, docs/design.md#budget): `strata.budget.reservedOutputTokens`
 * when positive, else the user's `strata.models` figure (both below the window); else the model's
 * maximum, but never more than half the window — a quarter when that maximum is only assumed — so
 * a small local window still leaves room for the prompt.
 */
export function modelLimits(
  model: ModelInfo,
  reservedOutputTokens: number | undefined,
): { contextWindow: number; maxOutputTokens: number } {
  const w = model.contextWindow;
  let reserve: number;
  if (reservedOutputTokens && reservedOutputTokens > 0) reserve = Math.min(reservedOutputTokens, w - 1);
  else if (model.outputSource === 'user') reserve = Math.min(model.maxOutputTokens, w - 1);
  else reserve = Math.min(model.maxOutputTokens, Math.floor(w / (model.outputSource === 'assumed' ? 4 : 2)));
  return { contextWindow: w, maxOutputTokens: Math.max(1, reserve) };
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
