import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { StrataApi } from '../../src/extension';
import { COMMAND_IDS, VIEW_IDS } from '../../src/host/commands/commandIds';
import { SETTING_DEFAULTS, SETTING_KEYS } from '../../src/host/settings/configKeys';

const EXTENSION_ID = 'strata-dev.strata';

interface ContributedCommand {
  command: string;
}

function strata(): vscode.Extension<StrataApi> {
  const extension = vscode.extensions.getExtension<StrataApi>(EXTENSION_ID);
  assert.ok(extension, `${EXTENSION_ID} is not installed in this extension host`);
  return extension;
}

async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

describe('Strata extension', () => {
  let api: StrataApi;

  before(async () => {
    api = await strata().activate();
  });

  it('activates', () => {
    assert.equal(strata().isActive, true);
    assert.equal(typeof api.whenChatReady, 'function');
  });

  it('registers every command declared in package.json', async () => {
    const declared = (strata().packageJSON.contributes.commands as ContributedCommand[]).map((c) => c.command);
    assert.deepEqual([...declared].sort(), [...COMMAND_IDS].sort());
    const registered = new Set(await vscode.commands.getCommands(true));
    const missing = declared.filter((id) => !registered.has(id));
    assert.deepEqual(missing, [], `declared but not registered: ${missing.join(', ')}`);
  });

  it('contributes the Strata container with the chat and Context Layers views', async () => {
    const registered = new Set(await vscode.commands.getCommands(true));
    for (const id of [`workbench.view.extension.${VIEW_IDS.container}`, `${VIEW_IDS.chat}.focus`, `${VIEW_IDS.layers}.focus`]) {
      assert.ok(registered.has(id), `${id} is not a command, so its view does not exist`);
    }
    await vscode.commands.executeCommand(`${VIEW_IDS.layers}.focus`);
  });

  it('loads the chat webview bundle, which says ready', async () => {
    await vscode.commands.executeCommand(`${VIEW_IDS.chat}.focus`);
    await withTimeout(api.whenChatReady(), 30_000, 'the chat webview saying ready');
  });

  it('activates without loading LangChain or the tokenizer (target 50 ms, printed; fails at 500)', () => {
    // A wall-clock figure: on a quiet machine 15-40 ms, beside two busy processes about 220 ms. The
    // target is printed; the test fails only at ten times it, where activation did something heavy.
    const ms = api.testing.activationMs;
    console.log(`    activate(): ${ms.toFixed(1)} ms (target 50 ms${ms > 50 ? ', over' : ''})`);
    assert.ok(ms <= 500, `activate() took ${ms.toFixed(1)} ms`);
  });

  it('binds Attach Selection to a key that no default VS Code binding uses (on this platform)', async () => {
    await vscode.commands.executeCommand('workbench.action.openDefaultKeybindingsFile');
    const doc = vscode.window.activeTextEditor?.document;
    assert.ok(doc && doc.getText().length > 10_000, 'the default keybindings document opened');
    const ours = (strata().packageJSON.contributes.keybindings as { command: string; key: string; mac?: string }[]).find(
      (k) => k.command === 'strata.attachSelection',
    );
    assert.ok(ours);
    const key = process.platform === 'darwin' ? (ours.mac ?? ours.key) : ours.key;
    const clashes = [...doc.getText().matchAll(/"key":\s*"([^"]+)",\s*"command":\s*"([^"]+)"/g)]
      .filter((m) => m[1] === key && !m[2].startsWith('strata.'))
      .map((m) => m[2]);
    assert.deepEqual(clashes, [], `${key} is already bound to ${clashes.join(', ')}`);
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });

  it('binds Stop the Reply to a key that no default VS Code binding uses (on this platform)', async () => {
    await vscode.commands.executeCommand('workbench.action.openDefaultKeybindingsFile');
    const doc = vscode.window.activeTextEditor?.document;
    assert.ok(doc && doc.getText().length > 10_000, 'the default keybindings document opened');
    const ours = (strata().packageJSON.contributes.keybindings as { command: string; key: string; mac?: string }[]).find(
      (k) => k.command === 'strata.stopReply',
    );
    assert.ok(ours);
    const key = process.platform === 'darwin' ? (ours.mac ?? ours.key) : ours.key;
    const clashes = [...doc.getText().matchAll(/"key":\s*"([^"]+)",\s*"command":\s*"([^"]+)"/g)]
      .filter((m) => m[1] === key && !m[2].startsWith('strata.'))
      .map((m) => m[2]);
    assert.deepEqual(clashes, [], `${key} is already bound to ${clashes.join(', ')}`);
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });

  it('a settings change while the provider is being resolved is not lost to the older resolve', async () => {
    const config = vscode.workspace.getConfiguration('strata');
    const resolver = api.testing.resolver;
    const original = resolver.resolve;
    let armed = false;
    let started = false;
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    // The armed resolve reads the settings at once and then takes long (a busy machine, a slow key store).
    resolver.resolve = async function (this: typeof resolver) {
      const hold = armed;
      armed = false;
      if (hold) started = true;
      const r = await original.call(this);
      if (hold) await held;
      return r;
    };
    try {
      await config.update('provider', 'openai', vscode.ConfigurationTarget.Global);
      await config.update('model', 'gpt-4o', vscode.ConfigurationTarget.Global);
      await api.testing.controller.refreshProvider();
      armed = true;
      const first = api.testing.controller.refreshProvider();
      await withTimeout(
        (async () => {
          while (!started) await new Promise((r) => setTimeout(r, 10));
        })(),
        10_000,
        'the first resolve to start',
      );
      await config.update('model', 'gpt-4.1', vscode.ConfigurationTarget.Global);
      const second = api.testing.controller.refreshProvider();
      release();
      await withTimeout(Promise.all([first, second]), 20_000, 'both refreshes to end');
      assert.equal((await api.testing.controller.provider()).view.model, 'gpt-4.1');
    } finally {
      release();
      resolver.resolve = original;
      await config.update('provider', undefined, vscode.ConfigurationTarget.Global);
      await config.update('model', undefined, vscode.ConfigurationTarget.Global);
      await api.testing.controller.refreshProvider();
    }
  });

  it('declares every setting with the defaults the code assumes', () => {
    const configuration = vscode.workspace.getConfiguration('strata');
    for (const key of SETTING_KEYS) {
      const inspected = configuration.inspect(key);
      assert.ok(inspected, `strata.${key} is not declared`);
      assert.deepEqual(inspected.defaultValue, SETTING_DEFAULTS[key], `default of strata.${key}`);
    }
  });
});
