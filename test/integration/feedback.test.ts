import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { StrataApi } from '../../src/extension';
import { ChatSession } from '../../src/services/chatSession';
import type { LedgerTreeNode } from '../../src/services/ledgerTree';
import { ScriptedProvider } from '../../src/services/providers/scripted';
import { modelInfo } from '../../src/services/modelInfo';
import { getTokenizer } from '../../src/services/tokenizer';
import { startOpenAIImitation, type OpenAIImitationServer, type ReplyContext, type ScriptedResponse } from '../support/imitationServers';
import { configure, folderUri, PanelDriver, selectLines, strataApi, until, withTimeout } from './support/panel';

/**
 * Feedback at once, in the real editor: the demo's turns show one predicted-cache figure and no ⚠;
 * a tree Remove is pending at once with its cost and Undo; Show Log keeps an error's Retry; Context
 * Layers lists the items of requests this window did not send; Export without attached files; the
 * editor's entry points (code actions, menu commands, Focus Chat Input).
 */

// eslint-disable-next-line @typescript-eslint/no-require-imports
const demo = require(path.resolve(__dirname, '..', '..', '..', 'scripts', 'lib', 'imitation.js')) as {
  describeRequest(c: ReplyContext): ScriptedResponse;
};

function kids(api: StrataApi, node?: LedgerTreeNode): LedgerTreeNode[] {
  return api.testing.tree.getChildren(node);
}

function deep(api: StrataApi, nodes: readonly LedgerTreeNode[]): LedgerTreeNode[] {
  return nodes.flatMap((n) => [n, ...deep(api, kids(api, n))]);
}

describe('Feedback at once (host)', function () {
  this.timeout(120_000);
  let api: StrataApi;
  let panel: PanelDriver;
  let server: OpenAIImitationServer;

  before(async () => {
    api = await strataApi();
    await vscode.commands.executeCommand('strata.chat.focus');
    await withTimeout(api.whenChatReady(), 30_000, 'the chat webview saying ready');
    panel = new PanelDriver(api);
    server = await startOpenAIImitation({ replyFor: demo.describeRequest, deltaChars: 40 });
    await configure(api, { provider: 'openai', baseUrl: server.url, model: 'gpt-4o', 'tools.enabled': true });
    // Long enough that the requests after the first are cache hits (a prefix of 1,024 tokens or more).
    const lines = Array.from({ length: 160 }, (_, i) => `- Note ${i + 1}: the invoice total is rounded to cents after tax ${i % 7}.`);
    fs.mkdirSync(path.join(folderUri('app').fsPath, 'notes'), { recursive: true });
    fs.writeFileSync(path.join(folderUri('app').fsPath, 'notes', 'long.md'), `# Notes\n\n${lines.join('\n')}\n`);
  });

  after(async () => {
    panel?.dispose();
    await server?.close();
    await configure(api, { provider: undefined, baseUrl: undefined, model: undefined, 'tools.enabled': undefined });
  });

  beforeEach(async () => {
    await api.testing.controller.newChat();
    panel.clear();
  });

  it("the demo's turns (a tool step included): the tree and Show Last Request show one figure, and no ⚠", async () => {
    await vscode.commands.executeCommand('strata.attachActiveFile', vscode.Uri.joinPath(folderUri('app'), 'notes', 'long.md'));
    for (const f of ['main.ts', 'math.ts'])
      await vscode.commands.executeCommand('strata.attachActiveFile', vscode.Uri.joinPath(folderUri('app'), 'src', f));
    await panel.sendAndWait('What do these files do?');
    await panel.sendAndWait('And what is in app/src/math.ts?');
    await panel.sendAndWait('Thanks.');
    assert.ok(server.chatRequests.length >= 4, 'the second turn read a file with a tool');
    const last = kids(api).find((n) => n.id === 'last')!;
    assert.ok(!/⚠/.test(`${last.label} ${last.description}`), last.description);
    const tree = /Cache: ([\d,]+) predicted cached \/ ([\d,]+) reported/.exec(last.tooltip ?? '');
    assert.ok(tree, last.tooltip);
    assert.equal(tree[1], tree[2], 'predicted = reported');
    const doc = (await vscode.commands.executeCommand('strata.showLastRequest')) as vscode.TextDocument;
    const shown = /^\/\/ Cached: ([\d,]+) predicted;/m.exec(doc.getText());
    assert.equal(shown?.[1], tree[1], 'Show Last Request shows the same figure');
    for (const turn of api.testing.session.turnMetas()) assert.ok(turn.usage && turn.usage.cacheRead >= 0, `turn ${turn.turn} has usage`);
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });

  it('a tree Remove is pending at once with what it costs, and Undo takes it back', async () => {
    await vscode.commands.executeCommand('strata.attachActiveFile', vscode.Uri.joinPath(folderUri('app'), 'notes', 'long.md'));
    await panel.sendAndWait('Read this.');
    await panel.sendAndWait('Once more.');
    const item = deep(api, kids(api)).find((n) => n.contextValue.startsWith('attachment') && n.label.endsWith('long.md'));
    assert.ok(item, 'the attachment is in the tree');
    panel.clear();
    assert.equal(await vscode.commands.executeCommand('strata.removeAttachment', item), true);
    const banner = panel.last('banners')?.banners.find((b) => b.actions.includes('undo'));
    assert.ok(banner, 'a banner with Undo');
    assert.match(
      banner.message,
      /long\.md: removed from next message\. Removing breaks the cache: next message ~[\d,]+ → ~[\d,]+ uncached tokens\./,
    );
    const next = kids(api).find((n) => n.label === 'Next message')!;
    const row = kids(api, next).find((n) => n.contextValue === 'pending');
    assert.ok(row && row.label.endsWith('long.md'), 'listed under Next message');
    assert.match(row.description ?? '', /removed from next message$/);
    assert.ok(deep(api, kids(api)).some((n) => n.contextValue.startsWith('pending.attachment') && n.icon === 'removed'));
    assert.equal(await vscode.commands.executeCommand('strata.undoPending', row), true);
    assert.ok(!deep(api, kids(api)).some((n) => n.contextValue.startsWith('pending')), 'Undo restores the rows');
    assert.ok(!(panel.last('banners')?.banners ?? []).some((b) => b.id === banner.id), 'and takes the banner away');
    assert.ok(!api.testing.session.chatItems().some((i) => i.pending), 'nothing is pending');
  });

  it('Show Log keeps the error banner and its Retry', async () => {
    const id = api.testing.controller.showBanner('error', 'The provider did not answer.', ['retry', 'showLog']);
    await panel.requestOk({ kind: 'bannerAction', bannerId: id, action: 'showLog' });
    assert.ok(panel.last('banners')!.banners.some((b) => b.id === id && b.actions.includes('retry')));
    await panel.requestOk({ kind: 'bannerAction', bannerId: id, action: 'dismiss' });
    assert.ok(!panel.last('banners')!.banners.some((b) => b.id === id));
  });

  it('Open Settings opens the setting the banner names and keeps the banner', async () => {
    const message = 'strata.budget.targetPercent (75) must be below strata.budget.warnPercent (70).';
    const id = api.testing.controller.showBanner('error', message, ['openSettings']);
    const shown = panel.last('banners')!.banners.find((b) => b.id === id);
    assert.deepEqual(shown, {
      id,
      severity: 'error',
      message,
      actions: ['openSettings', 'dismiss'],
      setting: 'strata.budget.targetPercent',
    });
    await panel.requestOk({ kind: 'bannerAction', bannerId: id, action: 'openSettings' });
    await until('the Settings editor', () => vscode.window.tabGroups.activeTabGroup.activeTab?.label === 'Settings', 10_000);
    assert.ok(
      panel.last('banners')!.banners.some((b) => b.id === id),
      'the banner stays',
    );
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
    await panel.requestOk({ kind: 'bannerAction', bannerId: id, action: 'dismiss' });
    assert.ok(!panel.last('banners')!.banners.some((b) => b.id === id));
  });

  it('Context Layers lists the items of requests this window did not send (rebuilt from the chat)', async () => {
    const other = ChatSession.open({
      storeRoot: api.testing.session.store.root,
      port: api.testing.workspace,
      tokenizer: getTokenizer,
      settings: () => ({ layout: 'transcript', policy: 'append-version' }),
      newChatId: () => `reloaded-${Date.now()}`,
    });
    const gpt = modelInfo('openai', 'gpt-4o');
    // A chat of its own: opened on the shared store, the session resumes the chat this window last used.
    other.newChat();
    const provider = new ScriptedProvider(() => 'noted');
    await other.attach({ kind: 'file', path: 'app/src/math.ts' });
    assert.equal((await other.send('first', provider, gpt)).status, 'done');
    await other.attach({ kind: 'selection', path: 'app/src/main.ts', startLine: 3, endLine: 5 });
    assert.equal((await other.send('second', provider, gpt)).status, 'done');
    // This window learns of the other window's chat through the store's folder watcher.
    await until('the chat listed in this window', () => api.testing.session.chats().some((c) => c.id === other.activeChatId), 20_000);
    await api.testing.controller.switchChat(other.activeChatId);
    assert.equal(api.testing.session.activeChatId, other.activeChatId);
    const turns = api.testing.session.turnMetas().length;
    assert.ok(turns >= 2, `this window reads the saved turns (${turns})`);
    await until('the tree shows the chat', () =>
      kids(api).some((n) => n.id === 'last' && n.accessibility.startsWith(`Last request · turn ${turns}:`)),
    ).catch((e: Error) => {
      throw new Error(
        `${e.message}; the tree's rows: ${kids(api)
          .map((n) => `${n.id}: ${n.label}`)
          .join(' | ')}`,
      );
    });
    const labels = deep(
      api,
      kids(
        api,
        kids(api).find((n) => n.id === 'last'),
      ),
    ).map((n) => n.name ?? n.label);
    assert.ok(labels.includes('app/src/math.ts'), labels.join(' | '));
    assert.ok(labels.includes('app/src/main.ts:L3-5'), labels.join(' | '));
    const requests = kids(api).find((n) => n.id === 'requests')!;
    const first = kids(api, requests).find((n) => n.label === 'Turn 1')!;
    const firstRows = deep(api, kids(api, first));
    assert.ok(
      firstRows.some((n) => n.name === 'app/src/math.ts'),
      `an earlier request too (turns ${api.testing.session
        .turnMetas()
        .map((m) => m.turn)
        .join(',')}; Turn 1 shows: ${firstRows.map((n) => n.name ?? n.label).join(' | ')})`,
    );
  });

  it('Export without attached files writes none of them, and the import continues the chat', async () => {
    await vscode.commands.executeCommand('strata.attachActiveFile', vscode.Uri.joinPath(folderUri('app'), 'notes', 'long.md'));
    await panel.sendAndWait('Keep this private.');
    const target = vscode.Uri.joinPath(folderUri('app'), 'export-bare.md');
    // A command run with a file still asks (commandConsent.ts): the suite says yes, and counts the questions.
    const consented: string[] = [];
    api.testing.consent.ask = async (q) => (consented.push(`${q.action} ${q.target}`), true);
    await vscode.commands.executeCommand('strata.exportChat', target, { withoutAttachments: true });
    const text = new TextDecoder().decode(await vscode.workspace.fs.readFile(target));
    const payload = Buffer.from(/<!-- strata-chat: ([A-Za-z0-9+/=]+) -->/.exec(text)![1], 'base64').toString('utf8');
    // (The demo's reply quotes the start of the message: a line further down is checked.)
    assert.ok(payload.includes('long.md') && !payload.includes('Note 150:'), 'the file content is not in the export');
    assert.match(text, /Exported without attached files/);
    const imported = (await vscode.commands.executeCommand('strata.importChat', target)) as { turns: number; warnings: string[] };
    assert.equal(imported.turns, 1);
    assert.match(imported.warnings.join(' '), /exported without its attached files/);
    await vscode.workspace.fs.delete(target);
  });

  it('entry points: Ask Strata on a problem and a selection, the Explorer item, Focus Chat Input', async () => {
    const uri = vscode.Uri.joinPath(folderUri('app'), 'src', 'math.ts');
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(doc);
    const problems = vscode.languages.createDiagnosticCollection('strata-test');
    try {
      const range = new vscode.Range(1, 2, 1, 14);
      const d = new vscode.Diagnostic(range, "Type 'string' is not assignable to type 'number'.", vscode.DiagnosticSeverity.Error);
      d.source = 'ts';
      d.code = 2322;
      problems.set(uri, [d]);
      const actions = (await vscode.commands.executeCommand('vscode.executeCodeActionProvider', uri, range)) as vscode.CodeAction[];
      const fix = actions.find((a) => a.title.startsWith('Ask Strata:'));
      assert.ok(fix, actions.map((a) => a.title).join(' | '));
      assert.equal(fix.kind?.value, vscode.CodeActionKind.QuickFix.value);
      panel.clear();
      await vscode.commands.executeCommand(fix.command!.command, ...(fix.command!.arguments ?? []));
      assert.deepEqual(
        api.testing.session.chips().map((c) => c.label),
        ['app/src/math.ts:L2-2'],
      );
      const draft = panel.last('setInput');
      assert.ok(draft, 'a question is drafted in the input');
      assert.match(
        draft.text,
        /^Why does app\/src\/math\.ts:L2-2 report this problem, and how do I fix it\?\n\n> error ts 2322 \(line 2\): Type 'string'/,
      );
      assert.equal(api.testing.session.engine.state.completedTurns, 0, 'nothing was sent');

      const selection = (await vscode.commands.executeCommand(
        'vscode.executeCodeActionProvider',
        uri,
        new vscode.Range(4, 0, 6, 1),
        vscode.CodeActionKind.Refactor.value,
      )) as vscode.CodeAction[];
      assert.ok(selection.some((a) => a.title === 'Ask Strata about the selection'));
    } finally {
      problems.dispose();
    }

    // The Explorer's item: the right-clicked file; a folder is refused.
    const added = (await vscode.commands.executeCommand(
      'strata.attachFileToStrata',
      vscode.Uri.joinPath(folderUri('lib'), 'index.ts'),
    )) as {
      label: string;
    }[];
    assert.deepEqual(
      added.map((c) => c.label),
      ['lib/index.ts'],
    );
    const none = (await vscode.commands.executeCommand(
      'strata.attachFileToStrata',
      vscode.Uri.joinPath(folderUri('app'), 'src'),
    )) as unknown[];
    assert.deepEqual(none, []);

    // The editor menu's item attaches the selection like the palette's Attach Selection.
    await selectLines(['src', 'main.ts'], 3, 4);
    const sel = (await vscode.commands.executeCommand('strata.addSelectionToStrata')) as { label: string }[];
    assert.deepEqual(
      sel.map((c) => c.label),
      ['app/src/main.ts:L3-4'],
    );

    panel.clear();
    await vscode.commands.executeCommand('strata.focusInput');
    assert.equal(panel.of('focusInput').length, 1);
  });
});
