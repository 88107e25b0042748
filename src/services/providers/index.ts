/**
 * Providers: a provider-neutral `ChatProvider` (types.ts), one LangChain-backed client per wire
 * format (OpenAI, Anthropic, Ollama), the registry of every provider (registry.ts), local servers'
 * model lists and windows (localServers.ts), `auto` resolution, and helpers the host and the replay tool share.
 * The `vscode.lm` implementation lives in src/host (this folder must not import vscode).
 */
export * from './types';
export {
  PROVIDER_MODULES,
  createProvider,
  listProviderModels,
  type ModelListing,
  type ProviderModule,
  type ProviderSetup,
} from './registry';
export { OllamaProvider, OLLAMA_DEFAULT_BASE_URL, type OllamaProviderOptions } from './ollama';
export {
  ollamaModels,
  ollamaContextLength,
  vllmModels,
  llamaCppModels,
  lmStudioModels,
  openAiCompatibleModels,
  serverRoot,
  OLLAMA_DEFAULT_NUM_CTX,
  type ServerModel,
  type ServerQuery,
} from './localServers';
export { OpenAIProvider, OPENAI_DEFAULT_BASE_URL, isLocalURL, type OpenAIProviderOptions } from './openai';
export { AnthropicProvider, ANTHROPIC_DEFAULT_BASE_URL, type AnthropicProviderOptions } from './anthropic';
export { toProviderError, redact, parseRetryAfter, safeOrigin, type ErrorContext } from './errors';
export { disableLangChainTracing, toOpenAIMessages, toAnthropicMessages, ANTHROPIC_MAX_BREAKPOINTS } from './langchain';
export { runStream, abortableSleep, type RawPiece, type Sleep } from './runner';
export { collectReply, streamWithPruneRetry, type CompletedReply } from './stream';
