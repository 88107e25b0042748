/**
 * The `vscode-lm` provider: models the editor offers through the Language Model API
 * (`vscode.lm.selectChatModels`). Implements the same `ChatProvider` as the LangChain providers and
 * reuses their stream loop (timeout, cancellation within 200 ms, no half-recorded turn).
 *
 * The API has no system role: the system content is sent as a leading user message.
 * It reports no usage, so the ledger shows only the engine's prediction for this provider.
 *
 * Tools go through the API's tool support where the editor has it (src/host/providers/lmCompat.ts: VS Code
 * 1.95 and newer; older editors get text-only requests and `supportsTools` is false). A model that
 * refuses tools is asked again without them, and not offered tools again in this window.
 */
import * as vscode from 'vscode';
import { runStream, type RawPiece } from '../../services/providers/runner';
import { lmFeatures, readLmResponse, toLanguageModelMessages, toLanguageModelTools, type LmApiSurface, type LmFeatures } from './lmCompat';
import { ProviderError, type ChatProvider, type ChatRequest, type StreamEvent } from '../../services/providers/types';

/** The `vscode` namespace as the feature checks see it (src/host/providers/lmCompat.ts). */
const api = vscode as unknown as LmApiSurface<vscode.LanguageModelChatMessage>;

/** Whether this editor's Language Model API has tool calling (VS Code 1.95 and newer). */
export function editorLmFeatures(): LmFeatures {
  return lmFeatures(api);
}

/** Models that refused a request with tools (by id): not offered tools again in this window. */
const noToolModels = new Set<string>();

/** A chat model the editor offers, as the picker and the `auto` resolution (providerResolver.ts) see it. */
export interface EditorModelInfo {
  id: string;
  name?: string;
  vendor?: string;
  family?: string;
}

/** The editor's chat models, in the editor's order. */
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
  /** Tools are offered only where the editor's Language Model API has tool calling. */
  get supportsTools(): boolean {
    return lmFeatures(api).toolCalling;
  }
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
      const messages = toLanguageModelMessages(req.messages, api);
      const withTools = this.supportsTools && req.tools && req.tools.length > 0 && !noToolModels.has(model.id);
      let response: vscode.LanguageModelChatResponse;
      try {
        response = await model.sendRequest(
          messages,
          withTools
            ? ({ justification, tools: toLanguageModelTools(req.tools!) } as vscode.LanguageModelChatRequestOptions)
            : { justification },
          cts.token,
        );
      } catch (e) {
        if (!withTools || !/tool/i.test(e instanceof Error ? e.message : String(e))) throw e;
        noToolModels.add(model.id);
        response = await model.sendRequest(messages, { justification }, cts.token);
      }
      yield* readLmResponse(response, api);
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
