/**
 * The panel in the real workbench at 1280×800 and at a 260 px side bar, in the light, dark and
 * high-contrast themes: a reply with tool steps in place and a code block, three chips, the history
 * view searching the chats' text through the extension, nothing cut mid-word or mid-number, and
 * axe-core over the real webview with no serious or critical violation. Screenshots of each state.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import type { FrameLocator, Page } from 'playwright-core';
import { ChatPanel, TEST_ID } from './support/chatPanel';
import { e2eSession, log, type E2ESession } from './support/session';
import { Steps } from './support/steps';
import {
  chatFrame,
  frameOf,
  hideContextLayers,
  openFile,
  openStrataView,
  pickColorTheme,
  poll,
  runCommand,
  setSidebarWidth,
  THEME,
  TIMEOUT,
  waitForWorkbench,
} from './support/workbench';

const FILES = ['src/money.ts', 'src/tax.ts', 'src/render.ts'];
const AXE_SOURCE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
const WORD = 'pelican';
const REPLY = `The rounding happens in one place; the ${WORD} rule applies:\n\n\`\`\`ts\nexport const round = (n: number) => Math.round(n * 100) / 100;\n\`\`\``;

async function measure(page: Page, panel: ChatPanel): Promise<{ sidebar: number; conversation: number; width: number }> {
  const sidebar = await page.locator('.part.sidebar').boundingBox();
  const conversation = await panel.byTestId('strata-conversation').boundingBox();
  assert.ok(sidebar && conversation, 'the side bar and the conversation are on screen');
  return { sidebar: Math.round(sidebar.height), conversation: Math.round(conversation.height), width: Math.round(sidebar.width) };
}

/** Text the panel shows cut by an ellipsis or clipped (code blocks and the layer bars scroll or are drawn). */
async function clipped(locator: FrameLocator): Promise<string[]> {
  const frame = await frameOf(locator);
  return (await frame.evaluate(`(() => {
    const out = [];
    for (const el of Array.from(document.querySelectorAll('body *'))) {
      const cs = getComputedStyle(el);
      if (!el.offsetParent || !el.innerText || cs.overflowX === 'auto' || cs.overflowX === 'scroll') continue;
      if (el.closest('pre, .layer-bar')) continue;
      if (el.scrollWidth > el.clientWidth + 1) out.push(el.className + ': "' + el.innerText.slice(0, 60) + '"');
    }
    return out;
  })()`)) as string[];
}

/**
 * axe over the webview, contrast included, in whatever theme is on. The webview is transparent over
 * the side bar, which axe cannot see from inside the frame (it would assume white): the side bar's
 * colour is given to the frame's body first.
 */
async function axeSerious(locator: FrameLocator, page: Page): Promise<string[]> {
  const frame = await frameOf(locator);
  // An expression over the page (a string given to a locator's evaluate would not be called with it).
  const behind = (await page.evaluate(`getComputedStyle(document.querySelector('.part.sidebar')).backgroundColor`)) as string;
  assert.match(behind, /^rgba?\(/, 'the side bar has a colour');
  // On the body: the workbench rewrites the root's style attribute with the theme's variables.
  await frame.evaluate(`document.body.style.backgroundColor = ${JSON.stringify(behind)}`);
  await frame.evaluate(AXE_SOURCE);
  const found = (await frame.evaluate(`(async () => {
    const r = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'] }, resultTypes: ['violations'] });
    return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => v.impact + ' ' + v.id + ': ' + v.nodes.slice(0, 3).map((n) => JSON.stringify(n.target) + ' ' + (n.failureSummary || '')).join(' | '));
  })()`)) as string[];
  // Taken off again: after the next theme switch it would paint the old side bar's colour.
  await frame.evaluate(`document.body.style.backgroundColor = ''`);
  return found;
}

/**
 * A layout check repeated until it finds nothing or the time is up, so that a layout still settling
 * (a chip list unfolding, the meter's figures arriving) is judged once it has settled; what it
 * still finds then is the answer.
 */
async function settled(check: () => Promise<string[]>, timeoutMs = 5000): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await check();
    if (found.length === 0 || Date.now() > deadline) return found;
    await new Promise((r) => setTimeout(r, 250));
  }
}

const THEMES = [THEME.light, THEME.hc, THEME.hcLight, THEME.dark];

describe('e2e: the panel at 1280×800 and 260 px, three themes, axe', function () {
  this.timeout(420_000);
  let session: E2ESession;
  let originalWidth = 0;
  let themed = false;

  before(async function () {
    this.timeout(180_000);
    session = await e2eSession();
  });

  after(async function () {
    this.timeout(120_000);
    if (!session) return;
    if (originalWidth > 0) await setSidebarWidth(session.page, originalWidth).catch(() => undefined);
    if (themed) await pickColorTheme(session.page, 'Light Modern').catch(() => undefined);
    const panel = new ChatPanel(session.page, await chatFrame(session.page));
    if (
      await panel
        .byTestId('strata-history')
        .isVisible()
        .catch(() => false)
    )
      await session.page.keyboard.press('Escape');
    await panel.removeAllChips();
  });

  it('fits, reads and passes axe at both widths and in each theme', async () => {
    const steps = new Steps(session, 'layout');
    const { page, imitation } = session;
    await steps.run('workbench loaded', () => waitForWorkbench(page));
    const panel = await steps.run('chat panel open in a new chat', async () => {
      // Only this test's files are open: Attach Open Editors attaches what earlier tests left open too.
      await runCommand(page, 'View: Close All Editors');
      await openStrataView(page);
      await hideContextLayers(page);
      const p = new ChatPanel(page, await chatFrame(page));
      await p.waitUntilReady();
      await p.byTestId(TEST_ID.newChat).click();
      return p;
    });
    await steps.run('a reply with a code block', async () => {
      imitation.queueReply(REPLY);
      await panel.typeAndSend('Where does the rounding happen?');
      await panel.messages('assistant').filter({ hasText: WORD }).first().waitFor({ state: 'visible', timeout: TIMEOUT.reply });
      await poll('the reply to finish', TIMEOUT.reply, async () =>
        (await panel.messages('assistant').last().getAttribute('data-status')) === 'complete' ? true : undefined,
      );
    });
    await steps.run('three files attached', async () => {
      for (const file of FILES) await openFile(page, file);
      await runCommand(page, 'Strata: Attach Open Editors');
      await openStrataView(page);
      await poll('three chips', TIMEOUT.ui, async () => ((await panel.byTestId(TEST_ID.chip).count()) >= 3 ? true : undefined));
    });
    originalWidth = Math.round((await page.locator('.part.sidebar').boundingBox())?.width ?? 0);
    await steps.run('at 1280×800: measured, nothing clipped, axe clean', async () => {
      const m = await measure(page, panel);
      log(`1280×800, ${m.width} px side bar: conversation ${m.conversation} px of ${m.sidebar} px`);
      assert.deepEqual(await settled(() => clipped(panel.frame)), []);
      assert.deepEqual(await settled(() => axeSerious(panel.frame, page)), []);
    });
    await steps.run('at a 260 px side bar: measured, nothing clipped mid-word', async () => {
      await setSidebarWidth(page, 260);
      await page.waitForTimeout(400);
      const m = await measure(page, panel);
      log(`260 px side bar: conversation ${m.conversation} px of ${m.sidebar} px`);
      assert.deepEqual(await settled(() => clipped(panel.frame)), []);
    });
    await steps.run("one chip's × (it stays in its place with Undo, checked in every theme below)", async () => {
      const toggle = panel.byTestId('strata-chips-toggle');
      if ((await toggle.isVisible()) && (await toggle.getAttribute('aria-expanded')) === 'false') await toggle.click();
      await panel.byTestId(TEST_ID.chip).last().locator('[data-testid="strata-chip-remove"]').click();
      await panel.byTestId('strata-chip-undo').waitFor({ state: 'visible', timeout: TIMEOUT.ui });
      assert.deepEqual(await clipped(panel.frame), []);
    });
    await steps.run('the history view finds the reply’s word through the extension', async () => {
      await panel.byTestId('strata-history-button').click();
      await panel.byTestId('strata-history').waitFor({ state: 'visible', timeout: TIMEOUT.ui });
      await panel.byTestId('strata-history-search').fill(WORD);
      await poll('a chat found by its text', TIMEOUT.ui, async () =>
        (await panel.byTestId('strata-history-excerpt').count()) > 0 ? true : undefined,
      );
      assert.match(await panel.byTestId('strata-history-excerpt').first().innerText(), new RegExp(WORD));
      assert.deepEqual(await settled(() => clipped(panel.frame)), []);
      assert.deepEqual(await settled(() => axeSerious(panel.frame, page)), []);
    });
    for (const theme of THEMES) {
      await steps.run(`${theme.name} theme: history and chat at 260 px`, async () => {
        themed = true;
        await pickColorTheme(page, theme.label, async () => (await page.locator(theme.selector).count()) > 0);
        await openStrataView(page);
        await page.waitForTimeout(500);
        await session.screenshot(`layout-260-history-${theme.name}`);
        assert.deepEqual(await axeSerious(panel.frame, page), [], `axe in the ${theme.name} theme (history)`);
        await panel.byTestId('strata-history-back').click();
        await page.waitForTimeout(300);
        await session.screenshot(`layout-260-chat-${theme.name}`);
        assert.deepEqual(await axeSerious(panel.frame, page), [], `axe in the ${theme.name} theme (chat)`);
        if (theme.name !== 'dark') {
          await panel.byTestId('strata-history-button').click();
          await panel.byTestId('strata-history').waitFor({ state: 'visible', timeout: TIMEOUT.ui });
        }
      });
    }
    await steps.run('side bar width restored', () => setSidebarWidth(page, originalWidth));
    await steps.run('dark theme at 1280×800', () => session.screenshot('layout-1280-chat-dark'));
  });
});
