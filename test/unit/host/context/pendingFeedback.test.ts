/**
 * Pin, Unpin and Remove from the Context Layers tree show their pending state at once: the banner in
 * the panel (with Undo), the row of the item, and "Next message" — with the predicted uncached tokens
 * of the next request before and after. Undo takes it back. The controller is a stand-in that does
 * what the real one does with the session (src/host/strataController.ts).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { TurnEnvelope } from '../../../../src/engine/engine';
import type { BannerView } from '../../../../src/protocol/messages';
import { PendingFeedback } from '../../../../src/host/context/pendingFeedback';
import type { StrataController } from '../../../../src/host/strataController';
import { ChatSession } from '../../../../src/services/chatSession';
import { buildLedgerTree, type LedgerTreeNode } from '../../../../src/services/ledgerTree';
import { MemoryWorkspace } from '../../../../src/services/memoryWorkspace';
import { modelInfo } from '../../../../src/services/modelInfo';
import { withPending } from '../../../../src/services/pendingTree';
import { ScriptedProvider } from '../../../../src/services/providers/scripted';
import { pendingCostText } from '../../../../src/services/session/pendingCost';
import { getTokenizer } from '../../../../src/services/tokenizer';
import { tempDir } from '../../../support/tempDir';

const GPT = modelInfo('openai', 'gpt-4o');
const BIG = Array.from({ length: 200 }, (_, i) => `export const v${i} = ${i};`).join('\n');

function standIn(session: ChatSession) {
  const banners: BannerView[] = [];
  let changes = 0;
  let n = 0;
  const controller = {
    setPinned: (ref: string, pinned: boolean) =>
      session.chips().some((c) => c.id === ref) ? session.pinChip(ref, pinned) : session.setItemPinned(ref, pinned),
    remove: (ref: string) => (session.chips().some((c) => c.id === ref) ? session.removeChip(ref) : session.removeItem(ref)),
    currentModel: () => ({ provider: 'openai' }),
    showBanner: (severity: BannerView['severity'], message: string, actions: BannerView['actions']) => {
      const id = `b${++n}`;
      banners.push({ id, severity, message, actions });
      return id;
    },
    clearBanners: (pred: (b: BannerView) => boolean) => {
      for (let i = banners.length - 1; i >= 0; i--) if (pred(banners[i])) banners.splice(i, 1);
    },
    notifyChanged: () => void changes++,
    refreshChips: () => void changes++,
    refreshMeter: () => undefined,
    attachSpecs: async (specs: { ok: true; spec: Parameters<ChatSession['attach']>[0] }[]) => {
      for (const s of specs) await session.attach(s.spec);
      return [];
    },
  };
  return { controller: controller as unknown as StrataController, banners, changes: () => changes };
}

async function chatWithTwoFiles(): Promise<ChatSession> {
  const session = ChatSession.open({
    storeRoot: tempDir('strata-pending-'),
    port: new MemoryWorkspace({ 'src/a.ts': BIG, 'src/b.ts': BIG.replace(/v/g, 'w'), 'src/c.ts': 'export const c = 1;\n' }),
    tokenizer: (e) => getTokenizer(e),
    settings: () => ({ layout: 'transcript', policy: 'append-version' }),
    log: () => undefined,
    model: GPT,
    store: { durable: false },
    newChatId: () => 'c1',
  });
  const provider = new ScriptedProvider(() => 'ok');
  await session.attach({ kind: 'file', path: 'src/a.ts' });
  await session.send('one', provider, GPT);
  await session.attach({ kind: 'file', path: 'src/b.ts' });
  lastSent.set(session, (await session.send('two', provider, GPT)).envelope!);
  return session;
}

const lastSent = new WeakMap<ChatSession, TurnEnvelope>();

function tree(session: ChatSession, pending: PendingFeedback): LedgerTreeNode[] {
  const env = lastSent.get(session)!;
  const last = { turn: 2, ledger: env.ledger, promptTokens: env.totalTokens, budget: env.budget, predictedCached: 0 };
  return withPending(buildLedgerTree({ last, next: [], budget: env.budget, requests: [] }), pending.items());
}

function flatten(nodes: readonly LedgerTreeNode[]): LedgerTreeNode[] {
  return nodes.flatMap((n) => [n, ...flatten(n.children ?? (n.lazyChildren ? n.lazyChildren() : []))]);
}

describe('pending pin / unpin / remove: shown at once, with the cost and Undo', () => {
  it('Remove of an item earlier turns sent: the banner says it breaks the cache, with the uncached tokens before and after', async () => {
    const session = await chatWithTwoFiles();
    const s = standIn(session);
    const pending = new PendingFeedback(s.controller, session);
    assert.equal(pending.remove('file:src/a.ts'), true);
    assert.equal(s.banners.length, 1);
    const banner = s.banners[0];
    assert.deepEqual(banner.actions, ['undo']);
    const m =
      /^src\/a\.ts: removed from next message\. Removing breaks the cache: next message ~([\d,]+) → ~([\d,]+) uncached tokens\.$/.exec(
        banner.message,
      );
    assert.ok(m, banner.message);
    const [before, after] = [Number(m[1].replace(/,/g, '')), Number(m[2].replace(/,/g, ''))];
    assert.ok(after > before + 1000, `${before} → ${after}`);
    assert.equal(s.changes(), 1, 'the tree is refreshed at once');

    // The tree: listed under Next message with Undo; the item's row says it is removed.
    const nodes = tree(session, pending);
    const next = nodes.find((n) => n.label === 'Next message')!;
    assert.equal(next.description, '1 pending');
    assert.equal(next.expanded, true);
    const row = next.children!.find((c) => c.contextValue === 'pending')!;
    // The figures first, then the base name: a narrow side bar cuts the name, not the figures.
    assert.match(row.label, /^~[\d,]+ → ~[\d,]+ · a\.ts$/);
    assert.equal(row.name, 'src/a.ts');
    assert.equal(row.icon, 'removed');
    assert.equal(row.ref, 'file:src/a.ts');
    assert.equal(row.description, 'uncached tokens · removed from next message');
    const item = flatten(nodes).find((n) => n.ref === 'file:src/a.ts' && n.contextValue.startsWith('pending.attachment'));
    assert.ok(item, 'the item row is marked');
    assert.equal(item.icon, 'removed');
    assert.match(item.description!, /^removed from next message · /);

    // Undo (the panel's banner): the request is as before, the banner and the rows go.
    assert.equal(await pending.undo({ bannerId: banner.id }), true);
    assert.deepEqual(s.banners, []);
    assert.deepEqual(pending.items(), []);
    assert.equal(
      session.chatItems().find((i) => i.id === 'file:src/a.ts')!.pending,
      undefined,
      'the session holds no pending operation any more',
    );
    assert.ok(!flatten(tree(session, pending)).some((n) => n.contextValue.startsWith('pending')));
  });

  it('Pin shows on the row and keeps the cache; Undo from the tree row; a send settles it', async () => {
    const session = await chatWithTwoFiles();
    const s = standIn(session);
    const pending = new PendingFeedback(s.controller, session);
    assert.equal(pending.setPinned('file:src/b.ts', true), true);
    assert.match(
      s.banners[0].message,
      /^src\/b\.ts: pinned from the next message on\. Pinning keeps the cache: next message ~[\d,]+ uncached tokens\.$/,
    );
    const item = flatten(tree(session, pending)).find((n) => n.ref === 'file:src/b.ts' && n.contextValue.startsWith('pending'))!;
    assert.equal(item.status, 'pinned');
    assert.equal(await pending.undo({ ref: 'file:src/b.ts' }), true);
    assert.deepEqual(s.banners, []);

    // Set again, then sent: nothing is pending any more.
    pending.remove('file:src/b.ts');
    await session.send('three', new ScriptedProvider(() => 'ok'), GPT);
    assert.deepEqual(pending.items(), []);
    assert.deepEqual(s.banners, [], 'the banner goes with it');
  });

  it('a chip taken off the next message from the tree comes back with Undo', async () => {
    const session = await chatWithTwoFiles();
    const s = standIn(session);
    const pending = new PendingFeedback(s.controller, session);
    const chip = (await session.attach({ kind: 'file', path: 'src/c.ts' })) as { ok: true; chip: { id: string } };
    assert.equal(pending.remove(chip.chip.id), true);
    assert.deepEqual(session.chips(), []);
    const row = tree(session, pending)
      .find((n) => n.label === 'Next message')!
      .children!.find((c) => c.contextValue === 'pending')!;
    assert.equal(row.name, 'src/c.ts');
    assert.equal(await pending.undo({ ref: row.ref }), true);
    assert.deepEqual(
      session.chips().map((c) => c.label),
      ['src/c.ts'],
    );
  });

  it("a chip's ×: kept in its place with what it costs, listed under Next message, Undo gives back the same chip", async () => {
    const session = await chatWithTwoFiles();
    const s = standIn(session);
    const pending = new PendingFeedback(s.controller, session);
    const ids: string[] = [];
    for (const path of ['src/c.ts', 'src/a.ts']) {
      const r = await session.attach({ kind: 'file', path });
      assert.ok(r.ok);
      ids.push(r.chip.id);
    }
    const before = session.chips();
    const changes = s.changes();
    assert.equal(pending.remove(ids[0]), true);
    assert.ok(s.changes() > changes, 'the panel and the tree are told at once');
    assert.deepEqual(s.banners, [], 'the chip says it itself: no banner');
    assert.deepEqual(
      session.chips().map((c) => c.id),
      [ids[1]],
      'not on the next message',
    );
    const shown = session.composer.panelViews();
    assert.deepEqual(
      shown.map((c) => c.id),
      ids,
      'the panel still shows it, in its place',
    );
    const m = /^src\/c\.ts: removed from next message\. Removing: next message ~([\d,]+) → ~([\d,]+) uncached tokens\.$/.exec(
      shown[0].removed?.message ?? '',
    );
    assert.ok(m, shown[0].removed?.message);
    assert.ok(Number(m[2].replace(/,/g, '')) < Number(m[1].replace(/,/g, '')), 'a fresh chip taken off lowers the next request');
    const next = tree(session, pending).find((n) => n.label === 'Next message')!;
    assert.equal(next.description, '1 pending');
    const row = next.children!.find((c) => c.contextValue === 'pending')!;
    assert.equal(row.name, 'src/c.ts');
    assert.match(row.label, /^~[\d,]+ → ~[\d,]+ · c\.ts$/);
    assert.equal(row.icon, 'removed');
    assert.equal(row.description, 'uncached tokens · removed from next message');

    // Undo (the chip's own, as the panel asks it): the same chip, same id, same place.
    assert.equal(await pending.undo({ ref: ids[0] }), true);
    assert.deepEqual(session.chips(), before);
    assert.deepEqual(session.composer.panelViews(), before);
    assert.deepEqual(pending.items(), []);
    assert.equal(await pending.undo({ ref: ids[0] }), false, 'nothing left to undo');
  });

  it("a chip's × is committed by the send, or at once when dismissed", async () => {
    const session = await chatWithTwoFiles();
    const s = standIn(session);
    const pending = new PendingFeedback(s.controller, session);
    const c = await session.attach({ kind: 'file', path: 'src/c.ts' });
    assert.ok(c.ok);
    pending.remove(c.chip.id);
    assert.equal(pending.items().length, 1);
    const sent = await session.send('three', new ScriptedProvider(() => 'ok'), GPT);
    assert.ok(!sent.envelope!.messages.some((msg) => JSON.stringify(msg).includes('export const c = 1;')), 'not sent');
    assert.deepEqual(session.composer.panelViews(), [], 'the send takes it away for good');
    assert.deepEqual(pending.items(), []);
    assert.equal(await pending.undo({ ref: c.chip.id }), false);

    const again = await session.attach({ kind: 'file', path: 'src/c.ts' });
    assert.ok(again.ok);
    pending.remove(again.chip.id);
    assert.equal(pending.dismiss(again.chip.id), true);
    assert.deepEqual(session.composer.panelViews(), []);
    assert.deepEqual(pending.items(), []);
    assert.equal(pending.dismiss(again.chip.id), false);
  });

  it('the cost sentence: breaks, keeps, or lowers', () => {
    assert.equal(
      pendingCostText({ op: 'detach', before: 1240, after: 9870 }),
      'Removing breaks the cache: next message ~1,240 → ~9,870 uncached tokens',
    );
    assert.equal(pendingCostText({ op: 'unpin', before: 80, after: 80 }), 'Unpinning keeps the cache: next message ~80 uncached tokens');
    assert.equal(pendingCostText({ op: 'detach', before: 900, after: 100 }), 'Removing: next message ~900 → ~100 uncached tokens');
    assert.equal(pendingCostText({ op: 'pin' }), undefined);
  });

  it('the manifest offers Undo inline on pending rows, and Pin / Remove not on them', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', '..', '..', '..', 'package.json'), 'utf8')) as {
      contributes: { menus: Record<string, { command: string; when?: string; group?: string }[]> };
    };
    const items = pkg.contributes.menus['view/item/context'];
    const undo = items.find((i) => i.command === 'strata.undoPending' && i.group?.startsWith('inline'));
    assert.ok(undo && /viewItem =~ \/\^pending\//.test(undo.when ?? ''));
    for (const cmd of ['strata.pin', 'strata.removeAttachment']) {
      for (const i of items.filter((x) => x.command === cmd)) {
        const re = new RegExp(/viewItem =~ \/(.*)\/$/.exec(i.when ?? '')![1].replace(/\\\\/g, '\\'));
        assert.ok(!re.test('pending.attachment') && !re.test('pending'), `${cmd} is not offered on a pending row`);
      }
    }
  });
});
