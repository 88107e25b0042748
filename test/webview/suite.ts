/**
 * The fixture every panel suite shares: one page server and one browser for the suite, and after
 * each test the checks that hold for any test — every message the panel posted passes the host's own
 * validation, and the page had no CSP violation and no error.
 */
import * as assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { ProtocolError } from '../../src/protocol/messages';
import { parseWebviewToHostMessage, type WebviewToHostMessage } from '../../src/protocol/requests';
import { launchBrowser, Panel } from './harness';
import { PanelServer } from './server';

type OpenOptions = Parameters<typeof Panel.open>[2];

/** Registers the suite's hooks (call it inside `describe`); `open` loads the panel for one test. */
export function panelSuite(hooks: { onPosted?: (message: WebviewToHostMessage) => void } = {}): {
  open(opts?: OpenOptions): Promise<Panel>;
} {
  const server = new PanelServer();
  let browser: Browser;
  let panel: Panel | undefined;

  before(async () => {
    await server.start();
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await server.stop();
  });

  afterEach(async () => {
    if (!panel) return;
    const p = panel;
    panel = undefined;
    const posted = await p.allPosted();
    const problems = await p.problems();
    await p.close();
    for (const m of posted) {
      const parsed = parseWebviewToHostMessage(m);
      assert.ok(
        !(parsed instanceof ProtocolError),
        `the panel posted a message the host rejects: ${JSON.stringify(m).slice(0, 300)} (${String(parsed)})`,
      );
      hooks.onPosted?.(parsed);
    }
    assert.deepEqual(problems.violations, [], 'CSP violations');
    assert.deepEqual(problems.errors, [], 'page errors');
  });

  return {
    async open(opts = {}) {
      panel = await Panel.open(browser, server, opts);
      return panel;
    },
  };
}
