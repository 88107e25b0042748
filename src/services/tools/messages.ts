/**
 * Provider-neutral messages with tool calls (DESIGN §9): an assistant message may carry `toolCalls`
 * (its `content` holds what the model said before calling, often nothing), and each result is a
 * `tool` message answering one call by its id. Token counting (§9): `<|assistant|>\n` + text + the
 * JSON of the calls + `\n`, and `<|tool|>\n` + text + `\n`.
 */
import type { ChatMessage, TextBlock } from '../../engine/types';
import type { ToolCall } from './definitions';

export type WireRole = ChatMessage['role'] | 'tool';

export interface WireMessage {
  role: WireRole;
  content: TextBlock[];
  /** Assistant messages: the tool calls the model made, in order. */
  toolCalls?: ToolCall[];
  /** Tool messages: the call this result answers. */
  toolCallId?: string;
}

/** The JSON of an assistant message's calls as the token rule counts it (`[]` is never written). */
export function toolCallsJson(calls: readonly ToolCall[] | undefined): string {
  return calls && calls.length > 0 ? JSON.stringify(calls.map((c) => ({ id: c.id, name: c.name, args: c.args }))) : '';
}
