import * as assert from 'node:assert/strict';
import type { ChipView } from '../../src/protocol/messages';
import { assistantMessage, CHAT_ID, chips, state, userMessage } from './fixtures';
import type { Panel } from './harness';
import { panelSuite } from './suite';

/** Polls `fn` until it returns true (or throws after `timeoutMs`). */
async function until(what: string, fn: () => Promise<boolean>, timeoutMs = 4000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await fn()) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

function manyChips(count: number): ChipView[] {
  return Array.from({ length: count }, (_, i) => ({
    id: `chip-${i + 1}`,
    kind: 'file' as const,
    label: `src/module${i + 1}/component${i + 1}.ts`,
    tokens: 1_000 + i,
    pinned: false,
    detail: `component ${i + 1}`,
  }));
}

/** Whether the input has the keyboard focus. */
function inputFocused(p: Panel): Promise<boolean> {
  return p.byTestId('strata-input').evaluate((el) => el === (el.ownerDocument as { activeElement: unknown }).activeElement);
}

async function startStreaming(p: Panel): Promise<void> {
  await p.post({
    type: 'turnStarted',
    chatId: CHAT_ID,
    turnId: 't2',
    user: userMessage(2, 'more'),
    assistant: assistantMessage(2, '', { status: 'streaming' }),
  });
  await p.post({ type: 'chunk', chatId: CHAT_ID, turnId: 't2', seq: 0, text: 'Partial answ' });
  await p.settle();
}

describe('chat panel: room to read and the keyboard', function () {
  this.timeout(60_000);
  const { open } = panelSuite();

  it('Escape stops a streaming reply (and does nothing when idle)', async () => {
    const p = await open();
    await p.init(state({ messages: [userMessage(1, 'q'), assistantMessage(1, 'done')] }));
    await p.byTestId('strata-input').click();
    await p.page.keyboard.press('Escape');
    await p.settle();
    assert.equal((await p.requests()).filter((r) => r.request.kind === 'stop').length, 0, 'no stop while idle');

    await startStreaming(p);
    await p.byTestId('strata-input').click();
    await p.page.keyboard.press('Escape');
    const stop = await p.waitForRequest('stop');
    assert.deepEqual(stop.request, { kind: 'stop' });
    await p.respond(stop.requestId, { ok: true });

    // Escape elsewhere in the panel too (the conversation has the focus).
    await p.byTestId('strata-conversation').focus();
    await p.page.keyboard.press('Escape');
    await until('a second stop request', async () => (await p.requests()).filter((r) => r.request.kind === 'stop').length === 2);
  });

  it('an Escape that closes a menu does not also stop the reply', async () => {
    const p = await open();
    await p.init(state({ messages: [userMessage(1, 'q'), assistantMessage(1, 'done')] }));
    await p.autoRespond({ listModels: { ok: true, value: [] } });
    await startStreaming(p);
    await p.byTestId('strata-chat-title').click();
    await p.byTestId('strata-chat-list').waitFor({ state: 'visible' });
    await p.page.keyboard.press('Escape');
    await p.byTestId('strata-chat-list').waitFor({ state: 'hidden' });
    await p.settle();
    assert.equal((await p.requests()).filter((r) => r.request.kind === 'stop').length, 0);
  });

  it('more than two rows of chips collapse into "N attached", which opens and closes with the keyboard', async () => {
    const p = await open({ width: 300 });
    await p.init(state({ chips }));
    assert.equal(await p.byTestId('strata-chips-toggle').isVisible(), false, 'two chips stay listed');
    assert.equal(await p.byTestId('strata-chip').count(), 2);

    await p.post({ type: 'chips', chips: manyChips(4) });
    await p.settle();
    const toggle = p.byTestId('strata-chips-toggle');
    await toggle.waitFor({ state: 'visible' });
    assert.match((await toggle.textContent()) ?? '', /^4 attached/);
    assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
    assert.equal(await p.byTestId('strata-chips').isVisible(), false, 'the chips are folded away');
    const folded = (await p.byTestId('strata-input').boundingBox())!;

    await toggle.focus();
    await p.page.keyboard.press('Enter');
    await until('the chips to be listed', async () => await p.byTestId('strata-chips').isVisible());
    assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
    assert.equal(await p.byTestId('strata-chip').count(), 4);
    assert.equal(
      await toggle.evaluate((el) => el === (el.ownerDocument as { activeElement: unknown }).activeElement),
      true,
      'the toggle keeps the focus',
    );
    await p.page.keyboard.press('Space');
    await until('the chips to fold again', async () => !(await p.byTestId('strata-chips').isVisible()));
    assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
    assert.ok(folded.height > 0);

    // A wider view (the composer keeps its reading lane of about 90 characters) fits them in two rows: listed again, no toggle.
    await p.page.setViewportSize({ width: 1400, height: 700 });
    await until('the chips to be listed in a wide view', async () => await p.byTestId('strata-chips').isVisible());
    assert.equal(await toggle.isVisible(), false);
  });

  it('focus lands in the input after a send with the button and after New Chat', async () => {
    const p = await open();
    await p.init(state());
    await p.autoRespond({ newChat: { ok: true } });
    await p.byTestId('strata-input').fill('Explain the selection');
    await p.byTestId('strata-send').click();
    const send = await p.waitForRequest('send');
    await p.respond(send.requestId, { ok: true });
    await until('the input to have the focus after Send', () => inputFocused(p));

    await p.byTestId('strata-new-chat').click();
    await p.waitForRequest('newChat');
    await until('the input to have the focus after New Chat', () => inputFocused(p));
  });

  it('the chips of a sent message leave the composer; a refused send brings them back', async () => {
    const p = await open();
    await p.init(state({ chips }));
    const input = p.byTestId('strata-input');
    await input.fill('What does this do?');
    await input.press('Enter');
    const refused = await p.waitForRequest('send');
    await p.respond(refused.requestId, { ok: false, error: 'Another turn is running.' });
    await until('the text to come back', async () => (await input.inputValue()) === 'What does this do?');
    assert.equal(await p.byTestId('strata-chip').count(), 2, 'a refused message leaves its chips attached');

    await p.clearPosted();
    await input.press('Enter');
    const sent = await p.waitForRequest('send');
    await p.post({
      type: 'turnStarted',
      chatId: CHAT_ID,
      turnId: 't1',
      user: userMessage(
        1,
        'What does this do?',
        chips.map((c) => c.label),
      ),
      assistant: assistantMessage(1, '', { status: 'streaming' }),
    });
    await p.respond(sent.requestId, { ok: true });
    await p.settle();
    assert.equal(await p.byTestId('strata-chip').count(), 0, 'not shown while the reply streams');
    // A chip attached meanwhile is for the next message: it is listed, the sent ones are not.
    const next = manyChips(3)[2];
    await p.post({ type: 'chips', chips: [...chips, next] });
    await p.settle();
    assert.deepEqual(await p.byTestId('strata-chip').evaluateAll((els) => els.map((e) => e.getAttribute('data-chip-id'))), [next.id]);
    await p.post({ type: 'turnEnded', chatId: CHAT_ID, turnId: 't1', kept: true, assistant: assistantMessage(1, 'It adds.') });
    await p.post({ type: 'chips', chips: [next] });
    await p.settle();
    assert.equal(await p.byTestId('strata-chip').count(), 1);
  });
});
