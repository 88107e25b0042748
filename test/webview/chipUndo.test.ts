/**
 * A chip's × is Remove with Undo: the host keeps the chip in its place, marked "removed from next
 * message"; the keyboard lands on Undo (Enter puts the chip back and returns to its ×; Escape forgets
 * it and returns to the input, without stopping a reply).
 */
import * as assert from 'node:assert/strict';
import type { ChipView } from '../../src/protocol/messages';
import { assistantMessage, CHAT_ID, chips, state, userMessage } from './fixtures';
import type { Panel } from './harness';
import { panelSuite } from './suite';

const MESSAGE = 'src/engine/tokenizer.ts: removed from next message. Removing: next message ~4,180 → ~768 uncached tokens.';

function takenOff(list: readonly ChipView[], id: string): ChipView[] {
  return list.map((c) => (c.id === id ? { ...c, removed: { message: MESSAGE } } : c));
}

interface Focusable {
  getAttribute(name: string): string | null;
  closest(selector: string): Focusable | null;
}

/** The element the keyboard is on: its `data-testid` and its chip's id. */
async function focused(p: Panel): Promise<{ testid: string | null; chipId: string | null }> {
  return p.page.evaluate(() => {
    const el = (globalThis as unknown as { document: { activeElement: Focusable | null } }).document.activeElement;
    return { testid: el?.getAttribute('data-testid') ?? null, chipId: el?.closest('[data-chip-id]')?.getAttribute('data-chip-id') ?? null };
  });
}

/** As the host does it: the chips first, then the answer. */
async function hostAnswers(p: Panel, requestId: number, list: ChipView[]): Promise<void> {
  await p.post({ type: 'chips', chips: list });
  await p.respond(requestId, { ok: true });
}

describe('chat panel: a chip removed with × shows it with Undo', function () {
  this.timeout(60_000);
  const { open } = panelSuite();

  it('× keeps the chip in its place, marked, with Undo focused; Enter on Undo restores it and returns to its ×', async () => {
    const p = await open({ width: 400, height: 700 });
    await p.init(state({ chips }));
    await p.byTestId('strata-chip').first().getByTestId('strata-chip-remove').click();
    const remove = await p.waitForRequest('removeChip');
    assert.deepEqual(remove.request, { kind: 'removeChip', chipId: 'chip-1' });
    await hostAnswers(p, remove.requestId, takenOff(chips, 'chip-1'));

    const removed = p.byTestId('strata-chip-removed');
    assert.equal(await removed.count(), 1);
    assert.equal(await p.byTestId('strata-chip').count(), 1, 'one chip left on the next message');
    // In its place: first in the list, before the chip that stays.
    const order = await p
      .byTestId('strata-chips')
      .locator('li')
      .evaluateAll((els) => els.map((e) => e.getAttribute('data-chip-id')));
    assert.deepEqual(order, ['chip-1', 'chip-2']);
    assert.match((await removed.innerText()).replace(/\s+/g, ' '), /src\/engine\/tokenizer\.ts removed from next message Undo/);
    assert.equal(await removed.getAttribute('title'), `${MESSAGE}\nUndo puts it back; sending the message removes it for good.`);
    const undo = removed.getByTestId('strata-chip-undo');
    assert.equal(await undo.getAttribute('aria-label'), `Undo — ${MESSAGE}`, 'a screen reader hears what it costs');
    assert.deepEqual(await focused(p), { testid: 'strata-chip-undo', chipId: 'chip-1' }, 'the keyboard lands on Undo');
    assert.equal(
      await p.byTestId('strata-input').getAttribute('placeholder'),
      'Ask about cache.ts:L12-30…',
      'the placeholder counts what is sent',
    );
    await p.screenshot('chip-removed-undo');

    await p.page.keyboard.press('Enter');
    const restore = await p.waitForRequest('restoreChip');
    assert.deepEqual(restore.request, { kind: 'restoreChip', chipId: 'chip-1' });
    await hostAnswers(p, restore.requestId, chips);
    assert.equal(await p.byTestId('strata-chip-removed').count(), 0);
    assert.deepEqual(await p.byTestId('strata-chip').evaluateAll((els) => els.map((e) => e.getAttribute('data-chip-id'))), [
      'chip-1',
      'chip-2',
    ]);
    assert.deepEqual(await focused(p), { testid: 'strata-chip-remove', chipId: 'chip-1' }, 'back on the restored chip’s ×');
  });

  it('from the keyboard: Enter on × then Escape forgets it, back to the input; that Escape does not stop a reply', async () => {
    const p = await open({ width: 400, height: 700 });
    await p.init(state({ chips }));
    await p.post({
      type: 'turnStarted',
      chatId: CHAT_ID,
      turnId: 't1',
      user: userMessage(1, 'Explain.'),
      assistant: assistantMessage(1, '', { status: 'streaming' }),
    });
    await p.settle();
    await p.byTestId('strata-chip').nth(1).getByTestId('strata-chip-remove').focus();
    await p.page.keyboard.press('Enter');
    const remove = await p.waitForRequest('removeChip');
    assert.deepEqual(remove.request, { kind: 'removeChip', chipId: 'chip-2' });
    await hostAnswers(p, remove.requestId, takenOff(chips, 'chip-2'));
    assert.deepEqual(await focused(p), { testid: 'strata-chip-undo', chipId: 'chip-2' });

    await p.page.keyboard.press('Escape');
    const dismiss = await p.waitForRequest('dismissRemovedChip');
    assert.deepEqual(dismiss.request, { kind: 'dismissRemovedChip', chipId: 'chip-2' });
    await hostAnswers(p, dismiss.requestId, [chips[0]]);
    assert.equal((await focused(p)).testid, 'strata-input');
    assert.equal(await p.byTestId('strata-chip-removed').count(), 0);
    assert.ok(!(await p.requests()).some((r) => r.request.kind === 'stop'), 'the reply goes on');
  });

  it('at a 260 px side bar the note and Undo wrap under the name: nothing cut', async () => {
    const p = await open({ width: 260, height: 600 });
    await p.init(state({ chips: takenOff(chips, 'chip-1') }));
    const removed = p.byTestId('strata-chip-removed');
    // An expression over the page: the tests' tsconfig has no DOM library.
    const cut = (await p.page.evaluate(
      `Array.from(document.querySelectorAll('[data-testid="strata-chip-removed"] :is(span, button)')).filter((el) => el.scrollWidth > el.clientWidth + 1).map((el) => el.textContent)`,
    )) as string[];
    assert.deepEqual(cut, []);
    const box = (await removed.boundingBox())!;
    const undo = (await p.byTestId('strata-chip-undo').boundingBox())!;
    assert.ok(undo.x + undo.width <= box.x + box.width, 'Undo inside the chip');
    assert.ok(box.x + box.width <= 260, 'the chip inside the panel');
    await p.screenshot('chip-removed-undo-260');
  });

  it('a refused Undo says why and leaves the chip as it was', async () => {
    const p = await open({ width: 400, height: 700 });
    await p.init(state({ chips: takenOff(chips, 'chip-1') }));
    await p.byTestId('strata-chip-undo').click();
    const restore = await p.waitForRequest('restoreChip');
    await p.respond(restore.requestId, { ok: false, error: 'That attachment can no longer be put back.' });
    assert.match((await p.byTestId('strata-status').textContent()) ?? '', /can no longer be put back/);
    assert.equal(await p.byTestId('strata-chip-removed').count(), 1);
  });
});
