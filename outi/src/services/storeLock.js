"use strict";
var __createBinding = (this && this.__createBinding) || (Object.create ? (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    var desc = Object.getOwnPropertyDescriptor(m, k);
    if (!desc || ("get" in desc ? !m.__esModule : desc.writable || desc.configurable)) {
      desc = { enumerable: true, get: function() { return m[k]; } };
    }
    Object.defineProperty(o, k2, desc);
}) : (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    o[k2] = m[k];
}));
var __setModuleDefault = (this && this.__setModuleDefault) || (Object.create ? (function(o, v) {
    Object.defineProperty(o, "default", { enumerable: true, value: v });
}) : function(o, v) {
    o["default"] = v;
});
var __importStar = (this && this.__importStar) || (function () {
    var ownKeys = function(o) {
        ownKeys = Object.getOwnPropertyNames || function (o) {
            var ar = [];
            for (var k in o) if (Object.prototype.hasOwnProperty.call(o, k)) ar[ar.length] = k;
            return ar;
        };
        return ownKeys(o);
    };
    return function (mod) {
        if (mod && mod.__esModule) return mod;
        var result = {};
        if (mod != null) for (var k = ownKeys(mod), i = 0; i < k.length; i++) if (k[i] !== "default") __createBinding(result, mod, k[i]);
        __setModuleDefault(result, mod);
        return result;
    };
})();
Object.defineProperty(exports, "__esModule", { value: true });
exports.StoreLock = exports.LockBusyError = void 0;
exports.sleepSync = sleepSync;
exports.pidAlive = pidAlive;
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
const crypto = __importStar(require("crypto"));
const fs = __importStar(require("fs"));
const os = __importStar(require("os"));
const path = __importStar(require("path"));
class LockBusyError extends Error {
    constructor(message) {
        super(message);
        this.name = 'LockBusyError';
    }
}
exports.LockBusyError = LockBusyError;
const BREAK_TOKEN_STALE_MS = 2000;
/** A lock file without a readable record (its creator died between create and write) is stale after this. */
const EMPTY_LOCK_STALE_MS = 1000;
const sleepCell = new Int32Array(new SharedArrayBuffer(4));
/** Blocks the thread for `ms` (the store's operations are synchronous; waits are short and bounded). */
function sleepSync(ms) {
    if (ms > 0)
        Atomics.wait(sleepCell, 0, 0, ms);
}
/** Whether a process with this pid exists on this host (EPERM: it exists, owned by someone else). */
function pidAlive(pid) {
    if (!Number.isInteger(pid) || pid <= 0)
        return false;
    if (pid === process.pid)
        return true;
    try {
        process.kill(pid, 0);
        return true;
    }
    catch (e) {
        return e.code === 'EPERM';
    }
}
function readRecord(file) {
    try {
        const v = JSON.parse(fs.readFileSync(file, 'utf8'));
        if (typeof v.pid === 'number' && typeof v.host === 'string' && typeof v.nonce === 'string')
            return { pid: v.pid, host: v.host, nonce: v.nonce, at: String(v.at ?? '') };
    }
    catch {
        // Missing, empty or half-written.
    }
    return undefined;
}
class StoreLock {
    file;
    options;
    waitMs;
    staleMs;
    depth = 0;
    nonce;
    /** Locks this instance broke (tests, the stress test's figures). */
    broken = 0;
    constructor(file, options = {}) {
        this.file = file;
        this.options = options;
        this.waitMs = options.waitMs ?? 5000;
        this.staleMs = options.staleMs ?? 10_000;
    }
    get held() {
        return this.depth > 0;
    }
    /** Runs `fn` holding the lock (re-entrant within this instance). */
    run(fn) {
        this.acquire();
        try {
            return fn();
        }
        finally {
            this.release();
        }
    }
    /** Takes the lock, waiting at most `waitMs` (default: the option's). */
    acquire(waitMs = this.waitMs) {
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
                    fs.writeSync(fd, JSON.stringify({ pid: process.pid, host: os.hostname(), nonce, at: new Date().toISOString() }));
                }
                finally {
                    fs.closeSync(fd);
                }
                this.nonce = nonce;
                this.depth = 1;
                return;
            }
            catch (e) {
                if (e.code !== 'EEXIST')
                    throw e;
            }
            if (this.breakIfStale())
                continue;
            if (Date.now() >= deadline) {
                const rec = readRecord(this.file);
                throw new LockBusyError(`the chat store is busy: another window (pid ${rec?.pid ?? '?'}${rec && rec.host !== os.hostname() ? ` on ${rec.host}` : ''}) has held its lock for over ${waitMs} ms`);
            }
            sleepSync(delay + Math.floor(Math.random() * delay));
            delay = Math.min(delay * 2, 10);
        }
    }
    release() {
        if (this.depth === 0)
            return;
        if (--this.depth > 0)
            return;
        const mine = this.nonce;
        this.nonce = undefined;
        // Only our own lock: if it was broken while we hung, the file is someone else's now.
        if (readRecord(this.file)?.nonce === mine)
            fs.rmSync(this.file, { force: true });
    }
    /** Refreshes the lock's mtime (a long step is under way: the lock is not stale). */
    touch() {
        if (this.depth === 0)
            return;
        const now = new Date();
        try {
            fs.utimesSync(this.file, now, now);
        }
        catch {
            // Broken under us: `assertHeld` reports it before the next write that matters.
        }
    }
    /** Throws unless the lock file is still ours (a holder that hung past `staleMs` may have lost it). */
    assertHeld() {
        if (this.depth === 0 || readRecord(this.file)?.nonce !== this.nonce)
            throw new LockBusyError('the chat store lock was taken over by another window while this one was writing (it was unresponsive for too long)');
    }
    /** Another process (or another store instance) holds the lock right now. */
    heldByOther() {
        if (this.depth > 0)
            return false;
        try {
            const st = fs.statSync(this.file);
            return !this.isStale(readRecord(this.file), st);
        }
        catch {
            return false;
        }
    }
    isStale(rec, st) {
        const age = Date.now() - st.mtimeMs;
        if (!rec)
            return age > EMPTY_LOCK_STALE_MS;
        if (rec.host === os.hostname() && !pidAlive(rec.pid))
            return true;
        return age > this.staleMs;
    }
    /** Breaks the lock if it is stale (true: try to acquire again at once). */
    breakIfStale() {
        let st;
        try {
            st = fs.statSync(this.file);
        }
        catch {
            return true; // released meanwhile
        }
        const rec = readRecord(this.file);
        if (!this.isStale(rec, st))
            return false;
        // The identity of this particular stale lock: its nonce, or (no record) its inode and mtime.
        const id = rec ? rec.nonce : `i${st.ino}-${Math.round(st.mtimeMs)}`;
        const token = `${this.file}.break-${id}`;
        try {
            fs.closeSync(fs.openSync(token, 'wx'));
        }
        catch (e) {
            if (e.code !== 'EEXIST')
                throw e;
            // Another waiter is breaking it; a token whose breaker died is removed after a while.
            try {
                if (Date.now() - fs.statSync(token).mtimeMs > BREAK_TOKEN_STALE_MS)
                    fs.rmSync(token, { force: true });
            }
            catch {
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
            }
            catch {
                same = false;
            }
            if (same) {
                fs.rmSync(this.file, { force: true });
                this.broken++;
                this.options.onBreak?.(rec ? `broke a stale chat store lock of pid ${rec.pid}${rec.host !== os.hostname() ? ` on ${rec.host}` : ''} (taken ${rec.at})` : 'broke an empty chat store lock left by an interrupted start');
            }
        }
        finally {
            fs.rmSync(token, { force: true });
        }
        return true;
    }
    /** Removes break tokens left by breakers that died (called when a store opens). */
    static removeStaleTokens(dir, base) {
        let names;
        try {
            names = fs.readdirSync(dir);
        }
        catch {
            return;
        }
        for (const name of names) {
            if (!name.startsWith(`${base}.break-`))
                continue;
            const p = path.join(dir, name);
            try {
                if (Date.now() - fs.statSync(p).mtimeMs > BREAK_TOKEN_STALE_MS)
                    fs.rmSync(p, { force: true });
            }
            catch {
                // Gone already.
            }
        }
    }
}
exports.StoreLock = StoreLock;
//# sourceMappingURL=storeLock.js.map