'use strict';
// System (Debian) packages the code-server harness needs. Checked by looking for the files and
// commands themselves, so the check also works on other distributions; the advice names Debian packages.
const fs = require('node:fs');
const path = require('node:path');

function onPath(command) {
  return (process.env.PATH || '').split(path.delimiter).some((dir) => {
    try {
      fs.accessSync(path.join(dir, command), fs.constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/**
 * @param {{ ripgrep?: boolean }} [needs] ripgrep: the oldest VS Code's offline install (scripts/harness/offlineInstall.js)
 * @returns {{pkg: string, why: string}[]} the Debian packages that are missing
 */
function missingDebianPackages(chromiumPath = '/usr/bin/chromium', { ripgrep = true } = {}) {
  const checks = [
    { pkg: 'chromium', why: `browser for the harness (${chromiumPath})`, ok: () => fs.existsSync(chromiumPath) },
    {
      pkg: 'libkrb5-dev',
      why: "Kerberos headers for code-server's native modules (gssapi/gssapi.h)",
      ok: () => fs.existsSync('/usr/include/gssapi/gssapi.h'),
    },
    { pkg: 'make', why: 'native module builds', ok: () => onPath('make') },
    { pkg: 'g++', why: 'native module builds', ok: () => onPath('g++') },
    { pkg: 'python3', why: 'node-gyp', ok: () => onPath('python3') },
    { pkg: 'ripgrep', why: "the oldest VS Code's offline install (its search binary)", ok: () => !ripgrep || onPath('rg') },
  ];
  return checks.filter((c) => !c.ok()).map(({ pkg, why }) => ({ pkg, why }));
}

function installAdvice(missing) {
  const sudo = typeof process.getuid === 'function' && process.getuid() === 0 ? '' : 'sudo ';
  return [
    'Missing system packages for the VS Code (code-server) integration harness:',
    ...missing.map((m) => `  - ${m.pkg}: ${m.why}`),
    'Install them with:',
    `  ${sudo}apt-get update && ${sudo}apt-get install -y ${missing.map((m) => m.pkg).join(' ')}`,
  ].join('\n');
}

module.exports = { missingDebianPackages, installAdvice, onPath };
