/**
 * Content-defined chunks of long texts: `count` adds up the counts of a long text's chunks (each
 * memoized by its hash), so a text wrapped in a header shares all but its first and last chunk or two
 * with the bare text, and `warm` can count chunk by chunk between yields. A chunk ends only where both
 * encodings always end a pre-token, so the sum of the chunk counts is the count of the whole text
 * (the reasoning is in docs/tokenizer.md).
 */
import { isWhitespace } from './longRunGuard';

/** Texts longer than this (characters) are counted in chunks. */
export const CHUNK_THRESHOLD = 32_768;
/** Shortest chunk (characters), except the last one; at least 32 (the rolling hash's window). */
export const CHUNK_MIN = 1_024;
/**
 * A chunk ends at the first boundary after this many characters, hash or not: a few ms of encoding
 * for code (0.2–0.8 µs per character), so `warm`'s slices stay near their time budget.
 */
export const CHUNK_MAX = 8_192;
/** A chunk end is wanted where the top this-many bits of the rolling hash are zero (1 in 2,048 positions). */
export const CHUNK_HASH_BITS = 11;

/** ASCII punctuation and symbols except the apostrophe (which may start a contraction suffix). */
function isAsciiPunctuation(c: number): boolean {
  return c !== 0x27 && ((c >= 0x21 && c <= 0x2f) || (c >= 0x3a && c <= 0x40) || (c >= 0x5b && c <= 0x60) || (c >= 0x7b && c <= 0x7e));
}

function isAsciiLetter(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a);
}

/**
 * Whether a chunk may end at `p` (0 < p < text.length): both encodings end a pre-token there whatever
 * the rest of the text is: after "\n" when the next character is neither whitespace nor "/", and
 * between an ASCII letter and ASCII punctuation other than "'" (docs/tokenizer.md says why).
 */
export function isChunkBoundary(text: string, p: number): boolean {
  const prev = text.charCodeAt(p - 1);
  const cur = text.charCodeAt(p);
  if (prev === 0x0a) return cur !== 0x2f && !isWhitespace(cur);
  return isAsciiLetter(prev) && isAsciiPunctuation(cur);
}

/** 256 pseudo-random 32-bit values for the gear hash (xorshift32, fixed seed: the same chunks in every process). */
const GEAR: Int32Array = (() => {
  const g = new Int32Array(256);
  let x = 0x9e3779b9 | 0;
  for (let i = 0; i < 256; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    g[i] = x;
  }
  return g;
})();

export interface ChunkParams {
  min: number;
  max: number;
  bits: number;
}

/**
 * End of the chunk that starts at `start`: the first boundary at least `min` characters in, after a
 * position where the gear hash of the preceding 32 characters has its top `bits` bits zero, or after
 * `max` characters; the end of the text when there is none. The hash restarts at `start`, which
 * changes nothing past its first 32 characters, and `min` ≥ 32.
 */
export function chunkEnd(text: string, start: number, params: ChunkParams): number {
  const n = text.length;
  if (n - start <= params.min) return n;
  const shift = 32 - params.bits;
  const minEnd = start + params.min;
  const maxEnd = start + params.max;
  let h = 0;
  // The hash at i depends on the 32 characters before i only: start it where it is first read.
  let i = Math.max(start + 1, minEnd - 32);
  for (; i < minEnd; i++) h = ((h << 1) + GEAR[text.charCodeAt(i - 1) & 0xff]) | 0;
  for (; i < n; i++) {
    h = ((h << 1) + GEAR[text.charCodeAt(i - 1) & 0xff]) | 0;
    if (h >>> shift === 0 || i >= maxEnd) {
      // Wanted from here on: the first boundary at or after i.
      for (; i < n; i++) if (isChunkBoundary(text, i)) return i;
      return n;
    }
  }
  return n;
}

/** The chunk ends of `text` (the last one is `text.length`). */
export function chunkEnds(text: string, params: ChunkParams): number[] {
  const out: number[] = [];
  for (let s = 0; s < text.length;) {
    s = chunkEnd(text, s, params);
    out.push(s);
  }
  return out;
}
