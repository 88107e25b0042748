'use strict';
// Starting and stopping code-server (VS Code server + web workbench) for the harness runners and
// `npm start`: a private, isolated environment (HOME, XDG dirs, TMPDIR under the run folder), a
// free port on 127.0.0.1, a health check, and a shutdown that takes the whole process group down.
// Shared by run-integration.js, run-e2e.js (through test/e2e/support/workbench.ts) and start.js.
const fs = require('node:fs');
const http = require('node:http');
const net = require('node:net');
const path = require('node:path');
const { spawn, spawnSync } = require('node:child_process');
const cfg = require('./config');
const { cleanEnv } = require('../lib/proc');

/** Debian Chromium under playwright-core, headless (CONTRIBUTING.md, "The harness"). */
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Quiet, offline-friendly defaults for a private profile. */
const QUIET_SETTINGS = {
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'workbench.enableExperiments': false,
  // Workspaces under .harness/ sit inside this repository: no "open the parent repository?" prompt.
  'git.openRepositoryInParentFolders': 'never',
};

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function httpOk(url) {
  return new Promise((resolve) => {
    const req = http.get(url, (res) => {
      res.resume();
      resolve(res.statusCode !== undefined && res.statusCode < 500);
    });
    req.on('error', () => resolve(false));
    req.setTimeout(2000, () => {
      req.destroy();
      resolve(false);
    });
  });
}

async function waitForServer(url, child, seconds) {
  const deadline = Date.now() + seconds * 1000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`code-server exited early with code ${child.exitCode ?? child.signalCode}`);
    }
    if (await httpOk(url)) {
      return;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`code-server did not answer ${url} within ${seconds} s`);
}

function tail(file, lines) {
  try {
    return fs.readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

/**
 * The run's private environment: code-server and Chromium write nothing into the real home or
 * /tmp. Node 24 (the harness's) first on PATH.
 */
function isolatedEnv(runDir) {
  const dirs = {
    HOME: path.join(runDir, 'home'),
    XDG_CONFIG_HOME: path.join(runDir, 'home', '.config'),
    XDG_DATA_HOME: path.join(runDir, 'home', '.local', 'share'),
    XDG_CACHE_HOME: path.join(runDir, 'home', '.cache'),
    TMPDIR: path.join(runDir, 'tmp'),
  };
  Object.values(dirs).forEach((d) => fs.mkdirSync(d, { recursive: true }));
  const env = cleanEnv(dirs);
  // Variables of an enclosing VS Code (integrated terminal) would point the server at that instance.
  for (const key of Object.keys(env)) {
    if (/^(VSCODE_|ELECTRON_)/.test(key)) delete env[key];
  }
  delete env.XDG_RUNTIME_DIR;
  env.PATH = `${path.dirname(cfg.nodeBin)}${path.delimiter}${process.env.PATH}`;
  return env;
}

/** Writes `<userDataDir>/User/settings.json` (JSON; the workbench accepts it as is). */
function writeUserSettings(userDataDir, settings) {
  const file = path.join(userDataDir, 'User', 'settings.json');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(settings, null, 2)}\n`);
  return file;
}

/** Makes an unpacked extension folder an installed extension (no VSIX needed): a symlink named `<publisher>.<name>-<version>`. */
function linkFolderExtension(folder, extensionsDir) {
  const { publisher, name, version } = JSON.parse(fs.readFileSync(path.join(folder, 'package.json'), 'utf8'));
  const link = path.join(extensionsDir, `${publisher}.${name}-${version}`);
  fs.mkdirSync(extensionsDir, { recursive: true });
  fs.rmSync(link, { recursive: true, force: true });
  fs.symlinkSync(folder, link, 'dir');
  return link;
}

/**
 * Installs an unpacked extension folder by copying it to `<publisher>.<name>-<version>`: VS Code 1.96
 * writes `__metadata` into an installed extension's package.json, which through a symlink would
 * change the repository's file.
 */
function copyFolderExtension(folder, extensionsDir) {
  const { publisher, name, version } = JSON.parse(fs.readFileSync(path.join(folder, 'package.json'), 'utf8'));
  const target = path.join(extensionsDir, `${publisher}.${name}-${version}`);
  fs.rmSync(target, { recursive: true, force: true });
  fs.cpSync(folder, target, { recursive: true });
  return target;
}

/**
 * Installs a VSIX into `extensionsDir` with code-server's own installer (what a user's
 * `--install-extension` does). Throws with the installer's output when it fails.
 */
function installVsix(vsix, { extensionsDir, userDataDir, env }) {
  const r = spawnSync(
    cfg.nodeBin,
    [cfg.codeServerEntry, '--extensions-dir', extensionsDir, '--user-data-dir', userDataDir, '--install-extension', vsix, '--force'],
    { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000 },
  );
  const output = `${r.stdout || ''}${r.stderr || ''}`.trim();
  if (r.status !== 0 || !/successfully installed/i.test(output)) {
    throw new Error(`code-server --install-extension ${vsix} failed (exit ${r.status ?? r.signal}):\n${output}`);
  }
  return output;
}

/**
 * Starts code-server on 127.0.0.1 with `--auth none` (loopback only), a private user-data and
 * extensions dir, and waits for /healthz. Its output goes to `logFile`.
 * @returns {Promise<{ child: import('node:child_process').ChildProcess, port: number, authority: string, url: string, stop: () => Promise<void> }>}
 */
async function startCodeServer({
  runDir,
  userDataDir,
  extensionsDir,
  env,
  logFile,
  port,
  smokeTestDriver = false,
  disableWorkspaceTrust = true,
  startupSeconds = 60,
}) {
  const chosenPort = port || (await freePort());
  const authority = `127.0.0.1:${chosenPort}`;
  const fd = fs.openSync(logFile, 'a');
  const args = [
    cfg.codeServerEntry,
    '--bind-addr',
    authority,
    '--auth',
    'none',
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-getting-started-override',
    '--user-data-dir',
    userDataDir,
    '--extensions-dir',
    extensionsDir,
  ];
  if (disableWorkspaceTrust) args.push('--disable-workspace-trust');
  if (smokeTestDriver) args.push(...cfg.smokeTestDriverArgs);
  const child = spawn(cfg.nodeBin, args, { env, cwd: runDir, detached: true, stdio: ['ignore', fd, fd] });
  fs.closeSync(fd);

  // Last resort when this process exits without stopping it (mocha --exit, an uncaught error):
  // code-server runs in its own process group, so nothing else would end it.
  const onExit = () => {
    if (child.exitCode === null && child.signalCode === null) {
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        // already gone
      }
    }
  };
  process.on('exit', onExit);
  let stopping;
  const stop = () => {
    stopping ??= stopProcessGroup(child).finally(() => process.removeListener('exit', onExit));
    return stopping;
  };
  try {
    await waitForServer(`http://${authority}/healthz`, child, startupSeconds);
  } catch (err) {
    await stop();
    throw new Error(`${err.message}\n--- last lines of ${logFile} ---\n${tail(logFile, 20)}`);
  }
  return { child, port: chosenPort, authority, url: `http://${authority}/`, stop };
}

/** SIGTERM to the child's process group, SIGKILL after 5 s if it is still there. */
async function stopProcessGroup(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', () => r(true)));
  const signal = (sig) => {
    try {
      process.kill(-child.pid, sig);
    } catch {
      // already gone
    }
  };
  signal('SIGTERM');
  const gone = await Promise.race([exited, new Promise((r) => setTimeout(() => r(false), 5000))]);
  if (!gone) {
    signal('SIGKILL');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 2000))]);
  }
}

/** The workbench URL for a folder or a `.code-workspace` file (plus an optional smoke-test payload). */
function workbenchUrl(authority, folderOrWorkspace, payload) {
  const kind = folderOrWorkspace.endsWith('.code-workspace') ? 'workspace' : 'folder';
  // '/' stays readable: the URL is printed for people to open.
  let url = `http://${authority}/?${kind}=${encodeURIComponent(folderOrWorkspace).replace(/%2F/g, '/')}`;
  if (payload) url += `&payload=${encodeURIComponent(JSON.stringify(payload))}`;
  return url;
}

module.exports = {
  CHROMIUM_ARGS,
  QUIET_SETTINGS,
  freePort,
  httpOk,
  waitForServer,
  tail,
  isolatedEnv,
  writeUserSettings,
  linkFolderExtension,
  copyFolderExtension,
  installVsix,
  startCodeServer,
  stopProcessGroup,
  workbenchUrl,
};
