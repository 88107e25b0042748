import * as assert from 'node:assert/strict';
import { assistantMessage, state, userMessage } from './fixtures';
import { historyChats } from './historyFixtures';
import type { Panel } from './harness';
import { panelSuite } from './suite';

function texts(p: Panel, testid: string): Promise<string[]> {
  return p.page.locator(`[data-testid="strata-history"] ${testid}`).allInnerTexts();
}

async function openHistory(p: Panel): Promise<void> {
  await p.init(state({ chats: historyChats(), messages: [userMessage(1, 'Hi'), assistantMessage(1, 'Hello.')] }));
  await p.byTestId('strata-history-button').click();
  await p.byTestId('strata-history').waitFor({ state: 'visible' });
}

describe('chat history view (real browser)', function () {
  this.timeout(60_000);
  const suite = panelSuite();

  it('lists every chat under date headings with full titles, in place of the conversation', async () => {
    const p = await suite.open({ width: 300 });
    await openHistory(p);
    assert.equal(await p.byTestId('strata-conversation').isVisible(), false, 'the conversation makes room');
    assert.deepEqual(await texts(p, '.history-group-title'), ['TODAY', 'YESTERDAY', 'LAST 7 DAYS', 'SEPTEMBER 2026', 'AUGUST 2026']);
    const long = p.page.locator('[data-chat-id="chat-2"] .history-row-title');
    assert.equal(await long.innerText(), historyChats()[1].title, 'the whole title');
    const box = await long.boundingBox();
    assert.ok(box && box.height > 40, `a long title wraps (height ${box?.height})`);
    assert.equal(
      await p.byTestId('strata-history-search').evaluate((el) => el === (el.ownerDocument as { activeElement: unknown }).activeElement),
      true,
    );
    await p.page.keyboard.press('Escape');
    assert.equal(await p.byTestId('strata-history').isVisible(), false, 'Escape goes back to the chat');
    assert.equal(await p.byTestId('strata-conversation').isVisible(), true);
  });

  it('filters titles at once and shows what the host found in the chats’ text', async () => {
    const p = await suite.open();
    await openHistory(p);
    await p.byTestId('strata-history-search').fill('cache');
    await p.settle();
    assert.deepEqual(
      await p.byTestId('strata-history-item').evaluateAll((els) => els.map((e) => e.getAttribute('data-chat-id'))),
      ['chat-1', 'chat-2'],
      'titles filter before the host answers',
    );
    const asked = await p.waitForRequest('searchChats');
    assert.equal(asked.request.query, 'cache');
    await p.respond(asked.requestId, {
      ok: true,
      value: {
        hits: [{ chatId: 'chat-1' }, { chatId: 'chat-2' }, { chatId: 'chat-4', excerpt: '…the prompt cache holds when the block is…' }],
        complete: true,
      },
    });
    assert.deepEqual(await p.byTestId('strata-history-item').evaluateAll((els) => els.map((e) => e.getAttribute('data-chat-id'))), [
      'chat-1',
      'chat-2',
      'chat-4',
    ]);
    assert.deepEqual(await texts(p, '[data-testid="strata-history-excerpt"]'), ['…the prompt cache holds when the block is…']);
    assert.match(await p.byTestId('strata-history-status').innerText(), /3 chats mention “cache”/);
    await p.clearPosted();
    await p.byTestId('strata-history-search').fill('zebra');
    const none = await p.waitForRequest('searchChats');
    await p.respond(none.requestId, { ok: true, value: { hits: [], complete: false } });
    assert.match(await p.byTestId('strata-history-status').innerText(), /No chat mentions “zebra”/);
  });

  it('opens, renames and deletes from the keyboard; the host confirms a delete', async () => {
    const p = await suite.open();
    await openHistory(p);
    await p.page.keyboard.press('ArrowDown');
    await p.page.keyboard.press('ArrowDown');
    const row = p.page.locator('[data-chat-id="chat-2"]');
    assert.equal(
      await row.locator('.history-open').evaluate((el) => el === (el.ownerDocument as { activeElement: unknown }).activeElement),
      true,
    );
    await p.clearPosted();
    await p.page.keyboard.press('F2');
    const field = p.byTestId('strata-history-rename-input');
    await field.waitFor({ state: 'visible' });
    await field.fill('Prompt cache misses with tools');
    await field.press('Enter');
    const rename = await p.waitForRequest('renameChat');
    assert.deepEqual(rename.request, { kind: 'renameChat', chatId: 'chat-2', title: 'Prompt cache misses with tools' });
    await p.page.keyboard.press('Delete');
    const del = await p.waitForRequest('deleteChat');
    assert.deepEqual(del.request, { kind: 'deleteChat', chatId: 'chat-2', confirm: true }, 'the host asks and decides');
    // The host's list is what the view shows: the chat stays until the host says it is gone.
    assert.equal(await p.page.locator('[data-chat-id="chat-2"]').count(), 1);
    await p.post({
      type: 'chats',
      chats: historyChats().filter((c) => c.id !== 'chat-2'),
      chatId: 'chat-1',
      chatTitle: 'Refactor the tokenizer cache',
    });
    await p.settle();
    assert.equal(await p.page.locator('[data-chat-id="chat-2"]').count(), 0);
    await p.page.locator('[data-chat-id="chat-3"] .history-open').focus();
    await p.page.keyboard.press('Enter');
    const open = await p.waitForRequest('switchChat');
    assert.equal(open.request.chatId, 'chat-3');
    assert.equal(await p.byTestId('strata-history').isVisible(), false, 'opening a chat shows it');
  });
});
