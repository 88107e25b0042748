#!/usr/bin/env node
'use strict';
// Makes `npm run replay` / `npm start` / `npm run bench` work on a fresh clone: installs the npm
// dependencies when node_modules does not match the lock, compiles when a source file is newer
// than its compiled output and, with --bundle, runs webpack when the extension or webview sources
// are newer than dist/. Quiet when there is nothing to do.
//   --bundle   also make dist/extension.js and dist/webview/main.js current (npm start, e2e)
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { staleDependencies } = require('./lib/deps');

const root = path.resolve(__dirname, '..');
const bundle = process.argv.includes('--bundle');

function newestMtime(dir, exts) {
  let newest = 0;
  if (!fs.existsSync(dir)) return newest;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestMtime(p, exts));
    else if (exts.some((e) => entry.name.endsWith(e))) newest = Math.max(newest, fs.statSync(p).mtimeMs);
  }
  return newest;
}

function mtime(file) {
  try {
    return fs.statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

function sh(cmd, args) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0) {
    process.stderr.write(`\n${cmd} ${args.join(' ')} failed (exit ${r.status}).\n`);
    process.exit(r.status || 1);
  }
}

const stale = staleDependencies(root);
if (stale) {
  process.stderr.write(`${stale}: running npm ci\n`);
  sh('npm', ['ci', '--no-audit', '--no-fund']);
}
const sources = Math.max(
  ...['src', 'bench', 'test'].map((d) => newestMtime(path.join(root, d), ['.ts'])),
  mtime(path.join(root, 'tsconfig.json')),
);
const compiled = newestMtime(path.join(root, 'out'), ['.js']);
if (!fs.existsSync(path.join(root, 'out', 'bench', 'replayCli.js')) || sources > compiled) {
  process.stderr.write('compiling (tsc)…\n');
  sh(process.execPath, [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json']);
}

if (bundle) {
  // The bundles are built from src/ and webview-ui/ (plus the configs that shape them); the older
  // of the two outputs decides, so a half-finished earlier build is redone.
  const bundleSources = Math.max(
    newestMtime(path.join(root, 'src'), ['.ts']),
    newestMtime(path.join(root, 'webview-ui'), ['.ts', '.json']),
    ...['webpack.config.js', 'tsconfig.json', 'package-lock.json'].map((f) => mtime(path.join(root, f))),
  );
  const bundled = Math.min(mtime(path.join(root, 'dist', 'extension.js')), mtime(path.join(root, 'dist', 'webview', 'main.js')));
  if (bundled === 0 || bundleSources > bundled) {
    process.stderr.write('bundling (webpack)…\n');
    sh(process.execPath, [path.join(root, 'node_modules', 'webpack-cli', 'bin', 'cli.js'), '--mode', 'production']);
  }
}
