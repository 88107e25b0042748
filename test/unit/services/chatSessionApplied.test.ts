/**
 * ChatSession's code blocks applied (src/services/chatSession.ts `blocks`: AppliedBlocks): the
 * state reaches the reply's MessageView at once and after the chat is opened again or the window
 * reloads (a new session over the same store), with Undo only where the host still can undo.
 */
import * as assert from 'node:assert/strict';
import { ChatSession, type ChatSessionOptions } from '../../../src/services/chatSession';
import { MemoryWorkspace } from '../../../src/services/memoryWorkspace';
import { modelInfo } from '../../../src/services/modelInfo';
import { ScriptedProvider } from '../../../src/services/providers/scripted';
import { getTokenizer } from '../../../src/services/tokenizer';
import type { MessageView } from '../../../src/protocol/messages';
import { tempDir } from '../../support/tempDir';

function options(root: string): ChatSessionOptions {
  let n = 0;
  return {
    storeRoot: root,
    port: new MemoryWorkspace({ 'src/pricing.ts': 'export const price = 1;\n' }),
    tokenizer: (e) => getTokenizer(e),
    settings: () => ({ layout: 'transcript', policy: 'append-version', system: 'sys' }),
    model: modelInfo('openai', 'gpt-4o'),
    store: { durable: false },
    newChatId: () => `chat-${++n}`,
  };
}

const REPLY =
  'Change it:\n\n```ts src/pricing.ts\nexport const price = 2;\n```\n\nand this:\n\n```ts src/tax.ts\nexport const tax = 0;\n```\n';

const appliedOf = (messages: readonly MessageView[]) => messages.map((m) => m.applied);

describe('ChatSession: code blocks applied', () => {
  it('the reply carries each block’s state now, after switching chats and after a reload; Undo only where the host can', async () => {
    const root = tempDir('strata-session-applied-');
    const s = ChatSession.open(options(root));
    const provider = new ScriptedProvider(() => REPLY);
    await s.send('first', provider);
    await s.send('second', provider);
    const chatId = s.activeChatId;
    const undoable = new Set<string>();
    s.blocks.canUndo = (c, turn, block) => undoable.has(`${c}/${turn}:assistant/${block}`);

    undoable.add(`${chatId}/2:assistant/0`);
    s.blocks.record(chatId, 2, { block: 0, state: 'applied', accepted: 1, total: 1, path: 'src/pricing.ts' });
    s.blocks.record(chatId, 2, { block: 1, state: 'rejected', accepted: 0, total: 1, path: 'src/tax.ts' });
    const now = [
      undefined,
      undefined,
      undefined,
      [
        { block: 0, state: 'applied', accepted: 1, total: 1, undo: true },
        { block: 1, state: 'rejected', accepted: 0, total: 1 },
      ],
    ];
    assert.deepEqual(appliedOf(s.messages().messages), now);

    // Opened again from the list in the same window: the host still holds the Undo record.
    s.newChat();
    await s.send('other chat', provider);
    assert.deepEqual(appliedOf(s.messages().messages), [undefined, undefined]);
    s.openChat(chatId);
    assert.deepEqual(appliedOf(s.messages().messages), now);

    // A reload: a new session over the same store, whose host holds no Undo record.
    const reloaded = ChatSession.open(options(root), chatId);
    assert.deepEqual(appliedOf(reloaded.messages().messages), [
      undefined,
      undefined,
      undefined,
      [
        { block: 0, state: 'applied', accepted: 1, total: 1, undo: false },
        { block: 1, state: 'rejected', accepted: 0, total: 1 },
      ],
    ]);
    // Undo there is refused by the host; an Undo in the first window is seen by the reloaded one when it opens the chat again.
    s.blocks.record(chatId, 2, { block: 0, state: 'undone', accepted: 0, total: 0, path: 'src/pricing.ts' });
    reloaded.openChat(chatId);
    assert.deepEqual(appliedOf(reloaded.messages({ last: 1 }).messages), [
      undefined,
      [
        { block: 0, state: 'undone', accepted: 0, total: 0 },
        { block: 1, state: 'rejected', accepted: 0, total: 1 },
      ],
    ]);
  });

  it('a regenerated reply starts with no block decided', async () => {
    const s = ChatSession.open(options(tempDir('strata-session-applied-')));
    const provider = new ScriptedProvider(() => REPLY);
    await s.send('first', provider);
    s.blocks.record(s.activeChatId, 1, { block: 1, state: 'applied', accepted: 1, total: 1, path: 'src/tax.ts' });
    assert.deepEqual(appliedOf(s.messages().messages), [undefined, [{ block: 1, state: 'applied', accepted: 1, total: 1, undo: false }]]);
    assert.equal((await s.regenerate(provider)).status, 'done');
    assert.deepEqual(appliedOf(s.messages().messages), [undefined, undefined]);
    s.openChat(s.activeChatId);
    assert.deepEqual(appliedOf(s.messages().messages), [undefined, undefined]);
  });
});
