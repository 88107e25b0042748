import * as fs from 'node:fs';

/**
 * The scheduler's statistics of this process's threads (Linux: `/proc/<pid>/task/<tid>/schedstat`),
 * read through descriptors kept open: a read every tick costs microseconds. Empty where the system
 * does not keep them.
 */
export class ThreadClock {
  private readonly main: number;
  private readonly others: number[];
  private readonly buf = Buffer.alloc(128);

  constructor() {
    const task = `/proc/${process.pid}/task`;
    this.main = ThreadClock.open(`${task}/${process.pid}/schedstat`);
    let tids: string[] = [];
    try {
      tids = fs.readdirSync(task).filter((tid) => tid !== String(process.pid));
    } catch {
      // no per-thread statistics here
    }
    this.others = tids.map((tid) => ThreadClock.open(`${task}/${tid}/schedstat`)).filter((fd) => fd >= 0);
  }

  private static open(file: string): number {
    try {
      return fs.openSync(file, 'r');
    } catch {
      return -1;
    }
  }

  /** [time on a core, time runnable but waiting for one] of a thread, ms; zeros when it cannot be read. */
  private read(fd: number): [number, number] {
    if (fd < 0) return [0, 0];
    try {
      const [ran, waited] = this.buf
        .toString('latin1', 0, fs.readSync(fd, this.buf, 0, this.buf.length, 0))
        .split(' ')
        .map(Number);
      return [ran / 1e6 || 0, waited / 1e6 || 0];
    } catch {
      return [0, 0];
    }
  }

  /** The main thread's times, and how long the other threads have waited for a core (summed), ms. */
  now(): { ran: number; waited: number; othersWaited: number } {
    const [ran, waited] = this.read(this.main);
    return { ran, waited, othersWaited: this.others.reduce((sum, fd) => sum + this.read(fd)[1], 0) };
  }

  close(): void {
    for (const fd of [this.main, ...this.others]) if (fd >= 0) fs.closeSync(fd);
  }
}
