/**
 * Room to read, in the real workbench at 1280×800: with Context Layers as it starts (collapsed)
 * and three chips attached, the conversation (`strata-conversation`, the scrolling message list)
 * gets most of the side bar's height; at a 260 px side bar its height is measured and printed.
 * Escape in the panel stops a reply the imitation server streams slowly.
 */
import * as assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { ChatPanel, TEST_ID } from './support/chatPanel';
import { e2eSession, log, type E2ESession } from './support/session';
import { Steps } from './support/steps';
import { chatFrame, openFile, openStrataView, poll, runCommand, setSidebarWidth, TIMEOUT, waitForWorkbench } from './support/workbench';

const FILES = ['src/money.ts', 'src/tax.ts', 'src/render.ts'];
/** Long enough to stream for many seconds (four characters every 40 ms). */
const SLOW_REPLY = Array.from({ length: 120 }, (_, i) => `Sentence ${i + 1} of a reply that streams slowly.`).join(' ');

interface Share {
  sidebar: number;
  conversation: number;
  width: number;
  share: number;
}

async function measure(page: Page, panel: ChatPanel): Promise<Share> {
  const sidebar = await page.locator('.part.sidebar').boundingBox();
  const conversation = await panel.byTestId('strata-conversation').boundingBox();
  assert.ok(sidebar && conversation, 'the side bar and the conversation are on screen');
  return {
    sidebar: Math.round(sidebar.height),
    conversation: Math.round(conversation.height),
    width: Math.round(sidebar.width),
    share: conversation.height / sidebar.height,
  };
}

describe('e2e: room to read and stopping with the keyboard', function () {
  this.timeout(240_000);
  let session: E2ESession;

  before(async function () {
    this.timeout(180_000);
    session = await e2eSession();
  });

  // The chips of a stopped reply stay attached: removed, so the next tests start without them.
  after(async function () {
    this.timeout(60_000);
    if (!session) return;
    const panel = new ChatPanel(session.page, await chatFrame(session.page));
    await panel.removeAllChips();
  });

  it('gives the conversation most of the side bar with three chips, and Escape stops a stream', async () => {
    const steps = new Steps(session, 'room');
    const { page, imitation } = session;

    await steps.run('workbench loaded', () => waitForWorkbench(page));
    const panel = await steps.run('chat panel open in a new chat', async () => {
      await openStrataView(page);
      const p = new ChatPanel(page, await chatFrame(page));
      await p.waitUntilReady();
      await p.byTestId(TEST_ID.newChat).click();
      return p;
    });
    await steps.run('Context Layers collapsed, as it starts', async () => {
      // Tests before this one expanded it (the workbench keeps a view's state as it was left).
      const header = page.locator('.part.sidebar .pane-header', { hasText: 'Context Layers' }).first();
      if ((await header.getAttribute('aria-expanded')) === 'true') await header.click();
      await poll('Context Layers to collapse', TIMEOUT.ui, async () =>
        (await header.getAttribute('aria-expanded')) === 'false' ? true : undefined,
      );
      await page.waitForTimeout(300);
    });
    const originalWidth = Math.round((await page.locator('.part.sidebar').boundingBox())?.width ?? 0);
    await steps.run('three files opened and attached', async () => {
      for (const file of FILES) await openFile(page, file);
      await runCommand(page, 'Strata: Attach Open Editors');
      await openStrataView(page);
      await poll('three chips', TIMEOUT.ui, async () => ((await panel.byTestId(TEST_ID.chip).count()) >= 3 ? true : undefined));
    });
    await steps.run('the conversation has at least 65% of the side bar at 1280×800', async () => {
      const m = await measure(page, panel);
      log(
        `conversation ${m.conversation} px of a ${m.sidebar} px side bar (${(m.share * 100).toFixed(1)}%), ${m.width} px wide, three chips attached`,
      );
      assert.ok(m.share >= 0.65, `the conversation gets ${(m.share * 100).toFixed(1)}% of the side bar`);
    });
    await steps.run('at a 260 px side bar', async () => {
      await setSidebarWidth(page, 260);
      await page.waitForTimeout(300);
      const m = await measure(page, panel);
      log(`at a ${m.width} px side bar: conversation ${m.conversation} px of ${m.sidebar} px (${(m.share * 100).toFixed(1)}%)`);
      assert.ok(m.share >= 0.5, `the conversation gets ${(m.share * 100).toFixed(1)}% of a 260 px side bar`);
    });
    await steps.run('side bar width restored', () => setSidebarWidth(page, originalWidth));

    const assistantBefore = await panel.messages('assistant').count();
    imitation.queueReply(SLOW_REPLY);
    await steps.run('a slow reply is streaming', async () => {
      await panel.typeAndSend('Tell me a long story.');
      await poll('the reply to start streaming', TIMEOUT.ui, async () => {
        if ((await panel.messages('assistant').count()) <= assistantBefore) return undefined;
        const text = await panel.messages('assistant').last().innerText();
        return /Sentence 1\b/.test(text) ? true : undefined;
      });
      assert.equal(await panel.byTestId(TEST_ID.stop).isVisible(), true, 'Stop is shown while the reply streams');
    });
    await steps.run('Escape in the panel stops it', async () => {
      await page.keyboard.press('Escape');
      await poll('the reply to be marked stopped', TIMEOUT.ui, async () =>
        (await panel.messages('assistant').last().getAttribute('data-status')) === 'stopped' ? true : undefined,
      );
      const shown = await panel.messages('assistant').last().innerText();
      assert.ok(!shown.includes('Sentence 120 '), 'the whole reply arrived: it was not stopped');
      await poll('Stop to go away', TIMEOUT.ui, async () => ((await panel.byTestId(TEST_ID.stop).isVisible()) ? undefined : true));
    });
  });
});
