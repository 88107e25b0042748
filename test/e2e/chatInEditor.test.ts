/**
 * The chat in an editor tab, in the real workbench at 1280×800: "Strata: Open Chat in Editor" from
 * the Command Palette opens a "Strata Chat" tab beside the side bar's chat; a question asked in the
 * tab streams its reply in the tab and in the side view; after a window reload the tab comes back
 * with the chat; closing it leaves the side view as it was.
 */
import * as assert from 'node:assert/strict';
import type { FrameLocator, Page } from 'playwright-core';
import { ChatPanel, normalize, TEST_ID } from './support/chatPanel';
import { e2eSession, log, type E2ESession } from './support/session';
import { Steps } from './support/steps';
import { clickControl, openStrataView, poll, runCommand, TIMEOUT, waitForWorkbench } from './support/workbench';

const QUESTION = 'What does the tab show?';
const REPLY = 'The same chat as the side bar: this reply streams into both of them at once.';

/**
 * Reloads through "Developer: Reload Window", as a person does: the workbench saves its editors
 * before it unloads (a browser reload saves them only if the page's unload lets it finish).
 */
async function reloadThroughWorkbench(page: Page): Promise<void> {
  const loaded = page.waitForEvent('load', { timeout: TIMEOUT.workbench });
  // The palette's own close is not awaited: the page unloads under it.
  await runCommand(page, 'Developer: Reload Window').catch(() => undefined);
  await loaded;
  await waitForWorkbench(page);
}

/** The chat webview lying over `part` (`editor` or `sidebar`): another Strata webview is elsewhere. */
async function chatFrameIn(page: Page, part: 'editor' | 'sidebar'): Promise<FrameLocator> {
  return poll(
    `the Strata chat webview in the ${part}`,
    TIMEOUT.webview,
    async () => {
      const area = await page.locator(`.part.${part}`).first().boundingBox();
      if (!area) return undefined;
      const outer = page.locator('iframe.webview.ready');
      const count = await outer.count();
      for (let i = 0; i < count; i++) {
        const box = await outer.nth(i).boundingBox();
        if (!box || box.width === 0) continue;
        const cx = box.x + box.width / 2;
        const cy = box.y + box.height / 2;
        if (cx < area.x || cx > area.x + area.width || cy < area.y || cy > area.y + area.height) continue;
        const inner = outer.nth(i).contentFrame().locator('iframe#active-frame').contentFrame();
        const scripts = await inner
          .locator('script[src*="strata-dev.strata"]')
          .count()
          .catch(() => 0);
        if (scripts > 0) return inner;
      }
      return undefined;
    },
    250,
  );
}

function chatTab(page: Page) {
  return page.locator('.part.editor .tabs-container .tab', { hasText: 'Strata Chat' });
}

describe('e2e: the chat in an editor tab', function () {
  this.timeout(240_000);
  let session: E2ESession;

  before(async function () {
    this.timeout(180_000);
    session = await e2eSession();
  });

  // The tests after this one find the chat by its webview: only the side view's is left open.
  after(async function () {
    this.timeout(60_000);
    if (!session) return;
    await runCommand(session.page, 'View: Close All Editors').catch(() => undefined);
  });

  it('opens the chat in an editor tab that shows the same chat as the side view, and restores it after a reload', async () => {
    const steps = new Steps(session, 'editor-tab');
    const { page, imitation } = session;

    await steps.run('workbench loaded', () => waitForWorkbench(page));
    const side = await steps.run('side bar chat open in a new chat', async () => {
      await openStrataView(page);
      const p = new ChatPanel(page, await chatFrameIn(page, 'sidebar'));
      await p.waitUntilReady();
      await p.byTestId(TEST_ID.newChat).click();
      return p;
    });
    const tab = await steps.run('Strata: Open Chat in Editor opens a Strata Chat tab', async () => {
      await runCommand(page, 'Strata: Open Chat in Editor');
      await chatTab(page).first().waitFor({ state: 'visible', timeout: TIMEOUT.ui });
      const p = new ChatPanel(page, await chatFrameIn(page, 'editor'));
      await p.waitUntilReady();
      return p;
    });
    await steps.run('the tab is wide and tall enough to read', async () => {
      const editor = await page.locator('.part.editor').first().boundingBox();
      const conversation = await tab.byTestId('strata-conversation').boundingBox();
      assert.ok(editor && conversation, 'the editor area and the conversation are on screen');
      log(
        `editor tab: conversation ${Math.round(conversation.width)}×${Math.round(conversation.height)} px in a ${Math.round(editor.width)}×${Math.round(editor.height)} px editor area`,
      );
      assert.ok(conversation.width > 600, `the conversation is ${Math.round(conversation.width)} px wide`);
    });
    await steps.run('running it again keeps one tab', async () => {
      await runCommand(page, 'Strata: Open Chat in Editor');
      await page.waitForTimeout(300);
      assert.equal(await chatTab(page).count(), 1, 'one Strata Chat tab');
    });

    const assistantBefore = await tab.messages('assistant').count();
    imitation.queueReply(REPLY);
    await steps.run('a question asked in the tab is answered in the tab', async () => {
      await tab.typeAndSend(QUESTION);
      await tab.messages('user').filter({ hasText: QUESTION }).first().waitFor({ state: 'visible', timeout: TIMEOUT.ui });
      const { text } = await tab.followReply(REPLY, assistantBefore);
      assert.ok(normalize(text).startsWith(normalize(REPLY)), `the tab shows: ${text}`);
    });
    await steps.run('the side view shows the same question and reply', async () => {
      await side.messages('user').filter({ hasText: QUESTION }).first().waitFor({ state: 'visible', timeout: TIMEOUT.ui });
      await side
        .messages('assistant')
        .filter({ hasText: normalize(REPLY) })
        .first()
        .waitFor({ state: 'visible', timeout: TIMEOUT.ui });
    });

    await steps.run('window reloaded', () => reloadThroughWorkbench(page));
    await steps.run('the Strata Chat tab is back with the chat', async () => {
      await chatTab(page).first().waitFor({ state: 'visible', timeout: TIMEOUT.webview });
      await clickControl(page, chatTab(page).first());
      const restored = new ChatPanel(page, await chatFrameIn(page, 'editor'));
      await restored.waitUntilReady();
      await restored.messages('user').filter({ hasText: QUESTION }).first().waitFor({ state: 'visible', timeout: TIMEOUT.ui });
      await restored
        .messages('assistant')
        .filter({ hasText: normalize(REPLY) })
        .first()
        .waitFor({ state: 'visible', timeout: TIMEOUT.ui });
    });
    await steps.run('closing the tab leaves the side view with the chat', async () => {
      await runCommand(page, 'View: Close All Editors');
      await chatTab(page).first().waitFor({ state: 'detached', timeout: TIMEOUT.ui });
      await openStrataView(page);
      const again = new ChatPanel(page, await chatFrameIn(page, 'sidebar'));
      await again.waitUntilReady();
      await again
        .messages('assistant')
        .filter({ hasText: normalize(REPLY) })
        .first()
        .waitFor({ state: 'visible', timeout: TIMEOUT.ui });
    });
  });
});
