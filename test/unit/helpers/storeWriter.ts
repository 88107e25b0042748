/**
 * One "window" of the two-process stress test (chatStoreStress.test.ts), run with child_process.fork:
 * it appends turns to one chat of a shared chat store through the real turn pipeline (memory
 * workspace, scripted provider, synchronous driver), never reading the disk before building a turn,
 * so every turn the other process saved in between is a conflict the pipeline must settle. Every
 * `conflictEvery`-th turn waits, before it is built, until the other process has appended to the chat
 * (or has finished, or a second has passed): those conflicts happen however fast the machine is.
 *
 * Every turn attaches a file of its own and, every few turns, a file both writers attach (same content,
 * so the same blob). A chat line is written in two halves, so that a kill between them tears it. The
 * parent chooses where each incarnation stops (`stopAt`: holding the lock before writing, after a
 * blob, between the halves of a line, or between turns); it logs that it stopped there and waits
 * for its SIGKILL, so where the kills land does not depend on the machine's speed. Every few turns the process collects blobs with no grace period, so only
 * the store lock keeps a blob another process is about to reference.
 *
 * It logs to a file (appended and fsynced, one line per event), which survives a SIGKILL:
 *   start <pid> <next index> <turns in chat>   a new incarnation, resuming after its last saved turn
 *   stopped <point> <pid>                      reached its stop point: waiting to be killed
 *   done <userText> <turn> [rebased <n>]       a turn this process completed (saved), and where
 *   collected <n>                              blobs removed by a collection
 *   broke <what>                               a stale store lock (of a killed writer) was broken
 *   exit                                       finished its quota
 */
import * as fs from 'fs';
import * as path from 'path';
import { PromptContextEngine, type EngineOptions } from '../../../src/engine/engine';
import { ChatStore } from '../../../src/services/store/chatStore';
import { MemoryWorkspace } from '../../../src/services/memoryWorkspace';
import { ScriptedProvider } from '../../../src/services/providers/scripted';
import { sleepSync } from '../../../src/services/store/storeLock';
import { getTokenizer } from '../../../src/services/tokenizer';
import { TurnPipeline } from '../../../src/services/turnPipeline';
import { prng } from '../../../bench/perf/generate';

export interface WriterArgs {
  root: string;
  chatId: string;
  name: string;
  /** Turns this writer completes in all (over its incarnations). */
  quota: number;
  seed: number;
  log: string;
  /** Stop at the `after`-th pass (1-based) of this incarnation through `point` and wait to be killed. */
  stopAt?: { point: StopPoint; after: number };
  /** Every this many turns, wait for the other writer to append first (see the file's comment). */
  conflictEvery?: number;
  /** The other writer's log: its `exit` line ends the waits. */
  peerLog?: string;
}

/** The content of a file of the stress workspace: a pure function of its path, the same in every process. */
export function stressFile(path: string): string {
  const lines = [`// ${path}`];
  for (let i = 0; i < 12; i++) lines.push(`export const v${i} = '${path}:${i}:${'x'.repeat((path.length * 7 + i * 13) % 40)}';`);
  return lines.join('\n') + '\n';
}

export function stressWorkspace(names: readonly string[], quota: number): MemoryWorkspace {
  const files: Record<string, string> = {};
  for (let k = 0; k < 4; k++) files[`shared/common${k}.ts`] = stressFile(`shared/common${k}.ts`);
  for (const n of names) for (let i = 1; i <= quota; i++) files[`${n}/f${i}.ts`] = stressFile(`${n}/f${i}.ts`);
  return new MemoryWorkspace(files);
}

function options(chatId: string): EngineOptions {
  return {
    conversationId: chatId,
    layout: 'transcript',
    policy: 'append-version',
    tokenizer: getTokenizer('o200k_base'),
    system: 'stress',
    limits: { contextWindow: 1_000_000, maxOutputTokens: 4096 },
  };
}

/** Where a writer can be told to stop and wait for its SIGKILL (see `WriterArgs.stopAt`). */
export type StopPoint = 'locked' | 'blob' | 'line' | 'idle';

/** The points at which the writer holds the store lock. */
export const LOCK_HELD_POINTS: readonly StopPoint[] = ['locked', 'blob', 'line'];

/**
 * Counts the writer's passes through the named points, and at the `stopAt` one logs `stopped
 * <point>` and blocks until it is killed:
 *   locked  the store lock file was just created and written: nothing else done under it yet
 *   blob    a blob's temporary file was just written, not yet renamed into place (lock held)
 *   line    half of a chat line is written, the other half not (lock held: a torn line on disk)
 *   idle    between two turns, holding nothing
 */
function stopPoints(log: string, stopAt: WriterArgs['stopAt']): (point: StopPoint) => void {
  const passes: Record<StopPoint, number> = { locked: 0, blob: 0, line: 0, idle: 0 };
  return (point) => {
    passes[point]++;
    if (!stopAt || stopAt.point !== point || stopAt.after !== passes[point]) return;
    logLine(log, `stopped ${point} ${process.pid}`);
    for (;;) sleepSync(60_000);
  };
}

/** Hooks the writes of the lock file, blobs and chat lines to reach the points of `stop`. */
function hookWrites(stop: (point: StopPoint) => void): void {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const nodeFs = require('fs') as typeof fs;
  const open = nodeFs.openSync;
  const write = nodeFs.writeSync;
  const close = nodeFs.closeSync;
  const lineFds = new Set<number>();
  const blobFds = new Set<number>();
  const lockFds = new Set<number>();
  nodeFs.openSync = ((p: fs.PathLike, flags?: fs.OpenMode, mode?: fs.Mode) => {
    const fd = open(p, flags ?? 'r', mode);
    const name = String(p);
    if (flags === 'a' && name.endsWith('.jsonl')) lineFds.add(fd);
    else if (flags === 'w' && name.includes(`${path.sep}blobs${path.sep}`)) blobFds.add(fd);
    else if (flags === 'wx' && path.basename(name) === 'store.lock') lockFds.add(fd);
    return fd;
  }) as typeof fs.openSync;
  nodeFs.writeSync = ((fd: number, data: NodeJS.ArrayBufferView | string, ...rest: unknown[]) => {
    if (lineFds.has(fd) && typeof data !== 'string' && rest.length >= 2) {
      // appendDurably: writeSync(fd, buf, off, len) until all is written: write half, let the caller write the rest.
      const [off, len] = rest as [number, number];
      const n = write(fd, data, off, Math.max(1, Math.floor(len / 2)));
      if (n < len) stop('line');
      return n;
    }
    const n = (write as (...a: unknown[]) => number)(fd, data, ...rest);
    if (blobFds.has(fd)) stop('blob');
    return n;
  }) as typeof fs.writeSync;
  nodeFs.closeSync = (fd: number) => {
    const locked = lockFds.delete(fd);
    lineFds.delete(fd);
    blobFds.delete(fd);
    close(fd);
    if (locked) stop('locked');
  };
}

function sizeOf(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
}

/**
 * Waits until `chatFile` is no longer `size` bytes (the other writer appended a line), unless the
 * other writer has finished or a second passes (both writers waiting for each other).
 */
function awaitPeerAppend(chatFile: string, size: number, peerLog: string | undefined): boolean {
  const deadline = Date.now() + 1000;
  while (Date.now() < deadline) {
    if (sizeOf(chatFile) !== size) return true;
    if (peerLog && fs.existsSync(peerLog) && /^exit$/m.test(fs.readFileSync(peerLog, 'utf8'))) return false;
    sleepSync(2);
  }
  return false;
}

function logLine(file: string, text: string): void {
  const fd = fs.openSync(file, 'a');
  try {
    fs.writeSync(fd, `${text}\n`);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

export function runWriter(a: WriterArgs): void {
  const rnd = prng(a.seed ^ process.pid);
  const stop = stopPoints(a.log, a.stopAt);
  hookWrites(stop);
  const store = ChatStore.open(a.root, {
    durable: false,
    blobGraceMs: 0,
    lock: { waitMs: 30_000, onBreak: (what) => logLine(a.log, `broke ${what}`) },
  });
  const ws = stressWorkspace(['a', 'b'], a.quota);
  const provider = new ScriptedProvider((req) => {
    const m = req.messages[req.messages.length - 1];
    return `reply to ${m.content[m.content.length - 1].text.slice(0, 40)}`;
  });
  let base = { turns: 0, stateHash: '' };
  const pipeline = new TurnPipeline({
    engine: new PromptContextEngine(options(a.chatId)),
    port: ws,
    persist: { store, chatId: a.chatId, base: () => base },
  });
  const reload = (): number => {
    if (!store.hasChat(a.chatId)) return 0;
    const loaded = store.loadChat(a.chatId);
    pipeline.engine = new PromptContextEngine(options(a.chatId), loaded.state);
    base = loaded.base;
    // Resume after this writer's last saved turn (a kill may have come between the save and the log).
    let last = 0;
    for (const t of loaded.state.turns) {
      const m = new RegExp(`^${a.name}-(\\d+)\\b`).exec(t.userText);
      if (m) last = Math.max(last, Number(m[1]));
    }
    return last;
  };
  const chatFile = path.join(a.root, 'chats', `${a.chatId}.jsonl`);
  let i = reload() + 1;
  // The chat's size when this writer last saw it (its own save, or a reload).
  let seen = sizeOf(chatFile);
  logLine(a.log, `start ${process.pid} ${i} ${base.turns}`);
  while (i <= a.quota) {
    if (a.conflictEvery && i % a.conflictEvery === 0 && awaitPeerAppend(chatFile, seen, a.peerLog)) logLine(a.log, `waited ${a.name}-${i}`);
    const attachments: { kind: 'file'; path: string }[] = [{ kind: 'file', path: `${a.name}/f${i}.ts` }];
    if (i % 4 === 0) attachments.push({ kind: 'file', path: `shared/common${(i / 4) % 4}.ts` });
    const userText = `${a.name}-${i} ${'word '.repeat(1 + (i % 7))}`.trim();
    const outcome = pipeline.runSync({ userText, attachments }, provider, { model: 'stress', maxOutputTokens: 100 });
    if (outcome.status === 'done' && outcome.saved) {
      base = outcome.saved.base;
      seen = sizeOf(chatFile);
      logLine(
        a.log,
        `done ${a.name}-${i} ${outcome.saved.turn}${outcome.saved.rebased ? ` rebased ${outcome.saved.rebased.otherTurns}` : ''}`,
      );
      i++;
    } else {
      // chat-changed / persist-failed (the lock waited too long): follow the disk and try again.
      logLine(a.log, `retry ${a.name}-${i} ${outcome.status === 'error' ? outcome.error.code : outcome.status}`);
      i = Math.max(i, reload() + 1);
      seen = sizeOf(chatFile);
    }
    if (i % 10 === 0) logLine(a.log, `collected ${store.collectBlobs()}`);
    stop('idle');
    // The user reads, types, the reply streams: the other window gets the lock in between.
    sleepSync(2 + Math.floor(rnd() * 12));
  }
  logLine(a.log, 'exit');
}

if (require.main === module) {
  const a = JSON.parse(process.argv[2]) as WriterArgs;
  try {
    runWriter(a);
  } catch (e) {
    logLine(a.log, `crash ${(e as Error).stack?.replace(/\n/g, ' | ')}`);
    process.exit(3);
  }
}
