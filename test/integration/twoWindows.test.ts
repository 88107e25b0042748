import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { StrataApi } from '../../src/extension';
import { ChatSession } from '../../src/services/chatSession';
import { ScriptedProvider } from '../../src/services/providers/scripted';
import { getTokenizer } from '../../src/services/tokenizer';
import { startOpenAIImitation, type OpenAIImitationServer } from '../support/imitationServers';
import { configure, PanelDriver, strataApi, until, withTimeout } from './support/panel';

/**
 * Two windows on one folder share its chat store. The other window is a second
 * `ChatSession` on this window's storage folder, in this process, writing through its own `ChatStore`
 * instance exactly as another extension host would (the store lock and the files are the only
 * channel). This window's panel must follow it through the store watcher, and a turn of the other
 * window saved while this one streams must end up before this window's turn, with a banner.
 */
describe('Two windows, one workspace (host)', function () {
  this.timeout(120_000);
  let api: StrataApi;
  let panel: PanelDriver;
  let openai: OpenAIImitationServer;

  const otherWindow = (chatId: string): ChatSession =>
    ChatSession.open(
      {
        storeRoot: api.testing.session.store.root,
        port: api.testing.workspace,
        tokenizer: getTokenizer,
        settings: () => ({ layout: 'transcript', policy: 'append-version' }),
      },
      chatId,
    );

  before(async () => {
    api = await strataApi();
    await vscode.commands.executeCommand('strata.chat.focus');
    await withTimeout(api.whenChatReady(), 30_000, 'the chat webview saying ready');
    panel = new PanelDriver(api);
    openai = await startOpenAIImitation({
      defaultReply: 'A reply that streams slowly, piece by piece, so the other window can save meanwhile.',
      deltaChars: 4,
      chunkDelayMs: 40,
    });
    await configure(api, { provider: 'openai', baseUrl: `${openai.url}`, model: 'gpt-4o' });
  });

  after(async () => {
    panel?.dispose();
    await openai?.close();
    await configure(api, { provider: undefined, baseUrl: undefined, model: undefined });
  });

  beforeEach(async () => {
    await api.testing.controller.newChat();
    panel.clear();
  });

  it('a turn the other window saves reaches this panel as a fresh state (and the tree), and this window continues after it', async () => {
    await panel.sendAndWait('From this window');
    const session = api.testing.session;
    const chatId = session.activeChatId;
    const other = otherWindow(chatId);
    let treeChanged = 0;
    const sub = api.testing.controller.onDidChange(() => treeChanged++);
    try {
      panel.clear();
      const o = await other.send('From the other window', new ScriptedProvider(() => "The other window's reply."));
      assert.equal(o.status, 'done');
      await until(
        "a fresh panel state with the other window's turn",
        () => panel.of('state').some((m) => m.state.chatId === chatId && m.state.messages.some((x) => x.text === 'From the other window')),
        10_000,
      );
      assert.equal(session.engine.state.completedTurns, 2);
      assert.ok(treeChanged > 0, 'the Context Layers tree was told');
      // …and shows the other window's turn as the last request.
      const last = api.testing.tree.getChildren().find((n) => n.id === 'last');
      assert.ok(
        last?.tooltip?.startsWith('**Last request · turn 2**'),
        `Context Layers shows the turn the other window saved: ${last?.tooltip}`,
      );
      const { started } = await panel.sendAndWait('Back in this window');
      assert.equal(started.user.turn, 3);
      assert.deepEqual(
        session
          .messages()
          .messages.filter((m) => m.role === 'user')
          .map((m) => m.text),
        ['From this window', 'From the other window', 'Back in this window'],
      );
      // Renamed in the other window: the chat list follows.
      other.renameChat(chatId, 'Renamed in the other window');
      await until(
        'the chat list with the new title',
        () => panel.of('chats').some((m) => m.chats.some((c) => c.id === chatId && c.title === 'Renamed in the other window')),
        10_000,
      );
    } finally {
      sub.dispose();
    }
  });

  it('a turn the other window saves while this one streams: this turn is saved after it, the panel shows both and says so', async () => {
    await panel.sendAndWait('First');
    const session = api.testing.session;
    const chatId = session.activeChatId;
    const other = otherWindow(chatId);
    panel.clear();
    let otherDone: Promise<unknown> | undefined;
    const sub = api.testing.onDidPost((m) => {
      if (m.type === 'chunk' && !otherDone)
        otherDone = other.send('The other window, meanwhile', new ScriptedProvider(() => 'Saved while the first window streamed.'));
    });
    try {
      await panel.requestOk({ kind: 'send', text: 'This window, streaming' });
      await withTimeout(api.testing.controller.whenTurnDone(), 30_000, 'the turn to end');
      await otherDone;
    } finally {
      sub.dispose();
    }
    const ended = panel.last('turnEnded')!;
    assert.equal(ended.kept, true);
    await until(
      'the banner about the other window',
      () =>
        (panel.last('banners')?.banners ?? []).some((b) =>
          /Another window added a turn to this chat while this reply streamed\. Your turn was saved after it \(turn 3\)/.test(b.message),
        ),
      10_000,
    );
    await until(
      'a fresh state with all three turns',
      () =>
        panel.of('state').some(
          (m) =>
            m.state.messages
              .filter((x) => x.role === 'user')
              .map((x) => x.text)
              .join('|') === 'First|The other window, meanwhile|This window, streaming',
        ),
      10_000,
    );
    assert.equal(session.engine.state.completedTurns, 3);
    const onDisk = session.store.loadChat(chatId);
    assert.deepEqual(
      onDisk.state.turns.map((t) => t.userText),
      ['First', 'The other window, meanwhile', 'This window, streaming'],
    );
    assert.deepEqual(onDisk.turns[2].rebased, { builtAfterTurn: 1 });
  });

  it('the open chat deleted in the other window: this panel moves to another chat and says so', async () => {
    await panel.sendAndWait('Soon deleted elsewhere');
    const chatId = api.testing.session.activeChatId;
    panel.clear();
    otherWindow(chatId).deleteChat(chatId);
    await until('the panel on another chat', () => panel.of('state').some((m) => m.state.chatId !== chatId), 10_000);
    assert.notEqual(api.testing.session.activeChatId, chatId);
    assert.ok((panel.last('banners')?.banners ?? []).some((b) => /deleted in another window/.test(b.message)));
  });
});
