/**
 * A provider that streams scripted replies: the replay and the benchmark run every turn of a
 * trajectory through the turn pipeline with it (the reply is the trajectory's `reply`), and tests use
 * it to script stops and failures without a server. No network, no LangChain.
 *
 * Its stream is both an async iterable (what `ChatProvider` promises) and a plain iterable, so the
 * pipeline's synchronous driver (`TurnPipeline.runSync`) can consume it without promises.
 */
import { ProviderError, type ChatProvider, type ChatRequest, type ProviderUsage, type StreamEvent } from './types';
import type { ToolCall } from '../../engine/types';

export interface ScriptedReply {
  text: string;
  /** Tool calls after the text (the replay's trajectory `tools`, one per step); only when the request offers tools. */
  toolCalls?: ToolCall[];
  /** Throw this after `failAfterChunks` text chunks (default 0: before any output). */
  fail?: ProviderError;
  failAfterChunks?: number;
  usage?: ProviderUsage;
}

export interface ScriptedProviderOptions {
  /** Characters per text chunk (default: the whole reply in one chunk). */
  chunkChars?: number;
  /** Called with each request before it is answered (tests record them). */
  onRequest?: (req: ChatRequest) => void;
  /** Called after each chunk is handed out (tests press Stop from here). */
  onChunk?: (seq: number) => void;
}

/** Streams `reply` (a fixed text, a queue, or a function of the request). */
export class ScriptedProvider implements ChatProvider {
  readonly kind = 'scripted' as const;
  readonly label = 'Scripted replies';
  readonly supportsTools = true;
  private readonly queue: (string | ScriptedReply)[] = [];

  constructor(
    private readonly source?: (req: ChatRequest) => string | ScriptedReply,
    private readonly options: ScriptedProviderOptions = {},
  ) {}

  /** Replies for the next requests, in order (used before `source`). */
  push(...replies: (string | ScriptedReply)[]): this {
    this.queue.push(...replies);
    return this;
  }

  stream(req: ChatRequest): AsyncIterable<StreamEvent> & Iterable<StreamEvent> {
    const next = this.queue.shift() ?? this.source?.(req);
    if (next === undefined) throw new Error('ScriptedProvider: no scripted reply left');
    const reply: ScriptedReply = typeof next === 'string' ? { text: next } : next;
    this.options.onRequest?.(req);
    const events = () => scriptedEvents(reply, req, this.options);
    return {
      [Symbol.iterator]: events,
      [Symbol.asyncIterator]: () => {
        const it = events();
        return {
          next: () => Promise.resolve().then(() => it.next()),
          return: (v?: unknown) => Promise.resolve(it.return(v as undefined)),
        };
      },
    };
  }
}

function* scriptedEvents(
  reply: ScriptedReply,
  req: ChatRequest,
  options: ScriptedProviderOptions,
): Generator<StreamEvent, void, undefined> {
  const aborted = () => new ProviderError('aborted', 'Request cancelled.');
  if (req.signal?.aborted) throw aborted();
  const size = options.chunkChars && options.chunkChars > 0 ? options.chunkChars : Math.max(1, reply.text.length);
  const chunks: string[] = [];
  for (let i = 0; i < reply.text.length; i += size) chunks.push(reply.text.slice(i, i + size));
  let sent = 0;
  for (const text of chunks) {
    if (reply.fail && sent === (reply.failAfterChunks ?? 0)) throw reply.fail;
    yield { type: 'text', text, seq: sent };
    options.onChunk?.(sent);
    sent++;
    if (req.signal?.aborted) throw aborted();
  }
  if (reply.fail) throw reply.fail;
  const calls = reply.toolCalls && reply.toolCalls.length > 0 && req.tools && req.tools.length > 0 ? reply.toolCalls : undefined;
  if (calls) {
    for (const [index, c] of calls.entries()) {
      yield { type: 'toolCall', index, id: c.id, name: c.name };
      if (req.signal?.aborted) throw aborted();
    }
  }
  if (reply.usage) yield { type: 'usage', usage: reply.usage };
  yield calls
    ? {
        type: 'done',
        text: reply.text,
        usage: reply.usage,
        finishReason: 'tool_calls',
        attempts: 1,
        toolCalls: calls.map((c) => ({ id: c.id, name: c.name, args: c.args })),
      }
    : { type: 'done', text: reply.text, usage: reply.usage, finishReason: 'stop', attempts: 1 };
}
