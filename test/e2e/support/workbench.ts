/**
 * The VS Code web workbench (code-server 4.139.1 = VS Code 1.139) as a person uses it: the activity
 * bar, the Explorer, the editor, the Command Palette. Selectors were checked against that version
 * (CONTRIBUTING.md, "The harness"); every wait is bounded.
 */
import * as assert from 'node:assert/strict';
import type { Frame, FrameLocator, Locator, Page } from 'playwright-core';
import { log } from './session';

export const TIMEOUT = {
  /** First load of the workbench (extension host start included). */
  workbench: 90_000,
  /** A UI element that should be there soon. */
  ui: 30_000,
  /** The chat webview loading its bundle after the view opens. */
  webview: 45_000,
  /** A streamed reply from the imitation server (a few seconds at its pace). */
  reply: 60_000,
};

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Polls `probe` until it returns a value (not undefined) or the time is up. */
export async function poll<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>, intervalMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) {
      const why = lastError instanceof Error ? ` (last error: ${lastError.message.split('\n')[0]})` : '';
      throw new Error(`${what}: not within ${timeoutMs / 1000} s${why}`);
    }
    await sleep(intervalMs);
  }
}

export async function waitForWorkbench(page: Page): Promise<void> {
  await page.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: TIMEOUT.workbench });
  await page.locator('.part.activitybar').waitFor({ state: 'visible', timeout: TIMEOUT.workbench });
  await page.locator('.part.statusbar').waitFor({ state: 'visible', timeout: TIMEOUT.workbench });
}

function activityItem(page: Page, title: string): Locator {
  return page.locator('.part.activitybar li.action-item', { has: page.locator(`a.action-label[aria-label^="${title}"]`) });
}

/** Shows a view container from the activity bar (clicking an already active one would hide it). */
export async function showActivity(page: Page, title: string): Promise<void> {
  const item = activityItem(page, title);
  await item.waitFor({ state: 'visible', timeout: TIMEOUT.workbench });
  const active = async () =>
    /\bchecked\b/.test((await item.getAttribute('class')) ?? '') && (await page.locator('.part.sidebar').isVisible());
  // Right after a reload the workbench may swallow the first click while it restores its layout:
  // click again (every 3 s) until the container shows.
  let clickedAt = 0;
  await poll(`the ${title} view container to be active`, TIMEOUT.ui, async () => {
    if (await active()) return true;
    if (Date.now() - clickedAt > 3000) {
      clickedAt = Date.now();
      // A click the workbench holds (restoring its layout, a progress badge on the item) is given up
      // after a few seconds and tried again: the poll goes on looking at the item meanwhile.
      await item
        .locator('a.action-label')
        .click({ timeout: 2500 })
        .catch(() => undefined);
    }
    return undefined;
  });
}

export async function openStrataView(page: Page): Promise<void> {
  await showActivity(page, 'Strata');
  await page.locator('.part.sidebar .composite.title', { hasText: 'Strata' }).first().waitFor({ state: 'visible', timeout: TIMEOUT.ui });
}

/** The webview's frame itself, to run scripts in it as in a page. */
export async function frameOf(locator: FrameLocator): Promise<Frame> {
  const frame = await (await locator.locator('body').elementHandle())?.ownerFrame();
  assert.ok(frame, 'the panel’s frame');
  return frame;
}

/** The workbench's colour themes the layout tests switch between, with the class each puts on the workbench. */
export const THEME = {
  light: { label: 'Light Modern', name: 'light', selector: '.monaco-workbench.vs' },
  dark: { label: 'Dark Modern', name: 'dark', selector: '.monaco-workbench.vs-dark' },
  hc: { label: 'Dark High Contrast', name: 'hc', selector: '.monaco-workbench.hc-black' },
  hcLight: { label: 'Light High Contrast', name: 'hc-light', selector: '.monaco-workbench.hc-light' },
} as const;

/**
 * The chat view's content: the webview whose document loads Strata's bundle. Found among all
 * webviews (`iframe.webview.ready` › `iframe#active-frame`), so another webview open in the
 * workbench cannot be mistaken for it.
 */
export async function chatFrame(page: Page, timeoutMs = TIMEOUT.webview): Promise<FrameLocator> {
  return poll(
    'the Strata chat webview to load',
    timeoutMs,
    async () => {
      const outer = page.locator('iframe.webview.ready');
      const count = await outer.count();
      for (let i = 0; i < count; i++) {
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

/** Opens a workspace file from the Explorer (expanding its folders), as a pinned editor. */
export async function openFile(page: Page, relativePath: string): Promise<void> {
  await showActivity(page, 'Explorer');
  const parts = relativePath.split('/');
  for (const [i, name] of parts.entries()) {
    const row = page.locator(`.part.sidebar .monaco-list-row[aria-label="${name}"][aria-level="${i + 1}"]`).first();
    await row.waitFor({ state: 'visible', timeout: TIMEOUT.ui });
    if (i < parts.length - 1) {
      if ((await row.getAttribute('aria-expanded')) !== 'true') await clickControl(page, row);
    } else {
      await clickControl(page, row, true);
    }
  }
  const tab = page.locator('.part.editor .tabs-container .tab', { hasText: parts[parts.length - 1] });
  await tab.first().waitFor({ state: 'visible', timeout: TIMEOUT.ui });
  await activeEditor(page).locator('.view-lines').waitFor({ state: 'visible', timeout: TIMEOUT.ui });
}

export function activeEditor(page: Page): Locator {
  return page.locator('.part.editor .editor-group-container.active .monaco-editor').first();
}

/** The status bar's cursor item, e.g. `Ln 59, Col 4 (312 selected)`. */
export async function cursorStatus(page: Page): Promise<string> {
  const texts = await page.locator('.part.statusbar .statusbar-item').allInnerTexts();
  return texts.find((t) => /^Ln \d+, Col \d+/.test(t.trim()))?.trim() ?? '';
}

/**
 * Selects whole lines `start`..`end` (1-based, from column 1 to the end of `end`) with the
 * keyboard, as a person would: Go to Line, then Shift+Down and Shift+End. Checks the status bar
 * reports `expectedChars` selected.
 */
export async function selectLines(page: Page, start: number, end: number, expectedChars: number): Promise<void> {
  await activeEditor(page).locator('.view-lines').click();
  await page.keyboard.press('Control+G');
  const input = page.locator('.quick-input-widget .quick-input-box input');
  await input.waitFor({ state: 'visible', timeout: TIMEOUT.ui });
  await input.fill(`:${start}`);
  await page.keyboard.press('Enter');
  await input.waitFor({ state: 'hidden', timeout: TIMEOUT.ui });
  await poll(`the cursor at line ${start}`, TIMEOUT.ui, async () =>
    (await cursorStatus(page)).startsWith(`Ln ${start}, Col 1`) ? true : undefined,
  );
  for (let line = start; line < end; line++) await page.keyboard.press('Shift+ArrowDown');
  await page.keyboard.press('Shift+End');
  // The status bar catches up with the keys a moment later (Shift+End may not have landed yet).
  let last = '';
  const status = await poll(`the status bar to show ${expectedChars} characters selected`, TIMEOUT.ui, async () => {
    last = await cursorStatus(page);
    return last.startsWith(`Ln ${end},`) && last.includes(`(${expectedChars} selected)`) ? last : undefined;
  }).catch((e: Error) => {
    throw new Error(`${e.message}; the status bar says ${last}`);
  });
  assert.match(status, new RegExp(`\\(${expectedChars} selected\\)`), `status bar says ${status}`);
}

/** Runs a command from the Command Palette (F1) by its full title, e.g. `Strata: Attach Selection`. */
export async function runCommand(page: Page, title: string): Promise<void> {
  const input = page.locator('.quick-input-widget .quick-input-box input');
  // A focus that lands late elsewhere (the chat's input after New Chat) closes the palette it
  // opened; the palette is opened again then, as a person would.
  for (let attempt = 1; ; attempt++) {
    await page.keyboard.press('F1');
    try {
      await input.waitFor({ state: 'visible', timeout: TIMEOUT.ui });
      await input.fill(`>${title}`, { timeout: attempt < 3 ? 5_000 : TIMEOUT.ui });
      break;
    } catch (err) {
      if (attempt >= 3) throw err;
    }
  }
  // The first (focused) row must be this command: Enter runs the focused row.
  const row = page.locator(`.quick-input-widget .quick-input-list .monaco-list-row.focused[aria-label^="${title}"]`);
  await row.waitFor({ state: 'visible', timeout: TIMEOUT.ui });
  await page.keyboard.press('Enter');
  await input.waitFor({ state: 'hidden', timeout: TIMEOUT.ui });
}

/**
 * Picks a color theme as a person does: "Preferences: Color Theme" from the Command Palette, the
 * theme's name typed into the picker, Enter. `label` is the picker's label (e.g. "Dark Modern").
 */
export async function pickColorTheme(page: Page, label: string, applied?: () => Promise<boolean>): Promise<void> {
  // The picker previews the focused theme 200 ms after focus and applies the accepted one on a
  // timer; a focus change while it closes can replace that timer with a preview of the theme it
  // started from (seen in CI: dark for a moment, then back to light). So the result is checked once
  // the picker's timers have run, and the pick made again if it did not hold.
  for (let attempt = 1; ; attempt++) {
    await page.keyboard.press('F1');
    const input = page.locator('.quick-input-widget .quick-input-box input');
    await input.waitFor({ state: 'visible', timeout: TIMEOUT.ui });
    await input.fill('>Preferences: Color Theme');
    // Not necessarily the first row ("Browse Color Themes in Marketplace" may rank above it): clicked.
    const command = page.locator('.quick-input-widget .quick-input-list .monaco-list-row[aria-label^="Preferences: Color Theme"]').first();
    await command.waitFor({ state: 'visible', timeout: TIMEOUT.ui });
    await command.click();
    await poll('the theme picker', TIMEOUT.ui, async () => ((await input.inputValue()) === '' ? true : undefined));
    await input.fill(label);
    await page
      .locator(`.quick-input-widget .quick-input-list .monaco-list-row.focused[aria-label^="${label}"]`)
      .waitFor({ state: 'visible', timeout: TIMEOUT.ui });
    await page.keyboard.press('Enter');
    await input.waitFor({ state: 'hidden', timeout: TIMEOUT.ui });
    if (!applied) return;
    await page.waitForTimeout(600);
    if (await applied()) return;
    if (attempt === 3) throw new Error(`the theme "${label}" did not hold after ${attempt} picks`);
    log(`the theme "${label}" did not hold after pick ${attempt} (the picker's preview timer); picking it again`);
  }
}

/** Reloads the window (what "Developer: Reload Window" does in the web workbench). */
export async function reloadWindow(page: Page): Promise<void> {
  await page.reload({ waitUntil: 'domcontentloaded', timeout: TIMEOUT.workbench });
  await waitForWorkbench(page);
}

/** Texts of the notification toasts on screen. */
export async function notifications(page: Page): Promise<string[]> {
  return page.locator('.notification-toast .notification-list-item-message').allInnerTexts();
}

/**
 * Watches the Strata view container from now on: whether the Context Layers empty-chat message was
 * ever on screen together with a last request's row (`Last request`), which contradicts it.
 * `stop()` ends the watch and says whether that happened.
 */
export async function watchEmptyChatMessage(page: Page): Promise<{ stop(): Promise<boolean> }> {
  await page.evaluate(`(() => {
    const view = document.querySelector('[id="workbench.view.extension.strata"]');
    const w = window;
    w.__strataBoth = false;
    const check = () => {
      const text = view ? view.textContent || '' : '';
      if (text.includes('No request yet in this chat') && text.includes('Last request')) w.__strataBoth = true;
    };
    w.__strataBothObserver = new MutationObserver(check);
    if (view) w.__strataBothObserver.observe(view, { subtree: true, childList: true, characterData: true });
  })()`);
  return {
    stop: async () =>
      (await page.evaluate('(() => { window.__strataBothObserver?.disconnect(); return window.__strataBoth === true; })()')) as boolean,
  };
}

/**
 * Expands the Context Layers view (it starts collapsed, so the chat gets the room; a person clicks
 * its header to see the tree).
 */
export async function showContextLayers(page: Page): Promise<void> {
  const header = page.locator('.part.sidebar .pane-header', { hasText: 'Context Layers' }).first();
  await header.waitFor({ state: 'visible', timeout: TIMEOUT.ui });
  if ((await header.getAttribute('aria-expanded')) === 'false') await header.click();
  await poll('the Context Layers view to expand', TIMEOUT.ui, async () =>
    (await header.getAttribute('aria-expanded')) === 'true' ? true : undefined,
  );
  // Expanded from collapsed it may open small: the sash above its header is dragged up (the tree
  // shows only the rows that fit).
  const box = await header.boundingBox();
  const sidebar = await page.locator('.part.sidebar').boundingBox();
  const sash = page.locator('.part.sidebar .monaco-sash.horizontal').last();
  const sashBox = await sash.boundingBox().catch(() => null);
  if (box && sidebar && sashBox && sidebar.y + sidebar.height - box.y < 320) {
    const x = sashBox.x + sashBox.width / 2;
    await page.mouse.move(x, sashBox.y + sashBox.height / 2);
    await page.mouse.down();
    await page.mouse.move(x, sidebar.y + sidebar.height - 360, { steps: 8 });
    await page.mouse.up();
    await page.waitForTimeout(300);
  }
}

/**
 * Collapses the Context Layers view, as it starts for a new user (a test before may have opened it):
 * the layout checks measure the room the chat gets by default.
 */
export async function hideContextLayers(page: Page): Promise<void> {
  const header = page.locator('.part.sidebar .pane-header', { hasText: 'Context Layers' }).first();
  await header.waitFor({ state: 'visible', timeout: TIMEOUT.ui });
  if ((await header.getAttribute('aria-expanded')) === 'true') await header.click();
  await poll('the Context Layers view to collapse', TIMEOUT.ui, async () =>
    (await header.getAttribute('aria-expanded')) === 'false' ? true : undefined,
  );
}

/**
 * Drags the sash on the side bar's right edge until the side bar is `width` px wide. The drag is
 * tried at a few heights: what lies under the sash at one height (a hover, a webview's frame that
 * takes the mouse) can swallow it.
 */
export async function setSidebarWidth(page: Page, width: number): Promise<void> {
  const now = async () => (await page.locator('.part.sidebar').boundingBox())?.width ?? 0;
  for (const at of [0.5, 0.25, 0.75, 0.1]) {
    await page.keyboard.press('Escape');
    await dismissHovers(page);
    const box = (await page.locator('.part.sidebar').boundingBox())!;
    const y = box.y + box.height * at;
    // The sash on the side bar's right edge, grabbed where it takes the pointer (a hover that
    // opened over it would take the press instead: the locator waits until nothing covers it).
    const sash = await sidebarSash(page, box);
    const x = sash ? sash.box.x + sash.box.width / 2 : box.x + box.width;
    if (sash)
      await sash.locator.hover({ position: { x: sash.box.width / 2, y: y - sash.box.y }, timeout: TIMEOUT.ui }).catch(() => undefined);
    else await page.mouse.move(x, y);
    await page.mouse.down();
    await page.mouse.move(x + (width - box.width), y, { steps: 8 });
    await page.mouse.up();
    const reached = await poll(`the side bar to be ${width} px wide`, 3000, async () =>
      Math.abs((await now()) - width) <= 2 ? true : undefined,
    ).catch(() => false);
    if (reached) return;
  }
  assert.fail(`the side bar to be ${width} px wide: it is ${Math.round(await now())} px after dragging its sash at four heights`);
}

/** The vertical sash on the side bar's right edge, if the workbench shows one. */
async function sidebarSash(
  page: Page,
  sidebar: { x: number; y: number; width: number; height: number },
): Promise<{ locator: Locator; box: { x: number; y: number; width: number; height: number } } | undefined> {
  const sashes = page.locator('.monaco-sash.vertical');
  const count = await sashes.count();
  for (let i = 0; i < count; i++) {
    const locator = sashes.nth(i);
    const box = await locator.boundingBox().catch(() => null);
    if (!box || box.height < sidebar.height / 2) continue;
    const centre = box.x + box.width / 2;
    if (Math.abs(centre - (sidebar.x + sidebar.width)) <= 6 && box.y <= sidebar.y + sidebar.height / 2) return { locator, box };
  }
  return undefined;
}

/**
 * Moves the pointer off the workbench's controls and waits for an open hover to close: a hover
 * left open by an earlier pointer move takes the next click (seen on a busy machine).
 */
export async function dismissHovers(page: Page): Promise<void> {
  await page.mouse.move(1, 1);
  await poll('open hovers to close', 3000, async () =>
    (await page.locator('.monaco-hover:visible').count()) === 0 ? true : undefined,
  ).catch(() => undefined);
}

/** Clicks (or double-clicks) a workbench control; a hover that covers it is closed and the click tried again. */
export async function clickControl(page: Page, target: Locator, double = false): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      if (double) await target.dblclick({ timeout: 10_000 });
      else await target.click({ timeout: 10_000 });
      return;
    } catch (err) {
      if (attempt >= 3) throw err;
      await dismissHovers(page);
    }
  }
}
