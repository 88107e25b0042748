#!/usr/bin/env node
'use strict';
// End-to-end tests in the real VS Code workbench (code-server + Debian Chromium via playwright-core):
// packages the VSIX (unless --vsix names one), makes sure the harness is installed, then runs the
// mocha suites in out/test/e2e/ in Node. The suites install the VSIX into a private extensions dir
// with `code-server --install-extension`, start the OpenAI imitation server, point Strata at it
// through user settings and drive the workbench (test/e2e/support/session.ts).
//
//   node scripts/harness/run-e2e.js [--vsix FILE] [--grep TEXT] [--update-readme-screenshot]
//
//   --vsix FILE                  install this VSIX instead of packaging one (npm test passes its own)
//   --grep TEXT                  only tests whose title contains TEXT (e.g. --grep smoke)
//   --update-readme-screenshot   also write docs/screenshot-panel.png (otherwise the repo is not touched)
//
// Screenshots of every step: .harness/e2e/screenshots/; logs: .harness/e2e/run/. Prints
// `N passed, N failed`; exits non-zero when a test failed or the run could not start.
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { run, formatSeconds } = require('../lib/proc');
const { setupHarness } = require('./setup');

const repoRoot = path.resolve(__dirname, '..', '..');
const e2eDir = path.join(repoRoot, '.harness', `e2e${require('./config').runSuffix}`);
const compiledDir = path.join(repoRoot, 'out', 'test', 'e2e');
const readmeScreenshot = path.join(repoRoot, 'docs', 'screenshot-panel.png');
/** The smoke test first: when the workbench itself does not come up, that is the failure to read. */
const FIRST = ['smoke.test.js'];

function parseArgs(argv) {
  const opts = { vsix: undefined, grep: undefined, readme: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--vsix') opts.vsix = path.resolve(argv[++i] ?? '');
    else if (a === '--grep') opts.grep = argv[++i];
    else if (a === '--update-readme-screenshot') opts.readme = true;
    else throw new Error(`unknown argument ${a}`);
  }
  return opts;
}

function suiteFiles() {
  if (!fs.existsSync(compiledDir)) throw new Error(`${path.relative(repoRoot, compiledDir)} is missing: run \`npm run build\``);
  const files = fs.readdirSync(compiledDir).filter((f) => f.endsWith('.test.js'));
  files.sort((a, b) => {
    const ia = FIRST.indexOf(a);
    const ib = FIRST.indexOf(b);
    return (ia < 0 ? FIRST.length : ia) - (ib < 0 ? FIRST.length : ib) || (a < b ? -1 : a > b ? 1 : 0);
  });
  return files.map((f) => path.join(compiledDir, f));
}

async function main() {
  const started = Date.now();
  const opts = parseArgs(process.argv.slice(2));

  // Compiled tests and bundles current (npm ci / tsc / webpack only when something changed).
  const built = spawnSync(process.execPath, [path.join(repoRoot, 'scripts', 'ensure-built.js'), '--bundle'], {
    cwd: repoRoot,
    stdio: 'inherit',
  });
  if (built.status !== 0) return 1;

  let vsix = opts.vsix;
  if (vsix) {
    if (!fs.existsSync(vsix)) throw new Error(`--vsix ${vsix}: no such file`);
  } else {
    vsix = path.join(e2eDir, 'strata.vsix');
    fs.mkdirSync(e2eDir, { recursive: true });
    fs.rmSync(vsix, { force: true });
    console.log('e2e: packaging the VSIX');
    if (!require('../package').packageVsix(vsix) || !fs.existsSync(vsix)) throw new Error('packaging the VSIX failed');
  }
  await setupHarness();

  const files = suiteFiles();
  const mocha = path.join(repoRoot, 'node_modules', 'mocha', 'bin', 'mocha.js');
  const args = [
    mocha,
    '--no-config',
    '--ui',
    'bdd',
    '--reporter',
    path.join(repoRoot, 'scripts', 'mocha', 'summaryReporter.js'),
    '--require',
    path.join(compiledDir, 'hooks.js'),
    '--timeout',
    '300000',
    '--exit',
  ];
  if (opts.grep) args.push('--grep', opts.grep);
  args.push(...files);
  if (opts.readme) fs.mkdirSync(path.dirname(readmeScreenshot), { recursive: true });
  console.log(`e2e: ${files.length} suite file(s): ${files.map((f) => path.basename(f)).join(', ')}`);
  const code = await run(process.execPath, args, {
    cwd: repoRoot,
    env: {
      ...process.env,
      STRATA_E2E_VSIX: vsix,
      STRATA_E2E_DIR: e2eDir,
      ...(opts.readme ? { STRATA_E2E_README_SCREENSHOT: readmeScreenshot } : {}),
    },
  });
  const where = `screenshots: ${path.relative(repoRoot, path.join(e2eDir, 'screenshots'))}/, logs: ${path.relative(repoRoot, path.join(e2eDir, 'run'))}/`;
  console.log(`e2e: ${code === 0 ? 'passed' : `failed (exit ${code})`} after ${formatSeconds(Date.now() - started)} (${where})`);
  return code === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(`e2e: ${err instanceof Error ? err.message : err}`);
    process.exit(1);
  },
);
