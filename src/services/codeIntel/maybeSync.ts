/**
 * Runs a step generator (src/common/steps.ts) synchronously for as long as every step answers at
 * once, and asynchronously from the first promise on. Code intelligence is written once as steps:
 * over the in-memory workspace (the replay, the benchmark, the tests) it answers synchronously, so
 * the replay stays synchronous; over the editor's port it answers with a promise.
 */
import { isThenable, type Step } from '../../common/steps';
import type { MaybePromise } from '../workspacePort';

export function driveMaybe<T>(steps: Step<T>): MaybePromise<T> {
  let r = steps.next();
  while (!r.done) {
    if (isThenable(r.value)) return finish(steps, r.value);
    r = steps.next(r.value);
  }
  return r.value;
}

async function finish<T>(steps: Step<T>, pending: PromiseLike<unknown>): Promise<T> {
  let value: unknown = pending;
  for (;;) {
    let r: IteratorResult<unknown, T>;
    if (isThenable(value)) {
      let resolved: unknown;
      let failed = false;
      try {
        resolved = await value;
      } catch (e) {
        failed = true;
        resolved = e;
      }
      r = failed ? steps.throw(resolved) : steps.next(resolved);
    } else r = steps.next(value);
    if (r.done) return r.value;
    value = r.value;
  }
}

/** The error a signal's abort ends a walk with (the turn pipeline reads its name as Stop). */
export function abortError(): Error {
  const e = new Error('The operation was aborted.');
  e.name = 'AbortError';
  return e;
}
