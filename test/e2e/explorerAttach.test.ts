/**
 * Attaching from the Explorer while the Strata view is hidden, in the real workbench: the Explorer
 * holds the side bar, a right-click on a file offers Strata › Attach File to Strata, and choosing it
 * brings the chat view into sight with the file's chip. Screenshots at 1280×800.
 */
import * as assert from 'node:assert/strict';
import { ChatPanel, normalize, TEST_ID } from './support/chatPanel';
import { freshChat } from './support/freshChat';
import { e2eSession, type E2ESession } from './support/session';
import { Steps } from './support/steps';
import { chatFrame, clickControl, dismissHovers, poll, showActivity, TIMEOUT } from './support/workbench';

const FILE = 'src/render.ts';
const COMMAND = 'Attach File to Strata';

describe('e2e: attaching from the Explorer', function () {
  this.timeout(300_000);
  let session: E2ESession;

  before(async function () {
    this.timeout(180_000);
    session = await e2eSession();
  });

  it('Strata › Attach File to Strata in the Explorer brings the chat view into sight with the chip', async () => {
    const steps = new Steps(session, 'explorer-attach');
    const { page } = session;
    let panel = await freshChat(steps, session);
    const strataTitle = page.locator('.part.sidebar .composite.title', { hasText: 'Strata' }).first();

    const row = await steps.run('the Explorer holds the side bar, the chat view hidden', async () => {
      await showActivity(page, 'Explorer');
      const folder = page.locator('.part.sidebar .monaco-list-row[aria-label="src"][aria-level="1"]').first();
      await folder.waitFor({ state: 'visible', timeout: TIMEOUT.ui });
      if ((await folder.getAttribute('aria-expanded')) !== 'true') await clickControl(page, folder);
      const file = page.locator('.part.sidebar .monaco-list-row[aria-label="render.ts"][aria-level="2"]').first();
      await file.waitFor({ state: 'visible', timeout: TIMEOUT.ui });
      assert.equal(await strataTitle.isVisible(), false, 'the Strata view is not in sight');
      return file;
    });

    await steps.run('right-click › Strata offers Attach File to Strata', async () => {
      await dismissHovers(page);
      await row.click({ button: 'right' });
      // Strata's items are in its own submenu of the Explorer's context menu.
      const submenu = page.locator('.monaco-menu .action-item .action-label', { hasText: /^Strata$/ }).first();
      await submenu.waitFor({ state: 'visible', timeout: TIMEOUT.ui });
      await submenu.hover();
      const item = page.locator('.monaco-menu .action-item .action-label', { hasText: COMMAND }).first();
      await poll('the Strata submenu open', TIMEOUT.ui, async () => {
        if (await item.isVisible()) return true;
        await submenu.press('ArrowRight').catch(() => undefined);
        return undefined;
      });
    });

    await steps.run('choosing it brings the chat view into sight with the chip', async () => {
      await page.locator('.monaco-menu .action-item .action-label', { hasText: COMMAND }).first().click();
      await strataTitle.waitFor({ state: 'visible', timeout: TIMEOUT.ui });
      // The view's webview may be a new frame once shown again.
      panel = new ChatPanel(page, await chatFrame(page));
      await poll(`the ${FILE} chip`, TIMEOUT.ui, async () => {
        const labels = (await panel.frame.locator(`[data-testid="${TEST_ID.chip}"] .chip-label`).allInnerTexts()).map(normalize);
        return labels.length === 1 && labels[0] === FILE ? true : undefined;
      });
      assert.equal(await page.locator('.part.sidebar .monaco-list-row[aria-label="render.ts"][aria-level="2"]').isVisible(), false);
      assert.equal(await panel.byTestId(TEST_ID.chip).first().isVisible(), true, 'the chip is in sight');
    });

    await steps.run('chip removed, as found', () => panel.removeAllChips());
  });
});
