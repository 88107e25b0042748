/**
 * One e2e session for the whole run (one VS Code at a time on these machines): the OpenAI
 * imitation server, code-server with the packaged VSIX installed into a private extensions dir
 * and Strata pointed at the imitation through user settings, a copy of the sample workspace, and
 * Debian Chromium (playwright-core) on the workbench. Started by the first test that asks for it,
 * stopped by the root hook in hooks.ts (and on SIGINT/SIGTERM).
 *
 * Configuration comes from scripts/harness/run-e2e.js through the environment:
 *   STRATA_E2E_VSIX                 the VSIX to install (required)
 *   STRATA_E2E_DIR                  run folder (default .harness/e2e)
 *   STRATA_E2E_README_SCREENSHOT    where to write the README's panel screenshot (optional)
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { startOpenAIImitation, type OpenAIImitationServer } from '../../support/imitationServers';
import { codeServer, harnessConfig, repoRoot, type RunningCodeServer } from './harness';

/** The model Strata is configured with; the imitation lists and accepts only this one. */
export const IMITATION_MODEL = 'gpt-4o';
/** Per million tokens, as OpenAI bills gpt-4o: the cost line under a reply is checked against these. */
export const IMITATION_PRICES = { input: 2.5, cachedInput: 1.25, output: 10 };
/** `strata.cache.lifetimeSeconds` in the e2e user settings. */
export const CACHE_LIFETIME_SECONDS = 2;
export const VIEWPORT = { width: 1280, height: 800 };

export interface SessionPaths {
  dir: string;
  runDir: string;
  screenshotsDir: string;
  workspace: string;
  userDataDir: string;
  extensionsDir: string;
  serverLog: string;
  browserLog: string;
}

function sessionPaths(): SessionPaths {
  const dir = path.resolve(process.env.STRATA_E2E_DIR || path.join(repoRoot, '.harness', 'e2e'));
  const runDir = path.join(dir, 'run');
  return {
    dir,
    runDir,
    screenshotsDir: path.join(dir, 'screenshots'),
    workspace: path.join(runDir, 'workspace'),
    userDataDir: path.join(runDir, 'user-data'),
    extensionsDir: path.join(runDir, 'extensions'),
    serverLog: path.join(runDir, 'code-server.log'),
    browserLog: path.join(runDir, 'browser-console.log'),
  };
}

export class E2ESession {
  private shotCount = 0;

  private constructor(
    readonly paths: SessionPaths,
    readonly imitation: OpenAIImitationServer,
    readonly server: RunningCodeServer,
    readonly browser: Browser,
    readonly context: BrowserContext,
    readonly page: Page,
    /** The folder the workbench has open (a fresh copy of samples/workspace). */
    readonly workspace: string,
  ) {}

  static async start(): Promise<E2ESession> {
    const vsix = process.env.STRATA_E2E_VSIX;
    if (!vsix || !fs.existsSync(vsix)) {
      throw new Error(`STRATA_E2E_VSIX must name a packaged VSIX (got ${vsix ?? 'nothing'}); run the suite with \`npm run test:e2e\``);
    }
    const paths = sessionPaths();
    fs.rmSync(paths.runDir, { recursive: true, force: true });
    fs.rmSync(paths.screenshotsDir, { recursive: true, force: true });
    for (const d of [paths.runDir, paths.screenshotsDir, paths.userDataDir, paths.extensionsDir]) fs.mkdirSync(d, { recursive: true });
    fs.cpSync(path.join(repoRoot, 'samples', 'workspace'), paths.workspace, { recursive: true });

    const env = codeServer.isolatedEnv(paths.runDir);
    const started = Date.now();
    codeServer.installVsix(vsix, { extensionsDir: paths.extensionsDir, userDataDir: paths.userDataDir, env });
    log(`installed ${path.relative(repoRoot, vsix)} into the private extensions dir (${Date.now() - started} ms)`);

    // A visible streaming pace: the test must see the reply grow before it completes.
    const imitation = await startOpenAIImitation({ chunkDelayMs: 40, deltaChars: 4, models: [IMITATION_MODEL] });
    const cleanups: (() => Promise<unknown>)[] = [() => imitation.close()];
    try {
      codeServer.writeUserSettings(paths.userDataDir, {
        ...codeServer.QUIET_SETTINGS,
        'workbench.startupEditor': 'none',
        'workbench.secondarySideBar.defaultVisibility': 'hidden',
        'workbench.tips.enabled': false,
        'strata.provider': 'openai',
        'strata.baseUrl': imitation.url,
        'strata.model': IMITATION_MODEL,
        // The imitation server is not OpenAI: its model has a price only through the setting.
        'strata.prices': { [IMITATION_MODEL]: IMITATION_PRICES },
        // A cache lifetime the cost test can wait out (0 would be the provider's 5 minutes).
        'strata.cache.lifetimeSeconds': CACHE_LIFETIME_SECONDS,
      });
      const server = await codeServer.startCodeServer({
        runDir: paths.runDir,
        userDataDir: paths.userDataDir,
        extensionsDir: paths.extensionsDir,
        env,
        logFile: paths.serverLog,
      });
      cleanups.push(() => server.stop());
      log(`code-server ${harnessConfig.CODE_SERVER_VERSION} on ${server.authority}; imitation server on ${imitation.url}`);

      const browser = await chromium.launch({
        executablePath: harnessConfig.chromiumPath,
        headless: true,
        args: codeServer.CHROMIUM_ARGS,
        env,
      });
      cleanups.push(() => browser.close());
      const context = await browser.newContext({ viewport: VIEWPORT });
      const page = await context.newPage();
      page.on('console', (msg) => fs.appendFileSync(paths.browserLog, `[${msg.type()}] ${msg.text()}\n`));
      page.on('pageerror', (err) => fs.appendFileSync(paths.browserLog, `[pageerror] ${err.stack || err}\n`));
      const session = new E2ESession(paths, imitation, server, browser, context, page, paths.workspace);
      await page.goto(session.workbenchUrl, { waitUntil: 'domcontentloaded', timeout: 60_000 });
      return session;
    } catch (err) {
      for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
      throw err;
    }
  }

  get workbenchUrl(): string {
    return codeServer.workbenchUrl(this.server.authority, this.workspace);
  }

  /** Saves a screenshot of the whole window as `NN-name.png` (`NN-FAILED-name.png`); returns its path. */
  async screenshot(name: string, failed = false): Promise<string> {
    this.shotCount++;
    const file = path.join(
      this.paths.screenshotsDir,
      `${String(this.shotCount).padStart(2, '0')}-${failed ? 'FAILED-' : ''}${slug(name)}.png`,
    );
    await this.page.screenshot({ path: file, timeout: 15_000 });
    return file;
  }

  /** Where the last lines of the logs are, for failure messages. */
  logHint(): string {
    return [
      `code-server log: ${path.relative(process.cwd(), this.paths.serverLog)}`,
      `browser console: ${path.relative(process.cwd(), this.paths.browserLog)}`,
    ].join('\n    ');
  }

  /** Stops everything at once: code-server must not wait for a browser that is slow to close. */
  async close(): Promise<void> {
    await Promise.all([this.server.stop(), this.browser.close(), this.imitation.close()].map((p) => p.catch(() => undefined)));
  }
}

export function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 60);
}

export function log(message: string): void {
  console.log(`      e2e: ${message}`);
}

let current: Promise<E2ESession> | undefined;
let closing: Promise<void> | undefined;

/** The run's session, started on first use. */
export function e2eSession(): Promise<E2ESession> {
  if (closing) return Promise.reject(new Error('the e2e session is shutting down'));
  current ??= E2ESession.start();
  return current;
}

/** Stops the session if one was started (root hook, signals); every caller waits for the same stop. */
export function closeE2ESession(): Promise<void> {
  closing ??= (async () => {
    const session = await current?.catch(() => undefined);
    await session?.close();
  })();
  return closing;
}
