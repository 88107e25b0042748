/**
 * Step generators: code written once that runs synchronously (the replay's in-memory workspace and
 * scripted provider) or asynchronously (the editor's file system and real providers). A step yields
 * a value that may be a promise; the driver hands back what it resolved to (or throws the rejection
 * into the generator).
 */
export type Step<T> = Generator<unknown, T, unknown>;

/** Yields `value` to the driver and returns what the driver resolved it to. */
export function* wait<T>(value: T | PromiseLike<T>): Step<T> {
  return (yield value) as T;
}

export function isThenable(v: unknown): v is PromiseLike<unknown> {
  return typeof v === 'object' && v !== null && typeof (v as { then?: unknown }).then === 'function';
}

/** Runs a step generator, awaiting what it yields; a rejection is thrown into the generator. */
export async function runSteps<T>(steps: Step<T>): Promise<T> {
  let r = steps.next();
  while (!r.done) {
    let value: unknown;
    let failed = false;
    try {
      value = isThenable(r.value) ? await r.value : r.value;
    } catch (e) {
      failed = true;
      value = e;
    }
    r = failed ? steps.throw(value) : steps.next(value);
  }
  return r.value;
}

/**
 * Runs a step generator synchronously. A promise yielded means the caller chose the wrong driver:
 * the generator is closed (its `finally` blocks run) and `message` is thrown.
 */
export function runStepsSync<T>(steps: Step<T>, message = 'a step answered with a promise; drive it asynchronously'): T {
  let r = steps.next();
  while (!r.done) {
    if (isThenable(r.value)) {
      steps.return(undefined as never);
      throw new Error(message);
    }
    r = steps.next(r.value);
  }
  return r.value;
}
