/**
 * Provider-neutral chat interface. No vscode import: the `vscode.lm` adapter in src/host
 * implements the same `ChatProvider` interface with the editor's API.
 */
import type { ToolCall, ToolDefinition } from '../tools/definitions';
import type { ChatMessage } from '../../engine/types';
import type { ProviderName } from '../../common/providerCatalog';

/**
 * A provider of the catalog (src/common/providerCatalog.ts), the editor's models, or `scripted`:
 * replays a scripted reply (the replay, the benchmark, tests); never a network call.
 */
export type ProviderKind = ProviderName | 'vscode-lm' | 'scripted';

export interface ChatRequest {
  /** The envelope's provider-neutral messages (blocks may carry `cacheBreakpoint`; tool steps carry their calls and results). */
  messages: ChatMessage[];
  /**
   * The workspace tools the model may call (absent: none offered). The same list, in the same order,
   * in every request of a chat: providers put tool definitions at the front of their prompt cache.
   */
  tools?: readonly ToolDefinition[];
  model: string;
  /** The chat's stable id: OpenAI `prompt_cache_key` (unless turned off). */
  conversationId: string;
  maxOutputTokens: number;
  /** The stop button. Aborting ends the stream within 200 ms with `ProviderError('aborted')`. */
  signal?: AbortSignal;
  /**
   * Request timeout: the longest wait for the first byte and between two stream chunks (a stall).
   * Default 120 s.
   */
  timeoutMs?: number;
}

/**
 * Provider-reported usage. `input` is the whole prompt as the server counted it, cached parts
 * included (a server that cut the prompt reports the cut prompt's count).
 */
export interface ProviderUsage {
  input: number;
  cacheRead: number;
  cacheWrite: number;
  output: number;
}

export type StreamEvent =
  /** A piece of the reply, in order; `seq` counts from 0 with no gaps. */
  | { type: 'text'; text: string; seq: number }
  /** Usage as reported by the provider (at most once, just before `done`). */
  | { type: 'usage'; usage: ProviderUsage }
  /** The model started a tool call (its name is known; the arguments are still streaming). */
  | { type: 'toolCall'; index: number; id: string; name: string }
  /**
   * The reply completed. Only emitted on success and always last: a consumer records the turn
   * on `done` only, so a failed or cancelled stream never leaves a half-recorded turn.
   */
  | { type: 'done'; text: string; usage?: ProviderUsage; finishReason?: string; attempts: number; toolCalls?: ToolCall[] };

export interface ChatProvider {
  readonly kind: ProviderKind;
  /** The provider can be offered tools (`ChatRequest.tools`) and returns tool calls. */
  readonly supportsTools?: boolean;
  /** Human label for messages ("OpenAI at api.openai.com", "Ollama at 127.0.0.1:11434"). */
  readonly label: string;
  /**
   * Streams one reply. Throws (from the iterator) a `ProviderError` on failure; retries 429/5xx
   * itself, but never after output has started.
   */
  stream(req: ChatRequest): AsyncIterable<StreamEvent>;
  /** Model ids the endpoint offers, when it can tell (OpenAI-compatible GET /models). */
  listModels?(signal?: AbortSignal): Promise<string[]>;
}

export type ProviderErrorCode =
  | 'not-configured'
  | 'bad-key'
  | 'unknown-model'
  | 'rate-limited'
  | 'context-length'
  | 'bad-request'
  | 'network'
  | 'timeout'
  | 'aborted'
  | 'server'
  | 'bad-response';

export interface ProviderErrorInit {
  retryAfterMs?: number;
  status?: number;
  attempts?: number;
}

/** A failed provider call. `message` is user-facing and never contains the API key. */
export class ProviderError extends Error {
  override readonly name = 'ProviderError';
  readonly retryAfterMs?: number;
  readonly status?: number;
  attempts: number;

  constructor(
    readonly code: ProviderErrorCode,
    message: string,
    init: ProviderErrorInit = {},
  ) {
    super(message);
    this.retryAfterMs = init.retryAfterMs;
    this.status = init.status;
    this.attempts = init.attempts ?? 1;
  }

  /** The caller should prune harder (to half the budget) and retry once. */
  get shouldPruneHarder(): boolean {
    return this.code === 'context-length';
  }

  static is(e: unknown, code?: ProviderErrorCode): e is ProviderError {
    return e instanceof ProviderError && (code === undefined || e.code === code);
  }
}

export interface RetryPolicy {
  /** Total attempts including the first (default 4). */
  maxAttempts: number;
  /** Backoff without `retry-after`: base × 2^(attempt−1), capped by `maxDelayMs` (defaults 1000 / 20000). */
  baseDelayMs: number;
  maxDelayMs: number;
  /** A `retry-after` longer than this is not waited for: the error is reported at once (default 60 s). */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 4, baseDelayMs: 1000, maxDelayMs: 20_000, maxRetryAfterMs: 60_000 };
export const DEFAULT_TIMEOUT_MS = 120_000;

/** What each ChatProvider result is stored beside in the chat (the ledger's "predicted vs reported"). */
export interface UsageComparison {
  predicted: { input: number; cacheRead: number; cacheWrite: number };
  reported?: ProviderUsage;
}
