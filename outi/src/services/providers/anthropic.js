"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.AnthropicProvider = exports.ANTHROPIC_DEFAULT_BASE_URL = void 0;
/**
 * Anthropic Messages API through LangChain's ChatAnthropic, streaming only, with `cache_control`
 * at the envelope's breakpoints (≤ 4) and cache read / write usage from the stream.
 */
const anthropic_1 = require("@langchain/anthropic");
const langchain_1 = require("./langchain");
const runner_1 = require("./runner");
const errors_1 = require("./errors");
const openai_1 = require("./openai");
const types_1 = require("./types");
exports.ANTHROPIC_DEFAULT_BASE_URL = 'https://api.anthropic.com';
class AnthropicProvider {
    opts;
    kind = 'anthropic';
    supportsTools = true;
    label;
    baseURL;
    constructor(opts = {}) {
        this.opts = opts;
        this.baseURL = (opts.baseURL ?? exports.ANTHROPIC_DEFAULT_BASE_URL).replace(/\/+$/, '');
        this.label = this.baseURL === exports.ANTHROPIC_DEFAULT_BASE_URL ? 'Anthropic' : `Anthropic-compatible server at ${(0, errors_1.safeOrigin)(this.baseURL).replace(/^https?:\/\//, '')}`;
    }
    ctx(model) {
        return { provider: 'Anthropic', baseURL: this.baseURL, model, apiKey: this.opts.apiKey };
    }
    stream(req) {
        return (0, runner_1.runStream)({
            ctx: this.ctx(req.model),
            signal: req.signal,
            timeoutMs: req.timeoutMs,
            retry: this.opts.retry,
            sleep: this.opts.sleep,
            onRetry: this.opts.onRetry,
            open: (signal) => this.open(req, signal),
        });
    }
    async *open(req, signal) {
        let apiKey = this.opts.apiKey;
        if (!apiKey) {
            // Local servers (a proxy, the imitation server) need no key; the SDK insists on one.
            if ((0, openai_1.isLocalURL)(this.baseURL))
                apiKey = 'strata-local-no-key';
            else
                throw new types_1.ProviderError('bad-key', `No API key is set for ${this.label}. Set one with "Strata: Set API Key".`);
        }
        (0, langchain_1.disableLangChainTracing)();
        const model = new anthropic_1.ChatAnthropic({
            model: req.model,
            apiKey,
            anthropicApiUrl: this.baseURL,
            maxRetries: 0,
            maxTokens: req.maxOutputTokens,
            streamUsage: true,
            clientOptions: { timeout: (req.timeoutMs ?? 120_000) * 2, logger: langchain_1.quietSdkLogger },
        });
        const runnable = req.tools && req.tools.length > 0 ? model.bindTools((0, langchain_1.toAnthropicTools)(req.tools)) : model;
        const stream = await runnable.stream((0, langchain_1.toAnthropicMessages)(req.messages, this.opts.cacheTtl ?? '5m'), { signal, callbacks: [] });
        const usage = { input: 0, cacheRead: 0, cacheWrite: 0, output: 0 };
        for await (const chunk of stream) {
            const piece = {};
            const text = (0, langchain_1.chunkText)(chunk.content);
            if (text)
                piece.text = text;
            const calls = (0, langchain_1.chunkToolCalls)(chunk);
            if (calls)
                piece.toolCallChunks = calls;
            const stop = chunk.additional_kwargs?.stop_reason;
            if (typeof stop === 'string')
                piece.finishReason = stop;
            const um = chunk.usage_metadata;
            if (um) {
                if (um.input_token_details) {
                    // message_start: input_tokens = uncached + cache read + cache write (LangChain sums them).
                    usage.input = um.input_tokens ?? 0;
                    usage.cacheRead = um.input_token_details.cache_read ?? 0;
                    usage.cacheWrite = um.input_token_details.cache_creation ?? 0;
                    usage.output = um.output_tokens ?? 0;
                }
                else if (um.output_tokens) {
                    // message_delta: cumulative output tokens.
                    usage.output = um.output_tokens;
                }
                piece.usage = { ...usage };
            }
            yield piece;
        }
    }
}
exports.AnthropicProvider = AnthropicProvider;
//# sourceMappingURL=anthropic.js.map