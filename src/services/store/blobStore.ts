/**
 * Content-addressed blobs: artifact snapshots (and compacted previews) under `blobs/<hash[0..2]>/<hash>`,
 * named by the sha256 of their bytes. A blob is written once (tmp + fsync + rename, so a crash never
 * leaves a partial blob under its name) and checked against its name on every read.
 */
import * as fs from 'fs';
import * as path from 'path';
import { sha256HexBytes } from '../nodeHasher';
import { mtimeOf, safeReaddir, writeFileAtomic } from './atomicFile';
import { HEX64 } from './chatFormat';
import { ChatStoreError } from './chatTypes';

/** Default of `ChatStoreOptions.blobGraceMs`. */
export const BLOB_GRACE_MS = 10 * 60_000;

/**
 * Read buffer reused by blob reads (a chat's hundreds of snapshots are read one after the other and
 * turned into strings at once): no new Buffer, and no external memory for the GC to chase, per blob.
 */
let scratch = Buffer.allocUnsafe(256 * 1024);
const SCRATCH_MAX = 4 * 1024 * 1024;

export class BlobStore {
  constructor(
    /** The store's root (error messages name blobs relative to it). */
    private readonly root: string,
    readonly dir: string,
    private readonly durable: boolean,
  ) {}

  private pathOf(hash: string): string {
    return path.join(this.dir, hash.slice(0, 2), hash);
  }

  /** Stores a blob once: tmp + fsync + rename, so a crash never leaves a partial blob under its name. */
  write(hash: string, text: string): void {
    const file = this.pathOf(hash);
    if (fs.existsSync(file)) return;
    const data = Buffer.from(text, 'utf8');
    if (sha256HexBytes(data) !== hash) throw new Error(`internal error: blob ${hash.slice(0, 12)}… does not match its content`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    writeFileAtomic(file, data, this.durable);
  }

  /** Reads a blob and checks it against its name. */
  read(hash: string): string {
    if (!HEX64.test(hash)) throw new ChatStoreError('corrupt', `invalid blob name ${JSON.stringify(hash.slice(0, 70))}`);
    let fd: number;
    try {
      fd = fs.openSync(this.pathOf(hash), 'r');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT')
        throw new ChatStoreError('missing-blob', `snapshot blob ${hash} is missing from ${path.relative(this.root, this.pathOf(hash))}`);
      throw e;
    }
    let data: Buffer;
    try {
      data = readAll(fd);
    } finally {
      fs.closeSync(fd);
    }
    if (sha256HexBytes(data) !== hash)
      throw new ChatStoreError('missing-blob', `snapshot blob ${hash} is damaged (its content does not match its hash)`);
    return data.toString('utf8');
  }

  /**
   * Removes the blobs not in `referenced` that are in `released` or older than `graceMs`, and
   * interrupted blob writes (`.tmp-` files) older than the grace, at least a minute. Returns the
   * blobs removed. The caller holds the store lock.
   */
  collect(referenced: ReadonlySet<string>, released: ReadonlySet<string> | undefined, graceMs: number): number {
    const now = Date.now();
    let removed = 0;
    for (const dir of safeReaddir(this.dir)) {
      const full = path.join(this.dir, dir);
      for (const name of safeReaddir(full)) {
        const file = path.join(full, name);
        if (HEX64.test(name)) {
          if (referenced.has(name)) continue;
          if (!released?.has(name) && now - mtimeOf(file) <= graceMs) continue;
          fs.rmSync(file, { force: true });
          removed++;
        } else if (name.includes('.tmp-')) {
          if (now - mtimeOf(file) > Math.max(60_000, graceMs)) fs.rmSync(file, { force: true });
        }
      }
    }
    return removed;
  }
}

/** Every sha256-shaped string in a file (the blob names it may refer to; no parsing, so damage does not hide any). */
export function blobNamesIn(file: string): Set<string> {
  const out = new Set<string>();
  let text: string;
  try {
    text = fs.readFileSync(file, 'latin1');
  } catch {
    return out;
  }
  for (const m of text.matchAll(/[0-9a-f]{64}/g)) out.add(m[0]);
  return out;
}

/** The whole file behind `fd`; valid until the next call when it fits the reused buffer. */
function readAll(fd: number): Buffer {
  const size = fs.fstatSync(fd).size;
  let buf = scratch;
  if (size > scratch.length) {
    if (size <= SCRATCH_MAX) scratch = buf = Buffer.allocUnsafe(Math.min(SCRATCH_MAX, Math.max(size, scratch.length * 2)));
    else buf = Buffer.allocUnsafe(size);
  }
  let got = 0;
  while (got < size) {
    const n = fs.readSync(fd, buf, got, size - got, got);
    if (n === 0) break;
    got += n;
  }
  return buf.subarray(0, got);
}
