/**
 * The "In context" row above the input and the chat's cost beside the meter: their text, the keyboard
 * (Tab to the row, Enter opens it, Tab through Pin / Remove, Escape closes it), the requests they send,
 * Undo in place after Remove (axe checks the row open in accessibility.test.ts).
 */
import * as assert from 'node:assert/strict';
import type { InContextView } from '../../src/protocol/messages';
import { assistantMessage, meter, state, userMessage } from './fixtures';
import type { Panel } from './harness';
import { panelSuite } from './suite';

const IN_CONTEXT: InContextView = {
  items: [
    { ref: 'instructions:AGENTS.md', kind: 'instructions', label: 'AGENTS.md', tokens: 212, pinned: false },
    { ref: 'file:src/cart.ts', kind: 'file', label: 'src/cart.ts', tokens: 2_911, pinned: false },
    { ref: 'file:src/catalog.ts', kind: 'file', label: 'src/catalog.ts', tokens: 5_640, pinned: true },
  ],
  tokens: 8_763,
};

async function focusedTestId(p: Panel): Promise<string | null> {
  return p.page.evaluate(
    () =>
      (
        globalThis as unknown as { document: { activeElement: { getAttribute(n: string): string | null } | null } }
      ).document.activeElement?.getAttribute('data-testid') ?? null,
  );
}

describe('chat panel: In context and the chat’s cost', function () {
  this.timeout(60_000);
  const { open } = panelSuite();

  it('says what rides along, opens to its items with their tokens, and acts on them from the keyboard', async () => {
    const p = await open({ width: 400, height: 700 });
    await p.init(state({ messages: [userMessage(1, 'One'), assistantMessage(1, 'Reply.')] }));
    const row = p.byTestId('strata-in-context');
    assert.equal(await row.isVisible(), false, 'hidden until the host says what is in context');
    // Instructions files alone (every chat's System layer) leave the conversation its room.
    const instructions = IN_CONTEXT.items.filter((i) => i.kind === 'instructions');
    await p.post({ type: 'inContext', inContext: { items: instructions, tokens: instructions.reduce((n, i) => n + i.tokens, 0) } });
    await p.settle();
    assert.equal(await row.isVisible(), false, 'instructions files alone take no line');
    await p.post({ type: 'inContext', inContext: IN_CONTEXT });
    await p.settle();
    const toggle = p.byTestId('strata-in-context-toggle');
    assert.equal(await toggle.innerText(), 'In context: 2 files, 1 instructions file · 8.8k');
    assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
    assert.equal(
      await toggle.getAttribute('aria-label'),
      'In context: 2 files, 1 instructions file · 8.8k (8,763 tokens the next message carries besides what you type)',
    );
    // Above the input, in the composer.
    const order = await p.page.evaluate(() => {
      const d = (
        globalThis as unknown as { document: { querySelector(s: string): { compareDocumentPosition(o: unknown): number } | null } }
      ).document;
      return d.querySelector('[data-testid="strata-in-context"]')!.compareDocumentPosition(d.querySelector('[data-testid="strata-input"]'));
    });
    assert.equal(order & 4, 4, 'the row comes before the input');

    await toggle.focus();
    await p.page.keyboard.press('Enter');
    assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
    const items = p.byTestId('strata-in-context-item');
    assert.deepEqual(
      (await items.allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim()),
      ['AGENTS.md 212', 'cart.ts 2.9k Pin Remove', 'catalog.ts 5.6k pinned Unpin Remove'],
    );
    assert.equal(await items.nth(1).getAttribute('title'), 'src/cart.ts: 2,911 tokens');
    // Tab reaches the first item's actions; Enter on Remove asks the host.
    await p.page.keyboard.press('Tab');
    assert.equal(await focusedTestId(p), 'strata-in-context-pin');
    await p.page.keyboard.press('Tab');
    assert.equal(await focusedTestId(p), 'strata-in-context-remove');
    assert.equal(await p.page.locator(':focus').getAttribute('aria-label'), 'Remove src/cart.ts from the next message on');
    await p.page.keyboard.press('Enter');
    const remove = await p.waitForRequest('inContextItem');
    assert.deepEqual(remove.request, { kind: 'inContextItem', ref: 'file:src/cart.ts', action: 'remove' });
    await p.respond(remove.requestId, { ok: true });
    // The host's new view: the item stays in its place, struck through, with Undo (the keyboard on it).
    await p.post({
      type: 'inContext',
      inContext: {
        items: [IN_CONTEXT.items[0], { ...IN_CONTEXT.items[1], tokens: 0, pending: 'detach' }, IN_CONTEXT.items[2]],
        tokens: 5_852,
      },
    });
    await p.settle();
    assert.equal(await toggle.innerText(), 'In context: 1 file, 1 instructions file · 5.9k');
    assert.equal((await items.nth(1).innerText()).replace(/\s+/g, ' ').trim(), 'cart.ts 0 removed from next message Undo');
    await p.byTestId('strata-in-context-undo').click();
    await p.settle();
    const undo = await p.waitForRequest('inContextItem');
    assert.deepEqual(undo.request, { kind: 'inContextItem', ref: 'file:src/cart.ts', action: 'undo' });
    // Escape closes the list and returns to the toggle.
    await p.byTestId('strata-in-context-unpin').focus();
    await p.page.keyboard.press('Escape');
    assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
    assert.equal(await focusedTestId(p), 'strata-in-context-toggle');
    // Another chat: the row goes until that chat's view arrives.
    await p.post({ type: 'state', state: state({ chatId: 'chat-other', messages: [] }) });
    await p.settle();
    assert.equal(await row.isVisible(), false);
  });

  it('shows the chat’s cost beside the meter, and Set price… where no price is known', async () => {
    const p = await open({ width: 400, height: 700 });
    await p.init(state({ meter: meter({ chatCost: 'Chat $0.052 · saved $0.024' }) }));
    const cost = p.byTestId('strata-chat-cost');
    assert.equal(await cost.innerText(), 'Chat $0.052 · saved $0.024');
    const [meterBox, costBox] = await Promise.all([p.byTestId('strata-meter').boundingBox(), cost.boundingBox()]);
    assert.ok(meterBox && costBox && costBox.x >= meterBox.x + meterBox.width - 1, 'beside the meter, on its right');
    assert.equal(await p.byTestId('strata-chat-set-price').isVisible(), false);
    await p.post({ type: 'meter', meter: meter({ chatCost: 'Chat: no price known', chatPriceMissing: true }) });
    await p.settle();
    assert.equal((await cost.innerText()).replace(/\s+/g, ' '), 'Chat: no price known Set price…');
    await p.byTestId('strata-chat-set-price').click();
    const open_ = await p.waitForRequest('openSetting');
    assert.deepEqual(open_.request, { kind: 'openSetting', setting: 'strata.prices' });
    await p.post({ type: 'meter', meter: meter() });
    await p.settle();
    assert.equal(await cost.isVisible(), false, 'no cost before a turn has usage');
  });
  it('in a narrow side bar the cost goes below the meter, the meter reads on one line, and the row wraps, cutting nothing', async () => {
    const p = await open({ width: 280, height: 700 });
    await p.init(
      state({
        messages: [userMessage(1, 'One'), assistantMessage(1, 'Reply.')],
        meter: meter({ used: 1_308, budget: 111_000, contextWindow: 128_000, chatCost: 'Chat $0.0057' }),
      }),
    );
    await p.post({
      type: 'inContext',
      inContext: {
        items: [
          ...IN_CONTEXT.items,
          { ref: 'sel:src/money.ts#L11-L17@ab12', kind: 'selection', label: 'src/money.ts:L11-17', tokens: 151, pinned: false },
        ],
        tokens: 8_914,
      },
    });
    await p.settle();
    const used = p.byTestId('strata-meter-used');
    assert.equal(await used.innerText(), '1.3k of 111k budget (128k window)');
    // 11 px text: one line is under 20 px high, two are over 26.
    const usedBox = (await used.boundingBox())!;
    assert.ok(usedBox.height < 20, `one line: ${usedBox.height}px`);
    const [meterBox, costBox] = await Promise.all([p.byTestId('strata-meter').boundingBox(), p.byTestId('strata-chat-cost').boundingBox()]);
    assert.ok(meterBox && costBox && costBox.y >= meterBox.y + meterBox.height - 1, 'the cost below the meter');
    const toggle = p.byTestId('strata-in-context-toggle');
    assert.equal(await toggle.innerText(), 'In context: 2 files, 1 selection, 1 instructions file · 8.9k');
    const cut = await p.page.locator('.in-context-text').evaluate((el) => el.scrollWidth > el.clientWidth + 1);
    assert.equal(cut, false, 'the summary and its total are whole');
  });
});
