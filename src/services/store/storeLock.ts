/**
 * One writer at a time per chat store folder, across processes: two VS Code windows on the same folder
 * share its workspace storage, and each window's extension host is its own process.
 *
 * The lock is a file (`store.lock`) created with O_EXCL (`open(…, 'wx')`): creating it is the one
 * atomic step every platform offers. It holds the holder's pid, host name and a random nonce. A holder
 * keeps it for milliseconds (read the head of a chat, write blobs, append one line, update the index)
 * and refreshes its mtime between long steps (`touch`), so:
 *
 * - a lock whose holder process is gone (same host, `kill(pid, 0)` says ESRCH) is stale at once: a
 *   window killed mid-write does not block the other one;
 * - a lock not touched for `staleMs` (default 10 s) is stale whatever its pid says (a hung holder, a
 *   holder on another host, a reused pid);
 * - a stale lock is broken by exactly one waiter: it first creates `store.lock.break-<nonce>` with
 *   O_EXCL (a second breaker of the same stale lock fails there), checks the lock still carries that
 *   nonce, and only then removes it. Break tokens left by a breaker that died are stale after 2 s.
 * - waiting is bounded (`waitMs`, default 5 s; sleeps of 1–10 ms with jitter), then `LockBusyError`.
 *
 * The holder checks the nonce is still its own right before the write that matters (`assertHeld`),
 * so a holder that hung past `staleMs` and was broken does not write under someone else's lock.
 * Synchronous on purpose: the chat store is synchronous, and the waits are short.
 */
import * as crypto from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

export interface StoreLockOptions {
  /** Give up after waiting this long (ms). Default 5000. */
  waitMs?: number;
  /** A lock not refreshed for this long is stale (ms). Default 10000. */
  staleMs?: number;
  /** Told when a stale lock is broken (the store logs it). */
  onBreak?: (what: string) => void;
}

interface LockRecord {
  pid: number;
  host: string;
  nonce: string;
  at: string;
}

export class LockBusyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LockBusyError';
  }
}

const BREAK_TOKEN_STALE_MS = 2000;
/** A lock file without a readable record (its creator died between create and write) is stale after this. */
const EMPTY_LOCK_STALE_MS = 1000;

const sleepCell = new Int32Array(new SharedArrayBuffer(4));

/** Blocks the thread for `ms` (the store's operations are synchronous; waits are short and bounded). */
export function sleepSync(ms: number): void {
  if (ms > 0) Atomics.wait(sleepCell, 0, 0, ms);
}

/** Whether a process with this pid exists on this host (EPERM: it exists, owned by someone else). */
export function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readRecord(file: string): LockRecord | undefined {
  try {
    const v = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<LockRecord>;
    if (typeof v.pid === 'number' && typeof v.host === 'string' && typeof v.nonce === 'string')
      return { pid: v.pid, host: v.host, nonce: v.nonce, at: String(v.at ?? '') };
  } catch {
    // Missing, empty or half-written.
  }
  return undefined;
}

export class StoreLock {
  private readonly waitMs: number;
  private readonly staleMs: number;
  private depth = 0;
  private nonce: string | undefined;
  /** Locks this instance broke (tests, the stress test's figures). */
  broken = 0;

  constructor(
    readonly file: string,
    private readonly options: StoreLockOptions = {},
  ) {
    this.waitMs = options.waitMs ?? 5000;
    this.staleMs = options.staleMs ?? 10_000;
  }

  get held(): boolean {
    return this.depth > 0;
  }

  /** Runs `fn` holding the lock (re-entrant within this instance). */
  run<T>(fn: () => T): T {
    this.acquire();
    try {
      return fn();
    } finally {
      this.release();
    }
  }

  /** Takes the lock, waiting at most `waitMs` (default: the option's). */
  acquire(waitMs = this.waitMs): void {
    if (this.depth > 0) {
      this.depth++;
      return;
    }
    const deadline = Date.now() + waitMs;
    let delay = 1;
    for (;;) {
      const nonce = crypto.randomBytes(12).toString('hex');
      try {
        const fd = fs.openSync(this.file, 'wx');
        try {
          fs.writeSync(
            fd,
            JSON.stringify({ pid: process.pid, host: os.hostname(), nonce, at: new Date().toISOString() } satisfies LockRecord),
          );
        } finally {
          fs.closeSync(fd);
        }
        this.nonce = nonce;
        this.depth = 1;
        return;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      }
      if (this.breakIfStale()) continue;
      if (Date.now() >= deadline) {
        const rec = readRecord(this.file);
        throw new LockBusyError(
          `the chat store is busy: another window (pid ${rec?.pid ?? '?'}${rec && rec.host !== os.hostname() ? ` on ${rec.host}` : ''}) has held its lock for over ${waitMs} ms`,
        );
      }
      sleepSync(delay + Math.floor(Math.random() * delay));
      delay = Math.min(delay * 2, 10);
    }
  }

  release(): void {
    if (this.depth === 0) return;
    if (--this.depth > 0) return;
    const mine = this.nonce;
    this.nonce = undefined;
    // Only our own lock: if it was broken while we hung, the file is someone else's now.
    if (readRecord(this.file)?.nonce === mine) fs.rmSync(this.file, { force: true });
  }

  /** Refreshes the lock's mtime (a long step is under way: the lock is not stale). */
  touch(): void {
    if (this.depth === 0) return;
    const now = new Date();
    try {
      fs.utimesSync(this.file, now, now);
    } catch {
      // Broken under us: `assertHeld` reports it before the next write that matters.
    }
  }

  /** Throws unless the lock file is still ours (a holder that hung past `staleMs` may have lost it). */
  assertHeld(): void {
    if (this.depth === 0 || readRecord(this.file)?.nonce !== this.nonce)
      throw new LockBusyError(
        'the chat store lock was taken over by another window while this one was writing (it was unresponsive for too long)',
      );
  }

  /** Another process (or another store instance) holds the lock right now. */
  heldByOther(): boolean {
    if (this.depth > 0) return false;
    try {
      const st = fs.statSync(this.file);
      return !this.isStale(readRecord(this.file), st);
    } catch {
      return false;
    }
  }

  private isStale(rec: LockRecord | undefined, st: fs.Stats): boolean {
    const age = Date.now() - st.mtimeMs;
    if (!rec) return age > EMPTY_LOCK_STALE_MS;
    if (rec.host === os.hostname() && !pidAlive(rec.pid)) return true;
    return age > this.staleMs;
  }

  /** Breaks the lock if it is stale (true: try to acquire again at once). */
  private breakIfStale(): boolean {
    let st: fs.Stats;
    try {
      st = fs.statSync(this.file);
    } catch {
      return true; // released meanwhile
    }
    const rec = readRecord(this.file);
    if (!this.isStale(rec, st)) return false;
    // The identity of this particular stale lock: its nonce, or (no record) its inode and mtime.
    const id = rec ? rec.nonce : `i${st.ino}-${Math.round(st.mtimeMs)}`;
    const token = `${this.file}.break-${id}`;
    try {
      fs.closeSync(fs.openSync(token, 'wx'));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      // Another waiter is breaking it; a token whose breaker died is removed after a while.
      try {
        if (Date.now() - fs.statSync(token).mtimeMs > BREAK_TOKEN_STALE_MS) fs.rmSync(token, { force: true });
      } catch {
        // Gone already.
      }
      return false;
    }
    try {
      const now = readRecord(this.file);
      let same = false;
      try {
        const st2 = fs.statSync(this.file);
        same = rec ? now?.nonce === rec.nonce : !now && st2.ino === st.ino && Math.round(st2.mtimeMs) === Math.round(st.mtimeMs);
      } catch {
        same = false;
      }
      if (same) {
        fs.rmSync(this.file, { force: true });
        this.broken++;
        this.options.onBreak?.(
          rec
            ? `broke a stale chat store lock of pid ${rec.pid}${rec.host !== os.hostname() ? ` on ${rec.host}` : ''} (taken ${rec.at})`
            : 'broke an empty chat store lock left by an interrupted start',
        );
      }
    } finally {
      fs.rmSync(token, { force: true });
    }
    return true;
  }

  /** Removes break tokens left by breakers that died (called when a store opens). */
  static removeStaleTokens(dir: string, base: string): void {
    let names: string[];
    try {
      names = fs.readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names) {
      if (!name.startsWith(`${base}.break-`)) continue;
      const p = path.join(dir, name);
      try {
        if (Date.now() - fs.statSync(p).mtimeMs > BREAK_TOKEN_STALE_MS) fs.rmSync(p, { force: true });
      } catch {
        // Gone already.
      }
    }
  }
}
