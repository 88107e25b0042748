/**
 * Where a path that does not resolve would lead: a tool must answer the same for a file that exists
 * behind a link out of the workspace (or to an excluded folder) and for one that does not, so its
 * answers tell nothing about which files exist there. Real links on disk; the path rules also under
 * `path.win32` and `path.posix` over a fake file system.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MAX_LINK_HOPS, missingPathVerdict, wouldBeRealPath, type MissingPathDeps } from '../../../src/services/missingPath';

const excludedGit = (rel: string): boolean => rel === '.git' || rel.startsWith('.git/');

describe('a path that does not resolve', () => {
  let root: string;
  let ws: string;
  let outside: string;

  before(function () {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'strata-missing-')));
    ws = path.join(root, 'ws');
    outside = path.join(root, 'outside');
    fs.mkdirSync(path.join(ws, '.git'), { recursive: true });
    fs.mkdirSync(path.join(ws, 'src'));
    fs.mkdirSync(outside);
    fs.writeFileSync(path.join(outside, 'secret.txt'), 'secret');
    fs.writeFileSync(path.join(ws, '.git', 'config'), '[core]');
    fs.symlinkSync(outside, path.join(ws, 'linked-out'));
    fs.symlinkSync(path.join(ws, '.git'), path.join(ws, 'linked-git'));
    fs.symlinkSync(path.join(outside, 'no-such.txt'), path.join(ws, 'dangling-out'));
    fs.symlinkSync(path.join(ws, 'src', 'later.ts'), path.join(ws, 'dangling-in'));
    fs.symlinkSync(path.join(ws, 'loop-b'), path.join(ws, 'loop-a'));
    fs.symlinkSync(path.join(ws, 'loop-a'), path.join(ws, 'loop-b'));
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  const verdict = (rel: string) => missingPathVerdict(ws, path.join(ws, ...rel.split('/')), rel, excludedGit);

  it('leads where a file there would be, through links and dangling links', async () => {
    assert.equal(await wouldBeRealPath(path.join(ws, 'linked-out', 'secret.txt')), path.join(outside, 'secret.txt'));
    assert.equal(await wouldBeRealPath(path.join(ws, 'linked-out', 'no-such.txt')), path.join(outside, 'no-such.txt'));
    assert.equal(await wouldBeRealPath(path.join(ws, 'linked-out', 'a', 'b.txt')), path.join(outside, 'a', 'b.txt'));
    assert.equal(await wouldBeRealPath(path.join(ws, 'dangling-out')), path.join(outside, 'no-such.txt'));
    assert.equal(await wouldBeRealPath(path.join(ws, 'linked-git', 'hooks', 'x')), path.join(ws, '.git', 'hooks', 'x'));
    assert.equal(await wouldBeRealPath(path.join(ws, 'loop-a', 'x')), undefined);
  });

  it('a missing file behind a link out is refused like an existing one; behind a link to .git, excluded like one', async () => {
    // An existing file there resolves outside (isolation refuses it as outside-workspace) ...
    assert.equal(fs.realpathSync(path.join(ws, 'linked-out', 'secret.txt')), path.join(outside, 'secret.txt'));
    // ... and so does a missing one: the same refusal, no existence oracle.
    assert.deepEqual(await verdict('linked-out/no-such.txt'), { kind: 'outside-workspace', real: path.join(outside, 'no-such.txt') });
    assert.deepEqual(await verdict('dangling-out'), { kind: 'outside-workspace', real: path.join(outside, 'no-such.txt') });
    assert.deepEqual(await verdict('loop-a/x'), { kind: 'outside-workspace' });
    assert.deepEqual(await verdict('linked-git/no-such'), { kind: 'excluded', realRelative: '.git/no-such' });
    // Inside the workspace, not excluded: simply absent.
    assert.deepEqual(await verdict('src/no-such.ts'), { kind: 'absent' });
    assert.deepEqual(await verdict('dangling-in'), { kind: 'absent' });
  });

  for (const [name, paths, folder, file, linkTarget, outsideReal] of [
    ['path.posix', path.posix, '/w', '/w/out/x.txt', '/elsewhere', '/elsewhere/x.txt'],
    ['path.win32', path.win32, 'C:\\w', 'C:\\w\\out\\x.txt', 'D:\\elsewhere', 'D:\\elsewhere\\x.txt'],
  ] as const) {
    it(`follows a dangling path under ${name}`, async () => {
      // A fake disk: the folder exists, `out` is a link to another place where x.txt does not exist.
      const exists = new Set([folder, paths.join(folder, 'out'), linkTarget, paths.parse(folder).root, paths.parse(linkTarget).root]);
      const links = new Map([[paths.join(folder, 'out'), linkTarget]]);
      const missing = () => Object.assign(new Error('ENOENT'), { code: 'ENOENT' });
      const deps: MissingPathDeps = {
        paths,
        realpath: async (p) => {
          if (links.has(p)) return links.get(p)!;
          if (exists.has(p)) return p;
          throw missing();
        },
        lstat: async (p) => {
          if (!exists.has(p)) throw missing();
          return { isSymbolicLink: () => links.has(p) };
        },
        readlink: async (p) => links.get(p)!,
      };
      assert.equal(await wouldBeRealPath(file, deps), outsideReal);
      assert.deepEqual(await missingPathVerdict(folder, file, 'out/x.txt', () => false, deps), {
        kind: 'outside-workspace',
        real: outsideReal,
      });
      assert.deepEqual(await missingPathVerdict(folder, paths.join(folder, 'y.txt'), 'y.txt', () => false, deps), { kind: 'absent' });
    });
  }

  it(`gives up after ${MAX_LINK_HOPS} links`, async () => {
    assert.equal(MAX_LINK_HOPS, 40);
    let reads = 0;
    const deps: MissingPathDeps = {
      paths: path.posix,
      realpath: async (p) => {
        if (p === '/') return p;
        throw Object.assign(new Error('ENOENT'), { code: 'ENOENT' });
      },
      lstat: async () => ({ isSymbolicLink: () => true }),
      readlink: async () => (reads++, '/again'),
    };
    assert.equal(await wouldBeRealPath('/again', deps), undefined);
    assert.equal(reads, 40);
  });
});
