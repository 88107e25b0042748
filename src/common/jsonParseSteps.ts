/**
 * `JSON.parse` of a long text as steps: a chat line of megabytes (an imported chat is one line) is
 * parsed a container element at a time, yielding between elements, so that a driver can give the
 * event loop a turn between them. Each piece is parsed by `JSON.parse` itself; the result is the value
 * `JSON.parse(text)` gives. Invalid JSON throws the error `JSON.parse(text)` throws.
 */

/** Texts shorter than this are parsed in one piece (a few milliseconds at most). */
export const PARSE_STEPS_MIN = 256 * 1024;

/** A container at most this long is parsed in one piece; a longer one element by element. */
const PIECE = 16 * 1024;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

class Malformed extends Error {}

function skipSpace(t: string, i: number): number {
  for (;;) {
    const c = t.charCodeAt(i);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return i;
    i++;
  }
}

/** The index after the string that starts at `i` (its opening quote). */
function stringEnd(t: string, i: number): number {
  for (let from = i + 1; ;) {
    const q = t.indexOf('"', from);
    if (q < 0) throw new Malformed();
    let slashes = 0;
    while (t.charCodeAt(q - 1 - slashes) === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return q + 1;
    from = q + 1;
  }
}

/** The index after the container that starts at `i`, or -1 when it is longer than `limit`. */
function containerEnd(t: string, i: number, limit: number): number {
  const stop = Math.min(t.length, i + limit);
  let depth = 0;
  for (let k = i; k < stop; k++) {
    const c = t.charCodeAt(k);
    if (c === QUOTE) k = stringEnd(t, k) - 1;
    else if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
    else if ((c === CLOSE_BRACE || c === CLOSE_BRACKET) && --depth === 0) return k + 1;
  }
  return -1;
}

/** The index after a number, `true`, `false` or `null` that starts at `i`. */
function scalarEnd(t: string, i: number): number {
  let k = i;
  for (; k < t.length; k++) {
    const c = t.charCodeAt(k);
    if (c === COMMA || c === CLOSE_BRACE || c === CLOSE_BRACKET || c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) break;
  }
  return k;
}

/** The value that starts at `i` (after spaces) and the index after it. */
function* valueAt(t: string, i: number): Generator<void, [unknown, number], unknown> {
  i = skipSpace(t, i);
  const c = t.charCodeAt(i);
  if (c !== OPEN_BRACE && c !== OPEN_BRACKET) {
    const end = c === QUOTE ? stringEnd(t, i) : scalarEnd(t, i);
    if (end === i) throw new Malformed();
    return [JSON.parse(t.slice(i, end)), end];
  }
  const whole = containerEnd(t, i, PIECE);
  if (whole >= 0) return [JSON.parse(t.slice(i, whole)), whole];
  const close = c === OPEN_BRACE ? CLOSE_BRACE : CLOSE_BRACKET;
  const out: unknown[] | Record<string, unknown> = c === OPEN_BRACE ? {} : [];
  i = skipSpace(t, i + 1);
  if (t.charCodeAt(i) === close) return [out, i + 1];
  for (;;) {
    let value: unknown;
    if (Array.isArray(out)) {
      [value, i] = yield* valueAt(t, i);
      out.push(value);
    } else {
      if (t.charCodeAt(i) !== QUOTE) throw new Malformed();
      const keyEnd = stringEnd(t, i);
      const key = JSON.parse(t.slice(i, keyEnd)) as string;
      i = skipSpace(t, keyEnd);
      if (t.charCodeAt(i) !== COLON) throw new Malformed();
      [value, i] = yield* valueAt(t, i + 1);
      // As `JSON.parse` makes it: an own property even for `__proto__`; a repeated key keeps its place, the last value.
      Object.defineProperty(out, key, { value, writable: true, enumerable: true, configurable: true });
    }
    yield;
    i = skipSpace(t, i);
    const sep = t.charCodeAt(i);
    if (sep === close) return [out, i + 1];
    if (sep !== COMMA) throw new Malformed();
    i = skipSpace(t, i + 1);
  }
}

/** Steps of `JSON.parse(text)` (no reviver): yields between the elements of containers longer than a piece. */
export function* jsonParseSteps(text: string): Generator<void, unknown, unknown> {
  if (text.length < PARSE_STEPS_MIN) return JSON.parse(text);
  try {
    const [value, end] = yield* valueAt(text, 0);
    if (skipSpace(text, end) !== text.length) throw new Malformed();
    return value;
  } catch {
    // Malformed somewhere: the error is the one `JSON.parse` gives for the whole text.
    return JSON.parse(text);
  }
}
