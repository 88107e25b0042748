/**
 * A file over `strata.context.maxFileBytes` (8 MB by default), in the real workbench: the `@`
 * picker lists a 20 MB log marked with why it would be refused; choosing it attaches nothing and
 * the banner says "server.log is 20 MB (limit 8 MB); nothing of it was sent." with Attach First
 * Lines and Raise Limit…; Attach First Lines gives a chip marked "first N lines of M" with N the
 * whole lines that fit what the chat's budget leaves, and nothing is pruned. Screenshots at 1280×800 and of the banner at a 260 px side bar
 * in the dark, high-contrast and light themes.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ChatPanel, normalize, TEST_ID } from './support/chatPanel';
import { freshChat, narrowThemedShots } from './support/freshChat';
import { e2eSession, type E2ESession } from './support/session';
import { Steps } from './support/steps';
import { poll, TIMEOUT } from './support/workbench';

const FILE = 'server.log';
/** Every line of the log is this long, line feed included, so the figures below are known. */
const LINE_BYTES = 80;
const SIZE = 20 * 1024 * 1024;
const LINES = SIZE / LINE_BYTES;
const LIMIT = 8 * 1024 * 1024;
/** The whole lines in the first 8 MB: more than the budget takes. */
const HEAD_LINES = Math.floor(LIMIT / LINE_BYTES);

function writeLog(file: string): void {
  const lines: string[] = [];
  for (let i = 0; i < LINES; i++) {
    const start = `2026-11-28T10:00:00.000Z INFO request ${String(i).padStart(7, '0')} served in 12 ms`;
    lines.push(start.padEnd(LINE_BYTES - 1, '.'));
  }
  fs.writeFileSync(file, lines.join('\n') + '\n');
  assert.equal(fs.statSync(file).size, SIZE);
}

describe('e2e: a 20 MB file’s refusal', function () {
  this.timeout(480_000);
  let session: E2ESession;
  let file = '';

  before(async function () {
    this.timeout(180_000);
    session = await e2eSession();
    file = path.join(session.workspace, FILE);
    writeLog(file);
  });

  after(async function () {
    this.timeout(60_000);
    if (file) fs.rmSync(file, { force: true });
    if (!session) return;
    await new ChatPanel(session.page, session.page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame'))
      .removeAllChips()
      .catch(() => undefined);
  });

  it('the picker marks it; the banner gives its size and limit and offers Attach First Lines and Raise Limit…', async () => {
    const steps = new Steps(session, 'refusal');
    const { page } = session;
    const panel = await freshChat(steps, session);
    const picker = panel.byTestId('strata-picker');
    const option = picker.locator('[role="option"]', { has: page.locator('.picker-label', { hasText: FILE }) }).first();

    await steps.run('@ lists server.log marked "20 MB (limit 8 MB)"', async () => {
      const input = panel.byTestId(TEST_ID.input).first();
      await input.click();
      await input.fill('');
      await page.keyboard.type('@server');
      await picker.waitFor({ state: 'visible', timeout: TIMEOUT.ui });
      // The log was written after the picker first listed the workspace: a keystroke after the
      // file watcher's news is answered from the new listing, so the last letter is typed again
      // (as a person would) until it is there.
      let typedAt = Date.now();
      await poll('server.log listed', TIMEOUT.ui, async () => {
        if (await option.isVisible()) return true;
        if (Date.now() - typedAt > 2000) {
          typedAt = Date.now();
          await page.keyboard.press('Backspace');
          await page.keyboard.type('r');
        }
        return undefined;
      });
      assert.equal(await option.getAttribute('data-refused'), '20 MB (limit 8 MB)');
      assert.equal(normalize(await option.locator('[data-testid="strata-picker-refused"]').innerText()), '20 MB (limit 8 MB)');
      assert.equal(await option.getAttribute('aria-selected'), 'true', 'the only match is the active row');
    });

    const banner = panel.frame
      .locator('.banner', { has: page.locator('[data-testid="strata-banner-message"]', { hasText: FILE }) })
      .first();
    await steps.run('choosing it attaches nothing; the banner says why and offers what can be done', async () => {
      await page.keyboard.press('Enter');
      await banner.waitFor({ state: 'visible', timeout: TIMEOUT.ui });
      assert.equal(
        normalize(await banner.locator('[data-testid="strata-banner-message"]').innerText()),
        `${FILE} is 20 MB (limit 8 MB); nothing of it was sent.`,
      );
      const actions = (await banner.locator('[data-testid="strata-banner-action"]').allInnerTexts()).map(normalize);
      assert.ok(actions.includes('Attach First Lines'), `actions: ${actions.join(', ')}`);
      assert.ok(actions.includes('Raise Limit…'), `actions: ${actions.join(', ')}`);
      assert.equal(await panel.byTestId(TEST_ID.chip).count(), 0, 'no chip');
    });

    await narrowThemedShots(steps, session, 'the refusal banner', async () => {
      await banner.waitFor({ state: 'visible', timeout: TIMEOUT.ui });
      for (const name of ['Attach First Lines', 'Raise Limit…']) {
        const action = banner.locator('[data-testid="strata-banner-action"]', { hasText: name });
        const box = await action.boundingBox();
        const area = await banner.boundingBox();
        assert.ok(box && area && box.x >= area.x && box.x + box.width <= area.x + area.width + 1, `${name} is whole inside the banner`);
      }
    });

    await steps.run('Attach First Lines gives a chip marked "first N lines of M"', async () => {
      await banner.locator('[data-testid="strata-banner-action"]', { hasText: 'Attach First Lines' }).click();
      const chip = panel.byTestId(TEST_ID.chip).first();
      await poll('the head chip', TIMEOUT.reply, async () => ((await panel.byTestId(TEST_ID.chip).count()) === 1 ? true : undefined));
      const label = normalize(await chip.locator('.chip-label').innerText());
      const m = new RegExp(`^${FILE.replace('.', '\\.')}:L1-(\\d+)$`).exec(label);
      assert.ok(m, label);
      // The lines that fit what the chat's budget leaves: fewer than the 8 MB limit holds, which would
      // be millions of tokens and pruned whole.
      const kept = Number(m[1]);
      assert.ok(kept > 1000 && kept < HEAD_LINES, `${kept} lines`);
      assert.equal(
        normalize(await chip.locator('[data-testid="strata-chip-partial"]').innerText()),
        `first ${kept.toLocaleString('en-US')} lines of ${LINES.toLocaleString('en-US')}`,
      );
      const meter = normalize(await panel.text(TEST_ID.meter));
      assert.doesNotMatch(meter, /pruned|over budget/, `the meter: ${meter}`);
    });
  });
});
