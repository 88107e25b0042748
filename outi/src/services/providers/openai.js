"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.OpenAIProvider = exports.OPENAI_DEFAULT_BASE_URL = void 0;
exports.isLocalURL = isLocalURL;
/**
 * OpenAI and OpenAI-compatible endpoints (Ollama `http://127.0.0.1:11434/v1`, LM Studio, vLLM)
 * through LangChain's ChatOpenAI, streaming only.
 *
 * `.stream()` only: `.invoke()` with streaming makes LangChain estimate usage with a tokenizer whose
 * ranks it downloads from the internet; the extension must talk to the configured endpoint only.
 */
const openai_1 = require("@langchain/openai");
const langchain_1 = require("./langchain");
const runner_1 = require("./runner");
const errors_1 = require("./errors");
const types_1 = require("./types");
exports.OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';
/** True for endpoints on this machine (no key needed). */
function isLocalURL(url) {
    try {
        const h = new URL(url).hostname;
        return h === '127.0.0.1' || h === 'localhost' || h === '[::1]' || h === '::1';
    }
    catch {
        return false;
    }
}
class OpenAIProvider {
    opts;
    kind = 'openai';
    supportsTools = true;
    label;
    baseURL;
    constructor(opts = {}) {
        this.opts = opts;
        this.baseURL = (opts.baseURL ?? exports.OPENAI_DEFAULT_BASE_URL).replace(/\/+$/, '');
        const host = (0, errors_1.safeOrigin)(this.baseURL).replace(/^https?:\/\//, '');
        this.label = this.baseURL === exports.OPENAI_DEFAULT_BASE_URL ? 'OpenAI' : `OpenAI-compatible server at ${host}`;
    }
    ctx(model) {
        return {
            provider: this.baseURL === exports.OPENAI_DEFAULT_BASE_URL ? 'OpenAI' : 'The OpenAI-compatible server',
            baseURL: this.baseURL,
            model,
            apiKey: this.opts.apiKey,
        };
    }
    apiKeyOrThrow() {
        if (this.opts.apiKey)
            return this.opts.apiKey;
        // The SDK refuses to start without a key; local servers do not need one.
        if (isLocalURL(this.baseURL))
            return 'strata-local-no-key';
        throw new types_1.ProviderError('bad-key', `No API key is set for ${this.label}. Set one with "Strata: Set API Key".`);
    }
    stream(req) {
        const ctx = this.ctx(req.model);
        const self = this;
        return (0, runner_1.runStream)({
            ctx,
            signal: req.signal,
            timeoutMs: req.timeoutMs,
            retry: this.opts.retry,
            sleep: this.opts.sleep,
            onRetry: this.opts.onRetry,
            open: (signal) => self.open(req, signal),
        });
    }
    async *open(req, signal) {
        (0, langchain_1.disableLangChainTracing)();
        const model = new openai_1.ChatOpenAI({
            model: req.model,
            apiKey: this.apiKeyOrThrow(),
            configuration: { baseURL: this.baseURL, logger: langchain_1.quietSdkLogger },
            maxRetries: 0,
            streamUsage: true,
            maxTokens: req.maxOutputTokens,
            ...(this.opts.promptCacheKey === false ? {} : { promptCacheKey: req.conversationId }),
            // The SDK's own timeout only backs up Strata's stall timer (runner.ts).
            timeout: (req.timeoutMs ?? 120_000) * 2,
        });
        const runnable = req.tools && req.tools.length > 0 ? model.bindTools((0, langchain_1.toOpenAITools)(req.tools)) : model;
        const stream = await runnable.stream((0, langchain_1.toOpenAIMessages)(req.messages, this.opts.contentFormat), { signal, callbacks: [] });
        for await (const chunk of stream) {
            const piece = {};
            const text = (0, langchain_1.chunkText)(chunk.content);
            if (text)
                piece.text = text;
            const calls = (0, langchain_1.chunkToolCalls)(chunk);
            if (calls)
                piece.toolCallChunks = calls;
            const fr = chunk.response_metadata?.finish_reason;
            if (typeof fr === 'string')
                piece.finishReason = fr;
            const um = chunk.usage_metadata;
            if (um && (um.input_tokens || um.output_tokens)) {
                const usage = {
                    input: um.input_tokens ?? 0,
                    cacheRead: um.input_token_details?.cache_read ?? 0,
                    cacheWrite: um.input_token_details?.cache_creation ?? 0,
                    output: um.output_tokens ?? 0,
                };
                piece.usage = usage;
            }
            yield piece;
        }
    }
    /** GET {baseURL}/models (OpenAI-compatible servers list their models there). */
    async listModels(signal) {
        const ctx = this.ctx('(listing models)');
        try {
            const res = await fetch(`${this.baseURL}/models`, {
                headers: { authorization: `Bearer ${this.apiKeyOrThrow()}` },
                signal,
            });
            if (!res.ok)
                throw Object.assign(new Error(`HTTP ${res.status}`), { status: res.status, headers: res.headers });
            const body = (await res.json());
            return (body.data ?? []).map((m) => m.id).filter((id) => typeof id === 'string').sort();
        }
        catch (e) {
            const pe = (0, errors_1.toProviderError)(e, ctx);
            throw new types_1.ProviderError(pe.code, (0, errors_1.redact)(pe.message, this.opts.apiKey), { status: pe.status });
        }
    }
}
exports.OpenAIProvider = OpenAIProvider;
//# sourceMappingURL=openai.js.map