/**
 * The "In context" row's figures (src/services/session/inContext.ts): what the next request carries
 * besides the message and its chips, read from the same ledger Context Layers lists, item by item.
 */
import * as assert from 'node:assert/strict';
import { PromptContextEngine } from '../../../../src/engine/engine';
import type { Layout } from '../../../../src/engine/types';
import { layerNodes } from '../../../../src/services/ledgerTree';
import { inContextPaths, inContextView } from '../../../../src/services/session/inContext';
import type { ChatItemView } from '../../../../src/services/session/pendingOperations';
import { charTokenizer } from '../../../support/charTokenizer';

function engine(layout: Layout): PromptContextEngine {
  return new PromptContextEngine({
    conversationId: 'c1',
    layout,
    policy: 'append-version',
    tokenizer: charTokenizer(),
    system: 'SYS',
    instructions: [{ source: 'AGENTS.md', text: 'Answer briefly.' }],
    limits: { contextWindow: 100_000, maxOutputTokens: 1000 },
  });
}

/** Three attachments over two turns, then the next request as the meter predicts it (no chips). */
function threeOverTwoTurns(layout: Layout) {
  const e = engine(layout);
  e.buildTurn({
    userText: 'first',
    attachments: [
      { kind: 'file', uri: 'src/cart.ts', content: 'export const cart = [];\n'.repeat(20) },
      { kind: 'selection', uri: 'src/order.ts', range: { startLine: 2, endLine: 3 }, content: 'line 2\nline 3' },
    ],
  });
  e.completeTurn('reply one');
  e.buildTurn({
    userText: 'second',
    attachments: [{ kind: 'file', uri: 'src/catalog.ts', content: 'export const catalog = {};\n'.repeat(30) }],
  });
  e.completeTurn('reply two');
  return e.buildTurn({ userText: '' });
}

/** The tokens Context Layers shows on each item row of `ledger`, by the row's full name. */
function treeFigures(ledger: Parameters<typeof layerNodes>[1]): Map<string, number> {
  const out = new Map<string, number>();
  for (const layer of layerNodes('next', ledger)) {
    for (const row of layer.children ?? layer.lazyChildren?.() ?? []) {
      const m = /^([\d,]+) · /.exec(row.label);
      if (m && row.name) out.set(row.name, Number(m[1].replace(/,/g, '')));
    }
  }
  return out;
}

describe('In context: what the next message carries besides what is typed', () => {
  for (const layout of ['library', 'transcript'] as const) {
    it(`lists the three attachments of two turns and the instructions file with the tree's figures (${layout} layout)`, () => {
      const env = threeOverTwoTurns(layout);
      const view = inContextView(env.ledger, []);
      assert.deepEqual(
        view.items.map((i) => [i.kind, i.label, i.ref]),
        [
          ['instructions', 'AGENTS.md', 'instructions:AGENTS.md'],
          ['file', 'src/cart.ts', 'file:src/cart.ts'],
          ['selection', 'src/order.ts:L2-3', view.items[2].ref],
          ['file', 'src/catalog.ts', 'file:src/catalog.ts'],
        ],
      );
      assert.match(view.items[2].ref, /^sel:src\/order\.ts#L2-L3@[0-9a-f]+$/);
      const tree = treeFigures(env.ledger);
      for (const item of view.items.slice(1)) assert.equal(item.tokens, tree.get(item.label), `${item.label}: the row and the tree agree`);
      assert.equal(
        view.tokens,
        view.items.reduce((n, i) => n + i.tokens, 0),
      );
      assert.deepEqual([...inContextPaths(view)], ['src/cart.ts', 'src/catalog.ts']);
    });
  }

  it('sums the versions of a file the chat holds, and marks pins and pending operations from the chat’s items', () => {
    const e = engine('library');
    e.buildTurn({ userText: 'one', attachments: [{ kind: 'file', uri: 'src/a.ts', content: 'const a = 1;\n' }] });
    e.completeTurn('r1');
    e.buildTurn({ userText: 'two', attachments: [{ kind: 'file', uri: 'src/a.ts', content: 'const a = 2;\nconst b = 3;\n' }] });
    e.completeTurn('r2');
    const env = e.buildTurn({ userText: '' });
    const versions = env.ledger.layers
      .flatMap((l) => l.items)
      .filter((i) => i.key?.startsWith('file:src/a.ts') && i.segment !== 'reference');
    assert.equal(versions.length, 2, 'both versions are sent');
    const items: ChatItemView[] = [
      { id: 'file:src/a.ts', key: 'file:src/a.ts@v2', kind: 'file', label: 'src/a.ts', pinned: true, status: 'present', missing: false },
      {
        id: 'file:src/gone.ts',
        key: 'file:src/gone.ts',
        kind: 'file',
        label: 'src/gone.ts',
        pinned: false,
        status: 'present',
        missing: false,
        pending: 'detach',
      },
    ];
    const view = inContextView(env.ledger, items);
    const a = view.items.find((i) => i.ref === 'file:src/a.ts')!;
    assert.equal(a.tokens, versions[0].tokens + versions[1].tokens);
    assert.equal(a.pinned, true);
    const gone = view.items.find((i) => i.ref === 'file:src/gone.ts')!;
    assert.deepEqual(gone, { ref: 'file:src/gone.ts', kind: 'file', label: 'src/gone.ts', tokens: 0, pinned: false, pending: 'detach' });
    assert.equal(inContextPaths(view).has('src/gone.ts'), false, 'a file being removed is offered again');
  });

  it('is empty before the first build', () => {
    assert.deepEqual(inContextView(undefined, []), { items: [], tokens: 0 });
  });
});
