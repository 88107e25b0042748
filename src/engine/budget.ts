/** Budget arithmetic and thresholds. */

export interface ModelLimits {
  contextWindow: number;
  maxOutputTokens: number;
}

export interface Thresholds {
  /** Percent of budget where the meter turns amber. */
  warnPercent: number;
  /** Percent of budget where pruning/compaction starts. */
  compactPercent: number;
  /** Percent of budget that pruning cuts down to (hysteresis). */
  targetPercent: number;
}

export const DEFAULT_THRESHOLDS: Thresholds = { warnPercent: 70, compactPercent: 80, targetPercent: 60 };

export function safetyMargin(contextWindow: number): number {
  return Math.min(1000, Math.floor(contextWindow * 0.02));
}

/** Budget = context window − reserved output − safety margin. */
export function computeBudget(limits: ModelLimits): number {
  return Math.max(0, limits.contextWindow - limits.maxOutputTokens - safetyMargin(limits.contextWindow));
}

/** Validates 0 < target < warn ≤ compact ≤ 100; returns a clear error or undefined. */
export function validateThresholds(t: Thresholds): string | undefined {
  const { warnPercent: w, compactPercent: c, targetPercent: g } = t;
  for (const [name, v] of [
    ['warnPercent', w],
    ['compactPercent', c],
    ['targetPercent', g],
  ] as const) {
    if (typeof v !== 'number' || !Number.isFinite(v)) return `strata.budget.${name} must be a number (got ${String(v)}).`;
  }
  if (!(g > 0)) return `strata.budget.targetPercent must be above 0 (got ${g}).`;
  if (!(g < w)) return `strata.budget.targetPercent (${g}) must be below strata.budget.warnPercent (${w}).`;
  if (!(w <= c)) return `strata.budget.warnPercent (${w}) must not exceed strata.budget.compactPercent (${c}).`;
  if (!(c <= 100)) return `strata.budget.compactPercent must be at most 100 (got ${c}).`;
  return undefined;
}

export type BudgetLevel = 'ok' | 'warn' | 'over';

export function meterLevel(tokens: number, budget: number, t: Thresholds): BudgetLevel {
  if (tokens > budget) return 'over';
  if (tokens > (budget * t.warnPercent) / 100) return 'warn';
  return 'ok';
}
