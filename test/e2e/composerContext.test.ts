/**
 * Context in one keystroke, in the real workbench at 1280×800 with the packaged VSIX: `@` picks a
 * file that is open in no editor (and never lists `.env`), the suggestion chip of the active editor
 * is included from the keyboard (Shift+Tab from the input, Enter), and `/explain` over a selection
 * attaches it and writes an editable question that is then sent. The picker and the chip are
 * photographed in the light theme and again in the dark one.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ChatPanel, TEST_ID } from './support/chatPanel';
import { e2eSession, type E2ESession } from './support/session';
import { Steps } from './support/steps';
import {
  chatFrame,
  openFile,
  openStrataView,
  pickColorTheme,
  poll,
  runCommand,
  selectLines,
  TIMEOUT,
  waitForWorkbench,
} from './support/workbench';

const EXPLAIN_FILE = 'src/money.ts';
const START = 11;
const END = 17;
const REPLY = 'roundHalfEven rounds to the nearest cent, and halves to the even neighbour.';

async function chipLabels(panel: ChatPanel): Promise<string[]> {
  return panel.frame.locator(`[data-testid="${TEST_ID.chip}"] .chip-label`).allInnerTexts();
}

async function inputValue(panel: ChatPanel): Promise<string> {
  return panel.byTestId(TEST_ID.input).first().inputValue();
}

/** Clicks into the chat's input and empties it. */
async function focusInput(panel: ChatPanel): Promise<void> {
  const input = panel.byTestId(TEST_ID.input).first();
  await input.click();
  await input.fill('');
  await panel.page.waitForTimeout(200);
}

/** Unpins and removes every chip (no Undo left) and empties the input. */
async function clearComposer(panel: ChatPanel): Promise<void> {
  const toggle = panel.byTestId('strata-chips-toggle');
  if ((await toggle.isVisible()) && (await toggle.getAttribute('aria-expanded')) === 'false') await toggle.click();
  for (let i = 0; i < 20; i++) {
    const chip = panel.byTestId(TEST_ID.chip).first();
    if ((await chip.count()) === 0) break;
    const pin = chip.locator('[data-testid="strata-chip-pin"]');
    if ((await pin.getAttribute('aria-pressed')) === 'true') {
      await pin.click();
      await poll('the chip unpinned', TIMEOUT.ui, async () =>
        (await chip.getAttribute('data-pinned').catch(() => 'false')) !== 'true' ? true : undefined,
      );
    }
    const before = await panel.byTestId(TEST_ID.chip).count();
    await chip.locator('[data-testid="strata-chip-remove"]').click();
    await poll('the chip removed', TIMEOUT.ui, async () => ((await panel.byTestId(TEST_ID.chip).count()) < before ? true : undefined));
  }
  // A removed chip waits in its place with Undo until the send: Escape forgets it now.
  await panel.removeAllChips();
  await panel.byTestId(TEST_ID.input).first().fill('');
}

describe('e2e: context in one keystroke', function () {
  this.timeout(300_000);
  let session: E2ESession;
  let darkened = false;

  before(async function () {
    this.timeout(180_000);
    session = await e2eSession();
  });

  after(async function () {
    this.timeout(60_000);
    if (session && darkened) await pickColorTheme(session.page, 'Light Modern').catch(() => undefined);
  });

  it('@ picks a file open in no editor, Enter includes the suggestion, /explain works over a selection', async () => {
    const steps = new Steps(session, 'composer');
    const { page, imitation } = session;

    await steps.run('workbench loaded', () => waitForWorkbench(page));
    const panel = await steps.run('chat panel open in a new chat, no editor open', async () => {
      await runCommand(page, 'View: Close All Editors');
      await openStrataView(page);
      const p = new ChatPanel(page, await chatFrame(page));
      await p.waitUntilReady();
      await p.byTestId(TEST_ID.newChat).click();
      // The suites share one workbench: New Chat reuses a chat with no reply yet (an earlier suite's
      // failed request), and that keeps its chips, pins included, and its draft. Start from none.
      await clearComposer(p);
      await poll('no chips', TIMEOUT.ui, async () => ((await chipLabels(p)).length === 0 ? true : undefined));
      return p;
    });
    const picker = panel.byTestId('strata-picker');

    await steps.run('@ opens the picker (light)', async () => {
      await focusInput(panel);
      await page.keyboard.type('Where is tax computed? @');
      await picker.waitFor({ state: 'visible', timeout: TIMEOUT.ui });
      await poll('the workspace files listed', TIMEOUT.ui, async () =>
        (await picker.locator('[role="option"]').count()) > 0 ? true : undefined,
      );
      const all = await picker.locator('[role="option"] .picker-label').allInnerTexts();
      assert.ok(all.includes('src/invoice.ts'), `src/invoice.ts is listed: ${all.join(', ')}`);
      assert.ok(!all.some((l) => l.endsWith('.env')), `.env is never listed: ${all.join(', ')}`);
    });
    await steps.run('@invoice filters to the file open in no editor', async () => {
      await page.keyboard.type('invoice');
      await poll('src/invoice.ts first', TIMEOUT.ui, async () =>
        (await picker
          .locator('[role="option"][aria-selected="true"] .picker-label')
          .innerText()
          .catch(() => '')) === 'src/invoice.ts'
          ? true
          : undefined,
      );
    });
    await steps.run('Enter attaches it and takes @invoice out of the input', async () => {
      await page.keyboard.press('Enter');
      await poll('the src/invoice.ts chip', TIMEOUT.ui, async () =>
        (await chipLabels(panel)).includes('src/invoice.ts') ? true : undefined,
      );
      assert.equal(await inputValue(panel), 'Where is tax computed? ');
      assert.equal(await picker.isVisible(), false);
      assert.equal(await panel.byTestId(TEST_ID.input).first().getAttribute('placeholder'), 'Ask about invoice.ts…');
    });

    const suggestion = panel.byTestId('strata-suggestion');
    await steps.run('the active editor is offered as a dashed chip (light)', async () => {
      await openFile(page, 'src/tax.ts');
      await openStrataView(page);
      await suggestion.waitFor({ state: 'visible', timeout: TIMEOUT.ui });
      assert.match(await suggestion.innerText(), /tax\.ts/);
      assert.ok(!(await chipLabels(panel)).includes('src/tax.ts'), 'offered, not attached');
    });
    await steps.run('Shift+Tab from the input, Enter: the suggestion is included', async () => {
      await panel.byTestId(TEST_ID.input).first().click();
      await page.keyboard.press('End');
      await page.keyboard.press('Shift+Tab');
      await page.keyboard.press('Enter');
      await poll('the src/tax.ts chip', TIMEOUT.ui, async () => ((await chipLabels(panel)).includes('src/tax.ts') ? true : undefined));
      await suggestion.waitFor({ state: 'hidden', timeout: TIMEOUT.ui });
      assert.equal(await inputValue(panel), 'Where is tax computed? ', 'the draft is untouched');
    });

    const lines = fs.readFileSync(path.join(session.workspace, EXPLAIN_FILE), 'utf8').split('\n');
    const selection = lines.slice(START - 1, END).join('\n');
    await steps.run(`lines ${START}-${END} of ${EXPLAIN_FILE} selected`, async () => {
      await openFile(page, EXPLAIN_FILE);
      await selectLines(page, START, END, selection.length);
      await openStrataView(page);
      await poll('the selection offered', TIMEOUT.ui, async () =>
        (await suggestion.innerText().catch(() => '')).includes(`money.ts:${START}-${END}`) ? true : undefined,
      );
    });
    await steps.run('/ lists the commands (light)', async () => {
      await focusInput(panel);
      await page.keyboard.type('/');
      await picker.waitFor({ state: 'visible', timeout: TIMEOUT.ui });
      const names = await picker.locator('[role="option"] .picker-label').allInnerTexts();
      for (const n of ['/explain', '/fix', '/tests', '/new', '/model', '/compact', '/cost']) assert.ok(names.includes(n), n);
    });
    await steps.run('/explain writes the question and attaches the selection', async () => {
      await page.keyboard.type('explain');
      await page.keyboard.press('Enter');
      const label = `${EXPLAIN_FILE}:L${START}-${END}`;
      await poll('the question in the input', TIMEOUT.ui, async () => ((await inputValue(panel)).startsWith('Explain') ? true : undefined));
      assert.equal(await inputValue(panel), `Explain \`${label}\`: what it does, how it works, and anything surprising.`);
      await poll('the selection chip', TIMEOUT.ui, async () => ((await chipLabels(panel)).includes(label) ? true : undefined));
    });
    await steps.run('sent as edited: the request carries the selected lines', async () => {
      const before = imitation.chatRequests.length;
      const assistants = await panel.messages('assistant').count();
      imitation.queueReply(REPLY);
      await page.keyboard.type(' Briefly.');
      await page.keyboard.press('Enter');
      await poll('the reply', TIMEOUT.reply, async () =>
        (await panel.messages('assistant').count()) > assistants &&
        (await panel.messages('assistant').last().getAttribute('data-status')) === 'complete'
          ? true
          : undefined,
      );
      const sent = JSON.stringify(imitation.chatRequests.slice(before)[0]?.body ?? '');
      assert.ok(sent.includes('Briefly.'), 'the edited question was sent');
      assert.ok(sent.includes('roundHalfEven'), 'the selected lines were sent');
    });

    await steps.run('Dark Modern theme', async () => {
      darkened = true;
      await pickColorTheme(page, 'Dark Modern', async () => (await page.locator('.monaco-workbench.vs-dark').count()) > 0);
      await poll('the panel in a dark theme', TIMEOUT.ui, async () =>
        (await panel.frame.locator('body.vscode-dark').count()) > 0 ? true : undefined,
      );
      await openFile(page, 'src/render.ts');
      await openStrataView(page);
      await suggestion.waitFor({ state: 'visible', timeout: TIMEOUT.ui });
    });
    await steps.run('the suggestion chip and the @ picker (dark)', async () => {
      await focusInput(panel);
      await page.keyboard.type('@re');
      await poll('options', TIMEOUT.ui, async () => ((await picker.locator('[role="option"]').count()) > 0 ? true : undefined));
    });
    await steps.run('the / commands (dark)', async () => {
      await page.keyboard.press('Escape');
      await focusInput(panel);
      await page.keyboard.type('/');
      await picker.waitFor({ state: 'visible', timeout: TIMEOUT.ui });
    });
    await steps.run('closed with Escape', async () => {
      await page.keyboard.press('Escape');
      await picker.waitFor({ state: 'hidden', timeout: TIMEOUT.ui });
      await focusInput(panel);
    });
  });
});
