/**
 * Finding a word in a long chat, in the real workbench. Another window of the folder writes a
 * 30-turn chat (60 messages: the panel opens it at its newest 50), with "ledger" four times: in turn
 * 3's question, twice in turn 5's answer and in turn 28's answer. Ctrl+F in the panel opens the
 * panel's find bar (`strata-find`): the count is exact (the earliest messages loaded to be searched),
 * and moving to an old hit lands on it, in view and highlighted. A History search hit opens the chat
 * scrolled to its first match, highlighted. Screenshots at 1280×800 and at a 260 px side bar.
 */
import * as assert from 'node:assert/strict';
import type { FrameLocator, Locator } from 'playwright-core';
import { modelInfo } from '../../src/services/modelInfo';
import { ScriptedProvider } from '../../src/services/providers/scripted';
import { ChatPanel, normalize, TEST_ID } from './support/chatPanel';
import { otherWindowSession, storeRoot } from './support/otherWindow';
import { e2eSession, IMITATION_MODEL, log, type E2ESession } from './support/session';
import { Steps } from './support/steps';
import { chatFrame, openStrataView, poll, setSidebarWidth, TIMEOUT, waitForWorkbench } from './support/workbench';

const TURNS = 30;
const WORD = 'ledger';
const TITLE = 'Thirty questions about the invoice totals';
const question = (t: number) =>
  t === 3 ? 'Question 3: where is the Ledger of issued invoices kept?' : `Question ${t}: how are the invoice lines totalled?`;
const answer = (t: number) => {
  if (t === 5) return 'Answer 5. The ledger is a plain array in src/invoice.ts; each ledger entry keeps its rounded total.';
  if (t === 28) return 'Answer 28. Nothing reaches the ledger before the totals are rounded to cents.';
  return `Answer ${t}. Each line applies its own discount before the tax, then rounds to cents; the total adds the rounded lines. ${'The figures stay in integer cents throughout. '.repeat(4)}`;
};

/** Where the current find hit is: its message's first words and whether it lies inside the conversation's view. */
interface CurrentHit {
  message: string;
  inView: boolean;
  hits: number;
  current: number;
}

/** Read in the panel's document (the root tsconfig has no DOM library, so the script is a string). */
const CURRENT_HIT = `(() => {
  const reg = CSS.highlights;
  const all = reg.get('strata-find');
  const cur = reg.get('strata-find-current');
  const view = document.querySelector('[data-testid="strata-conversation"]');
  if (!cur || cur.size !== 1 || !view) return undefined;
  const range = [...cur][0];
  const r = range.getBoundingClientRect();
  const v = view.getBoundingClientRect();
  const msg = range.startContainer.parentElement.closest('[data-testid="strata-message"]');
  return {
    message: (msg ? msg.textContent : '').trim().slice(0, 12),
    inView: r.height > 0 && r.top >= v.top && r.bottom <= v.bottom,
    hits: all ? all.size : 0,
    current: cur.size,
  };
})()`;

async function currentHit(frame: FrameLocator): Promise<CurrentHit | undefined> {
  return (await frame.locator('body').evaluate(CURRENT_HIT)) as CurrentHit | undefined;
}

/** Waits until the find bar says `count` and its current hit is in `message` (its first words), in view. */
async function landOn(panel: ChatPanel, count: string, message: string): Promise<CurrentHit> {
  const countEl = panel.byTestId('strata-find-count');
  let last: CurrentHit | undefined;
  let said = '';
  return poll(`the find bar to say "${count}" with the hit in view in "${message}"`, TIMEOUT.ui, async () => {
    said = normalize(await countEl.innerText());
    last = await currentHit(panel.frame);
    return said === count && last?.inView === true && last.message.startsWith(message) ? last : undefined;
  }).catch((e: Error) => {
    throw new Error(`${e.message}; it says "${said}", the current hit: ${JSON.stringify(last)}`);
  });
}

async function pressInFind(input: Locator, key: string): Promise<void> {
  await input.focus();
  await input.press(key);
}

describe('e2e: find in a 30-turn chat and open a History hit at the match', function () {
  this.timeout(360_000);
  let session: E2ESession;
  let panel: ChatPanel;
  let chatId: string;
  let originalWidth = 0;

  before(async function () {
    this.timeout(240_000);
    session = await e2eSession();
    const steps = new Steps(session, 'find-setup');
    const { page } = session;
    await steps.run('workbench loaded', () => waitForWorkbench(page));
    panel = await steps.run('chat panel open', async () => {
      await openStrataView(page);
      const p = new ChatPanel(page, await chatFrame(page));
      await p.waitUntilReady();
      return p;
    });
    originalWidth = (await page.locator('.part.sidebar').boundingBox())?.width ?? 0;
    chatId = await steps.run(`another window writes a ${TURNS}-turn chat`, async () => {
      const root = await poll("the folder's chat store", TIMEOUT.ui, async () => storeRoot(session));
      const other = otherWindowSession(session, root);
      other.newChat();
      other.setModel(modelInfo('openai', IMITATION_MODEL));
      const scripted = new ScriptedProvider();
      for (let t = 1; t <= TURNS; t++) {
        scripted.push(answer(t));
        const outcome = await other.send(question(t), scripted);
        assert.equal(outcome.status, 'done', `turn ${t}: ${outcome.status}`);
        if (t === 1) other.renameChat(other.activeChatId, TITLE);
      }
      return other.activeChatId;
    });
  });

  after(async function () {
    this.timeout(60_000);
    if (!session) return;
    if (originalWidth > 0) await setSidebarWidth(session.page, originalWidth).catch(() => undefined);
    await panel
      ?.byTestId(TEST_ID.newChat)
      .click({ timeout: TIMEOUT.ui })
      .catch((e: Error) => log(`could not reset the panel: ${e.message}`));
  });

  it('counts every hit, older messages included, and lands on an old one', async () => {
    const steps = new Steps(session, 'find');
    const { page } = session;
    await steps.run('the chat opened from the chat list, at its end', async () => {
      await panel.byTestId('strata-chat-title').click();
      const item = panel.frame.locator(`[data-testid="strata-chat-item"][data-chat-id="${chatId}"]`);
      await item.waitFor({ state: 'visible', timeout: TIMEOUT.ui });
      await item.click();
      await panel
        .messages('assistant')
        .filter({ hasText: `Answer ${TURNS}.` })
        .first()
        .waitFor({ state: 'visible', timeout: TIMEOUT.ui });
      assert.equal(await panel.byTestId(TEST_ID.message).count(), 50, 'messages in the panel right after opening');
    });
    const input = panel.byTestId('strata-find');
    await steps.run('Ctrl+F in the panel opens its find bar, not the editor’s', async () => {
      await panel
        .messages('assistant')
        .filter({ hasText: `Answer ${TURNS}.` })
        .first()
        .click();
      await page.keyboard.press('Control+f');
      await input.waitFor({ state: 'visible', timeout: TIMEOUT.ui });
      await poll('the find input to hold focus', TIMEOUT.ui, async () =>
        (await input.evaluate((el) => el === (el.ownerDocument as unknown as { activeElement: unknown }).activeElement)) ? true : undefined,
      );
      assert.equal(await page.locator('.part.editor .find-widget.visible').count(), 0, "the editor's Find did not open");
    });
    await steps.run(`"${WORD}": 4 hits, the first in turn 3's question, in view`, async () => {
      await page.keyboard.type(WORD);
      const hit = await landOn(panel, '1 of 4', 'Question 3:');
      assert.equal(hit.hits, 4, 'highlighted hits');
      assert.equal(await panel.byTestId(TEST_ID.message).count(), 2 * TURNS, 'every message loaded to be searched');
    });
    await steps.run('Shift+Enter goes back round to the newest hit, in turn 28', async () => {
      await pressInFind(input, 'Shift+Enter');
      await landOn(panel, '4 of 4', 'Answer 28.');
    });
    await steps.run('F3 goes on to the oldest hit: the view scrolls up and lands on it', async () => {
      await pressInFind(input, 'F3');
      await landOn(panel, '1 of 4', 'Question 3:');
      // Scrolled up from the end: the floating Latest button offers the way back.
      await panel.byTestId('strata-jump-latest').waitFor({ state: 'visible', timeout: TIMEOUT.ui });
    });
    await steps.run('Enter: the next hit, in turn 5', async () => {
      await pressInFind(input, 'Enter');
      await landOn(panel, '2 of 4', 'Answer 5.');
    });
    await steps.run('at a 260 px side bar the hit stays in view', async () => {
      // The drag starts with Escape (a hover in the way), which closes the find bar: Ctrl+F again
      // opens it with the same words, at the first hit.
      await setSidebarWidth(page, 260);
      await panel.byTestId('strata-conversation').focus();
      await page.keyboard.press('Control+f');
      await input.waitFor({ state: 'visible', timeout: TIMEOUT.ui });
      assert.equal(await input.inputValue(), WORD);
      await landOn(panel, '1 of 4', 'Question 3:');
      await pressInFind(input, 'Shift+F3');
      await landOn(panel, '4 of 4', 'Answer 28.');
    });
    await steps.run('side bar width restored', () => setSidebarWidth(page, originalWidth));
    await steps.run('Escape closes the find bar and clears the highlights', async () => {
      await pressInFind(input, 'Escape');
      await input.waitFor({ state: 'hidden', timeout: TIMEOUT.ui });
      await poll('no highlight left', TIMEOUT.ui, async () =>
        (await panel.frame.locator('body').evaluate(`(() => CSS.highlights.has('strata-find'))()`)) === false ? true : undefined,
      );
    });
  });

  it('opens a History search hit scrolled to the match, highlighted', async () => {
    const steps = new Steps(session, 'find-history');
    await steps.run('another chat is open', async () => {
      await panel.byTestId(TEST_ID.newChat).click();
      await poll('the new chat to be empty', TIMEOUT.ui, async () =>
        (await panel.messages('assistant').count()) === 0 ? true : undefined,
      );
    });
    const item = panel.frame.locator(`[data-testid="strata-history-item"][data-chat-id="${chatId}"]`);
    await steps.run(`History searched for "${WORD}" lists the chat with the words around it`, async () => {
      await panel.byTestId('strata-history-button').click();
      await panel.byTestId('strata-history').waitFor({ state: 'visible', timeout: TIMEOUT.ui });
      await panel.byTestId('strata-history-search').fill(WORD);
      await item.waitFor({ state: 'visible', timeout: TIMEOUT.ui });
      assert.match(normalize(await item.innerText()), new RegExp(TITLE));
      const excerpt = normalize(await item.locator('[data-testid="strata-history-excerpt"]').innerText());
      assert.match(excerpt, /ledger/i, `the excerpt: ${excerpt}`);
    });
    await steps.run('the hit opens the chat at the first match, highlighted', async () => {
      await item.click();
      await panel.byTestId('strata-history').waitFor({ state: 'hidden', timeout: TIMEOUT.ui });
      const input = panel.byTestId('strata-find');
      await input.waitFor({ state: 'visible', timeout: TIMEOUT.ui });
      assert.equal(await input.inputValue(), WORD);
      const hit = await landOn(panel, '1 of 4', 'Question 3:');
      assert.equal(hit.hits, 4, 'highlighted hits');
      // Not at the end: the view was scrolled up to the match.
      const atEnd = await panel.byTestId('strata-conversation').evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight < 2);
      assert.equal(atEnd, false, 'the chat opened at its end, not at the match');
    });
  });
});
