/**
 * Two windows, one workspace, for real: two Node processes (child_process.fork of
 * helpers/storeWriter.ts) append turns to the same chat of one chat store through the real turn
 * pipeline, while this process SIGKILLs one of them at seeded random moments — every other kill when
 * it holds the store lock (writes are slowed down in the children so kills land mid-line) — and
 * starts it again. Each
 * child also collects blobs with no grace period. Afterwards: every turn each process completed is in
 * the chat exactly once and in its order, the chain and every snapshot verify, every referenced blob
 * exists, and no lock is left behind. The figures are printed.
 */
import * as assert from 'node:assert/strict';
import { fork, type ChildProcess } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { ChatStore } from '../../../../src/services/store/chatStore';
import { encodeState, referencedBlobs } from '../../../../src/engine/stateCodec';
import type { WriterArgs } from '../../helpers/storeWriter';
import { prng } from '../../../../bench/perf/generate';
import { tempDir } from '../../../support/tempDir';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

interface Writer {
  name: string;
  child: ChildProcess;
  exited: Promise<number | null>;
  finished: boolean;
}

describe('chat store: two processes appending to one chat, with random kills', function () {
  this.timeout(120_000);

  it('keeps every completed turn exactly once, in order; the chain and every blob verify; no lock is left', async () => {
    const dir = tempDir('strata-stress-', { keep: !!process.env.STRATA_KEEP_STRESS });
    const root = path.join(dir, 'store');
    const chatId = 'shared-chat';
    const quota = 160;
    const plannedKills = 20;
    const rnd = prng(20261212);
    const helper = path.join(__dirname, '..', '..', 'helpers', 'storeWriter.js');
    const chatFile = path.join(root, 'chats', `${chatId}.jsonl`);
    const lockFile = path.join(root, 'store.lock');
    const t0 = performance.now();

    const spawn = (name: string, seed: number): Writer => {
      const args: WriterArgs = { root, chatId, name, quota, seed, log: path.join(dir, `${name}.log`) };
      const child = fork(helper, [JSON.stringify(args)], { stdio: 'ignore' });
      const w: Writer = { name, child, finished: false, exited: new Promise((resolve) => child.on('exit', (code) => resolve(code))) };
      void w.exited.then((code) => {
        if (code === 0) w.finished = true;
      });
      return w;
    };
    ChatStore.open(root, { durable: false });
    const writers = [spawn('a', 1), spawn('b', 2)];
    let kills = 0;
    let tornByKill = 0;
    let killedHoldingLock = 0;
    let seed = 10;
    const started = async (w: Writer) => {
      // Kill a writer at work, not one still loading its modules.
      const log = path.join(dir, `${w.name}.log`);
      for (;;) {
        if (w.finished || (fs.existsSync(log) && fs.readFileSync(log, 'utf8').includes(`start ${w.child.pid} `))) return;
        await sleep(10);
      }
    };
    while (kills < plannedKills && writers.some((w) => !w.finished)) {
      const k = rnd() < 0.5 ? 0 : 1;
      const w = writers[k].finished ? writers[1 - k] : writers[k];
      if (w.finished) break;
      await started(w);
      await sleep(50 + Math.floor(rnd() * 300));
      const pid = w.child.pid;
      if (kills % 2 === 1) {
        // Every other kill waits for the writer to hold the store lock (it is writing), up to a second.
        const t = Date.now();
        while (Date.now() - t < 1000 && !w.finished) {
          try {
            if (JSON.parse(fs.readFileSync(lockFile, 'utf8')).pid === pid) break;
          } catch {
            // No lock file right now, or half-written.
          }
          await new Promise((r) => setImmediate(r));
        }
      }
      w.child.kill('SIGKILL');
      const code = await w.exited;
      if (code === 0) {
        // It finished its quota just before the kill.
        w.finished = true;
        continue;
      }
      kills++;
      try {
        const buf = fs.readFileSync(chatFile);
        if (buf.length > 0 && buf[buf.length - 1] !== 0x0a) tornByKill++;
      } catch {
        // No chat file yet.
      }
      try {
        if (JSON.parse(fs.readFileSync(lockFile, 'utf8')).pid === pid) killedHoldingLock++;
      } catch {
        // No lock file, or another holder.
      }
      writers[writers.indexOf(w)] = spawn(w.name, ++seed);
    }
    const codes = await Promise.all(writers.map((w) => w.exited));
    const seconds = (performance.now() - t0) / 1000;

    const logs = Object.fromEntries(
      ['a', 'b'].map((n) => [
        n,
        fs
          .readFileSync(path.join(dir, `${n}.log`), 'utf8')
          .split('\n')
          .filter(Boolean),
      ]),
    );
    const crashes = Object.values(logs)
      .flat()
      .filter((l) => l.startsWith('crash'));
    assert.deepStrictEqual(crashes, [], 'no writer failed');
    assert.deepStrictEqual(codes, [0, 0], 'both writers finished their quota');
    const done = Object.values(logs)
      .flat()
      .filter((l) => l.startsWith('done '));
    const rebased = done.filter((l) => l.includes(' rebased '));
    const retries = Object.values(logs)
      .flat()
      .filter((l) => l.startsWith('retry '));
    const broke = Object.values(logs)
      .flat()
      .filter((l) => l.startsWith('broke ')).length;
    const collected = Object.values(logs)
      .flat()
      .filter((l) => l.startsWith('collected '))
      .reduce((n, l) => n + Number(l.split(' ')[1]), 0);

    // The chat as a third process would open it.
    const store = ChatStore.open(root, { durable: false });
    const loaded = store.loadChat(chatId);
    assert.deepStrictEqual(loaded.warnings, [], 'no torn tail or damage left');
    const ids = loaded.state.turns.map((t) => /^([ab]-\d+)\b/.exec(t.userText)?.[1]);
    assert.ok(
      ids.every((x) => x !== undefined),
      "every turn is one of the writers'",
    );
    assert.strictEqual(new Set(ids).size, ids.length, 'no turn saved twice');
    for (const n of ['a', 'b']) {
      const mine: number[] = ids.filter((x) => x!.startsWith(`${n}-`)).map((x) => Number(x!.slice(2)));
      assert.deepStrictEqual(
        mine,
        Array.from({ length: quota }, (_, i) => i + 1),
        `writer ${n}: turns 1..${quota}, each once, in order`,
      );
    }
    for (const l of done) {
      const id = l.split(' ')[1];
      assert.strictEqual(ids.filter((x) => x === id).length, 1, `completed ${id} is in the chat once`);
    }
    assert.strictEqual(loaded.turns.length, 2 * quota, 'one meta per turn');
    // Every blob the state references exists and matches its name (loadChat read and verified each one).
    const blobs = referencedBlobs(encodeState(loaded.state));
    for (const h of blobs) assert.ok(fs.existsSync(path.join(root, 'blobs', h.slice(0, 2), h)), `blob ${h.slice(0, 12)} exists`);
    assert.ok(!fs.existsSync(lockFile), 'no lock left behind');
    assert.deepStrictEqual(
      fs.readdirSync(root).filter((f) => f.includes('.break-') || f.includes('.tmp-')),
      [],
    );
    // The run exercised what it is meant to.
    assert.strictEqual(kills, plannedKills);
    assert.ok(rebased.length >= 20, `conflicts resolved by rebuilding: ${rebased.length}`);
    assert.ok(killedHoldingLock >= plannedKills / 4, `kills while holding the lock: ${killedHoldingLock}`);
    // A lock left by a killed writer is broken once, by the next writer (which may do it before this
    // process looks at the lock file after the kill: so at least as many as seen here, at most one a kill).
    assert.ok(broke >= killedHoldingLock && broke <= kills, `stale locks broken: ${broke}`);

    console.log(
      `      two processes, ${ids.length} turns (${quota} each) in ${seconds.toFixed(1)} s: ${kills} SIGKILLs (${tornByKill} left a torn line, ${killedHoldingLock} while holding the store lock), ` +
        `${broke} stale locks broken, ${rebased.length} turns rebuilt after the other process's turns, ${retries.length} retried after a refused save, ` +
        `${done.length} completions logged (the rest were saved just before a kill and found on restart), ${blobs.length} blobs referenced, ${collected} collected while running`,
    );
  });
});
