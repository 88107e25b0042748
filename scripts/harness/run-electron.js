#!/usr/bin/env node
'use strict';
// Alternative runner for machines that can download VS Code (contributors' laptops): the same
// integration suite in desktop VS Code via @vscode/test-electron. CI uses run-integration.js
// (code-server + Chromium) because VS Code downloads are not reachable there.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { runTests } = require('@vscode/test-electron');
const { createFixtureWorkspace } = require('./fixtureWorkspace');

const repoRoot = path.resolve(__dirname, '..', '..');

async function main() {
  const extensionTestsPath = path.join(repoRoot, 'out', 'test', 'integration', 'index.js');
  if (!fs.existsSync(extensionTestsPath) || !fs.existsSync(path.join(repoRoot, 'dist', 'extension.js'))) {
    throw new Error('build first: npm run build && npm run bundle');
  }
  const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-it-'));
  const { workspaceFile } = createFixtureWorkspace(workspace);
  try {
    return await runTests({
      version: process.env.STRATA_VSCODE_VERSION || '1.139.1',
      extensionDevelopmentPath: repoRoot,
      extensionTestsPath,
      launchArgs: [workspaceFile, '--disable-extensions', '--disable-workspace-trust'],
    });
  } finally {
    fs.rmSync(workspace, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(`integration (electron): ${err instanceof Error ? err.message : err}`);
    process.exit(1);
  },
);
