/**
 * OpenAI and OpenAI-compatible endpoints (Ollama `http://127.0.0.1:11434/v1`, LM Studio, vLLM)
 * through LangChain's ChatOpenAI, streaming only.
 *
 * `.stream()` only: `.invoke()` with streaming makes LangChain estimate usage with a tokenizer whose
 * ranks it downloads from the internet; the extension must talk to the configured endpoint only.
 */
import { ChatOpenAI } from '@langchain/openai';
import type { AIMessageChunk } from '@langchain/core/messages';
import { disableLangChainTracing, chunkText, chunkToolCalls, quietSdkLogger, toOpenAIMessages, toOpenAITools } from './langchain';
import { runStream, type RawPiece, type Sleep } from './runner';
import { redact, safeOrigin, toProviderError, type ErrorContext } from './errors';
import { PROVIDER_CATALOG, type OpenAIWireProvider } from '../../common/providerCatalog';
import { ProviderError, type ChatProvider, type ChatRequest, type ProviderUsage, type RetryPolicy, type StreamEvent } from './types';

export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';

export interface OpenAIProviderOptions {
  /** Which provider of the catalog this client speaks for (default `openai`; a local server speaks OpenAI's wire format). */
  kind?: OpenAIWireProvider;
  apiKey?: string;
  /** Default https://api.openai.com/v1. */
  baseURL?: string;
  /** Send `prompt_cache_key` = conversation id (default true; `strata.promptCacheKey`). */
  promptCacheKey?: boolean;
  /** How message blocks are sent (see `toOpenAIMessages`); default `string`. */
  contentFormat?: 'string' | 'parts';
  retry?: Partial<RetryPolicy>;
  /** Injected in tests to shorten backoff waits. */
  sleep?: Sleep;
  onRetry?: (info: { attempt: number; delayMs: number; error: ProviderError }) => void;
}

/** True for endpoints on this machine (no key needed). */
export function isLocalURL(url: string): boolean {
  try {
    const h = new URL(url).hostname;
    return h === '127.0.0.1' || h === 'localhost' || h === '[::1]' || h === '::1';
  } catch {
    return false;
  }
}

export class OpenAIProvider implements ChatProvider {
  readonly kind: NonNullable<OpenAIProviderOptions['kind']>;
  readonly supportsTools = true;
  readonly label: string;
  private readonly baseURL: string;

  constructor(private readonly opts: OpenAIProviderOptions = {}) {
    this.kind = opts.kind ?? 'openai';
    this.baseURL = (opts.baseURL ?? OPENAI_DEFAULT_BASE_URL).replace(/\/+$/, '');
    const host = safeOrigin(this.baseURL).replace(/^https?:\/\//, '');
    this.label =
      this.kind !== 'openai'
        ? `${PROVIDER_CATALOG[this.kind].name} at ${host}`
        : this.baseURL === OPENAI_DEFAULT_BASE_URL
          ? 'OpenAI'
          : `OpenAI-compatible server at ${host}`;
  }

  private ctx(model: string): ErrorContext {
    return {
      provider:
        this.kind !== 'openai'
          ? PROVIDER_CATALOG[this.kind].name
          : this.baseURL === OPENAI_DEFAULT_BASE_URL
            ? 'OpenAI'
            : 'The OpenAI-compatible server',
      baseURL: this.baseURL,
      model,
      apiKey: this.opts.apiKey,
    };
  }

  private apiKeyOrThrow(): string {
    if (this.opts.apiKey) return this.opts.apiKey;
    // The SDK refuses to start without a key; local servers do not need one.
    if (isLocalURL(this.baseURL)) return 'strata-local-no-key';
    throw new ProviderError('bad-key', `No API key is set for ${this.label}. Set one with "Strata: Set API Key".`);
  }

  stream(req: ChatRequest): AsyncIterable<StreamEvent> {
    const ctx = this.ctx(req.model);
    const self = this;
    return runStream({
      ctx,
      signal: req.signal,
      timeoutMs: req.timeoutMs,
      retry: this.opts.retry,
      sleep: this.opts.sleep,
      onRetry: this.opts.onRetry,
      open: (signal) => self.open(req, signal),
    });
  }

  private async *open(req: ChatRequest, signal: AbortSignal): AsyncGenerator<RawPiece> {
    disableLangChainTracing();
    const model = new ChatOpenAI({
      model: req.model,
      apiKey: this.apiKeyOrThrow(),
      configuration: { baseURL: this.baseURL, logger: quietSdkLogger },
      maxRetries: 0,
      streamUsage: true,
      maxTokens: req.maxOutputTokens,
      ...(this.opts.promptCacheKey === false ? {} : { promptCacheKey: req.conversationId }),
      // The SDK's own timeout only backs up Strata's stall timer (runner.ts).
      timeout: (req.timeoutMs ?? 120_000) * 2,
    });
    const runnable = req.tools && req.tools.length > 0 ? model.bindTools(toOpenAITools(req.tools)) : model;
    const stream = await runnable.stream(toOpenAIMessages(req.messages, this.opts.contentFormat), { signal, callbacks: [] });
    for await (const chunk of stream as AsyncIterable<AIMessageChunk>) {
      const piece: RawPiece = {};
      const text = chunkText(chunk.content);
      if (text) piece.text = text;
      const calls = chunkToolCalls(chunk);
      if (calls) piece.toolCallChunks = calls;
      const fr = chunk.response_metadata?.finish_reason;
      if (typeof fr === 'string') piece.finishReason = fr;
      const um = chunk.usage_metadata;
      if (um && (um.input_tokens || um.output_tokens)) {
        const usage: ProviderUsage = {
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
  async listModels(signal?: AbortSignal): Promise<string[]> {
    const ctx = this.ctx('(listing models)');
    try {
      const res = await fetch(`${this.baseURL}/models`, {
        headers: { authorization: `Bearer ${this.apiKeyOrThrow()}` },
        signal,
      });
      if (!res.ok) throw Object.assign(new Error(`HTTP ${res.status}`), { status: res.status, headers: res.headers });
      const body = (await res.json()) as { data?: { id?: unknown }[] };
      return (body.data ?? [])
        .map((m) => m.id)
        .filter((id): id is string => typeof id === 'string')
        .sort();
    } catch (e) {
      const pe = toProviderError(e, ctx);
      throw new ProviderError(pe.code, redact(pe.message, this.opts.apiKey), { status: pe.status });
    }
  }
}
