/**
 * Provider-neutral messages with tool calls: an assistant message may carry `toolCalls`
 * (its `content` holds what the model said before calling, often nothing), and each result is a
 * `tool` message answering one call by its id. Token counting: `<|assistant|>\n` + text + the
 * JSON of the calls + `\n`, and `<|tool|>\n` + text + `\n`. The engine's `ChatMessage` carries all of
 * it; these names stay for the code that speaks of requests on the wire.
 */
import type { ChatMessage, Role, ToolCall } from '../../engine/types';
import { toolCallsJson as engineToolCallsJson } from '../../engine/render';

export type WireRole = Role;
export type WireMessage = ChatMessage;

/** The JSON of an assistant message's calls as the token rule counts it (`[]` is never written). */
export function toolCallsJson(calls: readonly ToolCall[] | undefined): string {
  return calls && calls.length > 0 ? engineToolCallsJson(calls) : '';
}
