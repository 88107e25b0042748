/**
 * The opening steps most e2e tests share: the workbench loaded, the Strata view shown, a new chat
 * with no chips (the suites share one workbench, and New Chat reuses a chat with no reply yet,
 * chips included); and the screenshots of one state at a 260 px side bar in the light, dark and
 * high-contrast themes, with the width and theme put back after.
 */
import type { E2ESession } from './session';
import { ChatPanel, TEST_ID } from './chatPanel';
import type { Steps } from './steps';
import {
  chatFrame,
  hideContextLayers,
  openStrataView,
  pickColorTheme,
  poll,
  runCommand,
  setSidebarWidth,
  THEME,
  TIMEOUT,
  waitForWorkbench,
} from './workbench';

/** Workbench loaded, no editor open, the chat view in a new chat with no chips: the panel. */
export async function freshChat(steps: Steps, session: E2ESession): Promise<ChatPanel> {
  const { page } = session;
  await steps.run('workbench loaded', () => waitForWorkbench(page));
  return steps.run('a new chat, no editor open', async () => {
    await runCommand(page, 'View: Close All Editors');
    await openStrataView(page);
    // Context Layers collapsed, as for a new user: an earlier test may have opened it, and a short
    // chat view leaves out the In context row and the chat's cost.
    await hideContextLayers(page);
    const panel = new ChatPanel(page, await chatFrame(page));
    await panel.waitUntilReady();
    await panel.byTestId(TEST_ID.newChat).click();
    await panel.removeAllChips();
    await poll('no chips', TIMEOUT.ui, async () => ((await panel.byTestId(TEST_ID.chip).count()) === 0 ? true : undefined));
    return panel;
  });
}

/** The themes each state is looked at in, light first (the harness's default theme last, so it is left as found). */
const THEMES = [THEME.dark, THEME.hc, THEME.light] as const;

/**
 * Takes the current state at a 260 px side bar in the dark, high-contrast and light themes (one
 * step, so one screenshot, each), running `check` in each; the side bar's width is put back after,
 * and the light theme stays (the harness's default).
 */
export async function narrowThemedShots(steps: Steps, session: E2ESession, what: string, check?: () => Promise<void>): Promise<void> {
  const { page } = session;
  const width = (await page.locator('.part.sidebar').boundingBox())?.width ?? 0;
  try {
    await steps.run(`${what} at a 260 px side bar`, async () => {
      await setSidebarWidth(page, 260);
      await page.waitForTimeout(400);
      if (check) await check();
    });
    for (const theme of THEMES) {
      await steps.run(`${what}, 260 px, ${theme.name} theme`, async () => {
        await pickColorTheme(page, theme.label, async () => (await page.locator(theme.selector).count()) > 0);
        await openStrataView(page);
        await page.waitForTimeout(500);
        if (check) await check();
      });
    }
  } finally {
    if (width > 0) await setSidebarWidth(page, width).catch(() => undefined);
    if ((await page.locator(THEME.light.selector).count()) === 0) await pickColorTheme(page, THEME.light.label).catch(() => undefined);
  }
}
