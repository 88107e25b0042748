/**
 * LangChain glue shared by the providers: tracing off, message mapping, chunk reading.
 */
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import type { ToolCall, ToolDefinition } from '../tools/definitions';
import type { ChatMessage } from '../../engine/types';
import type { ToolCallChunk } from './runner';

const TRACING_VARS = ['LANGSMITH_TRACING_V2', 'LANGCHAIN_TRACING_V2', 'LANGSMITH_TRACING', 'LANGCHAIN_TRACING', 'LANGCHAIN_VERBOSE'];

/**
 * LangSmith tracing would send every prompt to a third party. LangChain turns it on from these
 * environment variables (read at each call), so they are pinned to "false" in this process.
 */
export function disableLangChainTracing(): void {
  if (typeof process === 'undefined' || !process.env) return;
  for (const v of TRACING_VARS) process.env[v] = 'false';
}

const noop = (): void => {};
/**
 * Passed to the OpenAI / Anthropic SDKs: their default logger prints unparsable stream chunks (reply
 * content) to the console; every failure reaches the user as a ProviderError instead.
 */
export const quietSdkLogger = { error: noop, warn: noop, info: noop, debug: noop };

export type TextPart = { type: 'text'; text: string; cache_control?: { type: 'ephemeral'; ttl?: '5m' | '1h' } };

function lcToolCalls(calls: readonly ToolCall[]): { id: string; name: string; args: Record<string, unknown>; type: 'tool_call' }[] {
  return calls.map((c) => ({ id: c.id, name: c.name, args: c.args, type: 'tool_call' as const }));
}

function lcMessage(m: Pick<ChatMessage, 'role' | 'toolCalls' | 'toolCallId'>, content: string | TextPart[]): BaseMessage {
  switch (m.role) {
    case 'system':
      return new SystemMessage({ content });
    case 'user':
      return new HumanMessage({ content });
    case 'assistant':
      return m.toolCalls && m.toolCalls.length > 0
        ? new AIMessage({ content, tool_calls: lcToolCalls(m.toolCalls) })
        : new AIMessage({ content });
    case 'tool':
      return new ToolMessage({ content, tool_call_id: m.toolCallId ?? '' });
  }
}

/**
 * OpenAI chat completions: one message per ChatMessage. `parts` sends the blocks as text parts;
 * `string` (the default) sends their concatenation, which is the same text and is accepted by every
 * OpenAI-compatible server (some older ones reject content arrays on system/assistant messages).
 */
export function toOpenAIMessages(messages: readonly ChatMessage[], format: 'string' | 'parts' = 'string'): BaseMessage[] {
  return messages.map((m) =>
    lcMessage(
      m,
      format === 'string' ? m.content.map((b) => b.text).join('') : m.content.map((b) => ({ type: 'text' as const, text: b.text })),
    ),
  );
}

export const ANTHROPIC_MAX_BREAKPOINTS = 4;

/**
 * Anthropic messages: text blocks, `cache_control` on the flagged blocks (at most 4: the last four
 * are kept, they cover the longest prefixes). Empty blocks are not allowed by the API: they are
 * left out and their breakpoint moves to the previous non-empty block of the same message (same
 * prefix text). A message with no text at all is left out, unless it carries tool calls (then its
 * content is the calls alone). A `tool` message becomes a `tool_result` block (LangChain merges
 * consecutive results into one user message, as the API wants).
 */
export function toAnthropicMessages(messages: readonly ChatMessage[], ttl: '5m' | '1h' = '5m'): BaseMessage[] {
  const parts: TextPart[][] = messages.map((m) => {
    const out: TextPart[] = [];
    for (const b of m.content) {
      if (b.text.length > 0) out.push({ type: 'text', text: b.text, ...(b.cacheBreakpoint ? { cache_control: cc(ttl) } : {}) });
      else if (b.cacheBreakpoint && out.length > 0) out[out.length - 1].cache_control = cc(ttl);
    }
    return out;
  });
  // Keep only the last ANTHROPIC_MAX_BREAKPOINTS breakpoints.
  let budget = ANTHROPIC_MAX_BREAKPOINTS;
  for (let i = parts.length - 1; i >= 0; i--) {
    for (let j = parts[i].length - 1; j >= 0; j--) {
      if (!parts[i][j].cache_control) continue;
      if (budget > 0) budget--;
      else delete parts[i][j].cache_control;
    }
  }
  const out: BaseMessage[] = [];
  messages.forEach((m, i) => {
    if (parts[i].length > 0) out.push(lcMessage(m, parts[i]));
    else if (m.toolCalls && m.toolCalls.length > 0) out.push(lcMessage(m, ''));
  });
  return out;
}

function cc(ttl: '5m' | '1h'): { type: 'ephemeral'; ttl?: '1h' } {
  return ttl === '1h' ? { type: 'ephemeral', ttl: '1h' } : { type: 'ephemeral' };
}

/** The text of a streamed AIMessageChunk (string content, or text parts). */
export function chunkText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  let s = '';
  for (const p of content) {
    if (p && typeof p === 'object' && (p as { type?: string }).type === 'text' && typeof (p as { text?: unknown }).text === 'string') {
      s += (p as { text: string }).text;
    }
  }
  return s;
}

/** Tool definitions in the OpenAI chat-completions format (passed to `bindTools` as they are). */
export function toOpenAITools(
  tools: readonly ToolDefinition[],
): { type: 'function'; function: { name: string; description: string; parameters: Record<string, unknown> } }[] {
  return tools.map((t) => ({
    type: 'function' as const,
    function: { name: t.name, description: t.description, parameters: t.parameters as unknown as Record<string, unknown> },
  }));
}

/** Tool definitions in the Anthropic messages format (passed to `bindTools` as they are). */
export function toAnthropicTools(
  tools: readonly ToolDefinition[],
): { name: string; description: string; input_schema: Record<string, unknown> }[] {
  return tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters as unknown as Record<string, unknown> }));
}

/** The tool-call pieces of a streamed AIMessageChunk (`tool_call_chunks`). */
export function chunkToolCalls(chunk: {
  tool_call_chunks?: { index?: number; id?: string; name?: string; args?: string }[];
}): ToolCallChunk[] | undefined {
  const list = chunk.tool_call_chunks;
  if (!list || list.length === 0) return undefined;
  const out: ToolCallChunk[] = [];
  list.forEach((c, i) => {
    const piece: ToolCallChunk = { index: typeof c.index === 'number' ? c.index : i };
    if (c.id) piece.id = c.id;
    if (c.name) piece.name = c.name;
    if (c.args) piece.args = c.args;
    out.push(piece);
  });
  return out;
}
