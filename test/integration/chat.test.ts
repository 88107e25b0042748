import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { StrataApi } from '../../src/extension';
import { ChatSession } from '../../src/services/chatSession';
import { getTokenizer } from '../../src/services/tokenizer';
import type { ChatMessage } from '../../src/engine/types';
import {
  startAnthropicImitation,
  startOpenAIImitation,
  type AnthropicImitationServer,
  type OpenAIImitationServer,
} from '../support/imitationServers';
import { configure, folderUri, PanelDriver, selectLines, strataApi, until, withTimeout } from './support/panel';

/**
 * The chat panel's host side in the real extension host: commands, attaching from real editors,
 * isolation refusals, full turns against the OpenAI and Anthropic imitation servers (real HTTP,
 * real LangChain clients), Stop, the no-provider preview, errors, reload, forged messages.
 */

const MATH_TS =
  'export function add(a: number, b: number): number {\n  return a + b;\n}\n\nexport function mul(a: number, b: number): number {\n  return a * b;\n}\n';
const MATH_L1_3 = 'export function add(a: number, b: number): number {\n  return a + b;\n}';

function requestText(messages: readonly ChatMessage[] | undefined): string {
  return (messages ?? []).map((m) => m.content.map((b) => b.text).join('')).join('\n');
}

function occurrences(haystack: string, needle: string): number {
  let n = 0;
  for (let i = haystack.indexOf(needle); i >= 0; i = haystack.indexOf(needle, i + 1)) n++;
  return n;
}

describe('Chat panel (host) in the real editor', function () {
  this.timeout(120_000);
  let api: StrataApi;
  let panel: PanelDriver;
  let openai: OpenAIImitationServer;
  let anthropic: AnthropicImitationServer;

  before(async () => {
    api = await strataApi();
    await vscode.commands.executeCommand('strata.chat.focus');
    await withTimeout(api.whenChatReady(), 30_000, 'the chat webview saying ready');
    panel = new PanelDriver(api);
    openai = await startOpenAIImitation({ defaultReply: 'The function adds two numbers.\n\n```ts\nadd(1, 2);\n```\n', deltaChars: 5 });
    anthropic = await startAnthropicImitation({ defaultReply: 'Anthropic says: it multiplies.', deltaChars: 5 });
    await configure(api, { provider: 'openai', baseUrl: `${openai.url}`, model: 'gpt-4o' });
  });

  after(async () => {
    panel?.dispose();
    await openai?.close();
    await anthropic?.close();
    await configure(api, { provider: undefined, baseUrl: undefined, model: undefined });
  });

  beforeEach(async () => {
    await api.testing.controller.newChat();
    panel.clear();
  });

  afterEach(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('attaches a selection from a real editor (command) and the file, and a full OpenAI turn sends each verbatim, once', async () => {
    await selectLines(['src', 'math.ts'], 1, 3);
    await vscode.commands.executeCommand('strata.attachSelection');
    await vscode.commands.executeCommand('strata.attachActiveFile');
    const chips = api.testing.session.chips();
    assert.deepEqual(
      chips.map((c) => c.label),
      ['app/src/math.ts:L1-3', 'app/src/math.ts'],
    );
    assert.ok(panel.of('chips').length >= 2, 'the panel got the chips');

    const before = openai.chatRequests.length;
    const { started, chunks, ended } = await panel.sendAndWait('What does add do?');
    assert.equal(openai.chatRequests.length, before + 1, 'exactly one request went out');
    const sent = openai.chatRequests[openai.chatRequests.length - 1];
    const text = requestText(sent.messages);
    assert.equal(occurrences(text, MATH_L1_3), 2, 'the selection once as its own block, once inside the file block');
    assert.equal(occurrences(text, MATH_TS), 1, 'the file block once');
    const user = sent.messages![sent.messages!.length - 1];
    assert.equal(user.role, 'user');
    assert.ok(
      user.content.some((b) => b.text.includes(MATH_L1_3)),
      "the selection is in this turn's user message",
    );
    assert.ok(user.content[user.content.length - 1].text.includes('What does add do?'));
    assert.deepEqual(
      (sent.body as { prompt_cache_key?: string }).prompt_cache_key,
      api.testing.session.activeChatId,
      'a stable prompt_cache_key per chat',
    );

    // Streaming: chunks in order, then the final message equal to what the server sent.
    assert.deepEqual(started.user.attachments, ['app/src/math.ts:L1-3', 'app/src/math.ts']);
    assert.deepEqual(
      chunks.map((c) => c.seq),
      chunks.map((_, i) => i),
    );
    assert.equal(chunks.map((c) => c.text).join(''), sent.reply);
    assert.equal(ended.kept, true);
    assert.equal(ended.assistant.status, 'complete');
    assert.equal(ended.assistant.text, sent.reply);
    const bar = ended.assistant.bar;
    assert.ok(bar, 'the reply carries its layer bar');
    assert.equal(
      bar.total,
      Object.values(bar.layers).reduce((a, b) => a + b, 0),
      'the bar is the sum of its layers',
    );
    assert.equal(bar.total, openai.chatRequests[openai.chatRequests.length - 1].usage?.input, "the server's prompt tokens");
    assert.deepEqual(api.testing.session.chips(), [], 'chips are cleared once the turn is kept');
    const store = api.testing.session.store.loadChat(api.testing.session.activeChatId);
    assert.equal(store.state.completedTurns, 1, 'the turn was persisted');

    // Turn 2: the same file again is a reference, not a second copy.
    await vscode.commands.executeCommand('strata.attachActiveFile', vscode.Uri.joinPath(folderUri('app'), 'src', 'math.ts'));
    await panel.sendAndWait('And mul?');
    const second = requestText(openai.chatRequests[openai.chatRequests.length - 1].messages);
    assert.equal(occurrences(second, MATH_TS), 1, 'still one copy of the file in turn 2');
    assert.ok(second.startsWith(text.slice(0, text.lastIndexOf('What does add do?'))), 'turn 2 is a pure append of turn 1');
  });

  it('runs a full turn against the Anthropic imitation server with cache breakpoints and reported usage', async () => {
    await configure(api, { provider: 'anthropic', baseUrl: anthropic.origin, model: 'claude-sonnet-4-5' });
    try {
      assert.match(api.testing.controller.currentModel()?.label ?? '', /imitation/i, 'the panel says it is the local imitation');
      await selectLines(['src', 'math.ts'], 5, 7);
      await vscode.commands.executeCommand('strata.attachSelection');
      const { ended } = await panel.sendAndWait('What does mul do?');
      assert.equal(ended.kept, true);
      const sent = anthropic.chatRequests[anthropic.chatRequests.length - 1];
      const body = JSON.stringify(sent.body);
      assert.match(body, /"cache_control"/, 'Anthropic gets cache_control at the breakpoints');
      assert.ok(requestText(sent.messages).includes('export function mul(a: number, b: number): number {\n  return a * b;\n}'));
      assert.deepEqual(ended.assistant.usage, sent.usage, 'the usage the provider reported is shown as it was reported');
    } finally {
      await configure(api, { provider: 'openai', baseUrl: openai.url, model: 'gpt-4o' });
    }
  });

  it('Stop keeps exactly what streamed, marked stopped, and persists it', async () => {
    const slow = await startOpenAIImitation({ defaultReply: 'word '.repeat(400), deltaChars: 5, chunkDelayMs: 15 });
    try {
      await configure(api, { baseUrl: slow.url });
      const from = panel.posted.length;
      await panel.requestOk({ kind: 'send', text: 'Talk a lot' });
      await until('a few chunks', () => panel.posted.slice(from).filter((m) => m.type === 'chunk').length >= 5);
      await panel.requestOk({ kind: 'stop' });
      await withTimeout(api.testing.controller.whenTurnDone(), 5000, 'the stopped turn to end');
      const mine = panel.posted.slice(from);
      const shown = mine
        .filter((m) => m.type === 'chunk')
        .map((m) => (m.type === 'chunk' ? m.text : ''))
        .join('');
      const ended = mine.find((m) => m.type === 'turnEnded');
      assert.ok(ended && ended.type === 'turnEnded');
      assert.equal(ended.kept, true);
      assert.equal(ended.assistant.status, 'stopped');
      assert.equal(ended.assistant.text, shown, 'the chat keeps exactly what the user saw');
      assert.ok(shown.length < 'word '.repeat(400).length, 'the reply was cut short');
      const saved = api.testing.session.store.loadChat(api.testing.session.activeChatId);
      assert.equal(saved.state.turns[0].reply, shown);
      assert.equal(saved.turns[0].stopped, true);
    } finally {
      await slow.close();
      await configure(api, { baseUrl: openai.url });
    }
  });

  it('refuses excluded, symlinked-out, binary, over-size and outside files when attaching, with the reason, and sends none of them', async () => {
    const app = folderUri('app');
    const cases: [vscode.Uri, RegExp][] = [
      [vscode.Uri.joinPath(app, '.env'), /strata\.context\.exclude/],
      [vscode.Uri.joinPath(app, 'link-out.txt'), /points outside the workspace/],
      [vscode.Uri.joinPath(app, 'link-env.txt'), /strata\.context\.exclude/],
      [vscode.Uri.joinPath(app, 'image.bin'), /binary/],
      [vscode.Uri.joinPath(app, 'huge.log'), /^app\/huge\.log is 9 MB \(limit 8 MB\); nothing of it was sent\.$/m],
      [vscode.Uri.file(path.join(path.dirname(app.fsPath), 'outside', 'secret.txt')), /outside this window's workspace folders/],
    ];
    for (const [uri, why] of cases) {
      const before = panel.of('banners').length;
      await vscode.commands.executeCommand('strata.attachActiveFile', uri);
      const banners = panel.last('banners');
      assert.ok(banners && panel.of('banners').length > before, `a banner for ${uri.fsPath}`);
      const text = banners.banners.map((b) => b.message).join('\n');
      assert.match(text, why, `${path.basename(uri.fsPath)}: ${text}`);
    }
    // The excluded file opened in an editor is refused the same way from the editor.
    const env = await vscode.workspace.openTextDocument(vscode.Uri.joinPath(app, '.env'));
    await vscode.window.showTextDocument(env);
    await vscode.commands.executeCommand('strata.attachActiveFile');
    assert.deepEqual(api.testing.session.chips(), [], 'nothing was attached');
    await configure(api, {});
    const before = openai.chatRequests.length;
    await panel.sendAndWait('Anything?');
    const text = requestText(openai.chatRequests[before].messages);
    for (const secret of ['FAKE_TOKEN', 'this file is outside every workspace folder', 'FAKE KEY'])
      assert.ok(!text.includes(secret), `${secret} was not sent`);
  });

  it('with no provider, Send shows the exact request that would go out and sends nothing', async () => {
    await configure(api, { provider: 'openai', baseUrl: '', model: 'gpt-4o' });
    const saved = process.env.OPENAI_API_KEY;
    delete process.env.OPENAI_API_KEY;
    try {
      await configure(api, {});
      await selectLines(['src', 'math.ts'], 1, 3);
      await vscode.commands.executeCommand('strata.attachSelection');
      const before = openai.chatRequests.length;
      await panel.requestOk({ kind: 'send', text: 'Preview this' });
      const preview = panel.last('preview');
      assert.ok(preview?.preview, 'a request preview was posted');
      const parsed = JSON.parse(preview.preview.request) as { messages: ChatMessage[] };
      assert.ok(requestText(parsed.messages).includes(MATH_L1_3), 'the preview holds the selection verbatim');
      assert.match(preview.preview.howTo, /Set API Key/);
      assert.equal(panel.last('setInput')?.text, 'Preview this', 'the typed text stays in the input');
      assert.equal(openai.chatRequests.length, before, 'nothing was sent');
      assert.equal(api.testing.session.engine.state.completedTurns, 0, 'nothing was kept');
      assert.ok(
        panel.last('banners')?.banners.some((b) => b.actions.includes('setApiKey')),
        'a banner offers Set API Key',
      );
    } finally {
      if (saved !== undefined) process.env.OPENAI_API_KEY = saved;
      await configure(api, { baseUrl: openai.url });
    }
  });

  it('shows a provider error as a banner with an action and keeps nothing of the turn', async () => {
    openai.injectFault({ kind: 'unknown-model' }, 1);
    const { ended } = await panel.sendAndWait('Will fail');
    assert.equal(ended.kept, false);
    assert.equal(ended.assistant.status, 'error');
    const banner = panel.last('banners')?.banners.find((b) => b.severity === 'error');
    assert.ok(banner, 'an error banner');
    assert.ok(banner.actions.includes('selectModel'), `actions: ${banner.actions.join(', ')}`);
    assert.equal(panel.last('setInput')?.text, 'Will fail', 'the message goes back into the input');
    assert.equal(panel.last('setInput')?.chatId, ended.chatId, 'of the chat it was written in');
    assert.equal(api.testing.session.engine.state.completedTurns, 0);
  });

  it('rejects forged and malformed webview messages and never acts on them', async () => {
    const turns = api.testing.session.engine.state.completedTurns;
    const forged: unknown[] = [
      { type: 'request', requestId: 1, request: { kind: 'send', text: 42 } },
      { type: 'request', requestId: 2, request: { kind: 'send', text: 'x', extra: true } },
      { type: 'request', requestId: 3, request: { kind: 'deleteChat', chatId: '../../etc' } },
      { type: 'request', requestId: 4, request: { kind: 'runCommand', command: 'workbench.action.quit' } },
      { type: 'request', requestId: -1, request: { kind: 'stop' } },
      { type: 'evil' },
      'ready',
      null,
    ];
    for (const m of forged) await api.testing.receive(m);
    assert.equal(panel.rejected.length, forged.length, `rejected: ${panel.rejected.join(' | ')}`);
    assert.equal(panel.of('turnStarted').length, 0);
    assert.equal(panel.of('response').length, 0, 'a rejected message gets no response');
    assert.equal(api.testing.session.engine.state.completedTurns, turns);
  });

  it('a reloaded window opens the same chats and builds a byte-identical next request', async () => {
    await selectLines(['src', 'math.ts'], 1, 3);
    await vscode.commands.executeCommand('strata.attachSelection');
    await panel.sendAndWait('Remember this');
    await panel.sendAndWait('And this');
    const session = api.testing.session;
    const storeRoot = session.store.root;
    const reopened = ChatSession.open(
      {
        storeRoot,
        port: api.testing.workspace,
        tokenizer: getTokenizer,
        settings: () => ({ layout: 'transcript', policy: 'append-version' }),
      },
      session.activeChatId,
    );
    reopened.setModel(session.modelInfo);
    assert.deepEqual(
      reopened.chats().map((c) => c.id),
      session.chats().map((c) => c.id),
    );
    assert.deepEqual(reopened.messages({ last: 10 }), session.messages({ last: 10 }));
    // The live session's settings are the same as the defaults passed here, except the system prompt
    // and instructions: compare the history part, which is what the reload must keep.
    const live = session.predictedEnvelope()!.messages.slice(1);
    const again = reopened.predictedEnvelope()!.messages.slice(1);
    assert.deepEqual(again, live);
  });

  it('every command does what it says', async () => {
    const app = folderUri('app');
    // newChat
    const first = api.testing.session.activeChatId;
    await panel.sendAndWait('A first message');
    await vscode.commands.executeCommand('strata.newChat');
    assert.notEqual(api.testing.session.activeChatId, first);
    // attachOpenEditors
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(vscode.Uri.joinPath(app, 'src', 'math.ts')));
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(vscode.Uri.joinPath(folderUri('lib'), 'index.ts')), {
      preview: false,
      viewColumn: vscode.ViewColumn.Beside,
    });
    await vscode.commands.executeCommand('strata.attachOpenEditors');
    assert.deepEqual(
      api.testing.session
        .chips()
        .map((c) => c.label)
        .sort(),
      ['app/src/math.ts', 'lib/index.ts'],
    );
    // pin / unpin / removeAttachment on a chip
    const chip = api.testing.session.chips()[0];
    assert.equal(await vscode.commands.executeCommand('strata.pin', chip.id), true);
    assert.equal(api.testing.session.chips()[0].pinned, true);
    assert.equal(await vscode.commands.executeCommand('strata.unpin', chip.id), true);
    assert.equal(api.testing.session.chips()[0].pinned, false);
    assert.equal(await vscode.commands.executeCommand('strata.removeAttachment', chip.id), true);
    assert.equal(api.testing.session.chips().length, 1);
    await panel.sendAndWait('Two files');
    // pin / remove an item already in the chat (applies to the next request)
    const item = api.testing.session.chatItems().find((i) => i.label === 'lib/index.ts');
    assert.ok(item);
    assert.equal(await vscode.commands.executeCommand('strata.pin', item.key), true);
    assert.equal(api.testing.session.chatItems().find((i) => i.key === item.key)?.pending, 'pin');
    assert.equal(await vscode.commands.executeCommand('strata.removeAttachment', item.key), true);
    assert.equal(api.testing.session.chatItems().find((i) => i.key === item.key)?.pending, 'detach');
    // compactNow
    const compacted = (await vscode.commands.executeCommand('strata.compactNow')) as { before: number; after: number };
    assert.ok(compacted.after <= compacted.before);
    // showLastRequest: the document equals the request the server received
    const doc = (await vscode.commands.executeCommand('strata.showLastRequest')) as vscode.TextDocument;
    assert.ok(doc, 'a document was opened');
    const json = JSON.parse(
      doc
        .getText()
        .split('\n')
        .filter((l) => !l.startsWith('//'))
        .join('\n'),
    ) as { messages: ChatMessage[] };
    assert.deepEqual(requestText(json.messages), requestText(openai.chatRequests[openai.chatRequests.length - 1].messages));
    assert.ok(!doc.getText().includes('sk-'), 'no key in the document');
    // setApiKey: stored in SecretStorage, never in settings (the command always prompts; the store is the internal path)
    await api.testing.resolver.setApiKey('anthropic', 'sk-ant-test-0123456789');
    const inspected = JSON.stringify(vscode.workspace.getConfiguration('strata'));
    assert.ok(!inspected.includes('sk-ant-test-0123456789'), 'the key is not in the settings');
    assert.equal(await api.testing.resolver.apiKey('anthropic'), 'sk-ant-test-0123456789');
    // exportChat: refuses nothing here, and the export never contains the key
    const exportUri = vscode.Uri.file(path.join(path.dirname(app.fsPath), 'export.md'));
    // A command run with a file still asks (commandConsent.ts): the suite says yes, and counts the questions.
    const consented: string[] = [];
    api.testing.consent.ask = async (q) => (consented.push(`${q.action} ${q.target}`), true);
    await vscode.commands.executeCommand('strata.exportChat', exportUri);
    const exported = fs.readFileSync(exportUri.fsPath, 'utf8');
    assert.match(exported, /Two files/);
    assert.ok(!exported.includes('sk-ant-test-0123456789'));
    await api.testing.resolver.setApiKey('anthropic', undefined);
    // importChat: a new chat with the same turns
    const exportedId = api.testing.session.activeChatId;
    const imported = (await vscode.commands.executeCommand('strata.importChat', exportUri)) as { chatId: string; turns: number };
    assert.deepEqual(
      consented.map((c) => c.split(' ')[0]),
      ['export', 'import'],
    );
    assert.notEqual(imported.chatId, exportedId);
    assert.equal(imported.turns, 1);
    assert.equal(api.testing.session.activeChatId, imported.chatId);
    // Declined: run with a file, export writes nothing and import imports nothing.
    const sayYes = api.testing.consent.ask;
    api.testing.consent.ask = async (q) => (consented.push(`${q.action} ${q.target}`), false);
    const declinedUri = vscode.Uri.file(path.join(path.dirname(app.fsPath), 'export-declined.md'));
    assert.equal(await vscode.commands.executeCommand('strata.exportChat', declinedUri), undefined);
    assert.equal(fs.existsSync(declinedUri.fsPath), false, 'declined: nothing written');
    const chatCount = api.testing.session.chats().length;
    assert.equal(await vscode.commands.executeCommand('strata.importChat', exportUri), undefined);
    assert.equal(api.testing.session.chats().length, chatCount, 'declined: nothing imported');
    assert.equal(api.testing.session.activeChatId, imported.chatId);
    assert.deepEqual(
      consented.map((c) => c.split(' ')[0]),
      ['export', 'import', 'export', 'import'],
    );
    api.testing.consent.ask = sayYes;
    // deleteChat without its confirmation: only the internal path skips it
    assert.equal(await api.testing.controller.deleteChat(imported.chatId, false), true);
    assert.ok(!api.testing.session.chats().some((c) => c.id === imported.chatId));
    // selectModel through the picker: the first OpenAI model it lists (the loopback imitation needs no key),
    // chosen in the user's place through the picker's UI seam.
    const originalUi = api.testing.picker.ui;
    api.testing.picker.ui = {
      pick: async (items) => items.find((i) => (i as { option?: { provider?: string } }).option?.provider === 'openai') as never,
      input: async () => undefined,
    };
    const picking = vscode.commands.executeCommand('strata.selectModel').then(
      (v) => ((api.testing.picker.ui = originalUi), v),
      (e) => ((api.testing.picker.ui = originalUi), Promise.reject(e)),
    );
    const chosen = (await picking) as { provider: string; model: string } | undefined;
    assert.ok(chosen, 'a model was chosen');
    assert.equal(vscode.workspace.getConfiguration('strata').get('model'), chosen.model);
    await configure(api, { provider: 'openai', baseUrl: openai.url, model: 'gpt-4o' });
    fs.rmSync(exportUri.fsPath, { force: true });
  });
});
