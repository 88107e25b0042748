import * as fs from 'node:fs';
import * as path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { HostToWebviewMessage, PanelState } from '../../src/protocol/messages';
import type { WebviewRequest } from '../../src/protocol/requests';
import { isObj } from '../../src/common/guards';
import { toolIcons } from '../../src/services/tools/definitions';
import { PanelServer, repoRoot, type ThemeKind } from './server';
import { codeServer } from '../e2e/support/harness';

export const CHROMIUM = process.env.STRATA_CHROMIUM || '/usr/bin/chromium';
/** The same headless Chromium flags as the code-server harness (scripts/harness/codeServer.js). */
export const CHROMIUM_ARGS = codeServer.CHROMIUM_ARGS;
export const SCREENSHOTS = path.join(repoRoot, '.harness', 'webview', 'screenshots');
export const BUNDLE = path.join(repoRoot, 'dist', 'webview', 'main.js');

/** What the page's test driver (test/webview/page/driver.js) exposes as `window.strataTest`. */
export interface PageDriver {
  posted(): unknown[];
  allPosted(): unknown[];
  clearPosted(): void;
  violations(): string[];
  errors(): string[];
  setAutoRespond(map: Record<string, { ok: true; value?: unknown } | { ok: false; error: string }>): void;
  clearUiState(): void;
  uiState(): unknown;
  /** The state the next load of the page finds (as if saved by an earlier version); later writes of this page are dropped. */
  replaceUiState(state: unknown): void;
  post(message: unknown): void;
  afterPaint(): Promise<number>;
  fontsReady(): Promise<void>;
  measureInit(message: unknown): Promise<{ handledMs: number; paintedMs: number; allMarkdownMs: number; messages: number }>;
  measureChunks(
    chatId: string,
    turnId: string,
    firstSeq: number,
    count: number,
    texts: string[],
  ): Promise<{ handled: number; frame: number; layout: number; inDom: boolean; inFrame: boolean }[]>;
}

/**
 * Page functions run in the browser, so they reach the driver through the page's global object
 * (a Node-side helper would not exist there): `(globalThis as WithDriver).strataTest`.
 */
export type WithDriver = typeof globalThis & { strataTest: PageDriver };

export interface PostedRequest {
  type: 'request';
  requestId: number;
  request: WebviewRequest;
}

export async function launchBrowser(): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium not found at ${CHROMIUM}: install the Debian package (sudo apt-get install chromium) or set STRATA_CHROMIUM.`,
    );
  }
  if (!fs.existsSync(BUNDLE)) {
    throw new Error(`${BUNDLE} is missing: run \`npx webpack --mode production --config-name webview\` first.`);
  }
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
}

/** One panel in one browser page, driven like the extension host drives the real webview. */
export class Panel {
  private constructor(
    readonly page: Page,
    readonly server: PanelServer,
    readonly theme: ThemeKind,
  ) {}

  static async open(
    browser: Browser,
    server: PanelServer,
    opts: { theme?: ThemeKind; width?: number; height?: number } = {},
  ): Promise<Panel> {
    const theme = opts.theme ?? 'dark';
    const page = await browser.newPage({ viewport: { width: opts.width ?? 400, height: opts.height ?? 700 }, deviceScaleFactor: 1 });
    const panel = new Panel(page, server, theme);
    await page.goto(server.pageUrl(theme));
    await panel.waitForPosted((m) => isObj(m) && m.type === 'ready');
    await page.evaluate(() => (globalThis as WithDriver).strataTest.fontsReady());
    return panel;
  }

  async close(): Promise<void> {
    await this.page.close();
  }

  /**
   * Loads the panel again, as VS Code does with a hidden webview (its saved UI state survives,
   * unless `clearUiState`), and waits until it is ready for `init`.
   */
  async reload(opts: { clearUiState?: boolean } = {}): Promise<void> {
    if (opts.clearUiState) await this.page.evaluate(() => (globalThis as WithDriver).strataTest.clearUiState());
    await this.page.reload();
    await this.waitForPosted((m) => isObj(m) && m.type === 'ready');
  }

  /** Posts a host → webview message. */
  async post(message: HostToWebviewMessage): Promise<void> {
    await this.page.evaluate((m) => (globalThis as WithDriver).strataTest.post(m), message as unknown);
  }

  /** Opens the panel as the host does: its state and the tools' icons from the registry. */
  async init(state: PanelState, extensionVersion = '0.1.0'): Promise<void> {
    await this.post({ type: 'init', protocolVersion: 2, extensionVersion, state, toolIcons: toolIcons() });
    await this.settle();
  }

  /** Waits until the panel has handled what was posted and painted it. */
  async settle(): Promise<void> {
    await this.page.evaluate(() => (globalThis as WithDriver).strataTest.afterPaint());
  }

  async posted(): Promise<unknown[]> {
    return this.page.evaluate(() => (globalThis as WithDriver).strataTest.posted());
  }

  /** Everything the panel posted since the page loaded (clearPosted does not affect it). */
  async allPosted(): Promise<unknown[]> {
    return this.page.evaluate(() => (globalThis as WithDriver).strataTest.allPosted());
  }

  async requests(): Promise<PostedRequest[]> {
    return (await this.posted()).filter((m): m is PostedRequest => isObj(m) && m.type === 'request');
  }

  async clearPosted(): Promise<void> {
    await this.page.evaluate(() => (globalThis as WithDriver).strataTest.clearPosted());
  }

  async waitForPosted(predicate: (m: unknown) => boolean, timeoutMs = 5000): Promise<unknown> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = (await this.page.evaluate(() => (globalThis as WithDriver).strataTest.posted())).find(predicate);
      if (found !== undefined) return found;
      if (Date.now() > deadline) throw new Error('timed out waiting for a posted message');
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /** The latest request of `kind` (waits for it). */
  async waitForRequest<K extends WebviewRequest['kind']>(
    kind: K,
    timeoutMs = 5000,
  ): Promise<PostedRequest & { request: Extract<WebviewRequest, { kind: K }> }> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const all = (await this.requests()).filter((r) => r.request.kind === kind);
      if (all.length > 0) return all[all.length - 1] as PostedRequest & { request: Extract<WebviewRequest, { kind: K }> };
      if (Date.now() > deadline) throw new Error(`timed out waiting for a ${kind} request`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  async respond(requestId: number, result: { ok: true; value?: unknown } | { ok: false; error: string }): Promise<void> {
    await this.post({ type: 'response', requestId, ...result } as HostToWebviewMessage);
    await this.settle();
  }

  async autoRespond(map: Record<string, { ok: true; value?: unknown } | { ok: false; error: string }>): Promise<void> {
    await this.page.evaluate((m) => (globalThis as WithDriver).strataTest.setAutoRespond(m), map);
  }

  async problems(): Promise<{ violations: string[]; errors: string[] }> {
    return this.page.evaluate(() => ({
      violations: (globalThis as WithDriver).strataTest.violations(),
      errors: (globalThis as WithDriver).strataTest.errors(),
    }));
  }

  byTestId(id: string) {
    return this.page.getByTestId(id);
  }

  async screenshot(name: string): Promise<string> {
    fs.mkdirSync(SCREENSHOTS, { recursive: true });
    const file = path.join(SCREENSHOTS, `${name}.png`);
    await this.page.screenshot({ path: file });
    return file;
  }
}
