/**
 * Feedback at once in the real workbench: Remove on a Context Layers row shows at once that the item
 * leaves the next message — the row marked, listed under "Next message", a banner in the panel saying
 * what it costs in uncached tokens, with Undo that takes it back. A chip's × does the same in the
 * chip's place, and Undo (from the keyboard) puts back the same chip. Export Chat names how many
 * attached files it embeds, offers to leave them out, and says where it wrote, with Open and Reveal.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ChatPanel, normalize } from './support/chatPanel';
import { freshChat } from './support/freshChat';
import { e2eSession, type E2ESession } from './support/session';
import { Steps } from './support/steps';
import {
  chatFrame,
  notifications,
  openFile,
  openStrataView,
  poll,
  runCommand,
  showContextLayers,
  TIMEOUT,
  waitForWorkbench,
} from './support/workbench';

const FILES = ['src/invoice.ts', 'src/money.ts', 'src/render.ts', 'src/tax.ts'];
const REMOVED = 'src/invoice.ts';

describe('e2e: feedback at once in the real workbench', function () {
  this.timeout(300_000);
  let session: E2ESession;

  before(async function () {
    this.timeout(180_000);
    session = await e2eSession();
  });

  it('a tree Remove shows pending with its cost and Undo; Export says what it embeds and where it wrote', async () => {
    const steps = new Steps(session, 'feedback');
    const { page } = session;
    await freshChat(steps, session);
    // Enough context for a cached prefix (over 1,024 tokens), so removing an early item breaks it.
    for (const file of FILES) await steps.run(`${file} opened`, () => openFile(page, file));
    await steps.run('Strata: Attach Open Editors', () => runCommand(page, 'Strata: Attach Open Editors'));
    await openStrataView(page);
    const panel = new ChatPanel(page, await chatFrame(page));
    await panel.waitUntilReady();
    const frame = await chatFrame(page);
    for (const q of ['How are the totals of an invoice computed?', 'And where is rounding done?']) {
      const replies = await panel.messages('assistant').count();
      await steps.run(`sent: ${q}`, () => panel.typeAndSend(q));
      await steps.run('reply complete', () =>
        poll('the reply to finish', TIMEOUT.reply, async () =>
          (await panel.messages('assistant').count()) > replies &&
          (await panel.messages('assistant').last().getAttribute('data-status')) === 'complete'
            ? true
            : undefined,
        ),
      );
    }

    const tree = page.locator('[id="workbench.view.extension.strata"]');
    const rows = tree.locator('.monaco-list-row');
    // An item row reads `<tokens> · <base name>` (its path is in the tooltip).
    const rowNamed = (path: string) =>
      rows.filter({
        has: page.locator('.label-name', { hasText: new RegExp(`(^|\\s)[\\d,]+ · ${path.split('/').pop()!.replace('.', '\\.')}\\s*$`) }),
      });
    await steps.run('Context Layers shows the attachment', async () => {
      await showContextLayers(page);
      // The workbench remembers a layer the user (or an earlier test) closed: L2 is opened if so.
      const l2 = rows.filter({ has: page.locator('.label-name', { hasText: 'Attachments' }) }).first();
      await l2.waitFor({ state: 'visible', timeout: TIMEOUT.ui });
      if ((await l2.getAttribute('aria-expanded')) === 'false') await l2.click();
      await poll(`a row for ${REMOVED}`, TIMEOUT.ui, async () => ((await rowNamed(REMOVED).count()) > 0 ? true : undefined));
    });

    await steps.run(`Remove on the ${REMOVED} row`, async () => {
      const row = rowNamed(REMOVED).first();
      await row.hover();
      await row.locator('.action-label[aria-label^="Remove Attachment"]').click();
    });
    const pendingText = await steps.run('pending at once: the row, Next message, the banner with Undo', async () => {
      const description = await poll('the row to say it is removed', TIMEOUT.ui, async () => {
        const texts = await rows.evaluateAll((els) =>
          els.map(
            (el) => `${el.querySelector('.label-name')?.textContent ?? ''}|${el.querySelector('.label-description')?.textContent ?? ''}`,
          ),
        );
        const name = ` · ${REMOVED.split('/').pop()}|`;
        return texts.find((t) => t.includes(name) && /\|removed from next message · /.test(t));
      });
      const next = await rows
        .filter({ has: page.locator('.label-name', { hasText: 'Next message' }) })
        .first()
        .innerText();
      assert.match(normalize(next), /1 pending/);
      const banner = frame.locator('[data-testid="strata-info"]').filter({ hasText: 'removed from next message' }).first();
      await banner.waitFor({ state: 'visible', timeout: TIMEOUT.ui });
      const text = normalize(await banner.innerText());
      assert.match(
        text,
        /src\/invoice\.ts: removed from next message\. Removing breaks the cache: next message ~[\d,]+ → ~[\d,]+ uncached tokens\./,
      );
      assert.equal(await banner.getByText('Undo').isVisible(), true);
      return `${description} / ${text}`;
    });
    const figures = /~([\d,]+) → ~([\d,]+) uncached/.exec(pendingText)!;
    assert.ok(Number(figures[2].replace(/,/g, '')) > Number(figures[1].replace(/,/g, '')), pendingText);
    await session.screenshot('feedback-remove-pending');

    await steps.run('Undo in the panel takes it back', async () => {
      await frame.locator('[data-testid="strata-info"]').filter({ hasText: 'removed from next message' }).first().getByText('Undo').click();
      await poll('the pending row to go', TIMEOUT.ui, async () => {
        const texts = await rows.locator('.label-description').allInnerTexts();
        return texts.some((t) => t.includes('removed from next message')) ? undefined : true;
      });
      assert.equal(await frame.locator('[data-testid="strata-info"]').filter({ hasText: 'removed from next message' }).count(), 0);
    });
    await session.screenshot('feedback-remove-undone');

    const exported = await steps.run('Export Chat names what it embeds and offers it without', async () => {
      // Run from the Command Palette; the question reuses the palette's widget, so it stays open.
      await page.keyboard.press('F1');
      const quick = page.locator('.quick-input-widget');
      await quick.locator('.quick-input-box input').fill('>Strata: Export Chat');
      await quick.locator('.monaco-list-row.focused[aria-label^="Strata: Export Chat"]').waitFor({ state: 'visible', timeout: TIMEOUT.ui });
      await page.keyboard.press('Enter');
      const title = await poll('the export question', TIMEOUT.ui, async () => {
        const t = await quick
          .locator('.quick-input-title')
          .innerText()
          .catch(() => '');
        return /attached files? embedded/.test(t) ? t : undefined;
      });
      assert.match(title, /^Export Chat: \d+ attached files? embedded$/);
      await session.screenshot('feedback-export-question');
      await quick.locator('.monaco-list-row', { hasText: 'Export without attached files' }).click();
      // The save dialog (the workbench's own in the browser) proposes a file in the workspace: accept it.
      const input = quick.locator('.quick-input-box input');
      await poll('the save dialog', TIMEOUT.ui, async () => ((await input.inputValue()).endsWith('.md') ? true : undefined));
      const target = await input.inputValue();
      await page.keyboard.press('Enter');
      return target;
    });
    const toast = await steps.run('a notification says where it wrote, with Open and Reveal', async () => {
      const text = await poll('the export notification', TIMEOUT.ui, async () =>
        (await notifications(page)).find((t) => t.startsWith('Strata: exported the chat to')),
      );
      const item = page.locator('.notification-toast').filter({ hasText: 'Strata: exported the chat to' }).first();
      const buttons = (await item.locator('.monaco-button').allInnerTexts()).map((b) => b.trim());
      assert.ok(buttons.includes('Open') && buttons.some((b) => b.startsWith('Reveal')), `buttons: ${buttons.join(', ')}`);
      return text;
    });
    assert.match(toast, /without its \d+ attached file\(s\)\.$/);
    await session.screenshot('feedback-export-notification');
    const written = path.join(session.workspace, path.basename(exported));
    const md = await poll('the exported file', TIMEOUT.ui, async () =>
      fs.existsSync(written) ? fs.readFileSync(written, 'utf8') : undefined,
    );
    assert.match(md, /Exported without attached files/);
    fs.rmSync(written, { force: true });
  });

  it("a chip's × shows pending in its place with Undo; Enter on Undo puts back the same chip", async () => {
    const steps = new Steps(session, 'chip-undo');
    const { page } = session;
    await steps.run('workbench loaded', () => waitForWorkbench(page));
    const frame = await steps.run('chat panel open', async () => {
      await openStrataView(page);
      const f = await chatFrame(page);
      await new ChatPanel(page, f).waitUntilReady();
      return f;
    });
    const panel = new ChatPanel(page, frame);
    await steps.run('Strata: New Chat', () => runCommand(page, 'Strata: New Chat'));
    await panel.removeAllChips();
    const tree = page.locator('[id="workbench.view.extension.strata"]');
    const rows = tree.locator('.monaco-list-row');
    const chips = frame.locator('[data-testid="strata-chip"], [data-testid="strata-chip-removed"]');
    const chipIds = () =>
      chips.evaluateAll((els) => els.map((el) => `${el.getAttribute('data-testid')}:${el.getAttribute('data-chip-id')}`));
    const attached = await steps.run('two files attached as chips', async () => {
      for (const file of ['src/money.ts', 'src/tax.ts']) {
        await openFile(page, file);
        await runCommand(page, 'Strata: Attach Active File');
      }
      await openStrataView(page);
      return poll('two chips', TIMEOUT.ui, async () => {
        const ids = await chipIds();
        return ids.length === 2 && ids.every((id) => id.startsWith('strata-chip:')) ? ids : undefined;
      });
    });
    const pendingRow = (name: string) =>
      rows.filter({ has: page.locator('.label-name', { hasText: name }) }).filter({ hasText: 'removed from next message' });
    await steps.run("the first chip's ×: kept in its place, with Undo, listed under Next message", async () => {
      await frame.locator('[data-testid="strata-chip"]').first().locator('[data-testid="strata-chip-remove"]').click();
      const removed = frame.locator('[data-testid="strata-chip-removed"]');
      await removed.waitFor({ state: 'visible', timeout: TIMEOUT.ui });
      assert.deepEqual(await chipIds(), [attached[0].replace('strata-chip:', 'strata-chip-removed:'), attached[1]], 'in its place');
      assert.match(normalize(await removed.innerText()), /^src\/money\.ts removed from next message Undo$/);
      assert.match(
        (await removed.getAttribute('title')) ?? '',
        /^src\/money\.ts: removed from next message\. Removing[^\n]*uncached tokens\./,
      );
      assert.equal(await frame.locator(':focus').getAttribute('data-testid'), 'strata-chip-undo', 'the keyboard is on Undo');
      assert.equal(await frame.locator('[data-testid="strata-info"]').filter({ hasText: 'src/money.ts' }).count(), 0, 'no banner');
      await showContextLayers(page);
      await pendingRow('money.ts').first().waitFor({ state: 'visible', timeout: TIMEOUT.ui });
      const next = await rows
        .filter({ has: page.locator('.label-name', { hasText: 'Next message' }) })
        .first()
        .innerText();
      assert.match(normalize(next), /1 pending/);
    });
    await session.screenshot('feedback-chip-removed');
    await steps.run('Enter on Undo puts back the same chip in the same place', async () => {
      // From the keyboard: Enter on Undo (focused again: the tree took the focus).
      await frame.locator('[data-testid="strata-chip-undo"]').press('Enter');
      await poll('the chip back', TIMEOUT.ui, async () =>
        JSON.stringify(await chipIds()) === JSON.stringify(attached) ? true : undefined,
      );
      assert.equal(await frame.locator(':focus').getAttribute('data-testid'), 'strata-chip-remove', "the keyboard is on the chip's ×");
      await poll('the pending row to go', TIMEOUT.ui, async () => ((await pendingRow('money.ts').count()) === 0 ? true : undefined));
    });
    await session.screenshot('feedback-chip-undone');
    await panel.removeAllChips();
  });
});
