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

/**
 * `fn` over `items`, at most `limit` calls in flight, results in order: an array when every call
 * answered at once (a synchronous port), else a promise of it. The first rejection rejects it.
 */
export function mapBounded<T, R>(items: readonly T[], limit: number, fn: (item: T) => R | PromiseLike<R>): R[] | Promise<R[]> {
  const out = new Array<R>(items.length);
  for (let i = 0; i < items.length; i++) {
    const v = fn(items[i]);
    if (!isThenable(v)) {
      out[i] = v;
      continue;
    }
    // From the first promise on, workers take the next item each: at most `limit` calls in flight.
    let next = i + 1;
    const worker = async (pending?: PromiseLike<R>, at = -1): Promise<void> => {
      if (pending) out[at] = await pending;
      while (next < items.length) {
        const k = next++;
        out[k] = await fn(items[k]);
      }
    };
    const more = Math.min(Math.max(1, limit) - 1, items.length - next);
    return Promise.all([worker(v, i), ...Array.from({ length: more }, () => worker())]).then(() => out);
  }
  return out;
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
