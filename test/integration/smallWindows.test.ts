/**
 * Small windows in the real editor: a file of about 20,000 tokens attached for a model whose server
 * holds 8,192 (vLLM, which refuses a longer prompt with a 400) or 4,096 tokens (Ollama, which cuts a
 * longer prompt from the front without a word) is answered: what goes out fits the window the
 * server reported, the server neither refuses nor cuts it, and the reply says what was sent instead
 * of the whole file.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { StrataApi } from '../../src/extension';
import { configure, folderUri, PanelDriver, strataApi, until, withTimeout } from './support/panel';
import {
  startOllamaImitation,
  startVllmImitation,
  type OllamaImitationServer,
  type VllmImitationServer,
} from '../support/localImitationServers';
import { largeSource } from '../support/largeSource';

describe('small windows: a 20K-token attachment is answered, never cut or refused', function () {
  this.timeout(120_000);
  let api: StrataApi;
  let panel: PanelDriver;
  let vllm: VllmImitationServer;
  let ollama: OllamaImitationServer;
  let file: vscode.Uri;

  before(async () => {
    api = await strataApi();
    await vscode.commands.executeCommand('strata.chat.focus');
    await withTimeout(api.whenChatReady(), 30_000, 'the chat webview saying ready');
    panel = new PanelDriver(api);
    vllm = await startVllmImitation([{ id: 'Qwen/Qwen2.5-Coder-7B-Instruct', maxModelLen: 8192 }]);
    ollama = await startOllamaImitation({ ollamaModels: [{ name: 'llama3.2:3b', contextLength: 4096 }] });
    file = vscode.Uri.joinPath(folderUri('app'), 'generated', 'ledgerEntries.ts');
    await vscode.workspace.fs.writeFile(file, Buffer.from(largeSource(), 'utf8'));
  });

  after(async () => {
    panel?.dispose();
    await vllm?.close();
    await ollama?.close();
    await configure(api, { provider: undefined, baseUrl: undefined, model: undefined });
    await vscode.workspace.fs.delete(vscode.Uri.joinPath(folderUri('app'), 'generated'), { recursive: true });
  });

  async function askAbout(window: number): Promise<{ notes: string[] }> {
    await vscode.commands.executeCommand('strata.newChat');
    await until(`the meter at the server's ${window}-token window`, () => api.testing.session.meter().contextWindow === window);
    await vscode.commands.executeCommand('strata.attachActiveFile', file);
    const { ended } = await panel.sendAndWait('What do the functions in ledgerEntries.ts compute?');
    assert.equal(ended.assistant.status, 'complete', `the turn ended ${ended.assistant.status}: ${ended.assistant.error ?? ''}`);
    const shown = api.testing.session.messages({ last: 1 }).messages;
    const reply = shown[shown.length - 1];
    assert.equal(reply.role, 'assistant');
    return { notes: reply.notes ?? [] };
  }

  it('vLLM at 8,192 tokens: the request fits with its reserved output, no 400, and the reply says how the file went', async () => {
    await configure(api, { provider: 'vllm', baseUrl: vllm.origin, model: 'Qwen/Qwen2.5-Coder-7B-Instruct' });
    const before = vllm.requests.length;
    const { notes } = await askAbout(8192);
    const chats = vllm.requests.slice(before).filter((r) => r.path.endsWith('/chat/completions'));
    assert.equal(chats.length, 1, 'one request, not a retry after a refusal');
    const sent = chats[0];
    assert.ok(sent.usage, 'the server answered (a refused request records no usage)');
    const maxTokens =
      (sent.body as { max_tokens?: number; max_completion_tokens?: number }).max_tokens ??
      (sent.body as { max_completion_tokens?: number }).max_completion_tokens;
    assert.equal(typeof maxTokens, 'number');
    assert.ok(sent.usage.input + (maxTokens as number) <= 8192, `prompt ${sent.usage.input} + max_tokens ${maxTokens} within 8,192`);
    assert.equal(notes.length, 1, notes.join('\n'));
    assert.match(
      notes[0],
      /ledgerEntries\.ts (was sent as its outline to fit the context window|is larger than this model's context window leaves room for: the model saw)/,
    );
  });

  it('Ollama at 4,096 tokens: num_ctx is the window, nothing is cut by the server, and the reply says how the file went', async () => {
    await configure(api, { provider: 'ollama', baseUrl: ollama.root, model: 'llama3.2:3b' });
    const before = ollama.requests.length;
    const { notes } = await askAbout(4096);
    const chats = ollama.requests.slice(before).filter((r) => r.path === '/api/chat');
    assert.equal(chats.length, 1);
    assert.equal(chats[0].numCtx, 4096);
    assert.equal(chats[0].cut, undefined, `the server cut the prompt: ${JSON.stringify(chats[0].cut)}`);
    assert.ok(chats[0].usage && chats[0].usage.input <= 4096);
    assert.equal(notes.length, 1, notes.join('\n'));
    assert.match(
      notes[0],
      /ledgerEntries\.ts (was sent as its outline to fit the context window|is larger than this model's context window leaves room for: the model saw)/,
    );
  });
});
