'use strict';
// Is node_modules what package-lock.json describes? Checked per package (name and version), so a
// fresh clone, a changed lock or a half-finished install all lead to `npm ci`.
const fs = require('node:fs');
const path = require('node:path');

/** @returns {string | undefined} why node_modules is stale, or undefined when it matches the lock */
function staleDependencies(root) {
  const lockFile = path.join(root, 'package-lock.json');
  if (!fs.existsSync(path.join(root, 'node_modules'))) {
    return 'node_modules is missing';
  }
  const lock = JSON.parse(fs.readFileSync(lockFile, 'utf8'));
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  const lockRoot = (lock.packages && lock.packages['']) || {};
  for (const field of ['dependencies', 'devDependencies']) {
    const canonical = (deps) => JSON.stringify(Object.entries(deps || {}).sort(([a], [b]) => (a < b ? -1 : 1)));
    if (canonical(pkg[field]) !== canonical(lockRoot[field])) {
      return `package.json ${field} differ from package-lock.json (run npm install)`;
    }
  }
  for (const [key, entry] of Object.entries(lock.packages || {})) {
    if (!key.startsWith('node_modules/') || entry.link) continue;
    let installed;
    try {
      installed = JSON.parse(fs.readFileSync(path.join(root, key, 'package.json'), 'utf8'));
    } catch {
      if (entry.optional) continue; // another platform's optional binary
      return `${key} is missing`;
    }
    if (entry.version && installed.version !== entry.version) {
      return `${key} is ${installed.version}, the lock wants ${entry.version}`;
    }
  }
  return undefined;
}

module.exports = { staleDependencies };
