/**
 * The `vscode-lm` provider: models the editor offers through the Language Model API
 * (`vscode.lm.selectChatModels`). Implements the same `ChatProvider` as the LangChain providers and
 * reuses their stream loop (timeout, cancellation within 200 ms, no half-recorded turn).
 *
 * The API has no system role: the system content is sent as a leading user message.
 * It reports no usage, so the ledger shows only the engine's prediction for this provider.
 *
 * Tools go through the API's tool support: definitions as `LanguageModelChatTool`s, an assistant's
 * calls as `LanguageModelToolCallPart`s, results as `LanguageModelToolResultPart`s in a user message
 * (consecutive results share one), and calls read from `response.stream`. A model that refuses tools
 * is asked again without them, and not offered tools again in this window.
 */
import * as vscode from 'vscode';
import type { EditorModelInfo } from '../services/providers/auto';
import { runStream, type RawPiece } from '../services/providers/runner';
import type { ToolDefinition } from '../services/tools/definitions';
import type { ChatMessage } from '../engine/types';
import { ProviderError, type ChatProvider, type ChatRequest, type StreamEvent } from '../services/providers/types';

export function toLanguageModelMessages(messages: readonly ChatMessage[]): vscode.LanguageModelChatMessage[] {
  const out: vscode.LanguageModelChatMessage[] = [];
  let results: vscode.LanguageModelToolResultPart[] | undefined;
  for (const m of messages) {
    const text = m.content.map((b) => b.text).join('');
    if (m.role === 'tool') {
      const part = new vscode.LanguageModelToolResultPart(m.toolCallId ?? '', [new vscode.LanguageModelTextPart(text)]);
      if (results) results.push(part);
      else {
        results = [part];
        out.push(vscode.LanguageModelChatMessage.User(results));
      }
      continue;
    }
    results = undefined;
    if (m.role === 'assistant' && m.toolCalls && m.toolCalls.length > 0) {
      const parts: (vscode.LanguageModelTextPart | vscode.LanguageModelToolCallPart)[] = text
        ? [new vscode.LanguageModelTextPart(text)]
        : [];
      for (const c of m.toolCalls) parts.push(new vscode.LanguageModelToolCallPart(c.id, c.name, c.args));
      out.push(vscode.LanguageModelChatMessage.Assistant(parts));
      continue;
    }
    out.push(m.role === 'assistant' ? vscode.LanguageModelChatMessage.Assistant(text) : vscode.LanguageModelChatMessage.User(text));
  }
  return out;
}

export function toLanguageModelTools(tools: readonly ToolDefinition[]): vscode.LanguageModelChatTool[] {
  return tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.parameters as object }));
}

/** Models that refused a request with tools (by id): not offered tools again in this window. */
const noToolModels = new Set<string>();

/** Models for the `auto` resolution (src/services/providers/auto.ts). */
export async function editorModels(): Promise<EditorModelInfo[]> {
  const models = await vscode.lm.selectChatModels();
  return models.map((m) => ({ id: m.id, name: m.name, vendor: m.vendor, family: m.family }));
}

function mapError(e: unknown, model: string): ProviderError {
  if (e instanceof ProviderError) return e;
  if (e instanceof vscode.CancellationError) return new ProviderError('aborted', 'Request cancelled.');
  const message = e instanceof Error ? e.message : String(e);
  if (e instanceof vscode.LanguageModelError) {
    if (e.code === vscode.LanguageModelError.NotFound.name) {
      return new ProviderError(
        'unknown-model',
        `The editor no longer offers the model "${model}". Pick another one with "Strata: Select Model".`,
      );
    }
    if (e.code === vscode.LanguageModelError.NoPermissions.name) {
      return new ProviderError('bad-key', `Strata is not allowed to use "${model}". Allow it when VS Code asks, or pick another model.`);
    }
    if (e.code === vscode.LanguageModelError.Blocked.name) {
      return new ProviderError('rate-limited', `The editor blocked the request to "${model}" (quota or rate limit). Try again later.`);
    }
  }
  if (/context|token limit|too long|too many tokens/i.test(message)) {
    return new ProviderError('context-length', `The request is longer than ${model}'s context window.`);
  }
  return new ProviderError('server', `The editor's language model "${model}" failed: ${message.slice(0, 200)}`);
}

export class VscodeLmProvider implements ChatProvider {
  readonly kind = 'vscode-lm' as const;
  readonly supportsTools = true;
  readonly label = 'VS Code language model';

  stream(req: ChatRequest): AsyncIterable<StreamEvent> {
    return runStream({
      ctx: { provider: 'VS Code language model', baseURL: 'vscode://lm', model: req.model },
      signal: req.signal,
      timeoutMs: req.timeoutMs,
      retry: { maxAttempts: 1 },
      open: (signal) => this.open(req, signal),
    });
  }

  private async *open(req: ChatRequest, signal: AbortSignal): AsyncGenerator<RawPiece> {
    const cts = new vscode.CancellationTokenSource();
    const onAbort = () => cts.cancel();
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      const [model] = await vscode.lm.selectChatModels({ id: req.model });
      if (!model)
        throw new ProviderError(
          'unknown-model',
          `The editor does not offer the model "${req.model}". Pick another one with "Strata: Select Model".`,
        );
      const justification = 'Strata sends your chat message and the context you attached to the selected model.';
      const messages = toLanguageModelMessages(req.messages);
      const withTools = req.tools && req.tools.length > 0 && !noToolModels.has(model.id);
      let response: vscode.LanguageModelChatResponse;
      try {
        response = await model.sendRequest(
          messages,
          withTools ? { justification, tools: toLanguageModelTools(req.tools!) } : { justification },
          cts.token,
        );
      } catch (e) {
        if (!withTools || !/tool/i.test(e instanceof Error ? e.message : String(e))) throw e;
        noToolModels.add(model.id);
        response = await model.sendRequest(messages, { justification }, cts.token);
      }
      let index = 0;
      for await (const part of response.stream) {
        if (part instanceof vscode.LanguageModelTextPart) {
          if (part.value) yield { text: part.value };
        } else if (part instanceof vscode.LanguageModelToolCallPart) {
          yield { toolCallChunks: [{ index: index++, id: part.callId, name: part.name, args: JSON.stringify(part.input ?? {}) }] };
        }
      }
    } catch (e) {
      throw mapError(e, req.model);
    } finally {
      signal.removeEventListener('abort', onAbort);
      cts.dispose();
    }
  }

  async listModels(): Promise<string[]> {
    return (await editorModels()).map((m) => m.id);
  }
}
