"use strict";
var __createBinding = (this && this.__createBinding) || (Object.create ? (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    var desc = Object.getOwnPropertyDescriptor(m, k);
    if (!desc || ("get" in desc ? !m.__esModule : desc.writable || desc.configurable)) {
      desc = { enumerable: true, get: function() { return m[k]; } };
    }
    Object.defineProperty(o, k2, desc);
}) : (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    o[k2] = m[k];
}));
var __exportStar = (this && this.__exportStar) || function(m, exports) {
    for (var p in m) if (p !== "default" && !Object.prototype.hasOwnProperty.call(exports, p)) __createBinding(exports, m, p);
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.streamWithPruneRetry = exports.collectReply = exports.abortableSleep = exports.runStream = exports.ANTHROPIC_MAX_BREAKPOINTS = exports.toAnthropicMessages = exports.toOpenAIMessages = exports.disableLangChainTracing = exports.safeOrigin = exports.parseRetryAfter = exports.redact = exports.toProviderError = exports.OLLAMA_DEFAULT_ROOT = exports.probeOllama = exports.resolveAutoProvider = exports.ANTHROPIC_DEFAULT_BASE_URL = exports.AnthropicProvider = exports.isLocalURL = exports.OPENAI_DEFAULT_BASE_URL = exports.OpenAIProvider = void 0;
exports.createProvider = createProvider;
/**
 * Providers: a provider-neutral `ChatProvider` (types.ts), LangChain-backed OpenAI / Anthropic
 * implementations, `auto` resolution, and helpers the host and the replay tool share.
 * The `vscode.lm` implementation lives in src/host (this folder must not import vscode).
 */
const anthropic_1 = require("./anthropic");
const openai_1 = require("./openai");
__exportStar(require("./types"), exports);
var openai_2 = require("./openai");
Object.defineProperty(exports, "OpenAIProvider", { enumerable: true, get: function () { return openai_2.OpenAIProvider; } });
Object.defineProperty(exports, "OPENAI_DEFAULT_BASE_URL", { enumerable: true, get: function () { return openai_2.OPENAI_DEFAULT_BASE_URL; } });
Object.defineProperty(exports, "isLocalURL", { enumerable: true, get: function () { return openai_2.isLocalURL; } });
var anthropic_2 = require("./anthropic");
Object.defineProperty(exports, "AnthropicProvider", { enumerable: true, get: function () { return anthropic_2.AnthropicProvider; } });
Object.defineProperty(exports, "ANTHROPIC_DEFAULT_BASE_URL", { enumerable: true, get: function () { return anthropic_2.ANTHROPIC_DEFAULT_BASE_URL; } });
var auto_1 = require("./auto");
Object.defineProperty(exports, "resolveAutoProvider", { enumerable: true, get: function () { return auto_1.resolveAutoProvider; } });
Object.defineProperty(exports, "probeOllama", { enumerable: true, get: function () { return auto_1.probeOllama; } });
Object.defineProperty(exports, "OLLAMA_DEFAULT_ROOT", { enumerable: true, get: function () { return auto_1.OLLAMA_DEFAULT_ROOT; } });
var errors_1 = require("./errors");
Object.defineProperty(exports, "toProviderError", { enumerable: true, get: function () { return errors_1.toProviderError; } });
Object.defineProperty(exports, "redact", { enumerable: true, get: function () { return errors_1.redact; } });
Object.defineProperty(exports, "parseRetryAfter", { enumerable: true, get: function () { return errors_1.parseRetryAfter; } });
Object.defineProperty(exports, "safeOrigin", { enumerable: true, get: function () { return errors_1.safeOrigin; } });
var langchain_1 = require("./langchain");
Object.defineProperty(exports, "disableLangChainTracing", { enumerable: true, get: function () { return langchain_1.disableLangChainTracing; } });
Object.defineProperty(exports, "toOpenAIMessages", { enumerable: true, get: function () { return langchain_1.toOpenAIMessages; } });
Object.defineProperty(exports, "toAnthropicMessages", { enumerable: true, get: function () { return langchain_1.toAnthropicMessages; } });
Object.defineProperty(exports, "ANTHROPIC_MAX_BREAKPOINTS", { enumerable: true, get: function () { return langchain_1.ANTHROPIC_MAX_BREAKPOINTS; } });
var runner_1 = require("./runner");
Object.defineProperty(exports, "runStream", { enumerable: true, get: function () { return runner_1.runStream; } });
Object.defineProperty(exports, "abortableSleep", { enumerable: true, get: function () { return runner_1.abortableSleep; } });
var stream_1 = require("./stream");
Object.defineProperty(exports, "collectReply", { enumerable: true, get: function () { return stream_1.collectReply; } });
Object.defineProperty(exports, "streamWithPruneRetry", { enumerable: true, get: function () { return stream_1.streamWithPruneRetry; } });
function createProvider(s) {
    return s.provider === 'openai' ? new openai_1.OpenAIProvider(s) : new anthropic_1.AnthropicProvider(s);
}
//# sourceMappingURL=index.js.map