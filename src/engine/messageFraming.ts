import type { ITokenizer, Role, Segment } from './types';
import type { Draft } from './assembly';

/** A segment's head and tail for message framing, and its junction with what precedes it. */
const HEAD_AND_TAIL = Symbol('message framing');
const JUNCTION = Symbol('junction');

interface HeadAndTail {
  tok: object;
  head?: string;
  tail?: string;
  own: number;
}

interface Junction {
  tok: object;
  before: object | string;
  n: number;
}

/**
 * The tokens a message costs beyond its segments: its framing (`<|role|>\n` … `\n`) and what its
 * segments' joins merge. Memoized per message object (past messages are the same objects from turn
 * to turn) and, for the joins, on the segments themselves.
 */
export class MessageFraming {
  private readonly byMessage = new WeakMap<Draft, number>();

  constructor(private readonly tokenizer: ITokenizer) {}

  /** A message's framing alone (`<|role|>\n` … `\n`): what a room estimate counts before the message exists. */
  roleFraming(role: Role): number {
    return this.tokenizer.count(`<|${role}|>\n\n`);
  }

  /**
   * A message's framing tokens (`<|role|>\n` … `\n`), plus what its segments lose when they are
   * counted as one text: "?" and "\n" are two tokens apart but "?\n" is one, "." + "\n<" merge the
   * same way. So a message's tokens (its segments + this) are what the provider counts.
   */
  of(d: Draft): number {
    let n = this.byMessage.get(d);
    if (n === undefined) {
      // Counted where the message's pieces meet, not over the whole message: BPE never merges across
      // a line start (after "\n", before a character that is not whitespace or "/"; the tokenizer's
      // chunked counting relies on the same rule), so the message's count is the sum of the counts of
      // the stretches between such points. A segment's stretch from its first to its last line start
      // is inside its own count; what is left to count is each junction (the framing, or the tail of
      // one segment, then the head of the next) — a few short strings however long the message is.
      // A segment's head and tail, and the junction of two segments, are memoized on the segment: a
      // system message rebuilt while pruning is a new message of the same segments (hundreds, after
      // a cut), and counting their junctions again for each would grow with the chat.
      const tok = this.tokenizer;
      const count = (t: string): number => tok.count(t);
      const start = `<|${d.role}|>\n`;
      let region = start;
      // What `region` is: the framing, one segment's tail, or more than that (then it is counted as is).
      let from: Segment | string | undefined = start;
      let regions = 0;
      let own = 0;
      for (const g of d.segs) {
        const f = this.headAndTail(g);
        if (f.head === undefined) {
          region += g.text;
          own += g.tokens;
          from = undefined;
          continue;
        }
        own += f.own;
        regions += from === undefined ? count(region + f.head) : this.junction(from, g, region + f.head);
        region = f.tail!;
        from = g;
      }
      regions += count(`${region}\n`);
      // Never below zero (the ledger's framing line is a count): only a message with more merging joins
      // than framing tokens — not seen with real BPE — stays a token or two over.
      n = Math.max(0, regions - own);
      this.byMessage.set(d, n);
    }
    return n;
  }

  /** Tokens of messages: their segments and framing. */
  messagesTokens(ds: readonly Draft[]): number {
    return ds.reduce((m, d) => m + this.of(d) + d.segs.reduce((x, g) => x + g.tokens, 0), 0);
  }

  /** A segment's head (up to its first line start) and tail (from its last), with their tokens; no head when it has no line start. */
  private headAndTail(g: Segment): HeadAndTail {
    const held = g as Segment & { [HEAD_AND_TAIL]?: HeadAndTail };
    let f = held[HEAD_AND_TAIL];
    if (f && f.tok === this.tokenizer) return f;
    const t = g.text;
    const first = firstLineStart(t);
    if (first < 0) f = { tok: this.tokenizer, own: 0 };
    else {
      const head = t.slice(0, first);
      const tail = t.slice(lastLineStart(t));
      f = { tok: this.tokenizer, head, tail, own: this.tokenizer.count(head) + this.tokenizer.count(tail) };
    }
    if (HEAD_AND_TAIL in held) held[HEAD_AND_TAIL] = f;
    else Object.defineProperty(held, HEAD_AND_TAIL, { value: f, writable: true, enumerable: false });
    return f;
  }

  /** Tokens of `text`: what comes before `g` (a segment's tail, or the framing) and `g`'s head, memoized on `g`. */
  private junction(before: Segment | string, g: Segment, text: string): number {
    const held = g as Segment & { [JUNCTION]?: Junction };
    const j = held[JUNCTION];
    if (j && j.before === before && j.tok === this.tokenizer) return j.n;
    const n = this.tokenizer.count(text);
    const next: Junction = { tok: this.tokenizer, before, n };
    if (JUNCTION in held) held[JUNCTION] = next;
    else Object.defineProperty(held, JUNCTION, { value: next, writable: true, enumerable: false });
    return n;
  }
}

/** A position where no BPE pre-token spans: just after "\n", before a character that is neither whitespace nor "/". */
function isLineStart(text: string, p: number): boolean {
  if (text.charCodeAt(p - 1) !== 0x0a) return false;
  const c = text[p];
  return c !== '/' && !/\s/.test(c);
}

/** The first such position inside `text` (0 < p < length), or -1. */
function firstLineStart(text: string): number {
  for (let i = text.indexOf('\n'); i >= 0 && i < text.length - 1; i = text.indexOf('\n', i + 1)) if (isLineStart(text, i + 1)) return i + 1;
  return -1;
}

/** The last such position inside `text`, or -1. */
function lastLineStart(text: string): number {
  for (let i = text.lastIndexOf('\n', text.length - 2); i >= 0; i = i > 0 ? text.lastIndexOf('\n', i - 1) : -1)
    if (isLineStart(text, i + 1)) return i + 1;
  return -1;
}
