import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { StrataApi } from '../../src/extension';
import type { ChatSurface } from '../../src/host/panel/chatSurface';
import type { HostToWebviewMessage } from '../../src/protocol/messages';
import { startOpenAIImitation, type OpenAIImitationServer } from '../support/imitationServers';
import { configure, PanelDriver, strataApi, until, withTimeout } from './support/panel';

/**
 * The chat as an editor tab (Strata: Open Chat in Editor) beside the side bar's view, in the real
 * editor: the tab is a webview panel that loads the bundle and gets `init`, the command reveals it
 * rather than opening a second one, both surfaces show the same chat (state and stream deltas go to
 * both, a response only to the surface that asked), forged messages to the tab are rejected as for
 * the view, Focus Chat Input goes to the surface last used, and closing the tab leaves the view working.
 */

const VIEW_TYPE = 'strata.chatEditor';

function chatTabs(): vscode.Tab[] {
  return vscode.window.tabGroups.all
    .flatMap((g) => g.tabs)
    .filter((t) => t.input instanceof vscode.TabInputWebview && t.input.viewType.endsWith(VIEW_TYPE));
}

/** What one surface was sent, from now on. */
class SurfaceLog implements vscode.Disposable {
  readonly posted: HostToWebviewMessage[] = [];
  private readonly subscription: vscode.Disposable;

  constructor(readonly surface: ChatSurface) {
    this.subscription = surface.onDidPost((m) => this.posted.push(m));
  }

  of<T extends HostToWebviewMessage['type']>(type: T): Extract<HostToWebviewMessage, { type: T }>[] {
    return this.posted.filter((m): m is Extract<HostToWebviewMessage, { type: T }> => m.type === type);
  }

  dispose(): void {
    this.subscription.dispose();
  }
}

describe('Chat in an editor tab (host) in the real editor', function () {
  this.timeout(120_000);
  let api: StrataApi;
  let panel: PanelDriver;
  let openai: OpenAIImitationServer;
  const logs: SurfaceLog[] = [];

  function watch(surface: ChatSurface | undefined, what: string): SurfaceLog {
    assert.ok(surface, `${what} is open`);
    const log = new SurfaceLog(surface);
    logs.push(log);
    return log;
  }

  async function openEditorSurface(): Promise<ChatSurface> {
    await vscode.commands.executeCommand('strata.openChatInEditor');
    await until('the editor tab says ready', () => !!api.testing.chatSurface('editor')?.isReady, 30_000);
    return api.testing.chatSurface('editor')!;
  }

  before(async () => {
    api = await strataApi();
    await vscode.commands.executeCommand('strata.chat.focus');
    await withTimeout(api.whenChatReady(), 30_000, 'the chat webview saying ready');
    panel = new PanelDriver(api);
    openai = await startOpenAIImitation({ defaultReply: 'Both tabs see this reply, streamed in small pieces.', deltaChars: 4 });
    await configure(api, { provider: 'openai', baseUrl: `${openai.url}`, model: 'gpt-4o' });
  });

  after(async () => {
    logs.forEach((l) => l.dispose());
    panel?.dispose();
    await openai?.close();
    await configure(api, { provider: undefined, baseUrl: undefined, model: undefined });
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  beforeEach(async () => {
    await api.testing.controller.newChat();
    panel.clear();
  });

  it('opens the chat in an editor tab titled "Strata Chat", whose webview gets init with the open chat', async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    assert.equal(chatTabs().length, 0, 'no chat tab before the command');
    await vscode.commands.executeCommand('strata.openChatInEditor');
    const surface = api.testing.chatSurface('editor');
    assert.ok(surface, 'the command opened an editor surface');
    const log = watch(surface, 'the editor tab');
    await until('the editor tab gets init', () => log.of('init').length > 0, 30_000);
    const init = log.of('init')[0]!;
    assert.equal(init.state.chatId, api.testing.session.activeChatId, 'the tab shows the open chat');
    const tabs = chatTabs();
    assert.equal(tabs.length, 1, 'one chat tab');
    assert.equal(tabs[0]!.label, 'Strata Chat');
    assert.equal(tabs[0]!.isActive, true, 'the new tab is the active one');
    assert.ok(api.testing.chatSurface('view'), 'the side view is still open beside it');
  });

  it('running the command again reveals the open tab instead of opening a second one', async () => {
    const first = await openEditorSurface();
    await vscode.commands.executeCommand('workbench.action.files.newUntitledFile');
    assert.equal(chatTabs()[0]?.isActive, false, 'another editor is in front of the chat tab');
    await vscode.commands.executeCommand('strata.openChatInEditor');
    await until('the chat tab is active again', () => chatTabs()[0]?.isActive === true);
    assert.equal(chatTabs().length, 1, 'still one chat tab');
    assert.equal(api.testing.chatSurface('editor'), first, 'the same surface');
  });

  it('shows a message sent from the tab, and its streamed reply, in both the tab and the side view; the response goes to the tab only', async () => {
    const editor = watch(await openEditorSurface(), 'the editor tab');
    const view = watch(api.testing.chatSurface('view'), 'the side view');
    await until('the side view is ready', () => view.surface.isReady, 30_000);
    const turns = api.testing.session.engine.state.completedTurns;
    const requestId = 77_001;
    await api.testing.receive({ type: 'request', requestId, request: { kind: 'send', text: 'Hello from the tab' } }, editor.surface);
    await withTimeout(api.testing.controller.whenTurnDone(), 30_000, 'the turn to end');
    assert.equal(api.testing.session.engine.state.completedTurns, turns + 1);

    for (const [name, log] of [
      ['tab', editor],
      ['view', view],
    ] as const) {
      assert.equal(log.of('turnStarted').length, 1, `${name}: turnStarted`);
      assert.equal(log.of('turnEnded').length, 1, `${name}: turnEnded`);
      const text = log
        .of('chunk')
        .map((c) => c.text)
        .join('');
      assert.equal(text, 'Both tabs see this reply, streamed in small pieces.', `${name}: the streamed reply`);
      assert.ok(log.of('chunk').length > 1, `${name}: the reply came as several deltas`);
    }
    assert.deepEqual(
      editor.of('chunk').map((c) => c.text),
      view.of('chunk').map((c) => c.text),
      'the same deltas in the same order',
    );
    const answered = (log: SurfaceLog) => log.of('response').filter((r) => r.requestId === requestId);
    assert.equal(answered(editor).length, 1, 'the tab got the response to its request');
    assert.equal(answered(view).length, 0, 'the side view did not');
  });

  it('a state change from the side view reaches the tab', async () => {
    const editor = watch(await openEditorSurface(), 'the editor tab');
    const before = editor.of('state').length;
    await panel.requestOk({ kind: 'newChat' });
    await until('the tab gets the new chat state', () => editor.of('state').length > before);
    assert.equal(editor.of('state').at(-1)!.state.chatId, api.testing.session.activeChatId);
    assert.equal(editor.of('response').length, 0, 'the view’s response is not sent to the tab');
  });

  it('rejects forged and malformed messages from the tab and never acts on them', async () => {
    const editor = watch(await openEditorSurface(), 'the editor tab');
    const turns = api.testing.session.engine.state.completedTurns;
    const forged: unknown[] = [
      { type: 'request', requestId: 1, request: { kind: 'send', text: 42 } },
      { type: 'request', requestId: 2, request: { kind: 'send', text: 'x', extra: true } },
      { type: 'request', requestId: 3, request: { kind: 'deleteChat', chatId: '../../etc' } },
      { type: 'request', requestId: 4, request: { kind: 'runCommand', command: 'workbench.action.quit' } },
      { type: 'evil' },
      null,
    ];
    for (const m of forged) await api.testing.receive(m, editor.surface);
    assert.equal(panel.rejected.length, forged.length, `rejected: ${panel.rejected.join(' | ')}`);
    assert.equal(editor.of('response').length, 0, 'a rejected message gets no response');
    assert.equal(editor.of('turnStarted').length, 0);
    assert.equal(api.testing.session.engine.state.completedTurns, turns);
  });

  it('Focus Chat Input focuses the surface used last: the tab, then the side view', async () => {
    const editor = watch(await openEditorSurface(), 'the editor tab');
    const view = watch(api.testing.chatSurface('view'), 'the side view');
    await api.testing.receive({ type: 'typing' }, editor.surface);
    await vscode.commands.executeCommand('strata.focusInput');
    await until('the tab is asked to focus its input', () => editor.of('focusInput').length === 1);
    assert.equal(view.of('focusInput').length, 0, 'not the side view');
    assert.equal(chatTabs()[0]?.isActive, true, 'the chat tab is in front');

    await api.testing.receive({ type: 'typing' }, view.surface);
    await vscode.commands.executeCommand('strata.focusInput');
    await until('the side view is asked to focus its input', () => view.of('focusInput').length === 1);
    assert.equal(editor.of('focusInput').length, 1, 'the tab was not asked again');
  });

  it('closing the tab closes only its surface; the side view keeps working', async () => {
    const editor = await openEditorSurface();
    const tab = chatTabs()[0];
    assert.ok(tab, 'the chat tab is open');
    await vscode.window.tabGroups.close(tab);
    await until('the editor surface is gone', () => api.testing.chatSurface('editor') === undefined);
    assert.equal(editor.isReady, false, 'the closed surface is sent nothing more');
    assert.equal(chatTabs().length, 0);

    const view = watch(api.testing.chatSurface('view'), 'the side view');
    assert.ok(view.surface.isReady, 'the side view is still ready');
    const { chunks, ended } = await panel.sendAndWait('Still there?');
    assert.equal(ended.assistant.status, 'complete');
    assert.match(ended.assistant.text, /\S/, 'a reply came');
    assert.equal(chunks.map((c) => c.text).join(''), ended.assistant.text, 'the streamed parts are the reply');
    assert.ok(view.of('turnEnded').length === 1, 'the side view got the turn');
    assert.ok(view.of('response').length >= 1, 'the side view got the response to its request');
  });
});
