/**
 * `JSON.stringify` of plain data as steps: the text of a large value (a long chat's state, megabytes)
 * is made one element at a time, yielding between elements, so that a driver can give the event loop
 * a turn between them. The result is the text `JSON.stringify(value)` gives, byte for byte.
 */

/** Containers split into steps: arrays and objects of `Object.prototype` or none, without `toJSON`. */
function isSplittable(v: unknown): v is Record<string, unknown> | unknown[] {
  if (typeof v !== 'object' || v === null) return false;
  if (typeof (v as { toJSON?: unknown }).toJSON === 'function') return false;
  if (Array.isArray(v)) return true;
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}

/**
 * Steps of `JSON.stringify(value)` (no replacer, no indentation): yields after each element of an
 * array or object down to `depth` levels; deeper values, and anything that is not a plain array or
 * object (a `toJSON`, a boxed primitive), are stringified in one piece. Returns undefined where
 * `JSON.stringify` does (undefined, a function, a symbol).
 */
export function* jsonStringifySteps(value: unknown, depth = 3): Generator<void, string | undefined, unknown> {
  if (depth <= 0 || !isSplittable(value)) return JSON.stringify(value) as string | undefined;
  const parts: string[] = [];
  if (Array.isArray(value)) {
    for (const element of value) {
      parts.push((yield* jsonStringifySteps(element, depth - 1)) ?? 'null');
      yield;
    }
    return `[${parts.join(',')}]`;
  }
  for (const key of Object.keys(value)) {
    const text = yield* jsonStringifySteps(value[key], depth - 1);
    if (text !== undefined) parts.push(`${JSON.stringify(key)}:${text}`);
    yield;
  }
  return `{${parts.join(',')}}`;
}
