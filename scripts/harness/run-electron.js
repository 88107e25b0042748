#!/usr/bin/env node
'use strict';
// Alternative runner for machines that can download VS Code (contributors' laptops): the same
// integration suite in desktop VS Code via @vscode/test-electron. CI uses run-integration.js
// (code-server + Chromium) because VS Code downloads are not reachable there.
//   STRATA_VSCODE_VERSION      the VS Code version to download (default 1.139.1)
//   STRATA_VSCODE_EXECUTABLE   use this VS Code executable instead of downloading one
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { runTests } = require('@vscode/test-electron');
const { createFixtureWorkspace } = require('./fixtureWorkspace');

const repoRoot = path.resolve(__dirname, '..', '..');
/**
 * The test-only fake `vscode.lm` model (test/integration/vscodeLm.test.ts), loaded beside Strata as
 * run-integration.js loads it. Desktop VS Code accepts several --extensionDevelopmentPath flags
 * (the web workbench's payload does not, hence the symlink there).
 */
const fakeLmExtension = path.join(repoRoot, 'test', 'fixtures', 'fake-lm-extension');

async function main() {
  const extensionTestsPath = path.join(repoRoot, 'out', 'test', 'integration', 'index.js');
  if (!fs.existsSync(extensionTestsPath) || !fs.existsSync(path.join(repoRoot, 'dist', 'extension.js'))) {
    throw new Error('build first: npm run build && npm run bundle');
  }
  if (!fs.existsSync(path.join(fakeLmExtension, 'package.json'))) {
    throw new Error(`${path.relative(repoRoot, fakeLmExtension)} is missing`);
  }
  const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-it-'));
  const { workspaceFile } = createFixtureWorkspace(workspace);
  try {
    return await runTests({
      version: process.env.STRATA_VSCODE_VERSION || '1.139.1',
      // A VS Code already on this machine (its executable) instead of a download.
      vscodeExecutablePath: process.env.STRATA_VSCODE_EXECUTABLE || undefined,
      extensionDevelopmentPath: [repoRoot, fakeLmExtension],
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
