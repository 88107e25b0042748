"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.KNOWN_ANTHROPIC_MODELS = exports.DEFAULT_MODELS = exports.DEFAULT_MODEL_LIMITS = exports.KNOWN_MODELS = void 0;
exports.modelInfo = modelInfo;
exports.sameModel = sameModel;
/** Published limits of the common models (context window, maximum output tokens). */
exports.KNOWN_MODELS = [
    { match: /^gpt-5/, contextWindow: 400_000, maxOutputTokens: 128_000, encoding: 'o200k_base', estimated: false },
    { match: /^gpt-4\.1/, contextWindow: 1_047_576, maxOutputTokens: 32_768, encoding: 'o200k_base', estimated: false },
    { match: /^gpt-4o/, contextWindow: 128_000, maxOutputTokens: 16_384, encoding: 'o200k_base', estimated: false },
    { match: /^chatgpt-4o/, contextWindow: 128_000, maxOutputTokens: 16_384, encoding: 'o200k_base', estimated: false },
    { match: /^o1-mini/, contextWindow: 128_000, maxOutputTokens: 65_536, encoding: 'o200k_base', estimated: false },
    { match: /^o[134](-|$)/, contextWindow: 200_000, maxOutputTokens: 100_000, encoding: 'o200k_base', estimated: false },
    { match: /^gpt-4-turbo|^gpt-4-(0125|1106)-preview/, contextWindow: 128_000, maxOutputTokens: 4_096, encoding: 'cl100k_base', estimated: false },
    { match: /^gpt-4-32k/, contextWindow: 32_768, maxOutputTokens: 4_096, encoding: 'cl100k_base', estimated: false },
    { match: /^gpt-4(-|$)/, contextWindow: 8_192, maxOutputTokens: 4_096, encoding: 'cl100k_base', estimated: false },
    { match: /^gpt-3\.5-turbo/, contextWindow: 16_385, maxOutputTokens: 4_096, encoding: 'cl100k_base', estimated: false },
    // Anthropic does not publish its tokenizer: o200k_base is the estimate (DESIGN §4 meter shows it).
    { match: /^claude-(opus-4|4-opus)/, contextWindow: 200_000, maxOutputTokens: 32_000, encoding: 'o200k_base', estimated: true },
    { match: /^claude-(sonnet-4|4-sonnet|3-7-sonnet)/, contextWindow: 200_000, maxOutputTokens: 64_000, encoding: 'o200k_base', estimated: true },
    { match: /^claude-3-5-(sonnet|haiku)/, contextWindow: 200_000, maxOutputTokens: 8_192, encoding: 'o200k_base', estimated: true },
    { match: /^claude-3-(opus|sonnet|haiku)/, contextWindow: 200_000, maxOutputTokens: 4_096, encoding: 'o200k_base', estimated: true },
    { match: /^claude-/, contextWindow: 200_000, maxOutputTokens: 8_192, encoding: 'o200k_base', estimated: true },
];
/** For a model nobody told us about: a 128 K window, 4,096 output tokens, o200k_base (estimated). */
exports.DEFAULT_MODEL_LIMITS = { contextWindow: 128_000, maxOutputTokens: 4_096, encoding: 'o200k_base' };
/** The model info for `provider` / `model`: known limits, else what `facts` says, else the default. */
function modelInfo(provider, model, facts = {}) {
    const id = model.toLowerCase().replace(/^.*\//, '');
    const known = exports.KNOWN_MODELS.find((k) => k.match.test(id));
    const maxOutputTokens = facts.maxOutputTokens ?? known?.maxOutputTokens ?? exports.DEFAULT_MODEL_LIMITS.maxOutputTokens;
    let contextWindow = facts.contextWindow ?? known?.contextWindow ?? exports.DEFAULT_MODEL_LIMITS.contextWindow;
    if (facts.maxInputTokens !== undefined && facts.contextWindow === undefined)
        contextWindow = facts.maxInputTokens + maxOutputTokens;
    const encoding = facts.encoding ?? known?.encoding ?? exports.DEFAULT_MODEL_LIMITS.encoding;
    return { provider, model, contextWindow, maxOutputTokens, encoding, tokenizerEstimated: facts.encoding ? false : known ? known.estimated : true };
}
/** Same provider, model, limits and encoding. */
function sameModel(a, b) {
    return a.provider === b.provider && a.model === b.model && a.contextWindow === b.contextWindow && a.maxOutputTokens === b.maxOutputTokens && a.encoding === b.encoding;
}
/** The model used when a keyed provider is chosen without a model id. */
exports.DEFAULT_MODELS = {
    openai: 'gpt-4o',
    anthropic: 'claude-sonnet-4-5',
};
/** Offered in the model picker for Anthropic, which Strata does not ask for a model list. */
exports.KNOWN_ANTHROPIC_MODELS = ['claude-sonnet-4-5', 'claude-opus-4-1', 'claude-haiku-4-5', 'claude-3-7-sonnet-latest', 'claude-3-5-haiku-latest'];
//# sourceMappingURL=modelInfo.js.map