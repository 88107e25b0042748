/**
 * Find in chat, in the production panel bundle: Ctrl+F opens the panel's find bar (not the
 * editor's), every message is searched (older ones loaded from the host first), hits are counted
 * and marked, F3 / Shift+F3 and Enter / Shift+Enter move between them, Escape closes; a floating
 * "Latest" button when scrolled up.
 */
import * as assert from 'node:assert/strict';
import { assistantMessage, CHAT_ID, state, userMessage } from './fixtures';
import type { Panel } from './harness';
import { panelSuite } from './suite';

async function until(what: string, fn: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await fn()) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A 30-turn chat; "zebra" once in turn 2's question and twice in turn 25's reply. */
function thirtyTurns() {
  const messages = [];
  for (let turn = 1; turn <= 30; turn++) {
    messages.push(userMessage(turn, turn === 2 ? 'Where is the Zebra crossing handled?' : `Question number ${turn} about the cache.`));
    messages.push(
      assistantMessage(
        turn,
        turn === 25
          ? 'The **zebra** table, then\n\n```ts\nconst zebra = 1;\n```'
          : `Answer ${turn}: the cache keeps the prefix stable.\n\n${'More words about layers. '.repeat(12)}`,
      ),
    );
  }
  return messages;
}

type Registry = { highlights: { get(name: string): { size: number } | undefined } };
const highlightSize = (p: Panel, name: string) =>
  p.page.evaluate((n) => (globalThis as unknown as { CSS: Registry }).CSS.highlights.get(n)?.size ?? 0, name);

describe('chat panel: find in chat', function () {
  this.timeout(90_000);
  const { open } = panelSuite();

  it('finds a word across all messages, older ones loaded first, and moves between hits by keyboard', async () => {
    const p = await open({ height: 600 });
    const all = thirtyTurns();
    await p.init(state({ messages: all.slice(20), hasOlder: true }));
    await p.byTestId('strata-conversation').focus();
    await p.page.keyboard.press('Control+f');
    const input = p.byTestId('strata-find');
    assert.equal(await input.isVisible(), true);
    assert.equal(
      await p.page.evaluate(() =>
        (globalThis as unknown as { document: { activeElement: { getAttribute(n: string): string } } }).document.activeElement.getAttribute(
          'data-testid',
        ),
      ),
      'strata-find',
    );
    await input.fill('ZEBRA');
    // The older turns come from the host first.
    const load = await p.waitForRequest('loadOlder');
    assert.deepEqual(load.request, { kind: 'loadOlder', chatId: CHAT_ID, beforeTurn: 11 });
    await p.post({ type: 'olderMessages', chatId: CHAT_ID, messages: all.slice(0, 20), hasOlder: false });
    await p.respond(load.requestId, { ok: true });
    const count = p.byTestId('strata-find-count');
    await until('three hits', async () => (await count.textContent()) === '1 of 3');
    assert.equal(await highlightSize(p, 'strata-find'), 3);
    assert.equal(await highlightSize(p, 'strata-find-current'), 1);
    // The first hit is in turn 2's question, scrolled into view.
    const inView = (id: string) =>
      p.page.locator(`[data-message-id="${id}"]`).evaluate((el) => {
        const r = el.getBoundingClientRect();
        const c = el.closest('.conversation')!.getBoundingClientRect();
        return r.bottom > c.top && r.top < c.bottom;
      });
    // Scrolled in the frame after the hit is chosen: a loaded machine may take more than one.
    await until("turn 2's question in view", () => inView('2:user'));
    assert.equal(await inView('25:assistant'), false);

    await p.page.keyboard.press('F3');
    assert.equal(await count.textContent(), '2 of 3');
    await until("turn 25's reply in view", () => inView('25:assistant'));
    await p.page.keyboard.press('Enter');
    assert.equal(await count.textContent(), '3 of 3', 'the hit inside the code block');
    await p.page.keyboard.press('Enter');
    assert.equal(await count.textContent(), '1 of 3', 'wraps around');
    await p.page.keyboard.press('Shift+F3');
    assert.equal(await count.textContent(), '3 of 3');
    await p.page.keyboard.press('Shift+Enter');
    assert.equal(await count.textContent(), '2 of 3');

    await input.fill('no such words');
    await until('no results', async () => (await count.textContent()) === 'No results');
    assert.equal(await highlightSize(p, 'strata-find'), 0);

    await input.fill('zebra');
    await until('three hits again', async () => (await count.textContent()) === '1 of 3');
    await p.page.keyboard.press('Escape');
    assert.equal(await input.isVisible(), false);
    assert.equal(await highlightSize(p, 'strata-find'), 0);
    // Escape closed the bar only: nothing was asked of the host.
    assert.equal((await p.requests()).filter((r) => r.request.kind === 'stop').length, 0);
  });

  it('shows "Latest" when scrolled up, and it goes back to the end', async () => {
    const p = await open({ height: 500 });
    await p.init(state({ messages: thirtyTurns().slice(20) }));
    const jump = p.byTestId('strata-jump-latest');
    assert.equal(await jump.isVisible(), false);
    const conv = p.byTestId('strata-conversation');
    await conv.evaluate((el) => {
      el.scrollTop = 0;
    });
    await until('Latest shown', () => jump.isVisible());
    await jump.click();
    await until('at the end', async () => conv.evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight <= 2));
    await until('Latest hidden', async () => !(await jump.isVisible()));
  });
});
