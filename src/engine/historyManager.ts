import type { ITokenizer } from './types';
import { appendTurnRecord, type ChatState, type HistorySummary, type TurnRecord } from './state';
import type { ISummarizer } from './summarizer';

/**
 * The turns of one chat: display text, reply and per-turn metadata, a token estimate,
 * and the conversation strip — a summary of older turns plus the recent turns verbatim. The last
 * turn is always verbatim, so "what did I just say?" is answered exactly. A view over `ChatState`.
 */
export class HistoryManager {
  constructor(
    private readonly state: ChatState,
    private readonly tokenizer: ITokenizer,
    private readonly summarizer: ISummarizer,
    /** K: turns kept verbatim when older ones are summarized for compaction. */
    readonly keepRecent = 4,
  ) {}

  get turns(): readonly TurnRecord[] {
    return this.state.turns;
  }

  get completed(): number {
    return this.state.completedTurns;
  }

  get summary(): HistorySummary | undefined {
    return this.state.summary;
  }

  /** Turns 1..summarizedThrough are represented by the summary. */
  get summarizedThrough(): number {
    return this.state.summary?.throughTurn ?? 0;
  }

  append(record: TurnRecord): void {
    appendTurnRecord(this.state, record);
    this.state.completedTurns = record.turn;
  }

  /** The strip sent as history: the summary (if any) and the verbatim turns after it. */
  strip(): { summary?: HistorySummary; verbatim: TurnRecord[] } {
    const through = this.summarizedThrough;
    return { summary: this.state.summary, verbatim: this.state.turns.filter((t) => t.turn > through) };
  }

  /** Tokens of the strip's texts (display text and replies; the summary), without framing. */
  tokenEstimate(): number {
    const { summary, verbatim } = this.strip();
    let n = summary ? this.tokenizer.count(summary.text) : 0;
    for (const t of verbatim) n += this.tokenizer.count(t.userText) + this.tokenizer.count(t.reply);
    return n;
  }

  /** The last turn that compaction may summarize while keeping K turns verbatim. */
  get lastSummarizable(): number {
    return this.state.completedTurns - this.keepRecent;
  }

  /**
   * Summarizes turns 1..through (never the last completed turn). Uses `precomputed` (an LLM summary
   * made before the turn) when it covers exactly those turns, else the deterministic summarizer.
   */
  summarizeThrough(through: number, precomputed?: HistorySummary): boolean {
    const limit = Math.min(through, this.state.completedTurns - 1);
    if (limit <= this.summarizedThrough) return false;
    if (precomputed && precomputed.throughTurn === limit) {
      this.state.summary = { throughTurn: limit, text: precomputed.text };
      return true;
    }
    const turns = this.state.turns.filter((t) => t.turn <= limit).map((t) => ({ turn: t.turn, user: t.userText, reply: t.reply }));
    this.state.summary = { throughTurn: limit, text: this.summarizer.summarize(turns) };
    return true;
  }
}
