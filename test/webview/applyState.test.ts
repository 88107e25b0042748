/**
 * A code block's change as the host decided it, in the production panel bundle: the panel shows
 * only what `applyState` says ("Applied · Undo", "Applied 1 of 2 changes", "Rejected", "Undone"),
 * keeps it when the chat is shown again, and Undo asks the host (undoApply) without changing anything itself.
 * A state the host saved with the chat (`MessageView.applied`) is painted the same way after a reload,
 * with Undo only where the host says it still can.
 */
import * as assert from 'node:assert/strict';
import type { HostToWebviewMessage } from '../../src/protocol/messages';
import { assistantMessage, state, userMessage } from './fixtures';
import { panelSuite } from './suite';

const REPLY = [
  'Two files:',
  '',
  '```ts src/pricing.ts',
  'export const rate = 0.19;',
  '```',
  '',
  '```ts src/tax.ts',
  'export const tax = 7;',
  '```',
].join('\n');

function applyState(blockId: string, s: 'applied' | 'rejected' | 'undone', accepted: number, total: number): HostToWebviewMessage {
  return { type: 'applyState', blockId, state: s, accepted, total };
}

describe('chat panel: Applied, Rejected and Undo on a code block', function () {
  this.timeout(60_000);
  const { open } = panelSuite();

  it('shows what the host decided on the block it names, and Undo asks the host', async () => {
    const p = await open();
    await p.init(state({ messages: [userMessage(1, 'q'), assistantMessage(1, REPLY)] }));
    await p.autoRespond({ applyCode: { ok: true }, resolveCitations: { ok: true, value: [] }, undoApply: { ok: true } });
    assert.equal(await p.byTestId('strata-applied').count(), 0, 'nothing before the host says so');
    await p.byTestId('strata-apply').nth(1).click();
    const apply = await p.waitForRequest('applyCode');
    assert.equal(apply.request.blockId, 'chat-1/1:assistant/1');
    assert.equal(await p.byTestId('strata-applied').count(), 0, 'asking to apply is not applied');

    await p.post(applyState('chat-1/1:assistant/1', 'applied', 2, 2));
    await p.settle();
    const blocks = p.page.locator('.code-block');
    const status = blocks.nth(1).getByTestId('strata-applied');
    assert.equal((await status.innerText()).replace(/\s+/g, ' ').trim(), 'Applied · Undo');
    assert.equal(await status.getAttribute('data-state'), 'applied');
    assert.equal(await status.getAttribute('role'), 'status');
    assert.equal(await blocks.nth(0).getByTestId('strata-applied').count(), 0, 'the other block is untouched');
    assert.equal(await p.byTestId('strata-apply').count(), 2, 'Apply stays (the block can be applied again)');

    // Undo only asks: the state changes when the host says so.
    await status.getByTestId('strata-undo-apply').click();
    const undo = await p.waitForRequest('undoApply');
    assert.deepEqual(undo.request, { kind: 'undoApply', blockId: 'chat-1/1:assistant/1' });
    assert.equal(await status.getAttribute('data-state'), 'applied');
    await p.post(applyState('chat-1/1:assistant/1', 'undone', 0, 0));
    await p.settle();
    const after = blocks.nth(1).getByTestId('strata-applied');
    assert.equal(await after.count(), 1, 'one state per block');
    assert.equal((await after.innerText()).trim(), 'Undone');
    assert.equal(await after.getByTestId('strata-undo-apply').count(), 0);

    await p.post(applyState('chat-1/1:assistant/0', 'rejected', 0, 1));
    await p.post(applyState('chat-1/1:assistant/1', 'applied', 1, 2));
    await p.settle();
    assert.equal((await blocks.nth(0).getByTestId('strata-applied').innerText()).trim(), 'Rejected');
    assert.equal(await blocks.nth(0).getByTestId('strata-applied').getAttribute('data-state'), 'rejected');
    assert.equal(
      (await blocks.nth(1).getByTestId('strata-applied').innerText()).replace(/\s+/g, ' ').trim(),
      'Applied 1 of 2 changes · Undo',
    );
    await p.screenshot('applied-state');
    // Another chat's block, or a malformed message, changes nothing here.
    await p.post(applyState('chat-2/1:assistant/0', 'applied', 1, 1));
    await p.post({
      type: 'applyState',
      blockId: 'chat-1/1:assistant/0',
      state: 'done',
      accepted: 1,
      total: 1,
    } as unknown as HostToWebviewMessage);
    await p.settle();
    assert.equal((await blocks.nth(0).getByTestId('strata-applied').innerText()).trim(), 'Rejected');
    assert.deepEqual(await p.problems(), { violations: [], errors: [] });
  });

  it('keeps the state when the chat is shown again', async () => {
    const p = await open();
    const messages = [userMessage(1, 'q'), assistantMessage(1, REPLY)];
    await p.init(state({ messages }));
    await p.post(applyState('chat-1/1:assistant/0', 'applied', 1, 1));
    await p.settle();
    assert.equal(await p.byTestId('strata-applied').count(), 1);
    await p.post({ type: 'state', state: state({ messages }) });
    await p.settle();
    const status = p.page.locator('.code-block').nth(0).getByTestId('strata-applied');
    assert.equal((await status.innerText()).replace(/\s+/g, ' ').trim(), 'Applied · Undo');
  });

  it('paints the states a message arrives with, with Undo only where the host still can undo', async () => {
    const p = await open();
    const saved = assistantMessage(1, REPLY, {
      applied: [
        { block: 0, state: 'applied', accepted: 1, total: 1, undo: false },
        { block: 1, state: 'applied', accepted: 1, total: 2, undo: true },
      ],
    });
    await p.init(state({ messages: [userMessage(1, 'q'), saved] }));
    await p.settle();
    const blocks = p.page.locator('.code-block');
    const first = blocks.nth(0).getByTestId('strata-applied');
    assert.equal((await first.innerText()).replace(/\s+/g, ' ').trim(), 'Applied');
    assert.equal(await first.getAttribute('data-state'), 'applied');
    assert.equal(await first.getByTestId('strata-undo-apply').count(), 0, 'no Undo the host cannot do');
    const second = blocks.nth(1).getByTestId('strata-applied');
    assert.equal((await second.innerText()).replace(/\s+/g, ' ').trim(), 'Applied 1 of 2 changes · Undo');
    assert.equal(await second.getByTestId('strata-undo-apply').getAttribute('data-block-id'), 'chat-1/1:assistant/1');

    // Another chat, then this one again with other saved states (rejected; undone): they replace the painted ones.
    await p.post({ type: 'state', state: state({ chatId: 'chat-2', messages: [userMessage(1, 'other'), assistantMessage(1, REPLY)] }) });
    await p.settle();
    assert.equal(await p.byTestId('strata-applied').count(), 0, 'the other chat has no block applied');
    const again = assistantMessage(1, REPLY, {
      applied: [
        { block: 0, state: 'rejected', accepted: 0, total: 1 },
        { block: 1, state: 'undone', accepted: 0, total: 0 },
      ],
    });
    await p.post({ type: 'state', state: state({ messages: [userMessage(1, 'q'), again] }) });
    await p.settle();
    assert.deepEqual(
      await p.byTestId('strata-applied').evaluateAll((els) => els.map((e) => [e.getAttribute('data-state'), e.textContent?.trim()])),
      [
        ['rejected', 'Rejected'],
        ['undone', 'Undone'],
      ],
    );

    // Regenerate: the reply starts again and none of its blocks is decided.
    await p.post({ type: 'removeTurn', chatId: 'chat-1', turn: 1 });
    await p.post({
      type: 'turnStarted',
      chatId: 'chat-1',
      turnId: 't1',
      user: userMessage(1, 'q'),
      assistant: assistantMessage(1, '', { status: 'streaming' }),
    });
    await p.post({ type: 'turnEnded', chatId: 'chat-1', turnId: 't1', assistant: assistantMessage(1, REPLY), kept: true });
    await p.settle();
    assert.equal(await p.page.locator('.code-block').count(), 2);
    assert.equal(await p.byTestId('strata-applied').count(), 0);
    assert.deepEqual(await p.problems(), { violations: [], errors: [] });
  });
});
