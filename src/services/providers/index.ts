/**
 * Providers: a provider-neutral `ChatProvider` (types.ts), LangChain-backed OpenAI / Anthropic
 * implementations, `auto` resolution, and helpers the host and the replay tool share.
 * The `vscode.lm` implementation lives in src/host (this folder must not import vscode).
 */
import { AnthropicProvider, type AnthropicProviderOptions } from './anthropic';
import { OpenAIProvider, type OpenAIProviderOptions } from './openai';
import type { ChatProvider } from './types';

export * from './types';
export { OpenAIProvider, OPENAI_DEFAULT_BASE_URL, isLocalURL, type OpenAIProviderOptions } from './openai';
export { AnthropicProvider, ANTHROPIC_DEFAULT_BASE_URL, type AnthropicProviderOptions } from './anthropic';
export {
  resolveAutoProvider,
  probeOllama,
  OLLAMA_DEFAULT_ROOT,
  type AutoProbes,
  type AutoResolution,
  type EditorModelInfo,
  type OllamaInfo,
} from './auto';
export { toProviderError, redact, parseRetryAfter, safeOrigin, type ErrorContext } from './errors';
export { disableLangChainTracing, toOpenAIMessages, toAnthropicMessages, ANTHROPIC_MAX_BREAKPOINTS } from './langchain';
export { runStream, abortableSleep, type RawPiece, type Sleep } from './runner';
export { collectReply, streamWithPruneRetry, type CompletedReply } from './stream';

export type LangChainProviderSettings =
  ({ provider: 'openai' } & OpenAIProviderOptions) | ({ provider: 'anthropic' } & AnthropicProviderOptions);

export function createProvider(s: LangChainProviderSettings): ChatProvider {
  return s.provider === 'openai' ? new OpenAIProvider(s) : new AnthropicProvider(s);
}
