import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

interface OfflineInstall {
  unpinGitDependencies(lockFile: string): string[];
  exposeSmokeTestDriver(pkgDir: string): boolean;
  ripgrepReleaseTag(source: string): string;
  ripgrepTarget(arch?: string): string;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const offline = require('../../../../../scripts/harness/offlineInstall.js') as OfflineInstall;

interface HarnessConfig {
  PROFILES: Record<string, { codeServer: string; node: string; vscode: string; offlineInstall: boolean; smokeTestDriver: string[] }>;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { PROFILES } = require('../../../../../scripts/harness/config.js') as HarnessConfig;

/** The oldest VS Code's install from the npm registry alone (scripts/harness/offlineInstall.js). */
describe('harness: the oldest VS Code installs offline', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-offline-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('drops the git URL of a locked package that has an integrity hash, and nothing else', () => {
    const lockFile = path.join(dir, 'npm-shrinkwrap.json');
    const lock = {
      lockfileVersion: 3,
      packages: {
        '': { name: 'code-oss-dev' },
        'node_modules/@vscode/proxy-agent': {
          version: '0.27.0',
          resolved: 'git+ssh://git@example.invalid/proxy-agent.git#0803e0a7',
          integrity: 'sha512-ID1M',
        },
        'node_modules/no-hash': { version: '1.0.0', resolved: 'git+ssh://git@example.invalid/no-hash.git#1' },
        'node_modules/@vscode/ripgrep': { version: '1.15.9', resolved: 'https://registry.example.invalid/r.tgz', integrity: 'sha512-4q2P' },
      },
    };
    fs.writeFileSync(lockFile, JSON.stringify(lock));
    assert.deepEqual(offline.unpinGitDependencies(lockFile), ['@vscode/proxy-agent@0.27.0']);
    const after = JSON.parse(fs.readFileSync(lockFile, 'utf8'));
    assert.deepEqual(after.packages['node_modules/@vscode/proxy-agent'], { version: '0.27.0', integrity: 'sha512-ID1M' });
    assert.deepEqual(
      after.packages['node_modules/no-hash'],
      lock.packages['node_modules/no-hash'],
      'without a hash npm could not check it',
    );
    assert.deepEqual(after.packages['node_modules/@vscode/ripgrep'], lock.packages['node_modules/@vscode/ripgrep']);
  });

  it('leaves a lockfile without git URLs byte for byte as it was', () => {
    const lockFile = path.join(dir, 'npm-shrinkwrap.json');
    const text = '{"packages":{"node_modules/a":{"version":"1.0.0","resolved":"https://registry.example.invalid/a.tgz"}}}';
    fs.writeFileSync(lockFile, text);
    assert.deepEqual(offline.unpinGitDependencies(lockFile), []);
    assert.equal(fs.readFileSync(lockFile, 'utf8'), text);
  });

  it('lists the smoke-test driver in an old code-server option table, once, and leaves a newer one alone', () => {
    const cli = path.join(dir, 'out', 'node', 'cli.js');
    fs.mkdirSync(path.dirname(cli), { recursive: true });
    const table = 'exports.options = {\n    "auth": { type: AuthType },\n    "disable-telemetry": { type: "boolean" },\n};\n';
    fs.writeFileSync(cli, table);
    assert.equal(offline.exposeSmokeTestDriver(dir), true);
    const patched = fs.readFileSync(cli, 'utf8');
    assert.equal(
      patched,
      table.replace(
        '    "disable-telemetry"',
        '    "enable-smoke-test-driver": { type: "boolean", description: "Turns on the smoke-test driver (test harness only)." },\n    "disable-telemetry"',
      ),
    );
    assert.equal(offline.exposeSmokeTestDriver(dir), false, 'a second run changes nothing');
    assert.equal(fs.readFileSync(cli, 'utf8'), patched);
    const newer = 'exports.options = {\n    "vscode-option": { type: "string[]" },\n    "disable-telemetry": { type: "boolean" },\n};\n';
    fs.writeFileSync(cli, newer);
    assert.equal(offline.exposeSmokeTestDriver(dir), false);
    assert.equal(fs.readFileSync(cli, 'utf8'), newer);
  });

  it("reads the release tag @vscode/ripgrep's postinstall asks for", () => {
    const source = [
      "const forceInstall = process.argv.includes('--force');",
      "const VERSION = 'v13.0.0-10';",
      "const MULTI_ARCH_LINUX_VERSION = 'v13.0.0-4';",
    ].join('\n');
    assert.equal(offline.ripgrepReleaseTag(source), 'v13.0.0-10');
    assert.throws(() => offline.ripgrepReleaseTag("const MULTI_ARCH_LINUX_VERSION = 'v13.0.0-4';"), /cannot find `const VERSION/);
  });

  it('names the ripgrep asset targets for Linux x64 and arm64, and refuses others', () => {
    assert.equal(offline.ripgrepTarget('x64'), 'x86_64-unknown-linux-musl');
    assert.equal(offline.ripgrepTarget('arm64'), 'aarch64-unknown-linux-musl');
    assert.throws(() => offline.ripgrepTarget('ppc64'), /no offline ripgrep for linux-ppc64/);
  });

  it('pins the current VS Code and the oldest one the suites run on (the floor or the oldest that installs)', () => {
    assert.deepEqual(PROFILES, {
      current: {
        codeServer: '4.139.1',
        node: '24.21.0',
        vscode: '1.139',
        offlineInstall: false,
        smokeTestDriver: ['--vscode-option', 'enable-smoke-test-driver'],
      },
      oldest: {
        codeServer: '4.96.4',
        node: '20.20.2',
        vscode: '1.96',
        offlineInstall: true,
        smokeTestDriver: ['--enable-smoke-test-driver'],
      },
    });
  });
});
