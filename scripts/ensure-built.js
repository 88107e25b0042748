#!/usr/bin/env node
'use strict';
// Makes `npm run replay` / `npm start` / `npm run bench` work on a fresh clone: installs the npm
// dependencies when node_modules does not match the lock, and compiles when a source file is newer
// than its compiled output. Quiet when there is nothing to do.
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { staleDependencies } = require('./lib/deps');

const root = path.resolve(__dirname, '..');

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
const sources = Math.max(...['src', 'bench', 'test'].map((d) => newestMtime(path.join(root, d), ['.ts'])), fs.statSync(path.join(root, 'tsconfig.json')).mtimeMs);
const compiled = newestMtime(path.join(root, 'out'), ['.js']);
if (!fs.existsSync(path.join(root, 'out', 'bench', 'replay.js')) || sources > compiled) {
  process.stderr.write('compiling (tsc)…\n');
  sh(process.execPath, [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json']);
}
