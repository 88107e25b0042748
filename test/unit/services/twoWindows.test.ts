/**
 * Two windows, one workspace, at the session level: two `ChatSession`s on one store folder
 * (two windows on one folder share its workspace storage), turns through the real pipeline with a
 * memory workspace and scripted providers. The other window's turn saved while a reply streams is
 * rebuilt-on-top (saved once, after it, with a byte-identical resume), a Regenerate or a delete in the
 * other window makes the save `chat-changed` (nothing saved, the chat reloaded), and `syncWithDisk`
 * reloads the active chat — keeping the composer — or reports it removed, but never mid-turn.
 */
import * as assert from 'node:assert/strict';
import { ChatSession, type ChatSessionOptions } from '../../../src/services/chatSession';
import { ChatStore } from '../../../src/services/store/chatStore';
import { MemoryWorkspace } from '../../../src/services/memoryWorkspace';
import { modelInfo } from '../../../src/services/modelInfo';
import { ScriptedProvider } from '../../../src/services/providers/scripted';
import { getTokenizer } from '../../../src/services/tokenizer';
import { ProviderError, type ChatProvider, type ChatRequest, type StreamEvent } from '../../../src/services/providers/types';
import { tempDir } from '../../support/tempDir';

function files(): Record<string, string> {
  return {
    'src/a.ts': 'export const a = 1;\n',
    'src/b.ts': 'export const b = 2;\n',
    'docs/notes.md': '# Notes\n\nShared notes.\n',
  };
}

/** A window: a session on the shared store folder, with its own workspace view and chat ids. */
function window(root: string, name: string, logs: string[] = []): ChatSession {
  let n = 0;
  const options: ChatSessionOptions = {
    storeRoot: root,
    port: new MemoryWorkspace(files()),
    tokenizer: (e) => getTokenizer(e),
    settings: () => ({ layout: 'transcript', policy: 'append-version', system: 'You are a test assistant.' }),
    log: (l) => logs.push(`${name}: ${l}`),
    model: modelInfo('openai', 'gpt-4o'),
    store: { durable: false },
    newChatId: () => `${name}-chat-${++n}`,
    check: true,
  };
  return ChatSession.open(options, 'shared');
}

function lastUser(req: ChatRequest): string {
  const m = req.messages[req.messages.length - 1];
  return m.content[m.content.length - 1].text;
}

const replyTo = new ScriptedProvider((req) => `reply to: ${lastUser(req).slice(0, 30)}`);

/**
 * A provider whose reply streams its first piece, then waits for `during` (the other window's turn,
 * run to its end), then streams the rest: the other window saves while this reply streams.
 */
function streamingWhile(during: () => Promise<unknown>, opts: { stopWith?: AbortController } = {}): ChatProvider {
  return {
    kind: 'scripted',
    label: "Streams around another window's turn",
    stream(req: ChatRequest): AsyncIterable<StreamEvent> {
      const text = `slow reply to: ${lastUser(req).slice(0, 30)}`;
      return (async function* () {
        yield { type: 'text', text: text.slice(0, 6), seq: 0 } as StreamEvent;
        await during();
        if (opts.stopWith) {
          opts.stopWith.abort();
          throw new ProviderError('aborted', 'Request cancelled.');
        }
        yield { type: 'text', text: text.slice(6), seq: 1 } as StreamEvent;
        yield { type: 'done', text, finishReason: 'stop', attempts: 1 } as StreamEvent;
      })();
    },
  };
}

function nextRequest(s: ChatSession): string {
  const env = s.engine.buildTurn({ userText: 'next' });
  s.engine.abandonTurn();
  return JSON.stringify(env.messages);
}

async function twoWindowsWithOneTurn(): Promise<{ root: string; a: ChatSession; b: ChatSession; logs: string[] }> {
  const root = tempDir('strata-two-windows-');
  const logs: string[] = [];
  const a = window(root, 'a', logs);
  assert.strictEqual((await a.send('first, from A', replyTo)).status, 'done');
  const b = window(root, 'b', logs);
  b.openChat(a.activeChatId);
  return { root, a, b, logs };
}

describe('two windows, one workspace: sessions', () => {
  it('the other window notices a saved turn and reloads its chat; its own saves change nothing; the composer stays', async () => {
    const { a, b } = await twoWindowsWithOneTurn();
    const att = await b.attach({ kind: 'file', path: 'src/b.ts' });
    assert.ok(att.ok);
    assert.deepStrictEqual(b.syncWithDisk(), { chat: 'unchanged' });
    assert.strictEqual((await a.send('second, from A', replyTo)).status, 'done');
    assert.deepStrictEqual(a.syncWithDisk(), { chat: 'unchanged' }, "a window's own save");
    assert.deepStrictEqual(b.syncWithDisk(), { chat: 'reloaded', turnsAdded: 1 });
    assert.deepStrictEqual(
      b
        .messages()
        .messages.filter((m) => m.role === 'user')
        .map((m) => m.text),
      ['first, from A', 'second, from A'],
    );
    assert.deepStrictEqual(
      b.chips().map((c) => c.label),
      ['src/b.ts'],
      'the chip stays',
    );
    assert.strictEqual(nextRequest(b), nextRequest(a), 'both windows would send the same next request');
    // B goes on from there without any conflict.
    const o = await b.send('third, from B', replyTo);
    assert.ok(o.status === 'done' && !o.saved?.rebased && o.saved?.turn === 3);
    assert.deepStrictEqual(a.syncWithDisk(), { chat: 'reloaded', turnsAdded: 1 });
  });

  it('a turn saved by the other window while a reply streams: the reply is saved once, after it, and both windows resume byte-identically', async () => {
    const { root, a, b, logs } = await twoWindowsWithOneTurn();
    const slow = streamingWhile(() => b.send('B, meanwhile', replyTo));
    const outcome = await a.send('A, streaming slowly', slow);
    assert.strictEqual(outcome.status, 'done');
    assert.ok(outcome.status === 'done' && outcome.saved);
    assert.deepStrictEqual(outcome.saved.rebased, { builtAfterTurn: 1, otherTurns: 1 });
    assert.strictEqual(outcome.saved.turn, 3);
    assert.strictEqual(outcome.envelope!.turn, 2, 'the request sent was built on turn 1');
    assert.ok(
      logs.some((l) =>
        /another window saved 1 turn\(s\) after turn 1 while this reply streamed; the turn was saved after them as turn 3/.test(l),
      ),
    );
    const disk = ChatStore.open(root).loadChat(a.activeChatId);
    assert.deepStrictEqual(
      disk.state.turns.map((t) => [t.userText, t.reply]),
      [
        ['first, from A', 'reply to: first, from A'],
        ['B, meanwhile', 'reply to: B, meanwhile'],
        ['A, streaming slowly', 'slow reply to: A, streaming slowly'],
      ],
    );
    assert.deepStrictEqual(
      disk.turns.map((t) => t.rebased),
      [undefined, undefined, { builtAfterTurn: 1 }],
    );
    // A's session is the disk's state: the metas, the messages, and the next request of a fresh window.
    assert.deepStrictEqual(
      a.turnMetas().map((m) => m.turn),
      [1, 2, 3],
    );
    assert.deepStrictEqual(
      a.messages().messages.map((m) => m.id),
      ['1:user', '1:assistant', '2:user', '2:assistant', '3:user', '3:assistant'],
    );
    assert.deepStrictEqual(a.syncWithDisk(), { chat: 'unchanged' });
    assert.deepStrictEqual(b.syncWithDisk(), { chat: 'reloaded', turnsAdded: 1 });
    const third = window(root, 'c');
    third.openChat(a.activeChatId);
    assert.strictEqual(nextRequest(a), nextRequest(third));
    assert.strictEqual(nextRequest(b), nextRequest(third));
    assert.strictEqual(a.lastRequest()!.turn, 3);
  });

  it('a Stop while the other window saved: the partial reply is saved after the other turn', async () => {
    const { root, a, b } = await twoWindowsWithOneTurn();
    const controller = new AbortController();
    const provider = streamingWhile(() => b.send('B, meanwhile', replyTo), { stopWith: controller });
    const outcome = await a.send('A, then Stop', provider, undefined, controller.signal);
    assert.ok(outcome.status === 'stopped' && outcome.kept && outcome.saved?.rebased?.otherTurns === 1, JSON.stringify(outcome.status));
    const disk = ChatStore.open(root).loadChat(a.activeChatId);
    assert.deepStrictEqual(
      disk.state.turns.map((t) => [t.userText, t.reply]),
      [
        ['first, from A', 'reply to: first, from A'],
        ['B, meanwhile', 'reply to: B, meanwhile'],
        ['A, then Stop', 'slow r'],
      ],
    );
    assert.strictEqual(disk.turns[2].stopped, true);
  });

  it('Regenerate in one window while the other saves a turn: the regenerated reply is not saved (chat-changed) and the chat is reloaded', async () => {
    const { root, a, b } = await twoWindowsWithOneTurn();
    const slow = streamingWhile(() => b.send('B, meanwhile', replyTo));
    const outcome = await a.regenerate(slow);
    assert.ok(
      outcome.status === 'error' && outcome.error.code === 'chat-changed',
      JSON.stringify(outcome.status === 'error' ? outcome.error : outcome.status),
    );
    assert.match(outcome.error.message, /the turn it would have replaced is no longer the last one/);
    const disk = ChatStore.open(root).loadChat(a.activeChatId);
    assert.deepStrictEqual(
      disk.state.turns.map((t) => [t.userText, t.reply]),
      [
        ['first, from A', 'reply to: first, from A'],
        ['B, meanwhile', 'reply to: B, meanwhile'],
      ],
    );
    assert.strictEqual(a.engine.state.completedTurns, 2, 'A shows the chat as saved');
    assert.deepStrictEqual(a.syncWithDisk(), { chat: 'unchanged' });
  });

  it('a turn this reply followed was regenerated in the other window: chat-changed, nothing saved, the chat reloaded', async () => {
    const { root, a, b } = await twoWindowsWithOneTurn();
    const slow = streamingWhile(() => b.regenerate(new ScriptedProvider(() => 'B regenerated turn 1')));
    const outcome = await a.send('A, on the old turn 1', slow);
    assert.ok(outcome.status === 'error' && outcome.error.code === 'chat-changed');
    assert.match(outcome.error.message, /was regenerated or removed there/);
    const disk = ChatStore.open(root).loadChat(a.activeChatId);
    assert.deepStrictEqual(
      disk.state.turns.map((t) => t.reply),
      ['B regenerated turn 1'],
    );
    assert.deepStrictEqual(
      a.messages().messages.map((m) => m.text),
      ['first, from A', 'B regenerated turn 1'],
    );
  });

  it('the chat deleted in the other window: a streaming reply is not saved and does not bring it back; an idle window moves to another chat', async () => {
    const { root, a, b } = await twoWindowsWithOneTurn();
    const id = a.activeChatId;
    const slow = streamingWhile(async () => b.deleteChat(id));
    const outcome = await a.send('A, into a deleted chat', slow);
    assert.ok(outcome.status === 'error' && outcome.error.code === 'chat-changed');
    assert.match(outcome.error.message, /deleted in another window/);
    assert.ok(!ChatStore.open(root).hasChat(id), 'not recreated');
    assert.notStrictEqual(a.activeChatId, id);
    // Idle: B has a chat open that A deletes.
    assert.strictEqual((await b.send("B's own chat", replyTo)).status, 'done');
    const bChat = b.activeChatId;
    a.openChat(bChat);
    a.deleteChat(bChat);
    const sync = b.syncWithDisk();
    assert.deepStrictEqual(sync, { chat: 'removed', removedId: bChat });
    assert.notStrictEqual(b.activeChatId, bChat);
  });

  it('nothing is reloaded while a turn streams', async () => {
    const { a, b } = await twoWindowsWithOneTurn();
    let during: unknown;
    const slow = streamingWhile(async () => {
      await a.send('A, meanwhile', replyTo);
      during = b.syncWithDisk();
    });
    await b.send('B, streaming', slow);
    assert.deepStrictEqual(during, { chat: 'busy' });
  });
});
