/**
 * Providers: a provider-neutral `ChatProvider` (types.ts), LangChain-backed OpenAI / Anthropic
 * implementations, `auto` resolution, and helpers the host and the replay tool share.
 * The `vscode.lm` implementation lives in src/host (this folder must not import vscode).
 */
import { AnthropicProvider, type AnthropicProviderOptions } from './anthropic';
import { OpenAIProvider, type OpenAIProviderOptions } from './openai';
import { ProviderError, type ChatProvider, type ChatRequest, type ProviderUsage, type StreamEvent } from './types';

export * from './types';
export { OpenAIProvider, OPENAI_DEFAULT_BASE_URL, isLocalURL, type OpenAIProviderOptions } from './openai';
export { AnthropicProvider, ANTHROPIC_DEFAULT_BASE_URL, type AnthropicProviderOptions } from './anthropic';
export { resolveAutoProvider, probeOllama, OLLAMA_DEFAULT_ROOT, type AutoProbes, type AutoResolution, type EditorModelInfo, type OllamaInfo } from './auto';
export { toProviderError, redact, parseRetryAfter, safeOrigin, type ErrorContext } from './errors';
export { disableLangChainTracing, toOpenAIMessages, toAnthropicMessages, ANTHROPIC_MAX_BREAKPOINTS } from './langchain';
export { runStream, abortableSleep, type RawPiece, type Sleep } from './runner';

export type LangChainProviderSettings =
  | ({ provider: 'openai' } & OpenAIProviderOptions)
  | ({ provider: 'anthropic' } & AnthropicProviderOptions);

export function createProvider(s: LangChainProviderSettings): ChatProvider {
  return s.provider === 'openai' ? new OpenAIProvider(s) : new AnthropicProvider(s);
}

export interface CompletedReply {
  text: string;
  usage?: ProviderUsage;
  finishReason?: string;
  attempts: number;
}

/** Consumes a stream; `onText` sees each piece in order. Resolves only on `done`. */
export async function collectReply(events: AsyncIterable<StreamEvent>, onText?: (text: string, seq: number) => void): Promise<CompletedReply> {
  for await (const ev of events) {
    if (ev.type === 'text') onText?.(ev.text, ev.seq);
    else if (ev.type === 'done') return { text: ev.text, usage: ev.usage, finishReason: ev.finishReason, attempts: ev.attempts };
  }
  throw new ProviderError('bad-response', 'The reply ended without completing.');
}

/**
 * DESIGN §5 "prune harder": runs `build(false)`; when the provider answers context-length (always
 * before any output), calls `build(true)` (the caller rebuilds the envelope at target 50%) and
 * retries once. A second context-length error is reported as is.
 */
export async function* streamWithPruneRetry(
  provider: ChatProvider,
  build: (pruneHarder: boolean) => ChatRequest | Promise<ChatRequest>,
): AsyncGenerator<StreamEvent | { type: 'pruned-harder' }> {
  let started = false;
  try {
    for await (const ev of provider.stream(await build(false))) {
      if (ev.type === 'text') started = true;
      yield ev;
    }
    return;
  } catch (e) {
    if (started || !ProviderError.is(e, 'context-length')) throw e;
  }
  const req = await build(true);
  yield { type: 'pruned-harder' };
  yield* provider.stream(req);
}
