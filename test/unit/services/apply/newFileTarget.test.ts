/** Where Apply really writes a new file (src/services/apply/newFileTarget.ts), on a real file system with links. */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { newFileTarget } from '../../../../src/services/apply/newFileTarget';
import { classifyRunsThings } from '../../../../src/services/apply/runsThings';

const excludedGit = (rel: string): boolean => rel === '.git' || rel.startsWith('.git/') || rel.toLowerCase().startsWith('.git/');

describe('Apply: a new file is checked on its real path', () => {
  let root: string;
  let ws: string;

  before(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-newfile-'));
    ws = path.join(root, 'ws');
    fs.mkdirSync(path.join(ws, '.git', 'hooks'), { recursive: true });
    fs.mkdirSync(path.join(ws, 'src'), { recursive: true });
    fs.mkdirSync(path.join(root, 'outside'));
    fs.symlinkSync(path.join('..', 'outside'), path.join(ws, 'linkdir'));
    fs.symlinkSync('.git', path.join(ws, 'gitlink'));
    fs.symlinkSync('src', path.join(ws, 'srclink'));
    fs.symlinkSync(path.join('..', 'outside', 'nothing.sh'), path.join(ws, 'dangling.sh'));
    fs.symlinkSync('missing-dir', path.join(ws, 'danglingdir'));
    fs.writeFileSync(path.join(ws, 'src', 'file.ts'), 'x');
  });

  after(() => fs.rmSync(root, { recursive: true, force: true }));

  it('refuses a folder linked out of the workspace (linkdir → ../outside)', async () => {
    const r = await newFileTarget(ws, 'linkdir/evil.sh', excludedGit, 'linkdir/evil.sh');
    assert.deepEqual(r.ok ? 'ok' : r.reason, 'outside-workspace');
  });

  it('refuses a folder linked to .git (gitlink/hooks/post-checkout) as excluded on its real path', async () => {
    const r = await newFileTarget(ws, 'gitlink/hooks/post-checkout', excludedGit, 'gitlink/hooks/post-checkout');
    assert.equal(r.ok, false);
    assert.equal(!r.ok && r.reason, 'excluded');
    assert.equal(
      !r.ok && r.message,
      'gitlink/hooks/post-checkout would be written to .git/hooks/post-checkout, which matches strata.context.exclude; Strata does not write there.',
    );
  });

  it('refuses a dangling link at the name or on the way', async () => {
    const atName = await newFileTarget(ws, 'dangling.sh', excludedGit, 'dangling.sh');
    assert.equal(!atName.ok && atName.reason, 'dangling-link');
    const onTheWay = await newFileTarget(ws, 'danglingdir/x.ts', excludedGit, 'danglingdir/x.ts');
    assert.equal(!onTheWay.ok && onTheWay.reason, 'dangling-link');
  });

  it('writes to the real path of a link inside the workspace, and to plain new folders', async () => {
    const viaLink = await newFileTarget(ws, 'srclink/new/a.ts', excludedGit, 'srclink/new/a.ts');
    assert.deepEqual(viaLink, { ok: true, real: path.join(fs.realpathSync(ws), 'src', 'new', 'a.ts'), realRelative: 'src/new/a.ts' });
    const plain = await newFileTarget(ws, 'lib/b.ts', excludedGit, 'lib/b.ts');
    assert.deepEqual(plain, { ok: true, real: path.join(fs.realpathSync(ws), 'lib', 'b.ts'), realRelative: 'lib/b.ts' });
  });

  it('says when the file exists or a part of the path is a file', async () => {
    assert.equal((await newFileTarget(ws, 'src/file.ts', excludedGit, 'x')).ok, false);
    const r = await newFileTarget(ws, 'src/file.ts/inner.ts', excludedGit, 'src/file.ts/inner.ts');
    assert.equal(!r.ok && r.reason, 'not-a-folder');
  });

  for (const [name, api, folder, link] of [
    ['posix', path.posix, '/w/ws', '/w/outside'],
    ['win32', path.win32, 'C:\\w\\ws', 'D:\\outside'],
  ] as const) {
    it(`decides containment with ${name} rules (a link out to ${link})`, async () => {
      const enoent = Object.assign(new Error('ENOENT'), { code: 'ENOENT' });
      const linkPath = api.join(folder, 'linkdir');
      const deps = {
        paths: api,
        lstat: async (p: string) => {
          if (p.toLowerCase() === linkPath.toLowerCase()) return { isSymbolicLink: () => true } as fs.Stats;
          throw enoent;
        },
        realpath: async (p: string) => (p.toLowerCase() === linkPath.toLowerCase() ? link : p),
      };
      const out = await newFileTarget(folder, 'linkdir/evil.sh', excludedGit, 'linkdir/evil.sh', deps);
      assert.equal(!out.ok && out.reason, 'outside-workspace');
      const inside = await newFileTarget(folder, 'new/evil.sh', excludedGit, 'new/evil.sh', deps);
      assert.deepEqual(inside, { ok: true, real: api.join(folder, 'new', 'evil.sh'), realRelative: 'new/evil.sh' });
    });
  }
});

describe('Apply: files that run things', () => {
  it('names the risk of tasks, settings, launch, CI, hooks, package scripts and instruction files', () => {
    const risky = [
      '.vscode/tasks.json',
      '.vscode/settings.json',
      '.vscode/launch.json',
      'app/.vscode/tasks.json',
      '.github/workflows/ci.yml',
      '.husky/pre-commit',
      '.git/hooks/post-checkout',
      'package.json',
      'packages/a/package.json',
      'Makefile',
      'AGENTS.md',
      '.strata/instructions.md',
      'x.code-workspace',
      '.VSCode\\Tasks.json',
    ];
    assert.deepEqual(
      risky.filter((p) => classifyRunsThings(p) === undefined),
      [],
    );
    assert.equal(
      classifyRunsThings('.vscode/tasks.json')?.risk.startsWith('the editor reads it: tasks can run when the folder opens'),
      true,
    );
    assert.deepEqual(
      ['src/tasks.json', 'src/package.json.ts', 'docs/vscode/tasks.json', 'README.md', 'constructor', '__proto__'].map(classifyRunsThings),
      [undefined, undefined, undefined, undefined, undefined, undefined],
    );
  });
});
