import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { StrataApi } from '../../src/extension';
import type { ChatMessage, LedgerNode } from '../../src/engine/types';
import type { LedgerTreeNode } from '../../src/services/ledgerTree';
import { getTokenizer } from '../../src/services/tokenizer';
import { providerCachePrediction } from '../../src/services/cacheModel';
import { replay } from '../../bench/replayCore';
import { validateTrajectory, type Trajectory } from '../../bench/trajectory';
import { startOpenAIImitation, type OpenAIImitationServer } from '../support/imitationServers';
import { configure, folderUri, PanelDriver, strataApi, until, withTimeout } from './support/panel';

/**
 * Context Layers in the real extension host: a shared trajectory played through the panel
 * against the imitation server gives, turn by turn, the same ledger as the replay of that trajectory
 * (same layers, items, statuses and token counts), the tree shows it, the tree actions change the next
 * request as they say, and Show Last Request is the request the server received.
 */

const TRAJECTORY = path.resolve(__dirname, '..', '..', '..', 'test', 'fixtures', 'trajectories', 'walkthrough-6.json');
const PREFIX = 'app/wt6/';

function text(messages: readonly ChatMessage[] | undefined): string {
  return (messages ?? []).map((m) => `${m.role}:${m.content.map((b) => b.text).join('')}`).join('\n');
}

function children(api: StrataApi, node?: LedgerTreeNode): LedgerTreeNode[] {
  return api.testing.tree.getChildren(node);
}

function find(nodes: readonly LedgerTreeNode[], label: string | RegExp): LedgerTreeNode | undefined {
  // An item's row is labelled `<tokens> · <base name>`; `name` holds its whole path.
  return nodes.find((n) => (typeof label === 'string' ? n.label === label || n.name === label : label.test(n.label)));
}

/** A ledger without the per-layer `cached` flags and the budget-relative bits, for comparing two runs. */
function comparable(ledger: LedgerNode): unknown {
  return ledger.layers.map((l) => ({ id: l.id, tokens: l.tokens, items: l.items.map((i) => ({ ...i })) }));
}

describe('Context Layers in the real editor', function () {
  this.timeout(120_000);
  let api: StrataApi;
  let panel: PanelDriver;
  let server: OpenAIImitationServer;
  let traj: Trajectory;

  before(async () => {
    api = await strataApi();
    await vscode.commands.executeCommand('strata.chat.focus');
    await withTimeout(api.whenChatReady(), 30_000, 'the chat webview saying ready');
    await vscode.commands.executeCommand('strata.layers.focus');
    panel = new PanelDriver(api);
    server = await startOpenAIImitation({ deltaChars: 40 });
    // The same budget and L1 as the replay: 4,096 reserved output tokens (the trajectory's), no instructions.
    await configure(api, {
      provider: 'openai',
      baseUrl: server.url,
      model: 'gpt-4o',
      instructionsFiles: [],
      instructions: '',
      'budget.reservedOutputTokens': 4096,
    });
    const raw = JSON.parse(fs.readFileSync(TRAJECTORY, 'utf8')) as Trajectory;
    const app = folderUri('app').fsPath;
    for (const [p, content] of Object.entries(raw.files)) {
      const file = path.join(app, 'wt6', p);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, content as string);
    }
    traj = validateTrajectory({
      ...raw,
      files: Object.fromEntries(Object.entries(raw.files).map(([p, c]) => [PREFIX + p, c])),
      turns: raw.turns.map((t) => ({ ...t, attach: t.attach?.map((a) => (a.file ? { file: PREFIX + a.file } : a)) })),
    });
  });

  after(async () => {
    panel?.dispose();
    await server?.close();
    await configure(api, {
      provider: undefined,
      baseUrl: undefined,
      model: undefined,
      instructionsFiles: undefined,
      instructions: undefined,
      'budget.reservedOutputTokens': undefined,
    });
    fs.rmSync(path.join(folderUri('app').fsPath, 'wt6'), { recursive: true, force: true });
  });

  it('after each scripted turn the tree shows the same layers, items, statuses and tokens as the replay', async () => {
    await api.testing.controller.newChat();
    // The instruction files are re-read after the settings change: wait until L1 is the product prompt alone.
    await until('instructions dropped from L1', () => api.testing.session.predictedEnvelope()!.layers[0].segments.length === 1);
    const system = api.testing.session
      .predictedEnvelope()!
      .messages[0].content.map((b) => b.text)
      .join('');
    const expected = [
      ...replay({ ...traj, system }, { layout: 'transcript', policy: 'append-version', tokenizer: getTokenizer('o200k_base') }),
    ];
    for (const [i, t] of traj.turns.entries()) {
      for (const a of t.attach ?? []) {
        const added = await api.testing.controller.attachUris([
          vscode.Uri.joinPath(folderUri('app'), ...a.file!.slice('app/'.length).split('/')),
        ]);
        assert.equal(added.length, 1, `attach ${a.file}`);
      }
      if ((t.attach ?? []).length > 0) {
        // Before sending: the next message is priced.
        const next = find(children(api), 'Next message');
        assert.ok(next, 'a Next message node');
        assert.equal(children(api, next).length, t.attach!.length);
      }
      server.queueReply(t.reply);
      await panel.sendAndWait(t.user);
      const sent = api.testing.controller.lastSent();
      assert.ok(sent, `turn ${i + 1} was recorded`);
      const want = expected[i].envelope;
      assert.deepEqual(comparable(sent.envelope.ledger), comparable(want.ledger), `turn ${i + 1}: the ledger equals the replay's`);
      assert.equal(sent.envelope.totalTokens, want.totalTokens);
      // The tree renders that ledger.
      const roots = children(api);
      const last = find(roots, 'Last request');
      assert.ok(
        last && last.accessibility.startsWith(`Last request · turn ${i + 1}:`),
        `the tree's root is turn ${i + 1} (roots: ${roots.map((r) => `${r.label} (${r.accessibility})`).join(', ')})`,
      );
      const layers = children(api, last);
      assert.deepEqual(
        layers.map((l) => l.label),
        ['System', 'Attachments', 'This turn', 'History', 'Your message'],
      );
      for (const [li, layer] of layers.entries()) {
        const ledgerLayer = want.ledger.layers[li];
        assert.ok(
          layer.description?.startsWith(`${ledgerLayer.tokens.toLocaleString('en-US')} tokens`),
          `${layer.label}: ${layer.description}`,
        );
        const items = children(api, layer);
        assert.equal(items.length, ledgerLayer.items.length, `${layer.label} item count`);
        for (const [k, item] of items.entries()) {
          assert.ok(item.label.startsWith(`${ledgerLayer.items[k].tokens.toLocaleString('en-US')} · `), `${layer.label}/${item.label}`);
        }
      }
      // The reported cache matches the prediction (the imitation server uses the same cache rule).
      assert.equal(
        sent.usage?.cacheRead,
        providerCachePrediction('openai', want.ledger.cachedTokens),
        `turn ${i + 1}: reported cached = predicted`,
      );
      assert.doesNotMatch(last.description ?? '', /⚠/);
    }
    // Earlier requests stay browsable.
    const requests = find(children(api), 'Requests');
    assert.ok(requests);
    const turns = children(api, requests);
    assert.equal(turns.length, traj.turns.length);
    const t2 = find(turns, 'Turn 2')!;
    assert.equal(children(api, t2).length, 5, 'an earlier request expands into its layers');
    // Kept in memory: the last request whole, an earlier one as its figures and ledger only.
    const kept = api.testing.controller.sentRequests();
    assert.ok(!('messages' in kept.get(2)!.envelope), 'turn 2 keeps its ledger, not its messages');
    assert.ok('messages' in kept.get(traj.turns.length)!.envelope, 'the last request is kept whole');
    // Statuses: turn 3 re-attached p-queue.md, sent in turn 1: a reference in L3.
    const l3of3 = children(api, find(children(api, find(turns, 'Turn 3')!), 'This turn')!);
    assert.equal(l3of3[0].status, 'reference');
  });

  it('the tree actions change the next request as they say, and Show Last Request is what the server received', async () => {
    const l2 = () => children(api, find(children(api, find(children(api), /^Last request/)!), 'Attachments')!);
    const retry = find(l2(), `${PREFIX}src/p-retry.js`);
    assert.ok(
      retry,
      `p-retry.js in L2 (items: ${l2()
        .map((n) => n.label)
        .join(', ')})`,
    );
    assert.equal(retry.contextValue, 'attachment');
    // Pin: the next request carries it as pinned (essential).
    assert.equal(await vscode.commands.executeCommand('strata.pin', retry), true);
    // Remove: the next request replaces its block with a stub and reports the cut.
    const scan = find(l2(), `${PREFIX}src/picomatch/scan.js`)!;
    assert.equal(await vscode.commands.executeCommand('strata.removeAttachment', scan), true);
    server.queueReply('ok');
    await panel.sendAndWait('After the actions');
    const sent = api.testing.controller.lastSent()!;
    const items = sent.envelope.ledger.layers.flatMap((l) => l.items);
    assert.ok(
      items.some((i) => i.key === retry.ref && i.essential),
      'p-retry.js is pinned in the request',
    );
    assert.ok(
      sent.envelope.pruned.some((p) => p.item === scan.ref && p.reason === 'detached'),
      'scan.js was removed, reported as detached',
    );
    const requestText = text(sent.envelope.messages);
    const scanContent = fs.readFileSync(path.join(folderUri('app').fsPath, 'wt6', 'src', 'picomatch', 'scan.js'), 'utf8');
    assert.ok(!requestText.includes(scanContent.slice(0, 400)), "the removed file's content is gone from the request");
    // The pinned item shows as pinned, the removed one as pruned (detached), in the tree.
    const after = l2();
    assert.equal(find(after, `${PREFIX}src/p-retry.js`)?.status, 'pinned');
    // Show Content: the exact bytes the request carries for the item.
    const shown = (await vscode.commands.executeCommand(
      'strata.showContent',
      find(after, `${PREFIX}src/p-retry.js`),
    )) as vscode.TextDocument;
    assert.ok(requestText.includes(shown.getText()), 'Show Content is the block as sent');
    // Open Source reveals the file.
    const opened = (await vscode.commands.executeCommand('strata.openSource', find(after, `${PREFIX}src/p-retry.js`))) as vscode.Uri;
    assert.equal(vscode.window.activeTextEditor?.document.uri.toString(), opened.toString());
    // Show Last Request equals what the server received.
    const doc = (await vscode.commands.executeCommand('strata.showLastRequest')) as vscode.TextDocument;
    const body = JSON.parse(
      doc
        .getText()
        .split('\n')
        .filter((l) => !l.startsWith('//'))
        .join('\n'),
    ) as { messages: ChatMessage[] };
    assert.equal(text(body.messages), text(server.chatRequests[server.chatRequests.length - 1].messages));
    assert.match(doc.getText(), /^\/\/ Prompt: [\d,]+ tokens of the [\d,]+-token budget/m);
  });

  it('items carry tooltips, icons for recoverable vs snapshot, and accessibility labels', async () => {
    const last = find(children(api), /^Last request/)!;
    const item = api.testing.tree.getTreeItem(last);
    assert.ok(item.accessibilityInformation?.label.includes('tokens'));
    const l2 = children(api, find(children(api, last), 'Attachments')!);
    const node = l2[0];
    const ti = api.testing.tree.getTreeItem(node);
    assert.ok(
      ti.tooltip instanceof vscode.MarkdownString && /Recoverable/.test(ti.tooltip.value),
      'the tooltip says whether it is recoverable',
    );
    const details = children(api, node);
    assert.deepEqual(
      details.map((d) => d.label),
      ['Details'],
    );
    assert.deepEqual(
      children(api, details[0]).map((d) => d.label),
      ['id', 'version', 'content sha256'],
    );
    assert.equal(node.recoverable, true);
    assert.ok(ti.iconPath instanceof vscode.ThemeIcon);
  });
});
