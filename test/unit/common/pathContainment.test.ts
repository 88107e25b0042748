/**
 * Containment of a real path in a workspace folder under both path flavours, whatever machine runs
 * the tests: Windows drive letters in any case, either separator, UNC shares and long-path forms;
 * POSIX case-sensitivity, sibling folders sharing a prefix, and climbs out.
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { isInside, relativeInside } from '../../../src/common/pathContainment';

describe('path containment', () => {
  it('win32: drive letters and names in any case, either separator, the folder itself', () => {
    const w = path.win32;
    assert.equal(relativeInside(w, 'C:\\work\\repo', 'C:\\work\\repo\\src\\a.ts'), 'src/a.ts');
    assert.equal(relativeInside(w, 'c:\\work\\repo', 'C:\\Work\\Repo\\src\\a.ts'), 'src/a.ts');
    assert.equal(relativeInside(w, 'C:\\work\\repo\\', 'C:/work/repo/src/a.ts'), 'src/a.ts');
    assert.equal(relativeInside(w, 'C:\\work\\repo', 'C:\\work\\repo'), '');
    assert.equal(relativeInside(w, 'C:\\', 'C:\\repo\\a.ts'), 'repo/a.ts');
    assert.equal(relativeInside(w, 'C:\\work\\repo', 'C:\\work\\repo\\..foo\\a.ts'), '..foo/a.ts');
  });

  it('win32: other drives, siblings with a shared prefix and climbs out are outside', () => {
    const w = path.win32;
    for (const target of [
      'D:\\work\\repo\\a.ts',
      'C:\\work\\repo2\\a.ts',
      'C:\\work\\a.ts',
      'C:\\work\\repo\\..\\secret.txt',
      'repo\\a.ts',
    ])
      assert.equal(isInside(w, 'C:\\work\\repo', target), false, target);
  });

  it('win32: UNC shares and long-path forms', () => {
    const w = path.win32;
    assert.equal(relativeInside(w, '\\\\server\\share\\repo', '\\\\SERVER\\share\\repo\\a.ts'), 'a.ts');
    assert.equal(isInside(w, '\\\\server\\share\\repo', '\\\\server\\other\\repo\\a.ts'), false);
    assert.equal(relativeInside(w, 'C:\\work\\repo', '\\\\?\\C:\\work\\repo\\a.ts'), 'a.ts');
    assert.equal(relativeInside(w, '\\\\?\\c:\\work\\repo', 'C:\\work\\repo\\src\\b.ts'), 'src/b.ts');
    assert.equal(relativeInside(w, '\\\\server\\share\\repo', '\\\\?\\UNC\\server\\share\\repo\\a.ts'), 'a.ts');
    assert.equal(isInside(w, 'C:\\work\\repo', '\\\\?\\D:\\work\\repo\\a.ts'), false);
    assert.equal(isInside(w, '\\\\server\\share\\repo', 'C:\\server\\share\\repo\\a.ts'), false);
  });

  it('posix: case-sensitive, siblings with a shared prefix and climbs out are outside', () => {
    const p = path.posix;
    assert.equal(relativeInside(p, '/work/repo', '/work/repo/src/a.ts'), 'src/a.ts');
    assert.equal(relativeInside(p, '/work/repo/', '/work/repo'), '');
    assert.equal(relativeInside(p, '/', '/etc/passwd'), 'etc/passwd');
    for (const target of ['/work/Repo/a.ts', '/work/repo2/a.ts', '/work/repo/../x', '/etc/passwd', 'work/repo/a.ts'])
      assert.equal(isInside(p, '/work/repo', target), false, target);
    // A backslash is a character of a name on POSIX, not a separator.
    assert.equal(relativeInside(p, '/work/repo', '/work/repo/a\\b.ts'), 'a\\b.ts');
  });
});
