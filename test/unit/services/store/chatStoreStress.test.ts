/**
 * Two windows, one workspace, for real: two Node processes (child_process.fork of
 * helpers/storeWriter.ts) append turns to the same chat of one chat store through the real turn
 * pipeline, while this process SIGKILLs them at chosen points and starts them again: each incarnation
 * is told where to stop (`stopAt`: right after taking the store lock, after writing a blob, between
 * the two halves of a chat line, or between turns; at a seeded pass through that point), logs that it
 * stopped, and is killed there. So the kills land where the test means them to on a quiet machine and
 * on a busy one alike. Each child also collects blobs with no grace period. Afterwards: every turn each process completed is in
 * the chat exactly once and in its order, the chain and every snapshot verify, every referenced blob
 * exists, and no lock is left behind. The figures are printed.
 */
import * as assert from 'node:assert/strict';
import { fork, type ChildProcess } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { ChatStore } from '../../../../src/services/store/chatStore';
import { encodeState, referencedBlobs } from '../../../../src/engine/stateCodec';
import { LOCK_HELD_POINTS, type StopPoint, type WriterArgs } from '../../helpers/storeWriter';
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
  // The kills do not depend on speed; the run's length does (a minute quiet, several on a busy machine).
  this.timeout(900_000);

  it('keeps every completed turn exactly once, in order; the chain and every blob verify; no lock is left', async () => {
    const dir = tempDir('strata-stress-', { keep: !!process.env.STRATA_KEEP_STRESS });
    const root = path.join(dir, 'store');
    const chatId = 'shared-chat';
    const quota = 100;
    const plannedKills = 20;
    const rnd = prng(20261212);
    const helper = path.join(__dirname, '..', '..', 'helpers', 'storeWriter.js');
    const chatFile = path.join(root, 'chats', `${chatId}.jsonl`);
    const lockFile = path.join(root, 'store.lock');
    const t0 = performance.now();

    // Where each kill lands, in turn: three of four while the writer holds the store lock.
    const points: StopPoint[] = ['line', 'idle', 'locked', 'blob'];
    const plan = Array.from({ length: plannedKills }, (_, k) => ({ point: points[k % points.length], after: 1 + Math.floor(rnd() * 5) }));
    const spawn = (name: string, seed: number, stopAt?: WriterArgs['stopAt']): Writer => {
      const peerLog = path.join(dir, `${name === 'a' ? 'b' : 'a'}.log`);
      // Every third turn waits for the other writer's save first: a conflict on a quiet machine and a busy one alike.
      const args: WriterArgs = { root, chatId, name, quota, seed, log: path.join(dir, `${name}.log`), stopAt, conflictEvery: 3, peerLog };
      const child = fork(helper, [JSON.stringify(args)], { stdio: 'ignore' });
      const w: Writer = { name, child, finished: false, exited: new Promise((resolve) => child.on('exit', (code) => resolve(code))) };
      void w.exited.then((code) => {
        if (code === 0) w.finished = true;
      });
      return w;
    };
    /** The writer's `stopped` line of this incarnation, if it has logged one. */
    const stoppedAt = (w: Writer): StopPoint | undefined => {
      const log = path.join(dir, `${w.name}.log`);
      if (!fs.existsSync(log)) return undefined;
      const m = new RegExp(`^stopped (\\w+) ${w.child.pid}$`, 'm').exec(fs.readFileSync(log, 'utf8'));
      return m ? (m[1] as StopPoint) : undefined;
    };
    ChatStore.open(root, { durable: false });
    let next = 0;
    const writers = [spawn('a', 1, plan[next++]), spawn('b', 2, plan[next++])];
    let kills = 0;
    let tornByKill = 0;
    let killedHoldingLock = 0;
    const killedAt: StopPoint[] = [];
    let seed = 10;
    // A failed assertion leaves no writer running.
    const stopAll = () => {
      for (const w of writers) if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGKILL');
    };
    try {
      while (writers.some((w) => !w.finished)) {
        await sleep(5);
        for (const [k, w] of writers.entries()) {
          assert.ok(!w.child.exitCode, `writer ${w.name} exited with ${w.child.exitCode}: see ${w.name}.log`);
          const point = w.finished ? undefined : stoppedAt(w);
          if (!point) continue;
          // The writer waits at its point: what it left on disk is what the kill leaves.
          const pid = w.child.pid;
          let lockPid: number | undefined;
          try {
            lockPid = (JSON.parse(fs.readFileSync(lockFile, 'utf8')) as { pid: number }).pid;
          } catch {
            // No lock file right now.
          }
          const holding = lockPid === pid;
          assert.equal(holding, LOCK_HELD_POINTS.includes(point), `writer ${w.name} stopped at ${point}: holds the store lock ${holding}`);
          if (holding) killedHoldingLock++;
          if (point === 'line') {
            const buf = fs.readFileSync(chatFile);
            if (buf.length > 0 && buf[buf.length - 1] !== 0x0a) tornByKill++;
          }
          w.child.kill('SIGKILL');
          assert.equal(await w.exited, null, `writer ${w.name} was killed at ${point}`);
          kills++;
          killedAt.push(point);
          writers[k] = spawn(w.name, ++seed, next < plan.length ? plan[next++] : undefined);
        }
      }
    } catch (e) {
      stopAll();
      throw e;
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
    // The run exercised what it is meant to: every planned kill, at its point.
    assert.deepStrictEqual(killedAt.slice().sort(), plan.map((p) => p.point).sort());
    assert.strictEqual(kills, plannedKills);
    assert.strictEqual(killedHoldingLock, (plannedKills * 3) / 4, 'kills while holding the lock');
    assert.strictEqual(tornByKill, plannedKills / 4, 'kills between the halves of a chat line');
    const waited = Object.values(logs)
      .flat()
      .filter((l) => l.startsWith('waited ')).length;
    // About 66 turns wait for the other's save (every third of 200, less those killed or at the end).
    assert.ok(waited >= 40, `turns that waited for the other writer's save: ${waited}`);
    assert.ok(rebased.length >= 20, `conflicts resolved by rebuilding: ${rebased.length}`);
    // A lock left by a killed writer is broken once, by the next writer to want it.
    assert.strictEqual(broke, killedHoldingLock, 'stale locks broken');

    console.log(
      `      two processes, ${ids.length} turns (${quota} each) in ${seconds.toFixed(1)} s: ${kills} SIGKILLs (${tornByKill} left a torn line, ${killedHoldingLock} while holding the store lock), ` +
        `${broke} stale locks broken, ${rebased.length} turns rebuilt after the other process's turns (${waited} waited for one), ${retries.length} retried after a refused save, ` +
        `${done.length} completions logged (the rest were saved just before a kill and found on restart), ${blobs.length} blobs referenced, ${collected} collected while running`,
    );
  });
});
