import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import type { StrataApi } from '../../src/extension';
import { ChatSession } from '../../src/services/chatSession';
import { modelInfo } from '../../src/services/modelInfo';
import { ScriptedProvider } from '../../src/services/providers/scripted';
import { getTokenizer } from '../../src/services/tokenizer';
import { folderUri, PanelDriver, strataApi, until, withTimeout } from './support/panel';

/**
 * Apply and citation links on the real extension host (multi-root fixture: folders `app` and
 * `lib`): the panel's applyCode request proposes a diff, "Strata: Accept Change" writes it through
 * one WorkspaceEdit that undo reverts, refused targets say why, and a citation opens its lines.
 */

const ORIGINAL = [
  'export function greet(name: string): string {',
  '  return `Hello, ${name}`;',
  '}',
  '',
  'export function shout(text: string): string {',
  '  return text.toUpperCase();',
  '}',
  '',
].join('\n');
const BLOCK = 'export function greet(name: string): string {\n  return `Hello, ${name}!`;\n}';
const PROPOSED = ORIGINAL.replace('${name}`', '${name}!`');

function proposalTabs(): vscode.Tab[] {
  return vscode.window.tabGroups.all
    .flatMap((g) => g.tabs)
    .filter((t) => t.input instanceof vscode.TabInputTextDiff && t.input.modified.scheme === 'strata-proposal');
}

describe('Apply and citations in the real editor', function () {
  this.timeout(60_000);
  let api: StrataApi;
  let panel: PanelDriver;
  let file: vscode.Uri;
  /** Files a test made, removed at the end. */
  const cleanup: string[] = [];

  before(async () => {
    api = await strataApi();
    await vscode.commands.executeCommand('strata.chat.focus');
    await withTimeout(api.whenChatReady(), 30_000, 'the chat webview saying ready');
    panel = new PanelDriver(api);
    file = vscode.Uri.joinPath(folderUri('app'), 'src', 'greet.ts');
  });

  beforeEach(() => fs.writeFileSync(file.fsPath, ORIGINAL));

  afterEach(async () => {
    await api.testing.changes.reject();
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  after(async () => {
    panel?.dispose();
    fs.rmSync(file.fsPath, { force: true });
    for (const f of cleanup) fs.rmSync(f, { force: true });
  });

  it('proposes a diff, applies it with Accept as one WorkspaceEdit, and undo restores the file', async () => {
    await panel.requestOk({ kind: 'applyCode', code: BLOCK, info: 'ts', lineAbove: 'In `app/src/greet.ts`:' });
    const pending = api.testing.changes.pending();
    assert.equal(pending.length, 1);
    assert.equal(pending[0].path, 'app/src/greet.ts');
    assert.equal(pending[0].content, PROPOSED);
    await until('the diff is open', () => proposalTabs().length === 1);
    const diff = proposalTabs()[0].input as vscode.TabInputTextDiff;
    assert.equal(diff.original.toString(), file.toString());
    assert.equal(fs.readFileSync(file.fsPath, 'utf8'), ORIGINAL, 'nothing is written before Accept');

    const edits: vscode.TextDocumentChangeEvent[] = [];
    const sub = vscode.workspace.onDidChangeTextDocument((e) => {
      if (e.document.uri.toString() === file.toString() && e.contentChanges.length > 0) edits.push(e);
    });
    try {
      assert.equal(await vscode.commands.executeCommand('strata.acceptChange'), true);
    } finally {
      sub.dispose();
    }
    assert.equal(edits.length, 1, 'one edit');
    assert.equal(fs.readFileSync(file.fsPath, 'utf8'), PROPOSED, 'saved to disk');
    assert.equal(proposalTabs().length, 0, 'the diff closed');
    assert.deepEqual(api.testing.changes.pending(), []);

    const doc = await vscode.workspace.openTextDocument(file);
    await vscode.window.showTextDocument(doc);
    await vscode.commands.executeCommand('undo');
    await until('undo restores the file', () => doc.getText() === ORIGINAL);
  });

  it('Reject closes the diff and leaves the file untouched', async () => {
    await panel.requestOk({ kind: 'applyCode', code: BLOCK, info: 'ts app/src/greet.ts', lineAbove: '' });
    await until('the diff is open', () => proposalTabs().length === 1);
    assert.equal(await vscode.commands.executeCommand('strata.rejectChange'), true);
    assert.equal(proposalTabs().length, 0);
    assert.equal(fs.readFileSync(file.fsPath, 'utf8'), ORIGINAL);
  });

  it('accepts one change of two from the diff, then the rest; the chat is told Applied, and Undo restores the file', async () => {
    // A block that changes both functions: two separate changes in the diff.
    const block = [
      'export function greet(name: string): string {',
      '  return `Hello, ${name}!`;',
      '}',
      '',
      'export function shout(text: string): string {',
      '  return text.toUpperCase() + "!";',
      '}',
    ].join('\n');
    const firstOnly = ORIGINAL.replace('${name}`', '${name}!`');
    const both = firstOnly.replace('text.toUpperCase();', 'text.toUpperCase() + "!";');
    const blockId = 'itest-chat/1:assistant/0';
    // A file the editor has not read yet: a file it holds may lag behind a write made from outside.
    const fresh = vscode.Uri.joinPath(folderUri('app'), 'src', 'hunksOne.ts');
    fs.writeFileSync(fresh.fsPath, ORIGINAL);
    cleanup.push(fresh.fsPath);
    panel.clear();
    await panel.requestOk({ kind: 'applyCode', code: block, info: 'ts app/src/hunksOne.ts', lineAbove: '', blockId });
    await until('the diff is open', () => proposalTabs().length === 1);
    assert.equal(api.testing.changes.pending()[0].content, both);

    // Ctrl+Enter's command with the cursor at the top of the proposal: the first change.
    assert.equal(await vscode.commands.executeCommand('strata.acceptHunk'), true);
    await until('the file holds the first change only', () => fs.readFileSync(fresh.fsPath, 'utf8') === firstOnly);
    assert.equal(proposalTabs().length, 1, 'the diff stays open with the other change');
    assert.equal(api.testing.changes.pending()[0].content, both, 'the other change is still proposed');
    assert.deepEqual(panel.of('applyState'), [], 'nothing is decided yet');

    assert.equal(await vscode.commands.executeCommand('strata.acceptChange'), true);
    await until('the file to hold both', () => fs.readFileSync(fresh.fsPath, 'utf8') === both);
    assert.equal(proposalTabs().length, 0, 'the diff closed');
    assert.deepEqual(panel.of('applyState'), [{ type: 'applyState', blockId, state: 'applied', accepted: 2, total: 2 }]);

    await panel.requestOk({ kind: 'undoApply', blockId });
    await until('Undo puts the file back as it was', () => fs.readFileSync(fresh.fsPath, 'utf8') === ORIGINAL);
    assert.deepEqual(panel.last('applyState'), { type: 'applyState', blockId, state: 'undone', accepted: 0, total: 0 });
    const again = await panel.request({ kind: 'undoApply', blockId });
    assert.equal(again.ok, false, 'there is nothing left to undo');
  });

  it('rejects one change and accepts the other: the chat says 1 of 2; all rejected says Rejected', async () => {
    const block = [
      'export function greet(name: string): string {',
      '  return `Hi, ${name}`;',
      '}',
      '',
      'export function shout(text: string): string {',
      '  return text.toLocaleUpperCase();',
      '}',
    ].join('\n');
    const blockId = 'itest-chat/3:assistant/1';
    const fresh = vscode.Uri.joinPath(folderUri('app'), 'src', 'hunksTwo.ts');
    fs.writeFileSync(fresh.fsPath, ORIGINAL);
    cleanup.push(fresh.fsPath);
    const secondOnly = ORIGINAL.replace('toUpperCase', 'toLocaleUpperCase');
    panel.clear();
    await panel.requestOk({ kind: 'applyCode', code: block, info: 'ts app/src/hunksTwo.ts', lineAbove: '', blockId });
    await until('the diff is open', () => proposalTabs().length === 1);
    assert.equal(await vscode.commands.executeCommand('strata.rejectHunk'), true);
    assert.equal(api.testing.changes.pending()[0].content, secondOnly, 'the proposal drops the rejected change');
    assert.equal(fs.readFileSync(fresh.fsPath, 'utf8'), ORIGINAL, 'Reject writes nothing');
    assert.equal(await vscode.commands.executeCommand('strata.acceptHunk'), true);
    await until('the file to hold secondOnly', () => fs.readFileSync(fresh.fsPath, 'utf8') === secondOnly);
    assert.equal(proposalTabs().length, 0, 'no change left: the diff closed');
    assert.deepEqual(panel.of('applyState'), [{ type: 'applyState', blockId, state: 'applied', accepted: 1, total: 2 }]);

    // The same block again: only the change not made yet is proposed; Reject says Rejected.
    panel.clear();
    await panel.requestOk({ kind: 'applyCode', code: block, info: 'ts app/src/hunksTwo.ts', lineAbove: '', blockId });
    await until('the diff is open', () => proposalTabs().length === 1);
    assert.equal(await vscode.commands.executeCommand('strata.rejectChange'), true);
    assert.deepEqual(panel.of('applyState'), [{ type: 'applyState', blockId, state: 'rejected', accepted: 0, total: 1 }]);
    assert.equal(fs.readFileSync(fresh.fsPath, 'utf8'), secondOnly, 'Reject writes nothing');
  });

  it('the state of an accepted block is saved with the chat: opened again it shows Applied, with Undo only in this window', async () => {
    const target = vscode.Uri.joinPath(folderUri('app'), 'src', 'savedState.ts');
    fs.writeFileSync(target.fsPath, ORIGINAL);
    cleanup.push(target.fsPath);
    const reply = `Make greet excited:\n\n\`\`\`ts app/src/savedState.ts\n${BLOCK}\n\`\`\`\n`;
    // A chat saved to this workspace's store (as another window would), then opened in the panel.
    const open = (chatId?: string) =>
      ChatSession.open(
        {
          storeRoot: api.testing.session.store.root,
          port: api.testing.workspace,
          tokenizer: getTokenizer,
          settings: () => ({ layout: 'transcript', policy: 'append-version' }),
        },
        chatId,
      );
    const writer = open();
    writer.newChat();
    writer.setModel(modelInfo('scripted', 'gpt-4o'));
    assert.equal((await writer.send('Make greet excited', new ScriptedProvider(() => reply))).status, 'done');
    const chatId = writer.activeChatId;
    const blockId = `${chatId}/1:assistant/0`;
    const shown = async () => {
      panel.clear();
      await api.testing.controller.newChat();
      await panel.requestOk({ kind: 'switchChat', chatId });
      await until('the panel state', () => panel.of('state').some((m) => m.state.chatId === chatId));
      return panel
        .of('state')
        .find((m) => m.state.chatId === chatId)!
        .state.messages.find((m) => m.role === 'assistant')!;
    };
    assert.equal((await shown()).applied, undefined, 'nothing decided yet');

    await panel.requestOk({ kind: 'applyCode', code: BLOCK, info: 'ts app/src/savedState.ts', lineAbove: 'Make greet excited:', blockId });
    await until('the diff is open', () => proposalTabs().length === 1);
    assert.equal(await vscode.commands.executeCommand('strata.acceptChange'), true);
    await until('the file to be written', () => fs.readFileSync(target.fsPath, 'utf8') === PROPOSED);
    assert.deepEqual(panel.of('applyState'), [{ type: 'applyState', blockId, state: 'applied', accepted: 1, total: 1 }]);
    assert.deepEqual(api.testing.session.store.loadChat(chatId).turns[0].applied, [
      { block: 0, state: 'applied', accepted: 1, total: 1, path: 'app/src/savedState.ts' },
    ]);

    // Another chat and back: the message carries the state, and this window can still undo it.
    assert.deepEqual((await shown()).applied, [{ block: 0, state: 'applied', accepted: 1, total: 1, undo: true }]);
    // A reloaded window reads the same state from the store, but holds no Undo record: no Undo.
    assert.deepEqual(open(chatId).messages().messages[1].applied, [{ block: 0, state: 'applied', accepted: 1, total: 1, undo: false }]);

    await panel.requestOk({ kind: 'undoApply', blockId });
    await until('Undo puts the file back', () => fs.readFileSync(target.fsPath, 'utf8') === ORIGINAL);
    assert.deepEqual((await shown()).applied, [{ block: 0, state: 'undone', accepted: 0, total: 0 }]);
    assert.deepEqual(open(chatId).messages().messages[1].applied, [{ block: 0, state: 'undone', accepted: 0, total: 0 }]);
  });

  it('refuses excluded and outside targets with the reason, writing nothing', async () => {
    const env = await panel.request({ kind: 'applyCode', code: 'FAKE_TOKEN=x', info: 'sh app/.env', lineAbove: '' });
    assert.equal(env.ok, false);
    assert.match(env.error ?? '', /app\/\.env.*exclude/);
    const outside = await panel.request({ kind: 'applyCode', code: 'x', info: 'text ../outside/secret.txt', lineAbove: '' });
    assert.equal(outside.ok, false);
    assert.match(outside.error ?? '', /outside/);
    const link = await panel.request({ kind: 'applyCode', code: 'x', info: 'text app/link-env.txt', lineAbove: '' });
    assert.equal(link.ok, false, 'a symlink to an excluded file is refused on its real path');
    assert.deepEqual(api.testing.changes.pending(), []);
    assert.equal(proposalTabs().length, 0);
    assert.equal(fs.readFileSync(vscode.Uri.joinPath(folderUri('app'), '.env').fsPath, 'utf8'), 'FAKE_TOKEN=not-a-real-secret\n');
  });

  it('validates citation paths and opens a citation at its lines', async () => {
    const allowed = await panel.requestOk({
      kind: 'resolveCitations',
      paths: ['app/src/greet.ts', 'app/.env', 'app/link-env.txt', 'app/src/missing.ts', '../outside/secret.txt', 'app/src'],
    });
    assert.deepEqual(allowed, ['app/src/greet.ts']);
    await panel.requestOk({ kind: 'openCitation', path: 'app/src/greet.ts', startLine: 5, endLine: 6 });
    // The editor reports its selection to the extension host a moment after it is shown (on a busy
    // machine after the request has answered): the selection is waited for, then compared whole.
    const selected = () => {
      const e = vscode.window.activeTextEditor;
      return e ? [e.selection.start.line, e.selection.start.character, e.selection.end.line, e.selection.end.character] : [];
    };
    const expected = [4, 0, 5, '  return text.toUpperCase();'.length];
    await until('the cited lines selected', () => selected().join() === expected.join(), 10_000).catch(() => undefined);
    const editor = vscode.window.activeTextEditor;
    assert.ok(editor);
    assert.equal(editor.document.uri.toString(), file.toString());
    assert.deepEqual(selected(), expected);
    const refused = await panel.request({ kind: 'openCitation', path: 'app/.env', startLine: 1, endLine: 1 });
    assert.equal(refused.ok, false);
    assert.match(refused.error ?? '', /exclude/);
  });
});
