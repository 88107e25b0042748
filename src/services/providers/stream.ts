/**
 * Stream helpers that need no LangChain: the turn pipeline and the summarizer import them without
 * loading the LangChain providers (the host loads those lazily, on the first send).
 */
import { ProviderError, type ChatProvider, type ChatRequest, type ProviderUsage, type StreamEvent } from './types';

export interface CompletedReply {
  text: string;
  usage?: ProviderUsage;
  finishReason?: string;
  attempts: number;
}

/** Consumes a stream; `onText` sees each piece in order. Resolves only on `done`. */
export async function collectReply(
  events: AsyncIterable<StreamEvent>,
  onText?: (text: string, seq: number) => void,
): Promise<CompletedReply> {
  for await (const ev of events) {
    if (ev.type === 'text') onText?.(ev.text, ev.seq);
    else if (ev.type === 'done') return { text: ev.text, usage: ev.usage, finishReason: ev.finishReason, attempts: ev.attempts };
  }
  throw new ProviderError('bad-response', 'The reply ended without completing.');
}

/**
 * Pruning harder after a context-length error (docs/design.md#budget): runs `build(false)`; when
 * the provider answers context-length (always before any output), calls `build(true)` (the caller
 * rebuilds the envelope at target 50%) and retries once. A second context-length error is reported
 * as is.
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
