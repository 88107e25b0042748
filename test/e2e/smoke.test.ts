/**
 * Smoke: the packaged extension, installed into a private extensions dir with
 * `code-server --install-extension`, shows up in the real workbench and its chat webview loads.
 * Needs nothing of the chat panel beyond the view itself.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { repoRoot } from './support/harness';
import { e2eSession, type E2ESession } from './support/session';
import { Steps } from './support/steps';
import { chatFrame, openStrataView, poll, runCommand, TIMEOUT, waitForWorkbench } from './support/workbench';

const { publisher, name, version } = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {
  publisher: string;
  name: string;
  version: string;
};

describe('e2e smoke: Strata in the real workbench', function () {
  this.timeout(240_000);
  let session: E2ESession;

  before(async function () {
    this.timeout(180_000);
    session = await e2eSession();
  });

  it('opens the Strata view from the activity bar and loads the chat webview of the installed VSIX', async () => {
    const steps = new Steps(session, 'smoke');
    const { page } = session;

    await steps.run('workbench loaded', () => waitForWorkbench(page));
    await steps.run('Strata view opened from the activity bar', () => openStrataView(page));
    const frame = await steps.run('chat webview found', () => chatFrame(page));
    await steps.run('chat webview runs the installed extension', async () => {
      const src = (await frame.locator(`script[src*="${publisher}.${name}"]`).first().getAttribute('src', { timeout: TIMEOUT.ui })) ?? '';
      const installed = `${session.paths.extensionsDir}/${publisher}.${name}-${version}/`;
      assert.ok(decodeURIComponent(src).includes(installed), `the webview bundle comes from ${src}, not from ${installed}`);
      await poll('the webview to render something', TIMEOUT.webview, async () =>
        (await frame.locator('body').innerText()).trim() ? true : undefined,
      );
    });
    await steps.run('Context Layers view shown beside the chat', async () => {
      await page
        .locator('.part.sidebar .pane-header', { hasText: 'Context Layers' })
        .first()
        .waitFor({ state: 'visible', timeout: TIMEOUT.ui });
    });
    await steps.run('Strata commands in the Command Palette', async () => {
      await page.keyboard.press('F1');
      const input = page.locator('.quick-input-widget .quick-input-box input');
      await input.waitFor({ state: 'visible', timeout: TIMEOUT.ui });
      await input.fill('>Strata: Attach Selection');
      await page
        .locator('.quick-input-widget .quick-input-list .monaco-list-row[aria-label^="Strata: Attach Selection"]')
        // "Strata: Attach Selection with Definitions" matches too.
        .first()
        .waitFor({ state: 'visible', timeout: TIMEOUT.ui });
      await page.keyboard.press('Escape');
      await input.waitFor({ state: 'hidden', timeout: TIMEOUT.ui });
    });
    await steps.run('notifications cleared', () => runCommand(page, 'Notifications: Clear All Notifications'));
  });
});
