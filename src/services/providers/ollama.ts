/**
 * Ollama through its native chat API (`POST /api/chat`, NDJSON) with LangChain's ChatOllama,
 * streaming only. The native API is used, not Ollama's OpenAI-compatible `/v1`, because only it
 * takes `num_ctx`: without it Ollama runs the model with its default window (4,096 tokens, or what
 * the server is configured with) and cuts a longer prompt from the front without an error. Strata
 * sends the window it budgeted for, so the model sees the whole request.
 */
import { ChatOllama } from '@langchain/ollama';
import type { AIMessageChunk } from '@langchain/core/messages';
import { chunkText, chunkToolCalls, disableLangChainTracing, toOpenAIMessages, toOpenAITools } from './langchain';
import { runStream, type RawPiece, type Sleep } from './runner';
import { safeOrigin, type ErrorContext } from './errors';
import { serverRoot } from './localServers';
import type { ChatProvider, ChatRequest, ProviderError, ProviderUsage, RetryPolicy, StreamEvent } from './types';

export interface OllamaProviderOptions {
  /** The server's root (default http://127.0.0.1:11434). */
  baseURL?: string;
  /** The window Strata budgets for: sent as `num_ctx` with every request. */
  numCtx: number;
  retry?: Partial<RetryPolicy>;
  sleep?: Sleep;
  onRetry?: (info: { attempt: number; delayMs: number; error: ProviderError }) => void;
}

export const OLLAMA_DEFAULT_BASE_URL = 'http://127.0.0.1:11434';

export class OllamaProvider implements ChatProvider {
  readonly kind = 'ollama' as const;
  readonly supportsTools = true;
  readonly label: string;
  private readonly baseURL: string;

  constructor(private readonly opts: OllamaProviderOptions) {
    this.baseURL = serverRoot(opts.baseURL ?? OLLAMA_DEFAULT_BASE_URL);
    this.label = `Ollama at ${safeOrigin(this.baseURL).replace(/^https?:\/\//, '')}`;
  }

  private ctx(model: string): ErrorContext {
    return { provider: 'Ollama', baseURL: this.baseURL, model };
  }

  stream(req: ChatRequest): AsyncIterable<StreamEvent> {
    return runStream({
      ctx: this.ctx(req.model),
      signal: req.signal,
      timeoutMs: req.timeoutMs,
      retry: this.opts.retry,
      sleep: this.opts.sleep,
      onRetry: this.opts.onRetry,
      open: (signal) => this.open(req, signal),
    });
  }

  private async *open(req: ChatRequest, signal: AbortSignal): AsyncGenerator<RawPiece> {
    disableLangChainTracing();
    const model = new ChatOllama({
      model: req.model,
      baseUrl: this.baseURL,
      numCtx: this.opts.numCtx,
      numPredict: req.maxOutputTokens,
      // ChatOllama checks for an abort only between chunks: the request itself carries the signal.
      fetch: (input: Parameters<typeof fetch>[0], init?: RequestInit) => fetch(input, { ...init, signal }),
    });
    const runnable = req.tools && req.tools.length > 0 ? model.bindTools(toOpenAITools(req.tools)) : model;
    const stream = await runnable.stream(toOpenAIMessages(req.messages, 'string'), { signal, callbacks: [] });
    let calls = 0;
    for await (const chunk of stream as AsyncIterable<AIMessageChunk>) {
      const piece: RawPiece = {};
      const text = chunkText(chunk.content);
      if (text) piece.text = text;
      // Ollama sends each tool call whole, and ChatOllama numbers every one 0: number them in order.
      const toolChunks = chunkToolCalls(chunk);
      if (toolChunks) piece.toolCallChunks = toolChunks.map((c) => ({ ...c, index: calls++ }));
      const meta = chunk.response_metadata as { done_reason?: unknown } | undefined;
      if (typeof meta?.done_reason === 'string') piece.finishReason = meta.done_reason;
      const um = chunk.usage_metadata;
      if (um && (um.input_tokens || um.output_tokens)) {
        // prompt_eval_count: the prompt as the server ran it (after any cut), which the budget compares with what was sent.
        const usage: ProviderUsage = { input: um.input_tokens ?? 0, cacheRead: 0, cacheWrite: 0, output: um.output_tokens ?? 0 };
        piece.usage = usage;
      }
      yield piece;
    }
  }
}
