/**
 * The chat store watcher (src/services/store/storeWatcher.ts): another window's saved turn, rename and
 * delete are reported (chat ids, index), a save is one notification, and the polling fallback reports
 * the same changes.
 */
import * as assert from 'node:assert/strict';
import { PromptContextEngine } from '../../../../src/engine/engine';
import { ChatStore } from '../../../../src/services/store/chatStore';
import { watchChatStore, type StoreChange } from '../../../../src/services/store/storeWatcher';
import { getTokenizer } from '../../../../src/services/tokenizer';
import { tempDir } from '../../../support/tempDir';

function saveTurn(store: ChatStore, id: string, text: string): void {
  const engine = new PromptContextEngine(
    {
      conversationId: id,
      layout: 'transcript',
      policy: 'append-version',
      tokenizer: getTokenizer('o200k_base'),
      system: 's',
      limits: { contextWindow: 100_000, maxOutputTokens: 1000 },
    },
    store.hasChat(id) ? store.loadChat(id).state : undefined,
  );
  engine.buildTurn({ userText: text, attachments: [{ kind: 'file', uri: `${text}.ts`, content: `export const x = '${text}';\n` }] });
  engine.completeTurn('ok');
  store.appendTurn(id, { state: engine.state, engine: engine.options });
}

async function until(what: string, pred: () => boolean, ms = 5000): Promise<void> {
  const t0 = Date.now();
  while (!pred()) {
    if (Date.now() - t0 > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

for (const mode of ['fs.watch', 'polling'] as const) {
  describe(`chat store watcher (${mode})`, () => {
    it('reports the chats another window saved to, and index changes (rename, delete), a burst at a time', async () => {
      const root = tempDir('strata-watch-');
      const mine = ChatStore.open(root, { durable: false });
      saveTurn(mine, 'one', 'first');
      const changes: StoreChange[] = [];
      const w = watchChatStore(root, (c) => changes.push(c), mode === 'polling' ? { poll: true, pollMs: 50 } : { debounceMs: 100 });
      try {
        await new Promise((r) => setTimeout(r, mode === 'polling' ? 120 : 30));
        const other = ChatStore.open(root, { durable: false });
        saveTurn(other, 'one', 'second');
        await until('the saved turn', () => changes.some((c) => c.chats.includes('one')));
        const burst = changes.filter((c) => c.chats.includes('one'));
        // Events are gathered: a save (blob, line, index) is one notification (a poll may split one).
        if (mode === 'fs.watch') assert.strictEqual(burst.length, 1, 'one save is one notification');
        await until('the index change', () => changes.some((c) => c.index));
        changes.length = 0;
        other.renameChat('one', 'Renamed elsewhere');
        await until('the rename', () => changes.some((c) => c.index));
        assert.deepStrictEqual(changes[changes.length - 1].chats, []);
        changes.length = 0;
        other.deleteChat('one');
        await until('the delete', () => changes.some((c) => c.chats.includes('one') && c.index));
      } finally {
        w.dispose();
      }
      changes.length = 0;
      saveTurn(mine, 'two', 'after dispose');
      await new Promise((r) => setTimeout(r, 200));
      assert.deepStrictEqual(changes, [], 'nothing after dispose');
    });
  });
}
