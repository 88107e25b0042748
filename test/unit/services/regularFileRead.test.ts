/**
 * Reading what was checked: only regular files (a FIFO or a device is refused before it is opened,
 * never waited on), bounded by size, ended by a signal; and a file or folder that another process
 * keeps swapping for a link out of the workspace is never read through the link.
 */
import * as assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isInside } from '../../../src/common/pathContainment';
import { readRegularFile, readRegularFileHead } from '../../../src/services/regularFileRead';
import { tempDir } from '../../support/tempDir';

const posixOnly = process.platform === 'win32' ? it.skip : it;

function tmpRoot(): string {
  return fs.realpathSync(tempDir('strata-read-'));
}

/** A child process that swaps `target` between a regular file (or folder) and a link to `outside`, as fast as it can. */
function flipper(target: string, outside: string, folder: boolean): ChildProcess {
  const code = `
    const fs = require('node:fs');
    const [target, outside, folder] = [process.argv[1], process.argv[2], process.argv[3] === 'folder'];
    const link = target + '.link', real = target + '.real';
    for (;;) {
      try {
        fs.rmSync(link, { force: true, recursive: true });
        fs.symlinkSync(outside, link);
        fs.rmSync(target, { force: true, recursive: true });
        fs.renameSync(link, target);
        fs.rmSync(real, { force: true, recursive: true });
        if (folder) { fs.mkdirSync(real); fs.writeFileSync(real + '/secret.txt', 'INSIDE'); } else fs.writeFileSync(real, 'INSIDE');
        fs.rmSync(target, { force: true, recursive: true });
        fs.renameSync(real, target);
      } catch {}
    }`;
  return spawn(process.execPath, ['-e', code, target, outside, folder ? 'folder' : 'file'], { stdio: 'ignore' });
}

/** Check-then-read attempts (up to `checks` that pass the check, or `maxMs`) against a flipping path: what the checked read got, and what reading the unresolved path would have got. */
async function race(
  root: string,
  target: string,
  checks: number,
  maxMs: number,
): Promise<{ outside: number; inside: number; refused: number; naiveOutside: number }> {
  const n = { outside: 0, inside: 0, refused: 0, naiveOutside: 0 };
  const until = performance.now() + maxMs;
  while (n.outside + n.inside + n.refused < checks && performance.now() < until) {
    let real: string;
    try {
      real = await fs.promises.realpath(target);
    } catch {
      continue;
    }
    if (!isInside(path, root, real)) continue;
    const r = await readRegularFile(real, 1_000_000);
    if (!r.ok) n.refused++;
    else if (r.bytes.toString().includes('OUTSIDE')) n.outside++;
    else n.inside++;
    // What the read of the unresolved path after the same check gets (for the report only).
    const naive = await fs.promises.readFile(target, 'utf8').catch(() => '');
    if (naive.includes('OUTSIDE')) n.naiveOutside++;
  }
  return n;
}

describe('regular file reads', () => {
  it('reads a regular file; refuses folders and devices by kind, without reading them', async () => {
    const root = tmpRoot();
    fs.writeFileSync(path.join(root, 'a.txt'), 'hello');
    const r = await readRegularFile(path.join(root, 'a.txt'), 100);
    assert.ok(r.ok);
    assert.equal(r.bytes.toString(), 'hello');
    assert.deepEqual(await readRegularFile(root, 100), { ok: false, why: 'not-regular', kind: 'folder' });
    if (fs.existsSync('/dev/zero'))
      assert.deepEqual(await readRegularFile('/dev/zero', 100), { ok: false, why: 'not-regular', kind: 'device' });
    assert.deepEqual(await readRegularFile(path.join(root, 'nope.txt'), 100), { ok: false, why: 'missing' });
  });

  posixOnly('refuses a FIFO at once instead of waiting for a writer', async () => {
    const root = tmpRoot();
    const fifo = path.join(root, 'pipe');
    execFileSync('mkfifo', [fifo]);
    const t0 = performance.now();
    assert.deepEqual(await readRegularFile(fifo, 100), { ok: false, why: 'not-regular', kind: 'named pipe (FIFO)' });
    assert.ok(performance.now() - t0 < 1000);
  });

  it('refuses a link in place of the checked path, over-size files and aborted reads', async () => {
    const root = tmpRoot();
    fs.writeFileSync(path.join(root, 'big.txt'), 'x'.repeat(3000));
    fs.symlinkSync(path.join(root, 'big.txt'), path.join(root, 'link.txt'));
    assert.deepEqual(await readRegularFile(path.join(root, 'link.txt'), 10_000), { ok: false, why: 'changed' });
    assert.deepEqual(await readRegularFile(path.join(root, 'big.txt'), 2999), { ok: false, why: 'too-large', size: 3000 });
    const ac = new AbortController();
    ac.abort();
    assert.deepEqual(await readRegularFile(path.join(root, 'big.txt'), 10_000, ac.signal), { ok: false, why: 'aborted' });
  });

  for (const folder of [false, true]) {
    posixOnly(
      `a ${folder ? 'folder' : 'file'} swapped for a link out of the workspace by another process is never read through the link`,
      async function () {
        this.timeout(60_000);
        const tmp = tmpRoot();
        const root = path.join(tmp, 'ws');
        const outside = path.join(tmp, 'outside');
        fs.mkdirSync(root);
        fs.mkdirSync(outside);
        fs.writeFileSync(path.join(outside, 'secret.txt'), 'OUTSIDE');
        const swapped = path.join(root, folder ? 'dir' : 'flip.txt');
        const child = flipper(swapped, folder ? outside : path.join(outside, 'secret.txt'), folder);
        try {
          await new Promise((r) => setTimeout(r, 200));
          const n = await race(root, folder ? path.join(swapped, 'secret.txt') : swapped, 500, 8000);
          console.log(`      ${JSON.stringify(n)}`);
          assert.equal(n.outside, 0, 'no read through the link');
          assert.ok(n.inside + n.refused > 0, 'the race was run');
        } finally {
          child.kill();
          fs.rmSync(tmp, { recursive: true, force: true });
        }
      },
    );
  }

  it('reads the head of a file over the limit, counts the line feeds of all of it, and keeps the same checks', async () => {
    const root = tmpRoot();
    const big = path.join(root, 'app.log');
    // 3 MB of 100-byte lines: more than the 1 MB a read takes at a time.
    const line = `${'x'.repeat(99)}\n`;
    fs.writeFileSync(big, line.repeat(30_000) + 'tail');
    const r = await readRegularFileHead(big, 250);
    assert.ok(r.ok);
    assert.deepEqual([r.head.length, r.size, r.lineFeeds, r.endsWithLineFeed], [250, 3_000_004, 30_000, false]);
    assert.equal(Buffer.from(r.head).toString('utf8'), line + line + 'x'.repeat(50));
    const link = path.join(root, 'link.log');
    fs.symlinkSync(big, link);
    assert.deepEqual(await readRegularFileHead(link, 10), { ok: false, why: 'changed' });
    assert.deepEqual(await readRegularFileHead(root, 10), { ok: false, why: 'not-regular', kind: 'folder' });
  });
});
