/**
 * The parts of the Language Model API newer than Strata's floor (`engines.vscode`, VS Code 1.90),
 * each behind a feature check with a fallback; docs/design.md#vs-code-versions says why the floor is
 * 1.90. VS Code 1.90 has `vscode.lm` with text-only messages and `response.text`; tool calling
 * (`LanguageModelTextPart`, `LanguageModelToolCallPart`, `LanguageModelToolResultPart`, request
 * `tools`, `response.stream`) arrived in 1.95. Without it an editor model answers in text only, and
 * its label says tools are off.
 *
 * The API surface is a parameter, never an import of `vscode`: the extension passes the `vscode`
 * namespace, and plain-Node unit tests pass structural fakes with the newer classes missing.
 */
import type { ChatMessage } from '../../engine/types';
import type { RawPiece } from '../../services/providers/runner';
import type { ToolDefinition } from '../../services/tools/definitions';

type Part = object;

/** The members of the `vscode` namespace this module reads; the ones newer than 1.90 are optional. */
export interface LmApiSurface<M = unknown> {
  readonly LanguageModelChatMessage: {
    User(content: string | Part[]): M;
    Assistant(content: string | Part[]): M;
  };
  /** 1.95 and newer, with the two below. */
  readonly LanguageModelTextPart?: new (value: string) => Part;
  readonly LanguageModelToolCallPart?: new (callId: string, name: string, input: object) => Part;
  readonly LanguageModelToolResultPart?: new (callId: string, content: Part[]) => Part;
}

/** A model's response: `text` since 1.90; `stream` (text and tool-call parts) since 1.95. */
export interface LmResponseSurface {
  readonly text: AsyncIterable<string>;
  readonly stream?: AsyncIterable<unknown>;
}

/** A tool as `LanguageModelChatRequestOptions.tools` takes it (1.95). */
export interface LmTool {
  name: string;
  description: string;
  inputSchema: object;
}

export interface LmFeatures {
  /** Tools can be offered, calls read from the response and results sent back. */
  readonly toolCalling: boolean;
}

export function lmFeatures(api: LmApiSurface): LmFeatures {
  return {
    toolCalling:
      typeof api.LanguageModelTextPart === 'function' &&
      typeof api.LanguageModelToolCallPart === 'function' &&
      typeof api.LanguageModelToolResultPart === 'function',
  };
}

/** How an editor model is named in the panel and the status bar; says so when tools are off. */
export function editorModelLabel(name: string, features: LmFeatures): string {
  return features.toolCalling ? `${name} (VS Code)` : `${name} (VS Code, tools off)`;
}

/**
 * Strata's messages as Language Model API messages. The API has no system role: system content goes
 * as a user message. With tool calling, calls are `LanguageModelToolCallPart`s and results
 * `LanguageModelToolResultPart`s in a user message (consecutive results share one). Without it, a
 * history that holds tool traffic (from another model earlier in the chat) is sent as text, so the
 * model still sees what the tools returned.
 */
export function toLanguageModelMessages<M>(messages: readonly ChatMessage[], api: LmApiSurface<M>): M[] {
  const { LanguageModelChatMessage: Message, LanguageModelTextPart: Text, LanguageModelToolCallPart: Call } = api;
  const Result = api.LanguageModelToolResultPart;
  const parts = lmFeatures(api).toolCalling && Text && Call && Result ? { Text, Call, Result } : undefined;
  const out: M[] = [];
  let results: Part[] | undefined;
  for (const m of messages) {
    const text = m.content.map((b) => b.text).join('');
    if (m.role === 'tool') {
      if (!parts) {
        out.push(Message.User(`Result of tool call ${m.toolCallId ?? ''}:\n${text}`));
        continue;
      }
      const part = new parts.Result(m.toolCallId ?? '', [new parts.Text(text)]);
      if (results) results.push(part);
      else {
        results = [part];
        out.push(Message.User(results));
      }
      continue;
    }
    results = undefined;
    if (m.role === 'assistant' && m.toolCalls && m.toolCalls.length > 0) {
      if (!parts) {
        const calls = m.toolCalls.map((c) => `Called tool ${c.name} (${c.id}) with ${JSON.stringify(c.args)}`);
        out.push(Message.Assistant([text, ...calls].filter((s) => s !== '').join('\n')));
        continue;
      }
      const content: Part[] = text ? [new parts.Text(text)] : [];
      for (const c of m.toolCalls) content.push(new parts.Call(c.id, c.name, c.args));
      out.push(Message.Assistant(content));
      continue;
    }
    out.push(m.role === 'assistant' ? Message.Assistant(text) : Message.User(text));
  }
  return out;
}

export function toLanguageModelTools(tools: readonly ToolDefinition[]): LmTool[] {
  return tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.parameters as object }));
}

/**
 * A response as stream pieces: text and tool calls from `response.stream` where the editor has it,
 * otherwise the text from `response.text`.
 */
export async function* readLmResponse(response: LmResponseSurface, api: LmApiSurface): AsyncGenerator<RawPiece> {
  const { LanguageModelTextPart: Text, LanguageModelToolCallPart: Call } = api;
  if (response.stream && Text) {
    let index = 0;
    for await (const part of response.stream) {
      if (part instanceof Text) {
        const value = (part as { value?: unknown }).value;
        if (typeof value === 'string' && value) yield { text: value };
      } else if (Call && part instanceof Call) {
        const call = part as { callId: string; name: string; input?: unknown };
        yield { toolCallChunks: [{ index: index++, id: call.callId, name: call.name, args: JSON.stringify(call.input ?? {}) }] };
      }
    }
    return;
  }
  for await (const text of response.text) {
    if (text) yield { text };
  }
}
