"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.HistoryManager = void 0;
const state_1 = require("./state");
/**
 * The turns of one chat (DESIGN §3): display text, reply and per-turn metadata, a token estimate,
 * and the conversation strip — a summary of older turns plus the recent turns verbatim. The last
 * turn is always verbatim, so "what did I just say?" is answered exactly. A view over `ChatState`.
 */
class HistoryManager {
    state;
    tokenizer;
    summarizer;
    keepRecent;
    constructor(state, tokenizer, summarizer, 
    /** K: turns kept verbatim when older ones are summarized for compaction. */
    keepRecent = 4) {
        this.state = state;
        this.tokenizer = tokenizer;
        this.summarizer = summarizer;
        this.keepRecent = keepRecent;
    }
    get turns() {
        return this.state.turns;
    }
    get completed() {
        return this.state.completedTurns;
    }
    get summary() {
        return this.state.summary;
    }
    /** Turns 1..summarizedThrough are represented by the summary. */
    get summarizedThrough() {
        return this.state.summary?.throughTurn ?? 0;
    }
    append(record) {
        (0, state_1.appendTurnRecord)(this.state, record);
        this.state.completedTurns = record.turn;
    }
    /** The strip sent as history: the summary (if any) and the verbatim turns after it. */
    strip() {
        const through = this.summarizedThrough;
        return { summary: this.state.summary, verbatim: this.state.turns.filter((t) => t.turn > through) };
    }
    /** Tokens of the strip's texts (display text and replies; the summary), without framing. */
    tokenEstimate() {
        const { summary, verbatim } = this.strip();
        let n = summary ? this.tokenizer.count(summary.text) : 0;
        for (const t of verbatim)
            n += this.tokenizer.count(t.userText) + this.tokenizer.count(t.reply);
        return n;
    }
    /** The last turn that compaction may summarize while keeping K turns verbatim. */
    get lastSummarizable() {
        return this.state.completedTurns - this.keepRecent;
    }
    /**
     * Summarizes turns 1..through (never the last completed turn). Uses `precomputed` (an LLM summary
     * made before the turn) when it covers exactly those turns, else the deterministic summarizer.
     */
    summarizeThrough(through, precomputed) {
        const limit = Math.min(through, this.state.completedTurns - 1);
        if (limit <= this.summarizedThrough)
            return false;
        if (precomputed && precomputed.throughTurn === limit) {
            this.state.summary = { throughTurn: limit, text: precomputed.text };
            return true;
        }
        const turns = this.state.turns.filter((t) => t.turn <= limit).map((t) => ({ turn: t.turn, user: t.userText, reply: t.reply }));
        this.state.summary = { throughTurn: limit, text: this.summarizer.summarize(turns) };
        return true;
    }
}
exports.HistoryManager = HistoryManager;
//# sourceMappingURL=historyManager.js.map