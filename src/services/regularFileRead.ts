/**
 * Reads a file whose real path was just checked, and only that file, only if it is a regular file.
 *
 * Between the check of a real path and the read, another process can swap the file (or a folder
 * above it) for a link out of the workspace; reading the path again would follow it. So the read
 * opens the checked real path without following a last link, takes the identity (device, inode) of
 * the descriptor it got, and compares it with the checked path's identity taken before opening;
 * where the system names what a descriptor points to (`/proc/self/fd` on Linux) that name must be
 * the checked real path too, which also catches a folder above it swapped for a link. Elsewhere the
 * real path is resolved once more after opening and must not have moved.
 *
 * A FIFO, socket or device is refused before it is opened (reading one can block forever), and the
 * open itself does not block (a FIFO swapped in after the check). Reading stops at `maxBytes` and
 * when `signal` is aborted.
 */
import * as fs from 'node:fs';

export type RegularFileRead =
  | { ok: true; bytes: Buffer; size: number; mtimeMs: number }
  | {
      ok: false;
      /**
       * `not-regular`: a folder, FIFO, socket or device (`kind` says which); `changed`: the path no
       * longer names the file that was checked (swapped for a link, replaced while opening);
       * `too-large`: over `maxBytes` (`size`); `missing`: gone; `aborted`; `error`: another failure.
       */
      why: 'not-regular' | 'changed' | 'too-large' | 'missing' | 'aborted' | 'error';
      kind?: string;
      size?: number;
      code?: string;
    };

/** Bytes read per call: a signal is honoured between chunks. */
const CHUNK_BYTES = 1 << 20;

const OPEN_FLAGS = fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0) | (fs.constants.O_NOFOLLOW ?? 0);

/** What kind of non-regular file `st` is, in words. */
export function fileKind(st: fs.Stats): string {
  if (st.isFile()) return 'file';
  if (st.isDirectory()) return 'folder';
  if (st.isFIFO()) return 'named pipe (FIFO)';
  if (st.isSocket()) return 'socket';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'device';
  if (st.isSymbolicLink()) return 'link';
  return 'special file';
}

function sameFile(a: fs.Stats, b: fs.Stats): boolean {
  return a.dev === b.dev && a.ino === b.ino;
}

/** The path a descriptor is open on, where the system says it; undefined elsewhere. */
async function descriptorPath(fd: number): Promise<string | undefined> {
  if (process.platform !== 'linux') return undefined;
  try {
    return await fs.promises.readlink(`/proc/self/fd/${fd}`);
  } catch {
    return undefined;
  }
}

type Failure = Extract<RegularFileRead, { ok: false }>;

/**
 * Opens the checked real path (only a regular file, only the file that was checked): the handle and
 * its stat, or why not. Over `maxBytes` it is not opened at all.
 */
async function openChecked(
  realPath: string,
  signal: AbortSignal | undefined,
  maxBytes = Infinity,
): Promise<{ ok: true; handle: fs.promises.FileHandle; checked: fs.Stats } | Failure> {
  if (signal?.aborted) return { ok: false, why: 'aborted' };
  let checked: fs.Stats;
  try {
    // lstat: the checked real path has no links in it, so a link here appeared after the check.
    checked = await fs.promises.lstat(realPath);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR' ? { ok: false, why: 'missing' } : { ok: false, why: 'error', code };
  }
  if (checked.isSymbolicLink()) return { ok: false, why: 'changed' };
  if (!checked.isFile()) return { ok: false, why: 'not-regular', kind: fileKind(checked) };
  if (checked.size > maxBytes) return { ok: false, why: 'too-large', size: checked.size };
  let handle: fs.promises.FileHandle;
  try {
    handle = await fs.promises.open(realPath, OPEN_FLAGS);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') return { ok: false, why: 'changed' };
    if (code === 'ENOENT' || code === 'ENOTDIR') return { ok: false, why: 'missing' };
    return { ok: false, why: 'error', code };
  }
  return { ok: true, handle, checked };
}

/** Whether the open `handle` is the file `checked` at `realPath` (not one swapped in since); why not otherwise. */
async function stillChecked(
  handle: fs.promises.FileHandle,
  checked: fs.Stats,
  realPath: string,
): Promise<{ ok: true; opened: fs.Stats } | Failure> {
  const opened = await handle.stat();
  if (!sameFile(opened, checked)) return { ok: false, why: 'changed' };
  if (!opened.isFile()) return { ok: false, why: 'not-regular', kind: fileKind(opened) };
  const named = await descriptorPath(handle.fd);
  if (named !== undefined) {
    if (named !== realPath) return { ok: false, why: 'changed' };
  } else {
    const again = await fs.promises.realpath(realPath).catch(() => undefined);
    if (again !== realPath) return { ok: false, why: 'changed' };
  }
  return { ok: true, opened };
}

export async function readRegularFile(realPath: string, maxBytes: number, signal?: AbortSignal): Promise<RegularFileRead> {
  const open = await openChecked(realPath, signal, maxBytes);
  if (!open.ok) return open;
  const { handle } = open;
  try {
    const same = await stillChecked(handle, open.checked, realPath);
    if (!same.ok) return same;
    const opened = same.opened;
    if (opened.size > maxBytes) return { ok: false, why: 'too-large', size: opened.size };
    // Read to the end (the file may have grown since its stat), never past maxBytes + 1.
    let buf = Buffer.allocUnsafe(Math.min(opened.size, maxBytes) + 1);
    let total = 0;
    for (;;) {
      if (signal?.aborted) return { ok: false, why: 'aborted' };
      if (total === buf.length) {
        if (total > maxBytes) return { ok: false, why: 'too-large', size: total };
        const grown = Buffer.allocUnsafe(Math.min(buf.length * 2, maxBytes + 1));
        buf.copy(grown, 0, 0, total);
        buf = grown;
      }
      const { bytesRead } = await handle.read(buf, total, Math.min(CHUNK_BYTES, buf.length - total), null);
      if (bytesRead === 0) break;
      total += bytesRead;
    }
    if (total > maxBytes) return { ok: false, why: 'too-large', size: total };
    return { ok: true, bytes: buf.subarray(0, total), size: total, mtimeMs: opened.mtimeMs };
  } catch (e) {
    return { ok: false, why: 'error', code: (e as NodeJS.ErrnoException).code };
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/** The first bytes of a file and how many line feeds the whole file has (`size`: all its bytes). */
export type RegularFileHead = { ok: true; head: Buffer; size: number; lineFeeds: number; endsWithLineFeed: boolean } | Failure;

/**
 * The first `headBytes` bytes of a file over the size limit, with the same checks as
 * {@link readRegularFile} (only the regular file that was checked); the rest is read a chunk at a
 * time only to count its line feeds (so a head can say "first N lines of M"), never kept.
 */
export async function readRegularFileHead(realPath: string, headBytes: number, signal?: AbortSignal): Promise<RegularFileHead> {
  const open = await openChecked(realPath, signal);
  if (!open.ok) return open;
  const { handle } = open;
  try {
    const same = await stillChecked(handle, open.checked, realPath);
    if (!same.ok) return same;
    const head = Buffer.allocUnsafe(Math.min(same.opened.size, headBytes));
    let total = 0;
    while (total < head.length) {
      if (signal?.aborted) return { ok: false, why: 'aborted' };
      const { bytesRead } = await handle.read(head, total, Math.min(CHUNK_BYTES, head.length - total), null);
      if (bytesRead === 0) break;
      total += bytesRead;
    }
    let lineFeeds = countLineFeeds(head, total);
    let size = total;
    let last = total > 0 ? head[total - 1] : -1;
    const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
    for (;;) {
      if (signal?.aborted) return { ok: false, why: 'aborted' };
      const { bytesRead } = await handle.read(chunk, 0, CHUNK_BYTES, null);
      if (bytesRead === 0) break;
      lineFeeds += countLineFeeds(chunk, bytesRead);
      size += bytesRead;
      last = chunk[bytesRead - 1];
    }
    return { ok: true, head: head.subarray(0, total), size, lineFeeds, endsWithLineFeed: last === 0x0a };
  } catch (e) {
    return { ok: false, why: 'error', code: (e as NodeJS.ErrnoException).code };
  } finally {
    await handle.close().catch(() => undefined);
  }
}

function countLineFeeds(buf: Buffer, end: number): number {
  let n = 0;
  for (let i = buf.indexOf(0x0a, 0); i >= 0 && i < end; i = buf.indexOf(0x0a, i + 1)) n++;
  return n;
}
