/**
 * Local servers in the real editor: the model picker asks for a server's URL and lists that
 * server's models with their windows, and a chosen local model's meter shows the window the server
 * says (not Strata's table). The picker's quick pick and input box are answered in the user's place.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { StrataApi } from '../../src/extension';
import type { PickerUi } from '../../src/host/providers/modelPicker';
import { configure, PanelDriver, strataApi, until, withTimeout } from './support/panel';
import {
  startOllamaImitation,
  startVllmImitation,
  type OllamaImitationServer,
  type VllmImitationServer,
} from '../support/localImitationServers';

/** Answers each quick pick with `choose` (given the items shown) and each input box with the next of `inputs`. */
function scriptedUi(
  choose: ((items: readonly vscode.QuickPickItem[]) => vscode.QuickPickItem | undefined)[],
  inputs: string[],
): PickerUi & {
  shown: string[][];
} {
  const shown: string[][] = [];
  return {
    shown,
    pick: async (items) => {
      shown.push(items.map((i) => `${i.label}${i.description ? ` — ${i.description}` : ''}`));
      const next = choose.shift();
      return next ? (next(items) as never) : undefined;
    },
    input: async () => inputs.shift(),
  };
}

describe('local servers in the editor', function () {
  this.timeout(60_000);
  let api: StrataApi;
  let panel: PanelDriver;
  let vllm: VllmImitationServer;
  let ollama: OllamaImitationServer;
  let original: PickerUi;

  before(async () => {
    api = await strataApi();
    await vscode.commands.executeCommand('strata.chat.focus');
    await withTimeout(api.whenChatReady(), 30_000, 'the chat webview saying ready');
    panel = new PanelDriver(api);
    vllm = await startVllmImitation([
      { id: 'gpt-4o', maxModelLen: 8192 },
      { id: 'Qwen/Qwen2.5-Coder-7B-Instruct', maxModelLen: 32768 },
    ]);
    ollama = await startOllamaImitation({ ollamaModels: [{ name: 'qwen2.5-coder:7b', contextLength: 8192, arch: 'qwen2' }] });
    original = api.testing.picker.ui;
  });

  after(async () => {
    api.testing.picker.ui = original;
    panel?.dispose();
    await vllm?.close();
    await ollama?.close();
    await configure(api, { provider: undefined, baseUrl: undefined, model: undefined });
  });

  it('"OpenAI-compatible endpoint…" asks for the URL, lists that server\'s models with their windows, and the meter shows the server\'s window', async () => {
    const ui = scriptedUi(
      [(items) => items.find((i) => i.label.includes('OpenAI-compatible endpoint…')), (items) => items.find((i) => i.label === 'gpt-4o')],
      [`${vllm.origin}/v1`],
    );
    api.testing.picker.ui = ui;
    const chosen = await vscode.commands.executeCommand<{ provider: string; model: string; baseUrl: string }>('strata.selectModel');
    assert.deepEqual(ui.shown[1], [
      `Qwen/Qwen2.5-Coder-7B-Instruct — vLLM at ${vllm.origin.replace('http://', '')} · 32,768-token window`,
      `gpt-4o — vLLM at ${vllm.origin.replace('http://', '')} · 8,192-token window`,
    ]);
    assert.equal(chosen?.provider, 'vllm');
    const config = vscode.workspace.getConfiguration('strata');
    assert.deepEqual([config.get('provider'), config.get('model'), config.get('baseUrl')], ['vllm', 'gpt-4o', vllm.origin]);
    // Strata's table says 128,000 for gpt-4o; the server runs it with 8,192.
    await until('the meter at the server window', () => panel.last('meter')?.meter.contextWindow === 8192);
    assert.equal(api.testing.session.meter().contextWindow, 8192);
    // The current model is listed first and checked the next time.
    const again = scriptedUi([() => undefined], []);
    api.testing.picker.ui = again;
    await vscode.commands.executeCommand('strata.selectModel');
    assert.equal(again.shown[0][0], '$(check) gpt-4o — Local imitation of vLLM · gpt-4o');
    // OpenAI's own gpt-4o may be listed too; the vLLM server's is not listed a second time.
    assert.equal(again.shown[0].filter((l) => l.startsWith('gpt-4o —') && l.includes('vLLM at')).length, 0, 'listed once');
  });

  it("a chosen Ollama model's meter shows the window from /api/show, and the picker lists the server's models", async () => {
    await configure(api, { provider: 'ollama', baseUrl: ollama.root, model: 'qwen2.5-coder:7b' });
    assert.equal(api.testing.controller.currentModel()?.provider, 'ollama');
    await until('the meter at the Ollama window', () => panel.last('meter')?.meter.contextWindow === 8192);
    const ui = scriptedUi([() => undefined], []);
    api.testing.picker.ui = ui;
    await vscode.commands.executeCommand('strata.selectModel');
    assert.equal(ui.shown[0][0], '$(check) qwen2.5-coder:7b — Local imitation of Ollama · qwen2.5-coder:7b', ui.shown[0].join('\n'));
    assert.ok(ui.shown[0].some((l) => l.includes('Local server…')));
    assert.ok(ui.shown[0].some((l) => l.includes('Other model id…')));
  });
});
