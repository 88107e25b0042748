/**
 * Attach Selection with Definitions in the real workbench, as a person does it: lines of the sample
 * workspace's render.ts selected with the keyboard, the command picked from the editor's context
 * menu, the chip showing "+N definitions", and Context Layers listing each definition under the
 * selection, "used by selection". The built-in TypeScript language features answer; while the
 * TypeScript server still loads the project it knows the open file only, and the command is run
 * again from the Command Palette. A screenshot of each step is saved.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ChatPanel, normalize, TEST_ID } from './support/chatPanel';
import { e2eSession, log, type E2ESession } from './support/session';
import { Steps } from './support/steps';
import {
  activeEditor,
  chatFrame,
  openFile,
  openStrataView,
  poll,
  runCommand,
  selectLines,
  showContextLayers,
  TIMEOUT,
  waitForWorkbench,
} from './support/workbench';

const FILE = 'src/render.ts';
const START = 21;
const END = 26;
const COMMAND = 'Attach Selection with Definitions';

describe('e2e: Attach Selection with Definitions', function () {
  this.timeout(300_000);
  let session: E2ESession;

  before(async function () {
    this.timeout(180_000);
    session = await e2eSession();
  });

  it('from the context menu: the chip shows +N definitions and Context Layers lists them', async () => {
    const steps = new Steps(session, 'definitions');
    const { page } = session;
    const lines = fs.readFileSync(path.join(session.workspace, FILE), 'utf8').split('\n');
    const selected = lines.slice(START - 1, END).join('\n');
    try {
      await steps.run('workbench loaded', () => waitForWorkbench(page));
      const panel = await steps.run('chat panel open', async () => {
        await openStrataView(page);
        const p = new ChatPanel(page, await chatFrame(page));
        await p.waitUntilReady();
        await p.byTestId(TEST_ID.newChat).click();
        return p;
      });
      await steps.run('lines selected in render.ts', async () => {
        await openFile(page, FILE);
        await selectLines(page, START, END, selected.length);
      });
      await steps.run('context menu offers Attach Selection with Definitions', async () => {
        // Inside the selection: a right-click elsewhere would move the cursor and drop it.
        await activeEditor(page)
          .locator('.view-lines .view-line', { hasText: 'const t = totals(invoice);' })
          .first()
          .click({ button: 'right' });
        // Strata's items are in its own submenu of the editor's context menu.
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
      await steps.run('the command attaches the selection', async () => {
        await page.locator('.monaco-menu .action-item .action-label', { hasText: COMMAND }).first().click();
        await openStrataView(page);
        await poll('the selection chip', TIMEOUT.reply, async () =>
          (await panel.byTestId(TEST_ID.chip).count()) === 1 ? true : undefined,
        );
      });
      const chip = panel.byTestId(TEST_ID.chip).first();
      const count = await steps.run('the chip shows +N definitions', async () => {
        assert.equal(normalize((await chip.locator('.chip-label').innerText()) ?? ''), `${FILE}:L${START}-${END}`);
        // While the TypeScript server loads the project it knows this file only: the definitions in
        // other files come once it is loaded, so the command is run again until they are there.
        return poll(
          '+N definitions with totals and formatCents on the chip',
          TIMEOUT.reply * 3,
          async () => {
            const title = (await chip.getAttribute('title')) ?? '';
            const shown = chip.locator('[data-testid="strata-definitions-count"]');
            if ((await shown.count()) > 0 && title.includes('+ totals (') && title.includes('+ formatCents ('))
              return normalize(await shown.innerText());
            log('the TypeScript server has not loaded the project yet: the command runs again');
            await runCommand(page, `Strata: ${COMMAND}`);
            await page.waitForTimeout(2000);
            return undefined;
          },
          1000,
        );
      });
      const n = Number(/^\+(\d+) definitions?$/.exec(count)?.[1]);
      log(`the chip shows "${count}"`);
      assert.ok(n >= 2, `totals and formatCents at least: ${count}`);
      await steps.run('Context Layers lists each definition, used by selection', async () => {
        await showContextLayers(page);
        const rows = page.locator('[id="workbench.view.extension.strata"] .monaco-list-row');
        // The view keeps a row collapsed when it was collapsed before: a person opens it.
        // The selection's row reads `+<tokens> · render.ts:L…` (its path is in the tooltip).
        for (const name of ['Next message', ` · ${FILE.split('/').pop()}:L${START}-${END}`]) {
          const row = rows.filter({ has: page.locator('.label-name', { hasText: name }) }).first();
          await row.waitFor({ state: 'visible', timeout: TIMEOUT.ui });
          if ((await row.getAttribute('aria-expanded')) === 'false') await row.click();
        }
        const described = await poll('the definition rows', TIMEOUT.ui, async () => {
          const all = await rows.evaluateAll((els) =>
            els.map(
              (el) =>
                `${el.querySelector('.label-name')?.textContent ?? ''} — ${el.querySelector('.label-description')?.textContent ?? ''}`,
            ),
          );
          const defs = all.filter((r) => r.includes('used by selection'));
          return defs.length === n ? defs : undefined;
        });
        log(`definition rows: ${described.join(' | ')}`);
        assert.ok(
          described.some((r) => /^\+[\d,]+ · invoice\.ts:L\d+-\d+ — used by selection · totals$/.test(r.trim())),
          described.join(' | '),
        );
        assert.ok(
          described.some((r) => /^\+[\d,]+ · money\.ts:L\d+-\d+ — used by selection · formatCents$/.test(r.trim())),
          described.join(' | '),
        );
      });
    } finally {
      await page.keyboard.press('Escape');
      await runCommand(page, 'View: Close All Editors').catch((e: Error) => log(`could not close the editors: ${e.message}`));
    }
  });
});
