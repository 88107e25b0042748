import * as assert from 'node:assert/strict';
import { PromptContextEngine } from '../../../src/engine/engine';
import * as fc from 'fast-check';
import {
  buildLedgerTree,
  fmt,
  itemLabel,
  layerNodes,
  OPEN_LAYER_MAX_ITEMS,
  nextMessageNode,
  requestNode,
  sourceOfKey,
  type LedgerTreeNode,
  type RequestRecord,
} from '../../../src/services/ledgerTree';
import { charTokenizer } from '../../support/charTokenizer';

function engine(): PromptContextEngine {
  return new PromptContextEngine({
    conversationId: 'c1',
    layout: 'transcript',
    policy: 'append-version',
    tokenizer: charTokenizer(),
    system: 'SYS',
    limits: { contextWindow: 100_000, maxOutputTokens: 1000 },
  });
}

function flatten(nodes: readonly LedgerTreeNode[]): LedgerTreeNode[] {
  return nodes.flatMap((n) => [n, ...flatten(n.children ?? (n.lazyChildren ? n.lazyChildren() : []))]);
}

function record(turn: number, env: ReturnType<PromptContextEngine['buildTurn']>, reported?: RequestRecord['reported']): RequestRecord {
  return {
    turn,
    ledger: env.ledger,
    promptTokens: env.totalTokens,
    budget: env.budget,
    predictedCached: env.ledger.cachedTokens,
    reported,
    prefixBreak: env.prefixBreak,
    prefixBreakReason: env.prefixBreakReason,
  };
}

describe('Context Layers tree model', () => {
  it('formats numbers as en-US does (integers grouped by hand, anything else by Intl)', () => {
    for (const n of [
      0,
      7,
      999,
      1000,
      -1000,
      12_345,
      999_999,
      1_000_000,
      -987_654_321,
      Number.MAX_SAFE_INTEGER,
      1.5,
      -0.25,
      1e21,
      NaN,
      Infinity,
    ]) {
      assert.equal(fmt(n), n.toLocaleString('en-US'), String(n));
    }
    fc.assert(
      fc.property(fc.integer({ min: -Number.MAX_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }), (n) => fmt(n) === n.toLocaleString('en-US')),
    );
  });

  it('names sources from artifact keys without parsing rendered text', () => {
    assert.deepEqual(sourceOfKey('file:src/a.ts@v2'), { path: 'src/a.ts' });
    assert.deepEqual(sourceOfKey('sel:src/a.ts#L12-L30@0123abcd'), { path: 'src/a.ts', startLine: 12, endLine: 30 });
    assert.deepEqual(sourceOfKey('untitled:1'), { path: 'untitled:1' });
    assert.equal(itemLabel({ label: 'x', version: 2 }, { path: 'src/a.ts', startLine: 12, endLine: 30 }), 'src/a.ts:L12-30 @v2');
  });

  it('shows L1–L5 with tokens and % of budget, items with status, recoverability and actions', () => {
    const e = engine();
    e.buildTurn({
      userText: 'first',
      attachments: [
        { kind: 'file', uri: 'src/a.ts', content: 'const a = 1;\n' },
        { kind: 'selection', uri: 'src/b.ts', range: { startLine: 2, endLine: 3 }, content: 'b2\nb3' },
      ],
    });
    e.completeTurn('reply one');
    const env = e.buildTurn({
      userText: 'second',
      attachments: [{ kind: 'file', uri: 'src/a.ts', content: 'const a = 2;\n' }],
      pin: [{ kind: 'selection', uri: 'src/b.ts', range: { startLine: 2, endLine: 3 } }],
    });
    const layers = layerNodes('last', env.ledger);
    assert.deepEqual(
      layers.map((l) => l.label),
      ['System', 'Attachments', 'This turn', 'History', 'Your message'],
    );
    for (const [i, l] of layers.entries()) {
      assert.equal(l.description?.startsWith(`${env.layers[i].tokens.toLocaleString('en-US')} tokens`), true, l.description);
    }
    const all = flatten(layers);
    const v2 = all.find((n) => n.name === 'src/a.ts @v2');
    assert.ok(v2, 'the new version is listed as @v2');
    // The row shows its figure first and the file's base name; the path is in the tooltip.
    assert.match(v2.label, /^\d[\d,]* · a\.ts @v2$/);
    assert.match(v2.tooltip ?? '', /^\*\*src\/a\.ts @v2\*\*/);
    assert.equal(v2.status, 'full');
    assert.equal(v2.recoverable, true);
    assert.equal(v2.ref, 'file:src/a.ts@v2');
    assert.equal(v2.contextValue, 'attachment');
    // Its id, version and hash are one level down, under "Details".
    assert.doesNotMatch(v2.tooltip ?? '', /sha256|version:/);
    const details = v2.lazyChildren!();
    assert.deepEqual(
      details.map((d) => [d.label, d.description]),
      [['Details', 'id, version, content sha256']],
    );
    const rows = details[0].children!;
    assert.deepEqual(
      rows.map((r) => r.label),
      ['id', 'version', 'content sha256'],
    );
    assert.equal(rows[0].description, 'file:src/a.ts');
    assert.equal(rows[1].description, '2');
    assert.match(rows[2].description ?? '', /^[0-9a-f]{16}…$/);
    const v1 = all.find((n) => n.name === 'src/a.ts');
    assert.equal(v1?.status, 'superseded');
    const sel = all.find((n) => n.name === 'src/b.ts:L2-3');
    assert.ok(sel);
    assert.equal(sel.status, 'pinned');
    assert.equal(sel.recoverable, false);
    assert.equal(sel.contextValue, 'attachment.pinned.selection');
    assert.deepEqual(sel.source, { path: 'src/b.ts', startLine: 2, endLine: 3 });
    const msg = all.find((n) => n.name === 'Your message');
    assert.equal(msg?.icon, 'message');
    assert.ok(all.some((n) => n.name === 'Turn 1 · reply'));
    // Tokens of the items add up to each layer.
    for (const [i, l] of layers.entries()) {
      const sum = (l.children ?? l.lazyChildren?.() ?? []).reduce((n, c) => n + Number(c.label.split(' ')[0].replace(/,/g, '')), 0);
      assert.equal(sum, env.layers[i].tokens, `${l.label} items add up`);
    }
  });

  it('marks a reported cache figure that differs from the prediction, and explains it', () => {
    const e = engine();
    const env = e.buildTurn({ userText: 'hi' });
    const same = requestNode(
      'last',
      'Last request · turn 1',
      record(1, env, { input: env.totalTokens, cacheRead: env.ledger.cachedTokens, cacheWrite: 0, output: 3 }),
      true,
    );
    assert.doesNotMatch(same.description ?? '', /⚠/);
    const differs = requestNode(
      'last',
      'Last request · turn 1',
      record(1, env, { input: env.totalTokens, cacheRead: env.ledger.cachedTokens + 128, cacheWrite: 0, output: 3 }),
      true,
    );
    assert.match(differs.description ?? '', /⚠/);
    assert.match(differs.tooltip ?? '', /served more from its cache than predicted/);
    assert.equal(differs.icon, 'warning');
  });

  it('prices the next message before it is sent and lists earlier requests newest first, lazily', () => {
    const next = nextMessageNode(
      [
        { chipId: 'c1', kind: 'file', label: 'src/a.ts', tokens: 120, reference: false, pinned: false, source: { path: 'src/a.ts' } },
        {
          chipId: 'c2',
          kind: 'selection',
          label: 'src/b.ts:L2-3',
          tokens: 14,
          reference: true,
          pinned: true,
          source: { path: 'src/b.ts', startLine: 2, endLine: 3 },
        },
      ],
      5000,
      10_000,
    );
    assert.equal(next.description, '+134 tokens · 2 attached');
    assert.deepEqual(
      next.children?.map((c) => [c.label, c.description]),
      [
        ['+120 · a.ts', 'full'],
        ['+14 · b.ts:L2-3', 'reference (already sent) · pinned'],
      ],
    );
    assert.equal(next.children?.[1].contextValue, 'chip.pinned.selection');
    let loads = 0;
    const e = engine();
    const env = e.buildTurn({ userText: 'hi' });
    const tree = buildLedgerTree({
      last: record(2, env),
      next: [],
      budget: env.budget,
      requests: [{ ...record(1, env), ledger: undefined, loadLedger: () => (loads++, env.ledger) }, record(2, env)],
    });
    assert.deepEqual(
      tree.map((n) => n.label),
      ['Last request', 'Next message', 'Requests'],
    );
    assert.match(tree[0].tooltip ?? '', /^\*\*Last request · turn 2\*\*/, 'the turn is in the tooltip');
    assert.match(tree[0].accessibility, /^Last request · turn 2: /);
    assert.equal(tree[2].children, undefined, 'the Requests list is made when it is opened');
    const requests = tree[2].lazyChildren?.() ?? [];
    assert.deepEqual(
      requests.map((r) => r.label),
      ['Turn 2', 'Turn 1'],
    );
    assert.equal(loads, 0, 'an earlier request is not rebuilt until it is expanded');
    const expanded = requests[1].lazyChildren?.() ?? [];
    assert.equal(loads, 1);
    assert.equal(expanded.length, 5);
  });

  it('a refresh of a long chat makes only what is shown open: the last request with L2 and L3, not earlier requests or collapsed layers', () => {
    // 300 turns sent from this window, each with its full ledger (as the host keeps them): a refresh
    // used to build every item node of every one of them (seconds at 1,000 turns).
    const e = engine();
    const ledgers: RequestRecord[] = [];
    let env = e.buildTurn({ userText: 'first', attachments: [{ kind: 'file', uri: 'src/a.ts', content: 'const a = 1;\n' }] });
    for (let t = 1; t <= 300; t++) {
      ledgers.push(record(t, env));
      e.completeTurn(`reply ${t}`);
      env = e.buildTurn({ userText: `turn ${t + 1}` });
    }
    let made = 0;
    const counted = ledgers.map((r) => ({
      ...r,
      ledger: new Proxy(r.ledger!, { get: (o, k) => (k === 'layers' && made++, Reflect.get(o, k)) }),
    }));
    const tree = buildLedgerTree({
      last: counted[counted.length - 1],
      next: [],
      budget: env.budget,
      requests: { count: counted.length, records: () => counted },
    });
    assert.equal(made, 1, 'only the last request’s ledger was read');
    const layers = tree[0].children!;
    assert.deepEqual(
      layers.map((l) => [l.label, !!l.children, !!l.lazyChildren, !!l.expanded]),
      [
        ['System', false, true, false],
        ['Attachments', true, false, true],
        ['This turn', true, false, true],
        ['History', false, true, false],
        ['Your message', false, true, false],
      ],
    );
    assert.match(layers[3].description!, / · 59\d items · L4$/, 'a closed layer of many items says how many');
    assert.doesNotMatch(layers[1].description!, /items/);
    const history = layers[3].lazyChildren!();
    assert.equal(history.length, ledgers[ledgers.length - 1].ledger!.layers[3].items.length);
    assert.ok(history.length >= 598, `L4 holds the 299 turns before it (${history.length} items)`);
    assert.match(layers[3].accessibility, new RegExp(`${history.length} items`), 'the item count is told before the layer is opened');
    assert.equal(tree[2].description, '300 in this chat');
    const requests = tree[2].lazyChildren!();
    assert.equal(requests.length, 300);
    assert.equal(made, 1, 'listing the requests reads no ledger');
    assert.ok(requests.every((r) => !r.children && !!r.lazyChildren));
    assert.equal(requests[5].lazyChildren!().length, 5);
    assert.equal(made, 2, 'opening one reads its ledger alone');
  });

  it('opens L2 by default only while it is short: a long chat’s hundreds of versions stay closed, with their count', () => {
    const e = engine();
    const files = (n: number) =>
      Array.from({ length: n }, (_, i) => ({ kind: 'file' as const, uri: `src/f${i}.ts`, content: `export const f${i} = ${i};\n` }));
    e.buildTurn({ userText: 'first', attachments: files(OPEN_LAYER_MAX_ITEMS) });
    e.completeTurn('ok');
    let l2 = layerNodes('last', e.buildTurn({ userText: 'second' }).ledger)[1];
    assert.equal(l2.expanded, true);
    assert.equal(l2.children!.filter((n) => n.ref).length, OPEN_LAYER_MAX_ITEMS);
    e.abandonTurn();
    e.buildTurn({ userText: 'more', attachments: files(OPEN_LAYER_MAX_ITEMS + 5).slice(OPEN_LAYER_MAX_ITEMS) });
    e.completeTurn('ok');
    l2 = layerNodes('last', e.buildTurn({ userText: 'third' }).ledger)[1];
    assert.equal(l2.expanded, false);
    assert.equal(l2.children, undefined);
    const items = l2.lazyChildren!();
    assert.ok(items.length > OPEN_LAYER_MAX_ITEMS);
    assert.match(l2.description!, new RegExp(` · ${items.length} items · L2$`));
  });

  it('a request whose ledger this window does not hold (sent before a reload, or from another window) still shows its layers from the saved turn', () => {
    const saved: RequestRecord = {
      turn: 7,
      promptTokens: 1500,
      budget: 10_000,
      predictedCached: 1200,
      layerTokens: { L1: 200, L2: 1000, L3: 0, L4: 250, L5: 50 },
      layerCached: { L1: 200, L2: 1000 },
    };
    const tree = buildLedgerTree({ last: saved, next: [], budget: 10_000, requests: [{ ...saved, turn: 6 }, saved] });
    const layers = tree[0].children!;
    assert.deepEqual(
      layers.map((l) => [l.label, l.description]),
      [
        ['System', '200 tokens · L1'],
        ['Attachments', '1,000 tokens · L2'],
        ['This turn', '0 tokens · L3'],
        ['History', '250 tokens · L4'],
        ['Your message', '50 tokens · L5'],
      ],
    );
    assert.match(layers[1].tooltip!, /1,000 predicted cached/);
    assert.match(layers[1].tooltip!, /1,000 tokens, 10% of the 10,000-token budget/, 'the share of the budget is in the tooltip');
    assert.match(layers[1].tooltip!, /items are listed for requests sent from this window/);
    assert.ok(
      layers.every((l) => !l.children && !l.lazyChildren),
      'no items to open',
    );
    const earlier = tree[2].lazyChildren!()[1];
    assert.equal(earlier.label, 'Turn 6');
    assert.equal(earlier.lazyChildren!().length, 5, 'an earlier one opens into the same five');
    // Nothing saved (a chat from an older version): no layers, as before.
    const bare = buildLedgerTree({
      last: { turn: 1, promptTokens: 10, budget: 100, predictedCached: 0 },
      next: [],
      budget: 100,
      requests: [],
    });
    assert.equal(bare[0].children, undefined);
    assert.equal(bare[0].lazyChildren, undefined);
  });

  it('shows what workspace tools read as L3 items marked with the tool and recoverable, and the calls themselves', () => {
    const e = engine();
    e.buildTurn({ userText: 'look' });
    const { envelope } = e.appendToolStep({
      text: '',
      calls: [
        { id: 'c1', name: 'read_file', args: { path: 'src/a.ts' } },
        { id: 'c2', name: 'list_files', args: { glob: '**' } },
        { id: 'c3', name: 'read_file', args: { path: '.env' } },
      ],
      results: [
        { callId: 'c1', tool: 'read_file', artifact: { kind: 'file', uri: 'src/a.ts', content: 'const a = 1;\n' } },
        { callId: 'c2', tool: 'list_files', artifact: { kind: 'tool', uri: 'list_files **', content: 'src/a.ts' } },
        { callId: 'c3', tool: 'read_file', note: 'read_file refused (excluded): .env matches the exclude pattern **/.env' },
      ],
    });
    const l3 = layerNodes('last', envelope.ledger)[2].children!;
    const file = l3.find((n) => n.name === 'src/a.ts')!;
    assert.equal(file.recoverable, true);
    assert.match(file.label, /^\d[\d,]* · a\.ts$/);
    assert.equal(file.description, 'full · read_file · recoverable');
    assert.match(
      file.tooltip!,
      /Recoverable: read by the model with read_file; it can read it again, so it is cut first under budget pressure\./,
    );
    assert.equal(file.contextValue, 'attachment', 'a file read by a tool can be pinned or removed like an attachment');
    const listing = l3.find(
      (n) => n.ref === undefined && /list_files/.test(n.label) && n.icon === 'tool' && n.contextValue === 'toolResult',
    );
    assert.ok(listing, `the listing is a tool result: ${l3.map((n) => `${n.label} [${n.icon} ${n.contextValue}]`).join(' | ')}`);
    assert.ok(l3.some((n) => n.name === 'Turn 1 · tool call: read_file, list_files, read_file' && n.icon === 'tool'));
    assert.ok(l3.some((n) => n.name === 'Turn 1 · read_file note' && n.icon === 'tool'));
    assert.match(file.accessibility, /read by read_file, recoverable$/);
  });
});
