/**
 * File writes a crash cannot leave half done: a whole-file replace (tmp + fsync + rename), an append
 * of one line (one write + fsync), a truncate (+ fsync); and the small tolerant reads the store does
 * on files another window may remove at any moment. `durable: false` skips the fsyncs (tests).
 */
import * as fs from 'fs';
import * as path from 'path';

let tmpCounter = 0;

/** Flushes a folder's entries (a new or renamed file) to disk, where the platform supports it. */
export function fsyncDir(dir: string): void {
  try {
    const fd = fs.openSync(dir, 'r');
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    // Not supported on every platform (Windows); the rename is still atomic.
  }
}

/** Writes `file` so that readers see either the old or the new content: tmp + fsync + rename. */
export function writeFileAtomic(file: string, data: Buffer, durable = true): void {
  const tmp = `${file}.tmp-${process.pid}-${++tmpCounter}`;
  const fd = fs.openSync(tmp, 'w');
  try {
    let off = 0;
    while (off < data.length) off += fs.writeSync(fd, data, off, data.length - off);
    if (durable) fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  try {
    fs.renameSync(tmp, file);
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    throw e;
  }
  if (durable) fsyncDir(path.dirname(file));
}

/** Appends `text` with one write (+ fsync; a new file's folder too). Returns the bytes written. */
export function appendDurably(file: string, text: string, durable: boolean): number {
  const data = Buffer.from(text, 'utf8');
  const existed = fs.existsSync(file);
  const fd = fs.openSync(file, 'a');
  try {
    let off = 0;
    while (off < data.length) off += fs.writeSync(fd, data, off, data.length - off);
    if (durable) fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  if (!existed && durable) fsyncDir(path.dirname(file));
  return data.length;
}

/** Cuts `file` to `bytes` (+ fsync): a crash leaves either the old file or the shorter one. */
export function truncateDurably(file: string, bytes: number, durable: boolean): void {
  const fd = fs.openSync(file, 'r+');
  try {
    fs.ftruncateSync(fd, bytes);
    if (durable) fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** Reads `length` bytes at `position` (fewer at the end of the file). */
export function readRange(fd: number, position: number, length: number): Buffer {
  const buf = Buffer.allocUnsafe(length);
  let got = 0;
  while (got < length) {
    const n = fs.readSync(fd, buf, got, length - got, position + got);
    if (n === 0) break;
    got += n;
  }
  return buf.subarray(0, got);
}

/** A folder's names; none when it does not exist (yet, or any more). */
export function safeReaddir(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}

/** A file's inode, -1 when it is gone. */
export function fileIno(file: string): number {
  try {
    return fs.statSync(file).ino;
  } catch {
    return -1;
  }
}

/** A file's mtime (ms); now when it is gone (so it never counts as old). */
export function mtimeOf(file: string): number {
  try {
    return fs.statSync(file).mtimeMs;
  } catch {
    return Date.now();
  }
}
