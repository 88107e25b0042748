/**
 * At a 260 px side bar, in the real workbench: no figure of a Context Layers row is cut (with a few
 * attached files, one of them with a long name, and a sent turn), and the error banner is whole with
 * its buttons in sight, unscrolled, at 1280×800 and at 260 px, in the light, dark and high-contrast
 * themes. Screenshots of each state.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { ChatPanel, normalize, TEST_ID } from './support/chatPanel';
import { e2eSession, log, type E2ESession } from './support/session';
import { Steps } from './support/steps';
import {
  chatFrame,
  frameOf,
  openFile,
  openStrataView,
  pickColorTheme,
  poll,
  runCommand,
  setSidebarWidth,
  showContextLayers,
  THEME,
  TIMEOUT,
  waitForWorkbench,
} from './support/workbench';

/** A name as long as many real ones: its row must still show its figure at 260 px. */
const LONG_FILE = 'src/reports/quarterlyRevenueSummaryBuilder.ts';
const FILES = ['src/money.ts', 'src/tax.ts', LONG_FILE];

interface RowFit {
  text: string;
  /** Numbers cut by the row's end (part of the number shown). */
  cut: string[];
  /** The row's first number, when it is not wholly shown. */
  firstHidden?: string;
  /** The row's text does not fit (the end is cut, an ellipsis shown). */
  overflows: boolean;
}

/**
 * Every Context Layers row on screen: for each number in its label and description, whether it is
 * wholly inside the part of the row the workbench shows (its label box, less the ellipsis when the
 * text is cut). Run in the workbench's page; a string, since the root tsconfig has no DOM library.
 */
const ROW_FIT = `(() => {
  const pane = [...document.querySelectorAll('.part.sidebar .pane')].find((p) => (p.querySelector('.pane-header')?.textContent || '').includes('Context Layers'));
  if (!pane) return [];
  const body = pane.querySelector('.pane-body').getBoundingClientRect();
  const out = [];
  for (const row of pane.querySelectorAll('.monaco-list-row')) {
    const r = row.getBoundingClientRect();
    if (r.height === 0 || r.top < body.top - 1 || r.bottom > body.bottom + 1) continue;
    const clip = row.querySelector('.monaco-icon-label-container') || row.querySelector('.monaco-icon-label');
    if (!clip) continue;
    const c = clip.getBoundingClientRect();
    const overflows = clip.scrollWidth > clip.clientWidth + 1;
    const ctx = document.createElement('canvas').getContext('2d');
    ctx.font = getComputedStyle(clip).font;
    const right = Math.min(c.right, r.right, body.right) - (overflows ? ctx.measureText('…').width : 0);
    const parts = [...row.querySelectorAll('.label-name, .label-description')];
    const text = parts.map((p) => p.textContent.trim()).join(' | ');
    const cut = [];
    let firstHidden;
    let first = true;
    for (const part of parts) {
      const walker = document.createTreeWalker(part, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        for (const m of node.textContent.matchAll(/[+~]?\\d[\\d,.]*[kM%]?/g)) {
          const range = document.createRange();
          range.setStart(node, m.index);
          range.setEnd(node, m.index + m[0].length);
          const b = range.getBoundingClientRect();
          const whole = b.right <= right + 0.5;
          if (!whole && b.left < right - 0.5) cut.push(m[0]);
          if (first && !whole) firstHidden = m[0];
          first = false;
        }
      }
    }
    out.push({ text, cut, firstHidden, overflows });
  }
  return out;
})()`;

async function rowFits(page: Page): Promise<RowFit[]> {
  return (await page.evaluate(ROW_FIT)) as RowFit[];
}

async function checkRows(page: Page, where: string): Promise<void> {
  // The inline actions of a hovered row cover its end: the mouse is moved off the tree.
  await page.mouse.move(700, 400);
  await page.waitForTimeout(300);
  const rows = await rowFits(page);
  assert.ok(rows.length >= 8, `${where}: the tree shows ${rows.length} rows: ${rows.map((r) => r.text).join(' / ')}`);
  const over = rows.filter((r) => r.overflows);
  log(`${where}: ${rows.length} rows, ${over.length} cut at the end: ${over.map((r) => `"${r.text}"`).join(', ') || 'none'}`);
  for (const r of rows) {
    assert.deepEqual(r.cut, [], `${where}: a number cut mid-way in "${r.text}"`);
    assert.equal(r.firstHidden, undefined, `${where}: the figure ${r.firstHidden} of "${r.text}" is out of sight`);
  }
}

/** The error banner's buttons against the banner area's visible box, and the input against the view. */
async function bannerFit(panel: ChatPanel): Promise<{ ok: boolean; detail: string }> {
  const frame = await frameOf(panel.frame);
  return (await frame.evaluate(`(() => {
    const area = document.querySelector('.banner-area');
    const banner = document.querySelector('[data-testid="strata-error"]');
    if (!area || !banner) return { ok: false, detail: 'no error banner' };
    const a = area.getBoundingClientRect();
    const buttons = [...banner.querySelectorAll('[data-testid="strata-banner-action"], [data-testid="strata-banner-dismiss"]')];
    const input = document.querySelector('[data-testid="strata-input"]').getBoundingClientRect();
    const bad = buttons
      .map((el) => ({ name: el.textContent.trim() || el.getAttribute('aria-label'), r: el.getBoundingClientRect() }))
      .filter((b) => b.r.top < a.top - 0.5 || b.r.bottom > a.bottom + 0.5 || b.r.left < 0 || b.r.right > window.innerWidth + 0.5)
      .map((b) => b.name + ' ' + Math.round(b.r.top) + '–' + Math.round(b.r.bottom) + ' px');
    const detail = buttons.length + ' buttons; area ' + Math.round(a.top) + '–' + Math.round(a.bottom) + ' px, scrolled ' + area.scrollTop + '; input ends ' + Math.round(input.bottom) + ' of ' + window.innerHeight + (bad.length ? '; outside: ' + bad.join(', ') : '');
    return { ok: buttons.length >= 2 && bad.length === 0 && area.scrollTop === 0 && input.bottom <= window.innerHeight + 0.5, detail };
  })()`)) as { ok: boolean; detail: string };
}

const THEMES = [THEME.dark, THEME.hc, THEME.light];

describe('e2e: a 260 px side bar cuts no figure, and the error banner is whole', function () {
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
    session.imitation.faultEvery(undefined);
    if (originalWidth > 0) await setSidebarWidth(session.page, originalWidth).catch(() => undefined);
    if (themed) await pickColorTheme(session.page, 'Light Modern').catch(() => undefined);
    const panel = new ChatPanel(session.page, await chatFrame(session.page));
    await panel.removeAllChips();
    // The error banner stays with its chat: a new chat starts the next tests without it.
    await panel
      .byTestId(TEST_ID.newChat)
      .click()
      .catch(() => undefined);
  });

  it('Context Layers rows keep their figures, and the error banner its buttons, at 260 px', async () => {
    const steps = new Steps(session, 'narrow');
    const { page, imitation } = session;
    await steps.run('workbench loaded', () => waitForWorkbench(page));
    const panel = await steps.run('chat panel open in a new chat', async () => {
      await openStrataView(page);
      const p = new ChatPanel(page, await chatFrame(page));
      await p.waitUntilReady();
      await p.byTestId(TEST_ID.newChat).click();
      return p;
    });
    await steps.run('three files attached, one with a long name', async () => {
      const file = path.join(session.workspace, LONG_FILE);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(
        file,
        `/** Sums revenue by quarter. */\nexport function quarterly(values: number[]): number[] {\n  return values;\n}\n`,
      );
      for (const f of FILES) await openFile(page, f);
      await runCommand(page, 'Strata: Attach Open Editors');
      await openStrataView(page);
      await poll('three chips', TIMEOUT.ui, async () => ((await panel.byTestId(TEST_ID.chip).count()) >= 3 ? true : undefined));
    });
    await steps.run('a turn sent and answered', async () => {
      imitation.queueReply('The totals are rounded once, at the end.');
      await panel.typeAndSend('Where are the totals rounded?');
      await poll('the reply to finish', TIMEOUT.reply, async () =>
        (await panel.messages('assistant').last().getAttribute('data-status')) === 'complete' ? true : undefined,
      );
    });
    await steps.run('the same files attached again for the next message', async () => {
      await runCommand(page, 'Strata: Attach Open Editors');
      await openStrataView(page);
      await poll('three chips', TIMEOUT.ui, async () => ((await panel.byTestId(TEST_ID.chip).count()) >= 3 ? true : undefined));
    });
    const tree = page.locator('[id="workbench.view.extension.strata"] .monaco-list-row');
    await steps.run('Context Layers open on the last request and the next message', async () => {
      await showContextLayers(page);
      await poll('the last request and its files in the tree', TIMEOUT.ui, async () => {
        const names = (await tree.locator('.label-name').allInnerTexts()).map(normalize);
        return names.includes('Last request') && names.some((n) => n.endsWith(' · quarterlyRevenueSummaryBuilder.ts')) ? true : undefined;
      });
    });
    originalWidth = Math.round((await page.locator('.part.sidebar').boundingBox())?.width ?? 0);
    await steps.run('at 1280×800: every figure of every row in sight', () => checkRows(page, `${originalWidth} px`));
    await steps.run('at a 260 px side bar: every figure of every row in sight', async () => {
      await setSidebarWidth(page, 260);
      await page.waitForTimeout(400);
      await checkRows(page, '260 px');
    });

    imitation.faultEvery(1, { kind: 'unknown-model' });
    try {
      await steps.run('an error banner after a request the provider refuses', async () => {
        await panel.typeAndSend('This request fails on purpose.');
        await panel.byTestId(TEST_ID.error).first().waitFor({ state: 'visible', timeout: TIMEOUT.reply });
      });
    } finally {
      imitation.faultEvery(undefined);
    }
    const whole = async (where: string) => {
      const fit = await poll(`the whole banner in sight ${where}`, TIMEOUT.ui, async () => {
        const f = await bannerFit(panel);
        return f.ok ? f : undefined;
      }).catch(async (e: Error) => {
        throw new Error(`${e.message}: ${(await bannerFit(panel)).detail}`);
      });
      log(`error banner ${where}: ${fit.detail}`);
    };
    await steps.run('at 260 px: the whole error banner with its buttons, unscrolled', () => whole('at 260 px'));
    await steps.run('at 1280×800: the whole error banner with its buttons', async () => {
      await setSidebarWidth(page, originalWidth);
      await page.waitForTimeout(400);
      await whole(`at ${originalWidth} px`);
    });
    await steps.run('at 260 px again, for the themes', async () => {
      await setSidebarWidth(page, 260);
      await page.waitForTimeout(400);
    });
    for (const theme of THEMES) {
      await steps.run(`${theme.name} theme: the error banner and the tree at 260 px`, async () => {
        themed = true;
        await pickColorTheme(page, theme.label, async () => (await page.locator(theme.selector).count()) > 0);
        await openStrataView(page);
        await page.waitForTimeout(500);
        await whole(`in the ${theme.name} theme`);
        await checkRows(page, `260 px, ${theme.name}`);
      });
    }
    await steps.run('side bar width restored', async () => {
      await setSidebarWidth(page, originalWidth);
      themed = false;
    });
  });
});
