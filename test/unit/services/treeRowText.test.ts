import * as assert from 'node:assert/strict';
import { PromptContextEngine } from '../../../src/engine/engine';
import { buildLedgerTree, type LedgerTreeNode } from '../../../src/services/ledgerTree';
import { baseName, figureLabel, shortNames } from '../../../src/services/treeRowText';
import { charTokenizer } from '../../support/charTokenizer';

function flatten(nodes: readonly LedgerTreeNode[]): LedgerTreeNode[] {
  return nodes.flatMap((n) => [n, ...flatten(n.children ?? (n.lazyChildren ? n.lazyChildren() : []))]);
}

describe('Context Layers row text for a narrow side bar', () => {
  it('names files by their base name, with folders only where two base names are the same', () => {
    assert.equal(baseName('src/host/layersTreeProvider.ts'), 'layersTreeProvider.ts');
    assert.equal(baseName('untitled:1'), 'untitled:1');
    assert.equal(baseName('README.md'), 'README.md');
    assert.deepEqual(shortNames(['src/index.ts', 'test/index.ts', 'src/money.ts', 'src/index.ts']), [
      'src/index.ts',
      'test/index.ts',
      'money.ts',
      'src/index.ts',
    ]);
    assert.deepEqual(shortNames(['a/src/x.ts', 'b/src/x.ts']), ['a/src/x.ts', 'b/src/x.ts']);
    assert.deepEqual(shortNames(['untitled:1', 'untitled:2']), ['untitled:1', 'untitled:2']);
    assert.equal(figureLabel('412', 'money.ts'), '412 · money.ts');
  });

  it('puts every row’s figure before any name or prose, so a cut at the end never takes it', () => {
    const e = new PromptContextEngine({
      conversationId: 'c1',
      layout: 'transcript',
      policy: 'append-version',
      tokenizer: charTokenizer(),
      system: 'SYS',
      limits: { contextWindow: 200_000, maxOutputTokens: 1000 },
    });
    const long = 'x'.repeat(30_000);
    e.buildTurn({
      userText: 'first',
      attachments: [
        { kind: 'file', uri: 'src/reports/quarterlyRevenueSummaryBuilder.ts', content: long },
        { kind: 'file', uri: 'test/index.ts', content: 'export {};\n' },
        { kind: 'file', uri: 'src/index.ts', content: 'export {};\n' },
        { kind: 'selection', uri: 'src/money.ts', range: { startLine: 120, endLine: 245 }, content: 'm\n'.repeat(126) },
      ],
    });
    e.completeTurn('reply');
    const env = e.buildTurn({ userText: 'second' });
    const tree = buildLedgerTree({
      last: { turn: 2, ledger: env.ledger, promptTokens: env.totalTokens, budget: env.budget, predictedCached: env.ledger.cachedTokens },
      next: [
        {
          chipId: 'c1',
          kind: 'file',
          label: 'src/host/layersTreeProvider.ts',
          tokens: 12_345,
          reference: false,
          pinned: false,
          source: { path: 'src/host/layersTreeProvider.ts' },
        },
      ],
      nextTotal: 50_000,
      budget: env.budget,
      requests: [],
    });
    const rows = flatten(tree);
    const figure = /^[+~]?\d[\d,.]*[kM]?\b/;
    for (const row of rows) {
      if (row.contextValue === 'layer' || row.contextValue === 'request' || row.id === 'next')
        assert.match(row.description ?? '', /^(\+?\d[\d,.]*[kM]? |nothing attached)/, `${row.label}: ${row.description}`);
      else if (row.name !== undefined && row.icon !== 'framing') assert.match(row.label, figure, `${row.label} starts with its figure`);
    }
    assert.deepEqual(
      rows.filter((r) => r.name && /index\.ts|quarterly|money/.test(r.name)).map((r) => r.label.replace(/^[\d,]+ · /, '')),
      ['quarterlyRevenueSummaryBuilder.ts', 'test/index.ts', 'src/index.ts', 'money.ts:L120-245'],
    );
    assert.equal(tree[0].label, 'Last request');
    assert.match(tree[0].description!, /^\d+(\.\d)?k · \d+% cached$/);
    assert.equal(tree[1].description, '+12,345 tokens · 1 attached');
    assert.equal(tree[1].children![0].label, '+12,345 · layersTreeProvider.ts');
    assert.match(tree[1].children![0].tooltip!, /^\*\*src\/host\/layersTreeProvider\.ts\*\*/);
  });
});
