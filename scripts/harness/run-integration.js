#!/usr/bin/env node
'use strict';
// Runs the integration suite (out/test/integration/index.js) inside a real VS Code extension host:
// code-server (VS Code server + web workbench) on 127.0.0.1, opened by Debian Chromium through
// playwright-core with the smoke-test driver on, so the workbench loads this repository as the
// extension under development, runs the suite and reports its exit code via codeAutomationExit.
// Everything the run writes (user data, extensions, HOME, XDG dirs, TMPDIR, logs) lives in
// .harness/run/. Then a second, short session (.harness/run-untrusted/) opens a folder with workspace
// trust on and that folder untrusted (real Restricted Mode) and runs test/integration/untrusted/.
// Exits 0 when both suites pass; 1 on a failure, a timeout or a harness failure.
const fs = require('node:fs');
const path = require('node:path');
const util = require('node:util');
const cfg = require('./config');
const { setupHarness } = require('./setup');
const { createFixtureWorkspace } = require('./fixtureWorkspace');
const { createUntrustedFolder } = require('./untrustedWorkspace');
const { formatSeconds } = require('../lib/proc');
const {
  CHROMIUM_ARGS,
  QUIET_SETTINGS,
  isolatedEnv,
  copyFolderExtension,
  startCodeServer,
  tail,
  workbenchUrl,
  writeUserSettings,
} = require('./codeServer');

const repoRoot = path.resolve(__dirname, '..', '..');
const suiteIndex = path.join(repoRoot, 'out', 'test', 'integration', 'index.js');
const untrustedSuiteIndex = path.join(repoRoot, 'out', 'test', 'integration', 'untrusted', 'index.js');
const stallsSuiteIndex = path.join(repoRoot, 'out', 'test', 'integration', 'stalls', 'index.js');
/**
 * Test-only extension loaded beside Strata: a fake `vscode.lm` chat model (offline code-server
 * offers none) for test/integration/vscodeLm.test.ts. Plain JS, no build step, never packaged.
 * Copied into the private extensions dir as `<publisher>.<name>-<version>`: the
 * workbench reads the payload into a Map, so a second `extensionDevelopmentPath` entry would
 * replace Strata's instead of adding to it.
 */
const fakeLmExtension = path.join(repoRoot, 'test', 'fixtures', 'fake-lm-extension');
/**
 * User settings of the Restricted Mode session: workspace trust on, and no modal in the way — the
 * startup prompt never asks and files open without the untrusted-files dialog, so the folder simply
 * opens in Restricted Mode, as a user who dismissed the prompt has it.
 */
const UNTRUSTED_SESSION_SETTINGS = {
  'security.workspace.trust.enabled': true,
  'security.workspace.trust.startupPrompt': 'never',
  'security.workspace.trust.untrustedFiles': 'open',
  'security.workspace.trust.emptyWindow': false,
};
const timeoutSeconds = Number(process.env.STRATA_INTEGRATION_TIMEOUT_SECONDS || 600);
const verbose = process.env.STRATA_HARNESS_VERBOSE === '1';

/** Printed by test/integration/index.ts when the suite starts, and its closing line. */
const SUITE_START = /^Strata integration suite:/m;
const SUMMARY = /^\d+ passed, \d+ failed/m;
/** Workbench chatter that is expected offline and says nothing about Strata. */
const NOISE = /ENOTFOUND|\[(AgentHost[^\]]*|ChatModelSelection|AccountPolicyGate)\]|authentication provider 'github'/;

/** The workbench forwards console calls as (format, ...args); render them the way console would. */
function formatLogArgs(args) {
  return util.format(...(Array.isArray(args) ? args : [args]));
}

/**
 * One session: a fresh code-server and browser on `runDir`, the workbench opened on `target` (a
 * folder or a .code-workspace) with `suite` as the tests; resolves to the suite's exit code.
 */
async function runSession({ name, runDir, suite, prepare, settings, trustWorkspaces, fakeLm }) {
  const started = Date.now();
  fs.rmSync(runDir, { recursive: true, force: true });
  const userDataDir = path.join(runDir, 'user-data');
  const extensionsDir = path.join(runDir, 'extensions');
  for (const d of [userDataDir, extensionsDir]) fs.mkdirSync(d, { recursive: true });
  if (fakeLm) copyFolderExtension(fakeLmExtension, extensionsDir);
  const target = prepare(path.join(runDir, 'workspace'));
  writeUserSettings(userDataDir, { 'workbench.startupEditor': 'none', ...QUIET_SETTINGS, ...settings });
  const env = isolatedEnv(runDir);

  const serverLog = path.join(runDir, 'code-server.log');
  let server;
  let browser;
  const cleanup = async () => {
    if (browser) {
      await browser.close().catch(() => undefined);
      browser = undefined;
    }
    if (server) await server.stop();
  };
  const onSignal = (signal) => {
    console.error(`${name}: ${signal}, stopping`);
    void cleanup().then(() => process.exit(1));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  try {
    server = await startCodeServer({
      runDir,
      userDataDir,
      extensionsDir,
      env,
      logFile: serverLog,
      smokeTestDriver: true,
      disableWorkspaceTrust: !trustWorkspaces,
    });
    const { authority } = server;
    console.log(
      `${name}: code-server ${cfg.CODE_SERVER_VERSION} (VS Code ${cfg.VSCODE_VERSION}) on ${authority} (${formatSeconds(Date.now() - started)})`,
    );

    const { chromium } = require('playwright-core');
    browser = await chromium.launch({ executablePath: cfg.chromiumPath, headless: true, args: CHROMIUM_ARGS, env });
    const page = await browser.newPage();
    const consoleLog = path.join(runDir, 'browser-console.log');
    page.on('console', (msg) => fs.appendFileSync(consoleLog, `[${msg.type()}] ${msg.text()}\n`));
    page.on('pageerror', (err) => fs.appendFileSync(consoleLog, `[pageerror] ${err.stack || err}\n`));

    // The workbench's own log (offline noise: gallery lookups, GitHub auth) goes to automation.log;
    // stdout gets the suite's output, from its start line to its `N passed, N failed` line.
    const automationLog = path.join(runDir, 'automation.log');
    let inSuite = false;
    let sawSummary = false;
    await page.exposeFunction('codeAutomationLog', (type, args) => {
      const text = formatLogArgs(args);
      fs.appendFileSync(automationLog, `[${type}] ${text}\n`);
      if (SUITE_START.test(text)) inSuite = true;
      const show = verbose || SUMMARY.test(text) || (inSuite && !NOISE.test(text));
      if (show) (type === 'error' ? process.stderr : process.stdout).write(`${text}\n`);
      if (SUMMARY.test(text)) {
        sawSummary = true;
        inSuite = false;
      }
    });
    const exitCode = new Promise((resolve) => {
      void page.exposeFunction('codeAutomationExit', (code) => resolve(Number(code)));
    });

    const url = workbenchUrl(authority, target, [
      ['extensionDevelopmentPath', `vscode-remote://${authority}${repoRoot}`],
      ['extensionTestsPath', `vscode-remote://${authority}${suite}`],
    ]);
    await page.goto(url, { waitUntil: 'domcontentloaded', timeout: 60_000 });

    let timer;
    const code = await Promise.race([
      exitCode,
      new Promise((resolve) => {
        timer = setTimeout(() => resolve('timeout'), timeoutSeconds * 1000);
      }),
    ]);
    clearTimeout(timer);
    if (code === 'timeout') {
      console.error(`${name}: the suite did not finish within ${timeoutSeconds} s`);
    }
    if (code !== 0) {
      console.error(`--- last lines of ${path.relative(repoRoot, automationLog)} ---\n${tail(automationLog, 25)}`);
      console.error(`--- last lines of ${path.relative(repoRoot, serverLog)} ---\n${tail(serverLog, 15)}`);
      await page.screenshot({ path: path.join(runDir, 'failure.png') }).catch(() => undefined);
      console.error(`${name}: screenshot in ${path.relative(repoRoot, path.join(runDir, 'failure.png'))}`);
    }
    if (code === 'timeout') {
      return 1;
    }
    if (code === 0 && !sawSummary) {
      console.error(`${name}: the suite exited 0 but printed no "N passed, N failed" line`);
      return 1;
    }
    console.log(
      `${name}: suite exited with ${code} after ${formatSeconds(Date.now() - started)} (logs: ${path.relative(repoRoot, runDir)}/)`,
    );
    return code;
  } finally {
    await cleanup();
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
  }
}

async function main() {
  for (const [file, hint] of [
    [suiteIndex, 'npm run build'],
    [untrustedSuiteIndex, 'npm run build'],
    [stallsSuiteIndex, 'npm run build'],
    [path.join(repoRoot, 'dist', 'extension.js'), 'npm run bundle'],
    [path.join(repoRoot, 'dist', 'webview', 'main.js'), 'npm run bundle'],
    [path.join(fakeLmExtension, 'package.json'), 'git checkout test/fixtures/fake-lm-extension'],
  ]) {
    if (!fs.existsSync(file)) {
      throw new Error(`${path.relative(repoRoot, file)} is missing: run \`${hint}\` first`);
    }
  }
  await setupHarness();
  const only = process.env.STRATA_INTEGRATION_SESSION;
  let code = 0;
  if (!only || only === 'main') {
    code = await runSession({
      name: 'integration',
      runDir: path.join(repoRoot, '.harness', `run${cfg.runSuffix}`),
      suite: suiteIndex,
      prepare: (root) => createFixtureWorkspace(root).workspaceFile,
      settings: {},
      trustWorkspaces: false,
      fakeLm: true,
    });
  }
  if (!only || only === 'stalls') {
    // The host's longest holds, measured in a host of their own: a fresh heap, as a person's window.
    const stalls = await runSession({
      name: 'integration (stalls)',
      runDir: path.join(repoRoot, '.harness', `run-stalls${cfg.runSuffix}`),
      suite: stallsSuiteIndex,
      prepare: (root) => createFixtureWorkspace(root).workspaceFile,
      settings: {},
      trustWorkspaces: false,
      fakeLm: true,
    });
    if (code === 0) code = stalls;
  }
  if (!only || only === 'untrusted') {
    // Restricted Mode for real: the editor, not Strata's settings reader, decides the folder is untrusted.
    const untrusted = await runSession({
      name: 'integration (untrusted)',
      runDir: path.join(repoRoot, '.harness', `run-untrusted${cfg.runSuffix}`),
      suite: untrustedSuiteIndex,
      prepare: createUntrustedFolder,
      settings: UNTRUSTED_SESSION_SETTINGS,
      trustWorkspaces: true,
      fakeLm: false,
    });
    if (code === 0) code = untrusted;
  }
  return code;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(`integration: ${err.message}`);
    process.exit(1);
  },
);
