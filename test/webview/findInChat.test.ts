/**
 * Find in chat, in the production panel bundle: Ctrl+F opens the panel's find bar (not the
 * editor's), every message is searched (older ones loaded from the host first), hits are counted
 * and marked, F3 / Shift+F3 and Enter / Shift+Enter move between them, Escape closes; a floating
 * "Latest" button when scrolled up.
 */
import * as assert from 'node:assert/strict';
import { assistantMessage, CHAT_ID, state, userMessage } from './fixtures';
import { historyChats } from './historyFixtures';
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

/** Whether the current hit lies wholly inside the conversation's view, after `frames` animation frames. */
const currentHitInView = (p: Panel, frames = 1) =>
  p.page.evaluate(async (n) => {
    const w = globalThis as unknown as {
      requestAnimationFrame(cb: () => void): void;
      CSS: { highlights: { get(name: string): Iterable<{ getBoundingClientRect(): DOMRectLike }> | undefined } };
      document: { querySelector(s: string): { getBoundingClientRect(): DOMRectLike } | null };
    };
    for (let i = 0; i < n; i++) await new Promise<void>((r) => w.requestAnimationFrame(() => r()));
    const current = w.CSS.highlights.get('strata-find-current');
    const view = w.document.querySelector('[data-testid="strata-conversation"]');
    if (!current || !view) return false;
    const [range] = [...current];
    const r = range.getBoundingClientRect();
    const v = view.getBoundingClientRect();
    return r.height > 0 && r.top >= v.top && r.bottom <= v.bottom;
  }, frames);
type DOMRectLike = { top: number; bottom: number; height: number };

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

  it('opens a History hit at its first match and keeps it there while the messages around it are laid out', async () => {
    const p = await open({ height: 600 });
    const all = thirtyTurns();
    // Another chat is open; the one found (CHAT_ID) opens at its end, as a switched-to chat does.
    await p.init(state({ chatId: 'chat-3', chats: historyChats(), messages: [userMessage(1, 'Hi'), assistantMessage(1, 'Hello.')] }));
    await p.byTestId('strata-history-button').click();
    await p.byTestId('strata-history-search').fill('zebra');
    const asked = await p.waitForRequest('searchChats');
    await p.respond(asked.requestId, {
      ok: true,
      value: { hits: [{ chatId: CHAT_ID, excerpt: '…is the Zebra crossing…' }], complete: true },
    });
    await p.page.locator(`[data-testid="strata-history"] [data-chat-id="${CHAT_ID}"] .history-open`).click();
    const open2 = await p.waitForRequest('switchChat');
    assert.equal(open2.request.chatId, CHAT_ID);
    await p.post({ type: 'state', state: state({ chats: historyChats(), messages: all.slice(20), hasOlder: true }) });
    const load = await p.waitForRequest('loadOlder');
    await p.post({ type: 'olderMessages', chatId: CHAT_ID, messages: all.slice(0, 20), hasOlder: false });
    await p.respond(load.requestId, { ok: true });
    const count = p.byTestId('strata-find-count');
    await until('three hits', async () => (await count.textContent()) === '1 of 3');
    assert.equal(await p.byTestId('strata-find').inputValue(), 'zebra');
    assert.equal(await highlightSize(p, 'strata-find'), 3);
    await until("the first hit (turn 2's question) in view", () => currentHitInView(p));
    // Held there: the messages laid out around it, and the end the chat opened at, do not pull the view away.
    assert.equal(await currentHitInView(p, 30), true, 'the hit left the view as the layout settled');
    const atEnd = await p.byTestId('strata-conversation').evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight <= 2);
    assert.equal(atEnd, false);
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
