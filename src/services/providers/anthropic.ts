/**
 * Anthropic Messages API through LangChain's ChatAnthropic, streaming only, with `cache_control`
 * at the envelope's breakpoints (≤ 4) and cache read / write usage from the stream.
 */
import { ChatAnthropic } from '@langchain/anthropic';
import type { AIMessageChunk } from '@langchain/core/messages';
import { chunkText, chunkToolCalls, disableLangChainTracing, quietSdkLogger, toAnthropicMessages, toAnthropicTools } from './langchain';
import { runStream, type RawPiece, type Sleep } from './runner';
import { safeOrigin, type ErrorContext } from './errors';
import { isLocalURL } from './openai';
import { ProviderError, type ChatProvider, type ChatRequest, type ProviderUsage, type RetryPolicy, type StreamEvent } from './types';

export const ANTHROPIC_DEFAULT_BASE_URL = 'https://api.anthropic.com';

export interface AnthropicProviderOptions {
  apiKey?: string;
  /** Default https://api.anthropic.com (the SDK appends /v1/messages). */
  baseURL?: string;
  /** `strata.anthropicCacheTtl` (default 5m). */
  cacheTtl?: '5m' | '1h';
  retry?: Partial<RetryPolicy>;
  sleep?: Sleep;
  onRetry?: (info: { attempt: number; delayMs: number; error: ProviderError }) => void;
}

export class AnthropicProvider implements ChatProvider {
  readonly kind = 'anthropic' as const;
  readonly supportsTools = true;
  readonly label: string;
  private readonly baseURL: string;

  constructor(private readonly opts: AnthropicProviderOptions = {}) {
    this.baseURL = (opts.baseURL ?? ANTHROPIC_DEFAULT_BASE_URL).replace(/\/+$/, '');
    this.label =
      this.baseURL === ANTHROPIC_DEFAULT_BASE_URL
        ? 'Anthropic'
        : `Anthropic-compatible server at ${safeOrigin(this.baseURL).replace(/^https?:\/\//, '')}`;
  }

  private ctx(model: string): ErrorContext {
    return { provider: 'Anthropic', baseURL: this.baseURL, model, apiKey: this.opts.apiKey };
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
    let apiKey = this.opts.apiKey;
    if (!apiKey) {
      // Local servers (a proxy, the imitation server) need no key; the SDK insists on one.
      if (isLocalURL(this.baseURL)) apiKey = 'strata-local-no-key';
      else throw new ProviderError('bad-key', `No API key is set for ${this.label}. Set one with "Strata: Set API Key".`);
    }
    disableLangChainTracing();
    const model = new ChatAnthropic({
      model: req.model,
      apiKey,
      anthropicApiUrl: this.baseURL,
      maxRetries: 0,
      maxTokens: req.maxOutputTokens,
      streamUsage: true,
      clientOptions: { timeout: (req.timeoutMs ?? 120_000) * 2, logger: quietSdkLogger },
    });
    const runnable = req.tools && req.tools.length > 0 ? model.bindTools(toAnthropicTools(req.tools)) : model;
    const stream = await runnable.stream(toAnthropicMessages(req.messages, this.opts.cacheTtl ?? '5m'), { signal, callbacks: [] });
    const usage: ProviderUsage = { input: 0, cacheRead: 0, cacheWrite: 0, output: 0 };
    for await (const chunk of stream as AsyncIterable<AIMessageChunk>) {
      const piece: RawPiece = {};
      const text = chunkText(chunk.content);
      if (text) piece.text = text;
      const calls = chunkToolCalls(chunk);
      if (calls) piece.toolCallChunks = calls;
      const stop = (chunk.additional_kwargs as { stop_reason?: unknown } | undefined)?.stop_reason;
      if (typeof stop === 'string') piece.finishReason = stop;
      const um = chunk.usage_metadata;
      if (um) {
        if (um.input_token_details) {
          // message_start: input_tokens = uncached + cache read + cache write (LangChain sums them).
          usage.input = um.input_tokens ?? 0;
          usage.cacheRead = um.input_token_details.cache_read ?? 0;
          usage.cacheWrite = um.input_token_details.cache_creation ?? 0;
          usage.output = um.output_tokens ?? 0;
        } else if (um.output_tokens) {
          // message_delta: cumulative output tokens.
          usage.output = um.output_tokens;
        }
        piece.usage = { ...usage };
      }
      yield piece;
    }
  }
}
