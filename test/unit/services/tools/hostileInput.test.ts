/**
 * Hostile input through the tools and the isolation rules, on the pure parts: a glob built to make
 * a backtracking matcher explode, globs with character classes, excludes on a case-insensitive
 * file system, the default secrets patterns, tool arguments named like Object.prototype's members,
 * and tool paths that name an editor buffer instead of a workspace file.
 */
import { onCore } from '../../../support/onCore';
import * as assert from 'node:assert/strict';
import { GlobSet } from '../../../../src/common/glob';
import { DEFAULT_EXCLUDES, IsolationPolicy } from '../../../../src/engine/isolation';
import { MemoryWorkspace } from '../../../../src/services/memoryWorkspace';
import { runStepsSync } from '../../../../src/common/steps';
import { parseToolArgs } from '../../../../src/services/tools/definitions';
import { DEFAULT_TOOL_LIMITS, ToolExecutor, type ToolResult } from '../../../../src/services/tools/executor';

const HOSTILE_GLOB = '**/*?*?*?*?*?*?*?*?*?[s]';
const counter = { count: (text: string) => Math.ceil(text.length / 4) };

function matches(glob: string, path: string): boolean {
  return new GlobSet([glob]).match(path) !== undefined;
}

function run(ws: MemoryWorkspace, name: string, args: Record<string, unknown>): ToolResult {
  return runStepsSync(new ToolExecutor(ws, counter, DEFAULT_TOOL_LIMITS).execute({ id: 'c', name, args }));
}

/** 2,000 workspace-like paths, half of whose last segment ends in `s`, with long names (the costly case). */
function hostilePaths(): string[] {
  const out: string[] = [];
  for (let i = 0; i < 2000; i++) {
    const name = `${'component_'.repeat(2 + (i % 3))}${i}${i % 2 === 0 ? '.tsx' : '.styles'}`;
    out.push(`src/module${i % 40}/part${i % 7}/${name}`);
  }
  return out;
}

describe('hostile input', () => {
  it('a glob built for a backtracking matcher is matched against 2,000 paths in under 50 ms', () => {
    const paths = hostilePaths();
    let best = Infinity;
    let found = 0;
    // The best of a few runs of the same work, on a core: the bound is on the matcher, not on a busy machine.
    for (let run = 0; run < 5; run++) {
      const run1 = onCore(() => {
        const set = new GlobSet([HOSTILE_GLOB]);
        return paths.filter((p) => set.match(p) !== undefined).length;
      });
      found = run1.value;
      best = Math.min(best, run1.ms);
    }
    console.log(`      ${HOSTILE_GLOB} against ${paths.length} paths: ${best.toFixed(1)} ms on a core (best of 5)`);
    assert.equal(found, 1000, 'the paths whose last segment ends in s and has at least 10 characters');
    assert.ok(best < 50, `${best.toFixed(1)} ms`);
  });

  it('globs: segments, ** across folders, braces, and [...] classes as the editor’s file search reads them', () => {
    const table: [string, string, boolean][] = [
      ['**/*.ts', 'a.ts', true],
      ['**/*.ts', 'src/a/b.ts', true],
      ['src/*.ts', 'src/a/b.ts', false],
      ['src/**', 'src/a/b.ts', true],
      ['src/**/*.ts', 'src/a.ts', true],
      ['a/**/b', 'a/b', true],
      ['a/**/b', 'a/x/y/b', true],
      ['a/**/b', 'a/x/y/c', false],
      ['*', 'a/b', false],
      ['**', 'a/b/c', true],
      ['?.ts', 'a.ts', true],
      ['?.ts', 'ab.ts', false],
      ['*.{ts,js}', 'a.js', true],
      ['{src,test}/**/*.ts', 'test/x/y.ts', true],
      ['{src,test}/**/*.ts', 'lib/x/y.ts', false],
      ['src/{a,b{c,d}}.ts', 'src/bd.ts', true],
      ['*.[ch]', 'a.c', true],
      ['*.[ch]', 'a.h', true],
      ['*.[ch]', 'a.o', false],
      ['*.[!ch]', 'a.o', true],
      ['*.[!ch]', 'a.c', false],
      ['*.[^ch]', 'a.c', false],
      ['file[0-9].txt', 'file7.txt', true],
      ['file[0-9].txt', 'filex.txt', false],
      ['a[/]b', 'a/b', false],
      ['a[b', 'a[b', true],
      ['a{b', 'a{b', true],
      ['**/.env', '.env', true],
      ['**/.env', 'a/.envrc', false],
      ['**/*.pem', 'a/key.PEM', false],
      [HOSTILE_GLOB, 'src/components', true],
      [HOSTILE_GLOB, 'src/a.ts', false],
      [HOSTILE_GLOB, 'src/abcdefghis/x.ts', false],
    ];
    const wrong = table
      .filter(([g, p, want]) => matches(g, p) !== want)
      .map(([g, p, want]) => `${g} ${want ? 'should' : 'should not'} match ${p}`);
    assert.deepEqual(wrong, []);
  });

  it('list_files refuses an over-long glob with a sentence saying why', () => {
    const ws = new MemoryWorkspace({ 'src/a.ts': 'a' });
    const r = run(ws, 'list_files', { glob: `${'*?'.repeat(400)}.ts` });
    assert.equal(r.output.kind, 'text');
    assert.match((r.output as { text: string }).text, /glob is 803 characters long; at most \d+ are accepted/);
  });

  it('an exclude that cannot be compiled refuses everything rather than nothing', () => {
    const policy = new IsolationPolicy([`**/{${'a,'.repeat(100)}b}`, `${'*'.repeat(2000)}.x`]);
    assert.equal(policy.checkPath('src/a.ts').ok, false);
    assert.equal(new GlobSet([`{${'a,'.repeat(100)}b}`]).match('a'), undefined, 'a tool glob matches nothing');
  });

  it('excludes match whatever the case (a case-insensitive file system keeps the case it was given)', () => {
    const policy = new IsolationPolicy(DEFAULT_EXCLUDES);
    for (const p of ['.ENV', 'config/.Env.Local', '.Git/config', 'keys/SERVER.PEM', 'home/.SSH/ID_RSA', 'Id_Ed25519.pub'])
      assert.equal(policy.checkPath(p).ok, false, `${p} is excluded`);
    assert.equal(policy.checkPath('src/Environment.ts').ok, true);
  });

  it('the default excludes cover the usual credentials files', () => {
    const policy = new IsolationPolicy(DEFAULT_EXCLUDES);
    const secrets = [
      '.envrc',
      'deploy/prod.env',
      '.git-credentials',
      'home/.pgpass',
      '.pypirc',
      '.docker/config.json',
      'home/.kube/config',
      'infra/terraform.tfstate',
      'android/release.jks',
      'android/debug.keystore',
      'home/.ssh2/id_dsa',
      'id_dsa.pub',
      'gcloud/credentials.json',
      'home/.dockercfg',
      'site/.htpasswd',
      'infra/terraform.tfstate.backup',
      'gcp/service-account-prod.json',
      '.yarnrc.yml',
      'home/.terraformrc',
    ];
    const allowed = secrets.filter((p) => policy.checkPath(p).ok);
    assert.deepEqual(allowed, []);
    for (const p of ['src/env.ts', 'docker/config.json', 'config.json', 'src/credentials.ts', 'src/service.json', '.yarnrc'])
      assert.equal(policy.checkPath(p).ok, true, `${p} is allowed`);
  });

  it('tool arguments are checked against the schema’s own properties (__proto__, constructor are unknown)', () => {
    for (const k of ['constructor', 'toString', 'hasOwnProperty']) {
      const r = parseToolArgs({ name: 'read_file', args: { path: 'src/a.ts', [k]: 1 } });
      assert.equal(typeof r, 'string', `${k} is refused`);
      assert.match(r as string, new RegExp(`unknown argument "${k}"`));
    }
    const proto = JSON.parse('{"path":"src/a.ts","__proto__":{"x":1}}') as Record<string, unknown>;
    assert.match(parseToolArgs({ name: 'read_file', args: proto }) as string, /unknown argument "__proto__"/);
  });

  it('a tool path never names an editor buffer or another scheme: untitled documents are the user’s own', () => {
    const ws = new MemoryWorkspace({ 'untitled:1': 'TOKEN=pasted-secret', 'src/a.ts': 'a' });
    for (const path of ['untitled:1', 'vscode-userdata:/settings.json', 'file:///etc/passwd']) {
      const r = run(ws, 'read_file', { path });
      assert.equal(r.output.kind, 'text', path);
      assert.ok(!JSON.stringify(r.output).includes('pasted-secret'));
      assert.equal((r.output as { refused?: string }).refused, 'outside-workspace', path);
    }
    const d = run(ws, 'get_diagnostics', { path: 'untitled:1' });
    assert.equal((d.output as { refused?: string }).refused, 'outside-workspace');
    // Without a path, the whole workspace's problems: an untitled buffer's (whose messages quote its text) are not among them.
    ws.setDiagnostics([
      { path: 'untitled:1', line: 1, column: 1, severity: 'error', message: "Unknown word 'pasted-secret'" },
      { path: 'src/a.ts', line: 1, column: 1, severity: 'warning', message: 'unused' },
    ]);
    const all = run(ws, 'get_diagnostics', {});
    assert.equal(all.output.kind, 'artifact');
    assert.ok(!JSON.stringify(all.output).includes('pasted-secret'), 'nothing of the untitled buffer');
    assert.ok(JSON.stringify(all.output).includes('src/a.ts:1:1: warning: unused'));
  });
});
