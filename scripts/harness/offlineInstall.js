'use strict';
// Installs an older code-server from the npm registry alone. Its own install (postinstall.sh runs
// `npm install` in lib/vscode with VS Code's lockfile) fetches two parts from GitHub:
//   1. `@vscode/proxy-agent`, locked as a git URL although the registry has the same version with
//      the same integrity hash: the git URL is dropped, npm takes the registry's and checks the hash;
//   2. ripgrep's binary, which `@vscode/ripgrep`'s postinstall downloads from GitHub releases unless
//      `<os.tmpdir()>/vscode-ripgrep-cache-<package version>/<asset name>` exists: that file is made
//      from the machine's own `rg` (Debian `ripgrep`), and TMPDIR points there for the install.
// and argon2's and kerberos' installs ask GitHub for prebuilt binaries before building from source.
// So: `npm install --ignore-scripts code-server@<v>`, the two fixes, then `npm rebuild` from source.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { run } = require('../lib/proc');

/** Removes `resolved` from lockfile entries fetched with git when the entry carries an integrity hash. */
function unpinGitDependencies(lockFile) {
  const lock = JSON.parse(fs.readFileSync(lockFile, 'utf8'));
  const unpinned = [];
  for (const [key, entry] of Object.entries(lock.packages || {})) {
    if (typeof entry.resolved === 'string' && /^git(\+|:)/.test(entry.resolved) && entry.integrity) {
      delete entry.resolved;
      unpinned.push(`${key.replace(/^.*node_modules\//, '')}@${entry.version}`);
    }
  }
  if (unpinned.length > 0) fs.writeFileSync(lockFile, `${JSON.stringify(lock, null, 2)}\n`);
  return unpinned;
}

/** ripgrep-prebuilt's target names for this machine (`@vscode/ripgrep`'s postinstall picks the same). */
function ripgrepTarget(arch = os.arch()) {
  if (arch === 'x64') return 'x86_64-unknown-linux-musl';
  if (arch === 'arm64') return 'aarch64-unknown-linux-musl';
  throw new Error(`no offline ripgrep for linux-${arch}`);
}

/** The release tag `@vscode/ripgrep`'s postinstall asks for (its `const VERSION = '…'`). */
function ripgrepReleaseTag(postinstallSource) {
  const m = /^const VERSION = '(v[0-9][^']*)'/m.exec(postinstallSource);
  if (!m) throw new Error("cannot find `const VERSION = '…'` in @vscode/ripgrep's postinstall");
  return m[1];
}

function whichRg() {
  for (const dir of (process.env.PATH || '').split(path.delimiter)) {
    const file = path.join(dir, 'rg');
    try {
      fs.accessSync(file, fs.constants.X_OK);
      return fs.realpathSync(file);
    } catch {
      // not in this directory
    }
  }
  throw new Error("ripgrep is missing (the oldest VS Code installs with the machine's `rg`): apt-get install -y ripgrep");
}

/**
 * Puts `ripgrep-<tag>-<target>.tar.gz` (holding this machine's `rg`) into `<tmpDir>/vscode-ripgrep-cache-<ripgrepVersion>/`.
 * The tag comes from the `@vscode/ripgrep` package itself (npm pack, no scripts run).
 */
async function seedRipgrepCache({ tmpDir, ripgrepVersion, env, logFile }) {
  const work = fs.mkdtempSync(path.join(tmpDir, 'rg-'));
  const code = await run('npm', ['pack', `@vscode/ripgrep@${ripgrepVersion}`, '--pack-destination', work, '--loglevel=warn'], {
    env,
    cwd: work,
    logFile,
  });
  const tgz = fs.readdirSync(work).find((f) => f.endsWith('.tgz'));
  if (code !== 0 || !tgz) throw new Error(`npm pack @vscode/ripgrep@${ripgrepVersion} failed (exit ${code})`);
  execFileSync('tar', ['xzf', path.join(work, tgz), '-C', work, 'package/lib/postinstall.js']);
  const tag = ripgrepReleaseTag(fs.readFileSync(path.join(work, 'package', 'lib', 'postinstall.js'), 'utf8'));
  const binDir = path.join(work, 'bin');
  fs.mkdirSync(binDir);
  fs.copyFileSync(whichRg(), path.join(binDir, 'rg'));
  fs.chmodSync(path.join(binDir, 'rg'), 0o755);
  const cacheDir = path.join(tmpDir, `vscode-ripgrep-cache-${ripgrepVersion}`);
  fs.mkdirSync(cacheDir, { recursive: true });
  const asset = path.join(cacheDir, `ripgrep-${tag}-${ripgrepTarget()}.tar.gz`);
  execFileSync('tar', ['czf', asset, '-C', binDir, 'rg']);
  fs.rmSync(work, { recursive: true, force: true });
  return asset;
}

/**
 * code-server before 4.100 has no `--vscode-option` and refuses VS Code options it does not list,
 * but hands every parsed option on to the VS Code server: listing `enable-smoke-test-driver` in its
 * option table lets the harness turn the driver on (codeServer.js). Returns whether it changed the file.
 */
function exposeSmokeTestDriver(pkgDir) {
  const cli = path.join(pkgDir, 'out', 'node', 'cli.js');
  const text = fs.readFileSync(cli, 'utf8');
  if (text.includes('"enable-smoke-test-driver"') || text.includes('"vscode-option"')) return false;
  const anchor = '    "disable-telemetry": {';
  if (!text.includes(anchor)) throw new Error(`cannot find the option table in ${cli}`);
  const option =
    '    "enable-smoke-test-driver": { type: "boolean", description: "Turns on the smoke-test driver (test harness only)." },\n';
  fs.writeFileSync(cli, text.replace(anchor, `${option}${anchor}`));
  return true;
}

/**
 * @param {{ prefix: string, version: string, env: NodeJS.ProcessEnv, logFile: string }} opts
 * @returns {Promise<number|string>} the exit code of the step that failed, or 0
 */
async function installCodeServerOffline({ prefix, version, env, logFile }) {
  const log = (line) => fs.appendFileSync(logFile, `${line}\n`);
  const npmArgs = ['--no-save', '--no-package-lock', '--no-audit', '--no-fund', '--loglevel=warn'];
  let code = await run('npm', ['install', '--prefix', prefix, ...npmArgs, '--ignore-scripts', `code-server@${version}`], {
    env,
    logFile,
    cwd: prefix,
  });
  if (code !== 0) return code;

  const pkgDir = path.join(prefix, 'node_modules', 'code-server');
  const vscodeLock = path.join(pkgDir, 'lib', 'vscode', 'npm-shrinkwrap.json');
  for (const lockFile of [vscodeLock, path.join(pkgDir, 'lib', 'vscode', 'extensions', 'npm-shrinkwrap.json')]) {
    if (!fs.existsSync(lockFile)) continue;
    const unpinned = unpinGitDependencies(lockFile);
    if (unpinned.length > 0) log(`offline: from the registry instead of git: ${unpinned.join(', ')}`);
  }

  const tmpDir = path.join(prefix, '.install-tmp');
  fs.mkdirSync(tmpDir, { recursive: true });
  const ripgrep = JSON.parse(fs.readFileSync(vscodeLock, 'utf8')).packages['node_modules/@vscode/ripgrep'];
  if (ripgrep) {
    const asset = await seedRipgrepCache({ tmpDir, ripgrepVersion: ripgrep.version, env, logFile });
    log(`offline: ripgrep from this machine's rg as ${asset}`);
  }

  // Now the install scripts: argon2's native module, then code-server's postinstall. Built from
  // source: node-pre-gyp and prebuild-install would otherwise ask GitHub for prebuilt binaries first.
  // postinstall.sh refuses to run as root unless npm's unsafe-perm is set.
  code = await run('npm', ['rebuild', '--prefix', prefix, '--loglevel=warn'], {
    env: { ...env, TMPDIR: tmpDir, npm_config_unsafe_perm: 'true', npm_config_build_from_source: 'true' },
    logFile,
    cwd: prefix,
  });
  fs.rmSync(tmpDir, { recursive: true, force: true });
  if (code === 0 && exposeSmokeTestDriver(pkgDir)) log('offline: code-server accepts --enable-smoke-test-driver');
  return code;
}

module.exports = { installCodeServerOffline, exposeSmokeTestDriver, unpinGitDependencies, ripgrepReleaseTag, ripgrepTarget };
