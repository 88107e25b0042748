#!/usr/bin/env node
'use strict';
// `npm start`: opens Strata in a real VS Code on a sample workspace.
//
//   npm start [-- [folder] [--imitate[=openai|anthropic|ollama|vllm|llamacpp|lmstudio]] [--code-server | --desktop] [--port N] [--fresh]]
//
// - Desktop VS Code (`code` on PATH): `code --extensionDevelopmentPath=<this repo>` with a private
//   profile (--user-data-dir / --extensions-dir under .harness/start/desktop), so the person's own
//   profile is never touched. Waits until the window is closed.
// - Otherwise code-server (VS Code 1.139 server + web workbench, installed once into
//   ~/.cache/strata-harness) on 127.0.0.1 with this repository linked in as an installed extension;
//   prints the URL to open and stays up until Ctrl-C.
// - The workspace is a copy of samples/workspace under .harness/start/workspace (the repository
//   stays clean) unless a folder is given. --fresh starts over: a new copy and a new profile.
// - --imitate starts a local imitation server (OpenAI-compatible by default, or Anthropic) with a
//   visible streaming pace and points Strata at it through the private profile's settings, so full
//   turns work without an account. Nothing leaves the machine.
// Set-up on a fresh clone is automatic: npm ci when node_modules does not match the lock, tsc and
// webpack when sources changed, the code-server install when missing.
const fs = require('node:fs');
const path = require('node:path');
const { spawn, spawnSync } = require('node:child_process');
const { onPath } = require('./lib/sysdeps');
const { applyManagedSettings } = require('./lib/profileSettings');
const { QUIET_SETTINGS } = require('./harness/codeServer');

const root = path.resolve(__dirname, '..');
const startDir = path.join(root, '.harness', 'start');
const sampleWorkspace = path.join(root, 'samples', 'workspace');

const USAGE = `usage: npm start [-- [folder] [--imitate[=openai|anthropic|ollama|vllm|llamacpp|lmstudio]] [--code-server | --desktop] [--port N] [--fresh]]

  folder            open this folder instead of a copy of samples/workspace
  --imitate         also start a local OpenAI-compatible imitation server and point Strata at it
  --imitate=anthropic   the Anthropic imitation instead
  --imitate=ollama|vllm|llamacpp|lmstudio   a local server's imitation (its models and window come from it)
  --code-server     use code-server (in your browser) even when \`code\` is on PATH
  --desktop         require desktop VS Code (\`code\` on PATH)
  --port N          code-server's port on 127.0.0.1 (default: a free one)
  --fresh           start over: a new copy of the sample workspace and a new private profile`;

function fail(message, code = 2) {
  process.stderr.write(`start: ${message}\n`);
  process.exit(code);
}

function parseArgs(argv) {
  const opts = { folder: undefined, imitate: undefined, mode: 'auto', port: 0, fresh: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--help' || a === '-h') {
      process.stdout.write(`${USAGE}\n`);
      process.exit(0);
    } else if (a === '--imitate') {
      opts.imitate = 'openai';
    } else if (a.startsWith('--imitate=')) {
      opts.imitate = a.slice('--imitate='.length);
      const kinds = Object.keys(require('./lib/imitation').PROVIDERS);
      if (!kinds.includes(opts.imitate)) fail(`${a}: choose --imitate=${kinds.join('|')}`);
    } else if (a === '--code-server') {
      opts.mode = 'code-server';
    } else if (a === '--desktop') {
      opts.mode = 'desktop';
    } else if (a === '--fresh') {
      opts.fresh = true;
    } else if (a === '--port' || a.startsWith('--port=')) {
      const v = a === '--port' ? argv[++i] : a.slice('--port='.length);
      opts.port = Number(v);
      if (!Number.isInteger(opts.port) || opts.port < 1 || opts.port > 65535) fail(`--port: not a port number: ${v}`);
    } else if (a.startsWith('-')) {
      fail(`unknown option ${a}\n${USAGE}`);
    } else if (opts.folder === undefined) {
      opts.folder = a;
    } else {
      fail(`one folder only (got ${opts.folder} and ${a})`);
    }
  }
  return opts;
}

/** The folder to open: the person's, or the sample workspace's copy (made when missing or --fresh). */
function prepareWorkspace(opts) {
  if (opts.folder !== undefined) {
    const folder = path.resolve(process.env.INIT_CWD || process.cwd(), opts.folder);
    if (!fs.existsSync(folder) || !fs.statSync(folder).isDirectory()) fail(`${folder} is not a folder`);
    return { folder, sample: false };
  }
  const folder = path.join(startDir, 'workspace');
  if (opts.fresh) fs.rmSync(folder, { recursive: true, force: true });
  if (!fs.existsSync(folder)) {
    fs.cpSync(sampleWorkspace, folder, { recursive: true });
    console.log(`start: copied samples/workspace to ${path.relative(root, folder)}/`);
  }
  return { folder, sample: true };
}

/** Settings the private profile gets on every start (the imitation's are added with --imitate). */
function managedSettings(imitation) {
  return {
    ...QUIET_SETTINGS,
    'workbench.startupEditor': 'readme',
    // The editor's built-in chat would sit beside Strata's panel; keep the secondary side bar closed.
    'workbench.secondarySideBar.defaultVisibility': 'hidden',
    'strata.provider': imitation?.settings['strata.provider'],
    'strata.baseUrl': imitation?.settings['strata.baseUrl'],
    'strata.model': imitation?.settings['strata.model'],
  };
}

function withoutEditorEnv(env) {
  const out = { ...env };
  for (const key of Object.keys(out)) {
    if (/^(VSCODE_|ELECTRON_RUN_AS_NODE$)/.test(key) || /^npm_/i.test(key)) delete out[key];
  }
  return out;
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const mode = opts.mode === 'auto' ? (onPath('code') ? 'desktop' : 'code-server') : opts.mode;
  if (mode === 'desktop' && !onPath('code'))
    fail('--desktop: `code` is not on PATH (VS Code: "Shell Command: Install \'code\' command in PATH")');

  const built = spawnSync(process.execPath, [path.join(__dirname, 'ensure-built.js'), '--bundle'], { stdio: 'inherit' });
  if (built.status !== 0) process.exit(built.status || 1);

  const profileDir = path.join(startDir, mode);
  if (opts.fresh) fs.rmSync(profileDir, { recursive: true, force: true });
  const userDataDir = path.join(profileDir, 'user-data');
  const extensionsDir = path.join(profileDir, 'extensions');
  fs.mkdirSync(userDataDir, { recursive: true });
  fs.mkdirSync(extensionsDir, { recursive: true });
  const { folder, sample } = prepareWorkspace(opts);

  const stoppers = [];
  let stopping = false;
  const stopAll = async (code) => {
    if (stopping) return;
    stopping = true;
    for (const stop of stoppers.reverse()) {
      await stop().catch((err) => process.stderr.write(`start: ${err.message}\n`));
    }
    process.exit(code);
  };
  const onSignal = (signal) => {
    if (stopping) {
      process.stderr.write('start: stopping… (once more to force)\n');
      process.once(signal, () => process.exit(130));
      return;
    }
    console.log(`\nstart: ${signal}: stopping what npm start started…`);
    void stopAll(0);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  let imitation;
  if (opts.imitate) {
    imitation = await require('./lib/imitation').startImitation(opts.imitate);
    stoppers.push(async () => {
      await imitation.close();
      console.log(`start: imitation server stopped (${imitation.server.chatRequests.length} chat requests served)`);
    });
  }
  applyManagedSettings(userDataDir, managedSettings(imitation));

  const lines = [];
  if (imitation) {
    lines.push(
      `Local ${imitation.label} imitation server: ${imitation.baseUrl} (127.0.0.1 only)`,
      `  Strata is set to ${imitation.settings['strata.provider']} · ${imitation.settings['strata.model']} at that address in the private profile;`,
      '  replies are generated locally and say what the request contained. No account, no network.',
    );
  }

  if (mode === 'desktop') {
    const args = [
      `--extensionDevelopmentPath=${root}`,
      '--user-data-dir',
      userDataDir,
      '--extensions-dir',
      extensionsDir,
      '--new-window',
      '--wait',
    ];
    if (sample) args.push('--disable-workspace-trust');
    args.push(folder);
    const child = spawn('code', args, { stdio: 'inherit', env: withoutEditorEnv(process.env) });
    stoppers.push(async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    });
    console.log(
      [
        '',
        'Strata is opening in VS Code (a private profile under .harness/start/desktop; your own profile is not used):',
        `  workspace: ${folder}`,
        ...lines,
        'Open the Strata view from the activity bar. Close the VS Code window (or press Ctrl-C here) to stop.',
        '',
      ].join('\n'),
    );
    child.on('exit', (code) => void stopAll(code ?? 0));
    child.on('error', (err) => {
      process.stderr.write(`start: could not run code: ${err.message}\n`);
      void stopAll(1);
    });
    return;
  }

  // code-server
  const { setupHarness } = require('./harness/setup');
  const { isolatedEnv, linkFolderExtension, startCodeServer, workbenchUrl } = require('./harness/codeServer');
  const cfg = require('./harness/config');
  await setupHarness({ browser: false });
  // This repository is the installed extension: rebuild (npm start does it) and reload the window to pick up changes.
  linkFolderExtension(root, extensionsDir);
  const logFile = path.join(profileDir, 'code-server.log');
  // HOME and the XDG folders point into the profile folder: code-server writes its config there, not into the real home.
  const server = await startCodeServer({
    runDir: profileDir,
    userDataDir,
    extensionsDir,
    env: isolatedEnv(profileDir),
    logFile,
    port: opts.port,
    disableWorkspaceTrust: sample,
  });
  stoppers.push(async () => {
    await server.stop();
    console.log('start: code-server stopped');
  });
  server.child.on('exit', (code, signal) => {
    if (stopping) return;
    process.stderr.write(`start: code-server exited (${code ?? signal}); see ${path.relative(root, logFile)}\n`);
    void stopAll(1);
  });
  console.log(
    [
      '',
      `Strata in VS Code 1.${cfg.CODE_SERVER_VERSION.split('.')[1]} (code-server ${cfg.CODE_SERVER_VERSION}), open in your browser:`,
      '',
      `  ${workbenchUrl(server.authority, folder)}`,
      '',
      `  workspace: ${folder}`,
      `  bound to 127.0.0.1 only, without a password (--auth none): reachable from this machine only.`,
      ...lines,
      '',
      'Open the Strata view from the activity bar (the layers icon). Press Ctrl-C to stop.',
      '',
    ].join('\n'),
  );
}

main().catch((err) => {
  process.stderr.write(`start: ${err && err.stack ? err.stack : err}\n`);
  process.exit(1);
});
