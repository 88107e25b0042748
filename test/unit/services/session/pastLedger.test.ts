/**
 * The ledger of an earlier request, rebuilt from the saved chat (the Context Layers tree after a
 * window reload): the same layers and items, token for token, as the request that was sent — file
 * versions, selection snapshots, pins and removals included.
 */
import * as assert from 'node:assert/strict';
import type { LedgerNode } from '../../../../src/engine/types';
import { recordOf } from '../../../../src/host/views/treeSource';
import { ChatSession } from '../../../../src/services/chatSession';
import { buildLedgerTree, type LedgerTreeNode } from '../../../../src/services/ledgerTree';
import { MemoryWorkspace } from '../../../../src/services/memoryWorkspace';
import { modelInfo } from '../../../../src/services/modelInfo';
import { ScriptedProvider } from '../../../../src/services/providers/scripted';
import { rebuildTurnLedger } from '../../../../src/services/session/pastLedger';
import { getTokenizer } from '../../../../src/services/tokenizer';
import { tempDir } from '../../../support/tempDir';

const GPT = modelInfo('openai', 'gpt-4o');

function view(l: LedgerNode) {
  return {
    total: l.totalTokens,
    cached: l.cachedTokens,
    layers: l.layers.map((layer) => [
      layer.id,
      layer.tokens,
      layer.items.map((i) => [i.id, i.key, i.tokens, i.status, i.cached, !!i.essential]),
    ]),
  };
}

describe('earlier requests rebuilt from the saved chat', () => {
  it('a reopened window lists the items of every earlier request, equal to the requests sent', async () => {
    const root = tempDir('strata-past-');
    const ws = new MemoryWorkspace({
      'src/a.ts': 'export const a = 1;\n'.repeat(30),
      'src/b.ts': ['one', 'two', 'three', 'four'].join('\n') + '\n',
    });
    const open = (chatId?: string) =>
      ChatSession.open(
        {
          storeRoot: root,
          port: ws,
          tokenizer: (e) => getTokenizer(e),
          settings: () => ({ layout: 'transcript', policy: 'append-version' }),
          log: () => undefined,
          model: GPT,
          store: { durable: false },
          newChatId: () => 'c1',
        },
        chatId,
      );
    const s = open();
    const provider = new ScriptedProvider((r) => `reply ${r.messages.length}`);
    const sent: LedgerNode[] = [];
    await s.attach({ kind: 'file', path: 'src/a.ts' });
    await s.attach({ kind: 'selection', path: 'src/b.ts', startLine: 2, endLine: 3 });
    sent.push((await s.send('first', provider, GPT)).envelope!.ledger);
    ws.write('src/a.ts', 'export const a = 2;\n'.repeat(30));
    s.setItemPinned('file:src/a.ts', true);
    sent.push((await s.send('second', provider, GPT)).envelope!.ledger);
    s.removeItem(s.chatItems().find((i) => i.kind === 'selection')!.id);
    sent.push((await s.send('third', provider, GPT)).envelope!.ledger);

    // Another window (or this one after a reload): nothing sent from it, the chat as saved.
    const again = open('c1');
    const metas = again.turnMetas();
    for (let n = 1; n <= 3; n++) {
      const rebuilt = rebuildTurnLedger(again.store, 'c1', again.engine.options, metas, n);
      assert.ok(rebuilt, `turn ${n} rebuilt`);
      assert.deepEqual(view(rebuilt), view(sent[n - 1]), `turn ${n}`);
    }
    // The tree: the last request opens on its items, not only on layer totals.
    const load = () => rebuildTurnLedger(again.store, 'c1', again.engine.options, metas, 3);
    const last = recordOf(metas[2], undefined, 100_000, load);
    const [root0] = buildLedgerTree({ last, next: [], budget: last.budget, requests: [] });
    const layers: LedgerTreeNode[] = root0.lazyChildren!();
    const items = layers.flatMap((l) => l.children ?? l.lazyChildren?.() ?? []);
    assert.ok(
      items.some((i) => i.name === 'src/a.ts @v2' && i.status === 'pinned'),
      items.map((i) => i.name).join(', '),
    );
    assert.ok(items.some((i) => i.name === 'src/b.ts:L2-3'));
  });

  it('the last request is not rebuilt as the chat opens, only when its row is opened', () => {
    let rebuilt = 0;
    const meta = { turn: 1000, at: '2026-01-01T00:00:00.000Z', layerTokens: { L4: 9000 } } as unknown as Parameters<typeof recordOf>[0];
    const last = recordOf(meta, undefined, 16_000, () => {
      rebuilt++;
      return undefined;
    });
    const [row] = buildLedgerTree({ last, next: [], budget: 16_000, requests: [] });
    // Collapsed: the tree does not ask for its layers until the row is opened.
    assert.equal(row.expanded, false);
    assert.equal(row.children, undefined);
    assert.equal(rebuilt, 0);
    // Opened: rebuilt (here it cannot be, so the saved layer totals show).
    const layers = row.lazyChildren!();
    assert.equal(rebuilt, 1);
    assert.deepEqual(
      layers.map((l) => l.label),
      ['System', 'Attachments', 'This turn', 'History', 'Your message'],
    );
  });
});
