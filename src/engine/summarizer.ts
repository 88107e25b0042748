/** Summaries of older history turns. The engine is synchronous, so this port is too:
 * an LLM-backed summary is computed before the turn and handed in as a precomputed text. */

export interface HistoryTurnText {
  turn: number;
  user: string;
  reply: string;
}

export interface ISummarizer {
  summarize(turns: readonly HistoryTurnText[]): string;
  /** Optional: does ahead of time what `summarize` of these turns will need (no result depends on it). */
  prepare?(turns: readonly HistoryTurnText[]): void;
}

function clip(text: string, max: number): string {
  // Only the start is kept: a long text is flattened from a prefix of it when that is long enough
  // (a prefix's flattened form is a prefix of the whole's; past max + 1 characters, trimming the
  // whole's end cannot reach the part kept).
  if (text.length > 4 * max) {
    const head = text
      .slice(0, 4 * max)
      .replace(/\s+/g, ' ')
      .trimStart();
    if (head.length >= max + 2) return clipFlat(head, max);
  }
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  return clipFlat(flat, max);
}

/** The first `max` characters of a flattened text longer than that, ended at a sentence or a word. */
function clipFlat(flat: string, max: number): string {
  const cut = flat.slice(0, max);
  const sentenceEnd = Math.max(cut.lastIndexOf('. '), cut.lastIndexOf('? '), cut.lastIndexOf('! '));
  if (sentenceEnd > max * 0.5) return cut.slice(0, sentenceEnd + 1) + ' …';
  const atWord = cut.replace(/\s+\S*$/, '');
  return (atWord.length > max * 0.6 ? atWord : cut) + ' …';
}

/** Summaries kept by `ExtractiveSummarizer` (a gallop and a bisection over a long chat probe about 20). */
const SUMMARIES_KEPT = 24;
/** …and at most this many characters of them. */
const SUMMARY_CHARS_KEPT = 4_000_000;

/** Deterministic extractive summary: per turn, the start of the user's message and of the reply. */
export class ExtractiveSummarizer implements ISummarizer {
  /** Each turn's line, kept while the turn's texts are the same: compaction summarizes turns 1..N again and again. */
  private readonly lines = new Map<number, { user: string; reply: string; line: string }>();

  constructor(
    private readonly userChars = 200,
    private readonly replyChars = 300,
  ) {}

  /**
   * Summaries made lately, by number of turns: pruning a chat far over budget probes several reaches
   * (galloping, then bisecting) at every build of the meter, and joining a thousand lines each time
   * would outweigh the rest. Reused while every line is the same string.
   */
  private readonly joined = new Map<number, { lines: string[]; text: string }>();
  private joinedChars = 0;

  summarize(turns: readonly HistoryTurnText[]): string {
    const lines = turns.map((t) => this.line(t));
    const hit = this.joined.get(lines.length);
    if (hit && hit.lines.every((l, i) => l === lines[i])) return hit.text;
    const text = lines.join('\n');
    if (hit) {
      this.joinedChars -= hit.text.length;
      this.joined.delete(lines.length);
    }
    this.joined.set(lines.length, { lines, text });
    this.joinedChars += text.length;
    while (this.joined.size > SUMMARIES_KEPT || (this.joined.size > 1 && this.joinedChars > SUMMARY_CHARS_KEPT)) {
      const [k, v] = this.joined.entries().next().value!;
      this.joinedChars -= v.text.length;
      this.joined.delete(k);
    }
    return text;
  }

  prepare(turns: readonly HistoryTurnText[]): void {
    for (const t of turns) this.line(t);
  }

  private line(t: HistoryTurnText): string {
    const hit = this.lines.get(t.turn);
    if (hit && hit.user === t.user && hit.reply === t.reply) return hit.line;
    const line = `- Turn ${t.turn}. User: ${clip(t.user, this.userChars)} | Assistant: ${clip(t.reply, this.replyChars)}`;
    this.lines.set(t.turn, { user: t.user, reply: t.reply, line });
    return line;
  }
}
