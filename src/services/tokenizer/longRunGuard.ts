/**
 * The long-run guard: BPE cost grows with the square of a pre-token's length, so every maximal run of
 * non-whitespace or of whitespace longer than {@link LONG_RUN_LIMIT} characters is cut into pieces
 * that are encoded one after the other. Text without such a run is encoded in one go, with exactly
 * gpt-tokenizer's ids. A cut is, in order of preference, a safe cut (where both encodings' split
 * regexes always end a pre-token: exact), a look-ahead cut (a token boundary that is stable
 * {@link LOOKAHEAD} characters further on: exact in every case measured), or a plain cut. See
 * docs/tokenizer.md for why each cut is exact or bounded.
 */
import { ENCODE_OPTIONS, utf8, type LoadedEncoding } from './encodings';

/** Longest run (non-whitespace or whitespace) encoded in one go (L). */
export const LONG_RUN_LIMIT = 512;
/** Characters encoded past a look-ahead cut's window to find a stable token boundary (K). */
export const LOOKAHEAD = 128;
/** Documented (and tested) bound on the count error of one look-ahead or plain cut. */
export const MAX_ERROR_PER_CUT = 3;

/** What the guard did to one text. */
export interface GuardStats {
  safeCuts: number;
  lookaheadCuts: number;
  plainCuts: number;
}

export interface GuardParams {
  /** L: the longest run encoded in one go. */
  limit: number;
  /** K: characters encoded past a look-ahead cut's window; 0 disables look-ahead cuts. */
  lookahead: number;
  /** The o200k_base split regex, which also ends a pre-token between a lowercase and an uppercase letter. */
  o200k: boolean;
}

// Character classes for safe cuts

const OTHER = 0; // punctuation, symbols, emoji, U+FFFD, lone surrogates, …
const LOWER = 1; // \p{Ll}
const UPPER = 2; // \p{Lu} \p{Lt}
const LETTER = 3; // \p{Lm} \p{Lo} (CJK, …)
const MARK = 4; // \p{M}
const DIGIT = 5; // \p{N}
const APOSTROPHE = 6; // ' (contractions: 's 't 're …)

const RE_LO = /[\p{Lm}\p{Lo}]/u;
const RE_LL = /\p{Ll}/u;
const RE_LU = /[\p{Lu}\p{Lt}]/u;
const RE_M = /\p{M}/u;
const RE_N = /\p{N}/u;

function classify(cp: number): number {
  if (cp < 0x80) {
    if (cp >= 0x61 && cp <= 0x7a) return LOWER;
    if (cp >= 0x41 && cp <= 0x5a) return UPPER;
    if (cp >= 0x30 && cp <= 0x39) return DIGIT;
    return cp === 0x27 ? APOSTROPHE : OTHER;
  }
  const ch = String.fromCodePoint(cp);
  if (RE_LO.test(ch)) return LETTER;
  if (RE_LL.test(ch)) return LOWER;
  if (RE_LU.test(ch)) return UPPER;
  if (RE_M.test(ch)) return MARK;
  if (RE_N.test(ch)) return DIGIT;
  return OTHER;
}

/** JavaScript `\s` (what the tokenizers' split regexes use). */
export function isWhitespace(c: number): boolean {
  if (c <= 0x20) return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  if (c < 0xa0) return false;
  return (
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

function isLowSurrogateOfPair(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  if (c < 0xdc00 || c > 0xdfff || i === 0) return false;
  const h = text.charCodeAt(i - 1);
  return h >= 0xd800 && h <= 0xdbff;
}

/**
 * The last position p in (start, limit] where a cut can never change the encoding (a position where
 * both split regexes always end a pre-token), or -1. `start` is itself a pre-token boundary (a run
 * start or an earlier cut), so a digit run that contains `start` is counted in groups of three from
 * `start`.
 */
function lastSafeCut(text: string, start: number, limit: number, o200k: boolean): number {
  let cp = text.codePointAt(start)!;
  let prev = classify(cp);
  let digits = prev === DIGIT ? 1 : 0;
  let i = start + (cp > 0xffff ? 2 : 1);
  let best = -1;
  while (i <= limit && i < text.length) {
    cp = text.codePointAt(i)!;
    const cur = classify(cp);
    if (prev === DIGIT) {
      if (cur !== DIGIT || digits % 3 === 0) best = i;
    } else if (cur === DIGIT) {
      best = i;
    } else if (prev === LOWER || prev === UPPER || prev === LETTER) {
      if (cur === OTHER || (o200k && prev === LOWER && cur === UPPER)) best = i;
    }
    digits = cur === DIGIT ? digits + 1 : 0;
    prev = cur;
    i += cp > 0xffff ? 2 : 1;
  }
  return best;
}

function append(out: number[], ids: readonly number[]): void {
  for (let i = 0; i < ids.length; i++) out.push(ids[i]);
}

/** UTF-8 length of the code point starting at `i` (a lone surrogate becomes U+FFFD: 3 bytes). */
function utf8Length(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c < 0x80) return 1;
  if (c < 0x800) return 2;
  if (c >= 0xd800 && c <= 0xdbff) {
    const d = text.charCodeAt(i + 1);
    if (d >= 0xdc00 && d <= 0xdfff) return 4;
  }
  return 3;
}

/**
 * Look-ahead cut: walks the window's tokens back from the window's end (`winEnd`) and returns the
 * first token boundary at or before `maxOffset` that falls between two characters, if it lies after
 * `minOffset`. The bytes of the tokens walked over are checked against the text's, so the kept tokens
 * encode exactly the text before the boundary.
 */
function syncPoint(
  tokenBytes: (id: number) => Uint8Array | undefined,
  win: readonly number[],
  text: string,
  winEnd: number,
  minOffset: number,
  maxOffset: number,
): { tokens: number; offset: number } | undefined {
  let tailStart = minOffset;
  if (isLowSurrogateOfPair(text, tailStart)) tailStart--;
  // Byte offset (from tailStart) → UTF-16 offset, at character starts only.
  const charAt = new Map<number, number>();
  let bytes = 0;
  for (let i = tailStart; i < winEnd;) {
    charAt.set(bytes, i);
    const n = utf8Length(text, i);
    bytes += n;
    i += n === 4 ? 2 : 1;
  }
  const tail = utf8.encode(text.slice(tailStart, winEnd));
  if (tail.length !== bytes) return undefined;
  let b = bytes;
  for (let k = win.length - 1; k >= 0; k--) {
    const tb = tokenBytes(win[k]);
    if (!tb || tb.length > b) return undefined;
    b -= tb.length;
    for (let j = 0; j < tb.length; j++) if (tail[b + j] !== tb[j]) return undefined;
    const off = charAt.get(b);
    if (off !== undefined && off <= maxOffset) return off > minOffset ? { tokens: k, offset: off } : undefined;
  }
  return undefined;
}

/** The ids of `text` (an encoding's, through the long-run guard) and what the guard did. */
export function encodeGuarded(encoding: LoadedEncoding, text: string, params: GuardParams): { ids: number[] } & GuardStats {
  const stats: GuardStats = { safeCuts: 0, lookaheadCuts: 0, plainCuts: 0 };
  if (text.length === 0) return { ids: [], ...stats };
  const { mod: enc, tokenBytes } = encoding;
  const L = params.limit;
  const n = text.length;
  let ids: number[] | undefined;
  let pos = 0; // start of the text not encoded yet
  const out = (): number[] => (ids ??= []);

  let i = 0;
  while (i < n) {
    // Find the next maximal run of whitespace or non-whitespace.
    const ws = isWhitespace(text.charCodeAt(i));
    const rs = i;
    i++;
    while (i < n && isWhitespace(text.charCodeAt(i)) === ws) i++;
    const re = i;
    if (re - rs <= L) continue;

    let cs = rs;
    while (re - cs > L) {
      if (!ws) {
        const b = lastSafeCut(text, cs, cs + L, params.o200k);
        if (b > cs) {
          append(out(), enc.encode(text.slice(pos, b), ENCODE_OPTIONS));
          pos = cs = b;
          stats.safeCuts++;
          continue;
        }
      }
      if (params.lookahead > 0 && tokenBytes) {
        const winEnd = Math.min(re, cs + L + params.lookahead);
        const win = enc.encode(text.slice(pos, winEnd), ENCODE_OPTIONS);
        const sync = syncPoint(tokenBytes, win, text, winEnd, cs + (L >> 1), cs + L);
        if (sync) {
          const o = out();
          for (let k = 0; k < sync.tokens; k++) o.push(win[k]);
          pos = cs = sync.offset;
          stats.lookaheadCuts++;
          continue;
        }
      }
      let b = cs + L;
      if (isLowSurrogateOfPair(text, b)) b--;
      append(out(), enc.encode(text.slice(pos, b), ENCODE_OPTIONS));
      pos = cs = b;
      stats.plainCuts++;
    }
  }
  if (ids === undefined) return { ids: enc.encode(text, ENCODE_OPTIONS), ...stats };
  if (pos < n) append(ids, enc.encode(text.slice(pos), ENCODE_OPTIONS));
  return { ids, ...stats };
}
