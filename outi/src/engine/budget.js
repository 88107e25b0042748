"use strict";
/** Budget arithmetic and thresholds (DESIGN §5). */
Object.defineProperty(exports, "__esModule", { value: true });
exports.DEFAULT_THRESHOLDS = void 0;
exports.safetyMargin = safetyMargin;
exports.computeBudget = computeBudget;
exports.validateThresholds = validateThresholds;
exports.meterLevel = meterLevel;
exports.DEFAULT_THRESHOLDS = { warnPercent: 70, compactPercent: 80, targetPercent: 60 };
function safetyMargin(contextWindow) {
    return Math.min(1000, Math.floor(contextWindow * 0.02));
}
/** Budget = context window − reserved output − safety margin. */
function computeBudget(limits) {
    return Math.max(0, limits.contextWindow - limits.maxOutputTokens - safetyMargin(limits.contextWindow));
}
/** Validates 0 < target < warn ≤ compact ≤ 100; returns a clear error or undefined. */
function validateThresholds(t) {
    const { warnPercent: w, compactPercent: c, targetPercent: g } = t;
    for (const [name, v] of [['warnPercent', w], ['compactPercent', c], ['targetPercent', g]]) {
        if (typeof v !== 'number' || !Number.isFinite(v))
            return `strata.budget.${name} must be a number (got ${String(v)}).`;
    }
    if (!(g > 0))
        return `strata.budget.targetPercent must be above 0 (got ${g}).`;
    if (!(g < w))
        return `strata.budget.targetPercent (${g}) must be below strata.budget.warnPercent (${w}).`;
    if (!(w <= c))
        return `strata.budget.warnPercent (${w}) must not exceed strata.budget.compactPercent (${c}).`;
    if (!(c <= 100))
        return `strata.budget.compactPercent must be at most 100 (got ${c}).`;
    return undefined;
}
function meterLevel(tokens, budget, t) {
    if (tokens > budget)
        return 'over';
    if (tokens > (budget * t.warnPercent) / 100)
        return 'warn';
    return 'ok';
}
//# sourceMappingURL=budget.js.map