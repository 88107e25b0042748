/** Summaries of older history turns (DESIGN §5). The engine is synchronous, so this port is too:
 * an LLM-backed summary is computed before the turn and handed in as a precomputed text. */

export interface HistoryTurnText {
  turn: number;
  user: string;
  reply: string;
}

export interface ISummarizer {
  summarize(turns: readonly HistoryTurnText[]): string;
}

function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max);
  const sentenceEnd = Math.max(cut.lastIndexOf('. '), cut.lastIndexOf('? '), cut.lastIndexOf('! '));
  if (sentenceEnd > max * 0.5) return cut.slice(0, sentenceEnd + 1) + ' …';
  const atWord = cut.replace(/\s+\S*$/, '');
  return (atWord.length > max * 0.6 ? atWord : cut) + ' …';
}

/** Deterministic extractive summary: per turn, the start of the user's message and of the reply. */
export class ExtractiveSummarizer implements ISummarizer {
  /** Each turn's line, kept while the turn's texts are the same: compaction summarizes turns 1..N again and again. */
  private readonly lines = new Map<number, { user: string; reply: string; line: string }>();

  constructor(private readonly userChars = 200, private readonly replyChars = 300) {}

  summarize(turns: readonly HistoryTurnText[]): string {
    return turns.map((t) => this.line(t)).join('\n');
  }

  private line(t: HistoryTurnText): string {
    const hit = this.lines.get(t.turn);
    if (hit && hit.user === t.user && hit.reply === t.reply) return hit.line;
    const line = `- Turn ${t.turn}. User: ${clip(t.user, this.userChars)} | Assistant: ${clip(t.reply, this.replyChars)}`;
    this.lines.set(t.turn, { user: t.user, reply: t.reply, line });
    return line;
  }
}
