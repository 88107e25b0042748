/**
 * Time on a core, for tests that bound synchronous work: the wall clock of a machine shared with
 * other builds counts the time the scheduler gave them, the time on a core does not. The process's
 * CPU time (`getrusage`, exact to the microsecond) rather than the thread's scheduler statistics,
 * which Linux brings up to date only at the next scheduler tick: a sub-millisecond step would read 0.
 * It includes V8's helper threads, which run beside the work, so it errs on the long side.
 */

/** This process's time on a core, ms. */
export function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** `fn()` and the time it ran on a core, ms. */
export function onCore<T>(fn: () => T): { value: T; ms: number } {
  const t0 = cpuMs();
  const value = fn();
  return { value, ms: cpuMs() - t0 };
}
