#!/usr/bin/env node
'use strict';
// `npm test`: everything a fresh clone needs, in order, each step timed:
//   dependencies (npm ci when node_modules does not match the lock) → system packages check →
//   lint → import cycles → format check → tsc (extension, tests, bench; webview) → unit tests (mocha) → webpack bundles →
//   webview tests (the chat panel's production bundle in Chromium, standalone page) → vsce package →
//   code-server harness (installed once into ~/.cache/strata-harness) → integration suite (inside the
//   extension host) → e2e tests (the packaged VSIX in the real workbench, driven by Chromium) → the
//   same harness, main integration session and panel smoke test on the oldest VS Code supported.
// Steps after a failure still run when they can, so one run shows every problem; the exit code
// is non-zero when any step failed. The two VS Code steps run one after the other, never together.
//   --no-integration   skip the harness, the integration suite and the e2e tests (not allowed when CI is set)
// STRATA_VSCODE_LOCK=<file>: run the two VS Code steps under `flock <file>`, so checkouts sharing a
// machine never run two VS Code sessions at once (about 2 GB each).

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { run, cleanEnv, formatSeconds } = require('./lib/proc');
const { staleDependencies } = require('./lib/deps');
const { missingDebianPackages, installAdvice } = require('./lib/sysdeps');
const { PROFILES } = require('./harness/config');

const root = path.resolve(__dirname, '..');
const args = new Set(process.argv.slice(2));
const isCI = !!process.env.CI && process.env.CI !== 'false';
const skipIntegration = args.has('--no-integration') && !isCI;

const results = [];

async function step(name, fn) {
  const started = Date.now();
  console.log(`\n=== ${name} ===`);
  // The mocha runs append each failed test's title here (scripts/mocha/summaryReporter.js), so the
  // summary at the end names them.
  const failedFile = path.join(os.tmpdir(), `strata-failed-${process.pid}-${results.length}.txt`);
  fs.rmSync(failedFile, { force: true });
  process.env.STRATA_FAILED_TESTS_FILE = failedFile;
  let ok;
  try {
    ok = (await fn()) !== false;
  } catch (err) {
    console.error(err instanceof Error ? err.message : String(err));
    ok = false;
  }
  delete process.env.STRATA_FAILED_TESTS_FILE;
  const failedTests = readFailedTests(failedFile);
  const seconds = formatSeconds(Date.now() - started);
  results.push({ name, ok, seconds, failedTests });
  console.log(`=== ${name}: ${ok ? 'ok' : 'FAILED'} (${seconds}) ===`);
  return ok;
}

/** The failed test titles a step's mocha run recorded (at most 20, each line at most 200 characters). */
function readFailedTests(file) {
  let text = '';
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return [];
  } finally {
    fs.rmSync(file, { force: true });
  }
  return text
    .split('\n')
    .filter(Boolean)
    .slice(0, 20)
    .map((line) => (line.length > 200 ? `${line.slice(0, 199)}…` : line));
}

/** Runs a package's command (its package.json `bin`) with this Node, from the repository root. */
async function bin(pkgName, command, argv) {
  const pkgDir = path.join(root, 'node_modules', pkgName);
  const { bin: bins } = JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8'));
  const script = path.join(pkgDir, typeof bins === 'string' ? bins : bins[command]);
  return (await run(process.execPath, [script, ...argv], { cwd: root })) === 0;
}

async function main() {
  const depsOk = await step('dependencies', async () => {
    const why = staleDependencies(root);
    if (!why) {
      console.log('node_modules matches package-lock.json');
      return true;
    }
    console.log(`${why}: running npm ci`);
    return (await run('npm', ['ci', '--no-audit', '--no-fund'], { cwd: root, env: cleanEnv() })) === 0;
  });
  if (!depsOk) {
    return finish();
  }

  const missing = skipIntegration ? [] : missingDebianPackages(require('./harness/config').chromiumPath);
  if (missing.length > 0) {
    console.warn(`\n${installAdvice(missing)}\n(The integration and e2e tests need them; the other steps run anyway.)`);
  }

  await step('lint', () => bin('eslint', 'eslint', ['.']));
  await step(
    'import cycles',
    async () => (await run(process.execPath, [path.join(root, 'scripts', 'check-cycles.js')], { cwd: root })) === 0,
  );
  await step('format (prettier --check)', () => bin('prettier', 'prettier', ['--check', '--log-level', 'warn', '.']));
  await step('typecheck and compile', async () => {
    const main = await bin('typescript', 'tsc', ['-p', 'tsconfig.json']);
    const webview = await bin('typescript', 'tsc', ['-p', 'webview-ui/tsconfig.json']);
    return main && webview;
  });
  await step('unit tests', () =>
    bin('mocha', 'mocha', ['--config', '.mocharc.json', '--reporter', path.join(root, 'scripts', 'mocha', 'summaryReporter.js')]),
  );
  const bundled = await step('bundle', async () => {
    if (!(await bin('webpack-cli', 'webpack-cli', ['--mode', 'production']))) return false;
    return require('./lib/bundleSizes').checkBundleSizes(root);
  });
  if (bundled) {
    await step('webview tests', () =>
      bin('mocha', 'mocha', ['--config', '.mocharc.webview.json', '--reporter', path.join(root, 'scripts', 'mocha', 'summaryReporter.js')]),
    );
  } else {
    results.push({ name: 'webview tests', ok: false, seconds: 'not run' });
  }
  const vsix = path.join(root, '.harness', 'strata.vsix');
  const packaged = await step('package (vsce, non-interactive)', async () => {
    fs.mkdirSync(path.dirname(vsix), { recursive: true });
    fs.rmSync(vsix, { force: true });
    const ok = require('./package').packageVsix(vsix);
    return ok && fs.existsSync(vsix);
  });

  if (skipIntegration) {
    console.log('\n--no-integration: skipping the code-server harness, the integration suite and the e2e tests');
    return finish();
  }
  const harnessReady = await step('code-server harness', async () => {
    if (missing.length > 0) {
      throw new Error(installAdvice(missing));
    }
    await require('./harness/setup').setupHarness();
    return true;
  });
  if (harnessReady && bundled) {
    await step('integration tests', async () => (await runVsCode('run-integration.js', [])) === 0);
  } else {
    results.push({ name: 'integration tests', ok: false, seconds: 'not run' });
  }
  if (harnessReady && bundled && packaged) {
    await step('e2e tests', async () => (await runVsCode('run-e2e.js', ['--vsix', vsix])) === 0);
  } else {
    results.push({ name: 'e2e tests', ok: false, seconds: 'not run' });
  }

  // The oldest VS Code the suites run on (CONTRIBUTING.md, "The harness"): the main integration
  // session and the panel smoke test, after the current VS Code.
  const oldest = { STRATA_VSCODE: 'oldest' };
  const oldestLabel = `VS Code ${PROFILES.oldest.vscode}`;
  const oldestReady = await step(`code-server harness (${oldestLabel})`, async () => {
    if (missing.length > 0) {
      throw new Error(installAdvice(missing));
    }
    return (
      (await run(process.execPath, [path.join(__dirname, 'harness', 'setup.js')], { cwd: root, env: { ...process.env, ...oldest } })) === 0
    );
  });
  if (oldestReady && bundled) {
    await step(
      `integration tests (${oldestLabel})`,
      async () => (await runVsCode('run-integration.js', [], { ...oldest, STRATA_INTEGRATION_SESSION: 'main' })) === 0,
    );
  } else {
    results.push({ name: `integration tests (${oldestLabel})`, ok: false, seconds: 'not run' });
  }
  if (oldestReady && bundled && packaged) {
    await step(
      `e2e smoke test (${oldestLabel})`,
      async () => (await runVsCode('run-e2e.js', ['--vsix', vsix, '--grep', 'smoke'], oldest)) === 0,
    );
  } else {
    results.push({ name: `e2e smoke test (${oldestLabel})`, ok: false, seconds: 'not run' });
  }
  return finish();
}

/**
 * Runs a harness script that starts VS Code (code-server), under STRATA_VSCODE_LOCK when set;
 * `env` adds variables (STRATA_VSCODE selects the VS Code, scripts/harness/config.js).
 */
function runVsCode(script, args, env = {}) {
  const argv = [path.join(__dirname, 'harness', script), ...args];
  const options = { cwd: root, env: { ...process.env, ...env } };
  const lock = process.env.STRATA_VSCODE_LOCK;
  if (lock) {
    console.log(`(waiting for ${lock} if another VS Code run holds it)`);
    return run('flock', [lock, process.execPath, ...argv], options);
  }
  return run(process.execPath, argv, options);
}

function finish() {
  console.log('\nSummary:');
  for (const r of results) {
    console.log(`  ${r.ok ? 'ok    ' : 'FAILED'}  ${r.name} (${r.seconds})`);
    for (const title of r.failedTests ?? []) console.log(`            failed: ${title}`);
  }
  const failed = results.filter((r) => !r.ok);
  if (failed.length > 0) {
    console.error(`npm test failed: ${failed.map((r) => r.name).join(', ')}`);
    return 1;
  }
  return 0;
}

if (!fs.existsSync(path.join(root, 'package-lock.json'))) {
  console.error('package-lock.json is missing');
  process.exit(1);
}
main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
