/**
 * History summaries for compaction (DESIGN §5). The engine's deterministic extractive summarizer
 * lives in the engine; this is the LLM-backed one, using the active provider with a bounded budget.
 */
import type { ChatProvider } from './providers/types';
import { collectReply } from './providers/stream';

export interface SummaryTurn {
  user: string;
  reply: string;
}

export interface Summarizer {
  /** A summary of `turns` of at most `maxTokens` tokens. */
  summarize(turns: SummaryTurn[], maxTokens: number, signal?: AbortSignal): Promise<string>;
}

export interface CountingTokenizer {
  count(text: string): number;
}

export interface LlmSummarizerOptions {
  provider: ChatProvider;
  model: string;
  tokenizer: CountingTokenizer;
  /** Used for the request's cache key: `<conversationId>:summary`. */
  conversationId: string;
  /** Most tokens of conversation sent to the model (default 8000). */
  inputBudgetTokens?: number;
  timeoutMs?: number;
}

export const SUMMARY_SYSTEM_PROMPT =
  'You summarize the earlier part of a conversation between a user and a coding assistant so that it can continue without it. ' +
  'Keep decisions, requirements, names of files, functions and identifiers, open questions and anything the user asked to remember. ' +
  'Drop pleasantries and repeated content. Do not invent anything. Write plain prose or terse bullet points, no preamble.';

const CUT_MARK = ' […]';

/** Cuts `text` to at most `maxTokens` tokens (at a character boundary), marking the cut. */
export function truncateToTokens(text: string, maxTokens: number, tokenizer: CountingTokenizer): string {
  if (maxTokens <= 0) return '';
  if (tokenizer.count(text) <= maxTokens) return text;
  // Binary search on the character length (code-unit safe: never split a surrogate pair).
  let lo = 0;
  let hi = text.length;
  const budget = Math.max(0, maxTokens - tokenizer.count(CUT_MARK));
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (tokenizer.count(safeSlice(text, mid)) <= budget) lo = mid;
    else hi = mid - 1;
  }
  return safeSlice(text, lo) + CUT_MARK;
}

function safeSlice(text: string, n: number): string {
  let end = n;
  const c = text.charCodeAt(end - 1);
  if (end > 0 && c >= 0xd800 && c <= 0xdbff) end--;
  return text.slice(0, end);
}

/**
 * Renders the turns within `budget` tokens: each turn gets an equal share; a turn shorter than its
 * share gives the rest to the others. Turn order is kept.
 */
export function renderTurnsForSummary(turns: SummaryTurn[], budget: number, tokenizer: CountingTokenizer): string {
  const pieces = turns.map((t, i) => `## Turn ${i + 1}\nUser: ${t.user}\nAssistant: ${t.reply}\n`);
  const sizes = pieces.map((p) => tokenizer.count(p));
  const total = sizes.reduce((a, b) => a + b, 0);
  if (total <= budget) return pieces.join('\n');
  // Water-filling: find the per-turn cap so that Σ min(size, cap) ≤ budget.
  const order = sizes.map((s, i) => [s, i] as const).sort((a, b) => a[0] - b[0]);
  let remaining = budget;
  let left = pieces.length;
  const caps = new Array<number>(pieces.length);
  for (const [s, i] of order) {
    const share = Math.floor(remaining / left);
    caps[i] = Math.min(s, share);
    remaining -= caps[i];
    left--;
  }
  return pieces
    .map((p, i) => truncateToTokens(p, caps[i], tokenizer))
    .filter((p) => p.length > 0)
    .join('\n');
}

export class LlmSummarizer implements Summarizer {
  constructor(private readonly opts: LlmSummarizerOptions) {}

  async summarize(turns: SummaryTurn[], maxTokens: number, signal?: AbortSignal): Promise<string> {
    if (turns.length === 0) return '';
    const { tokenizer } = this.opts;
    const body = renderTurnsForSummary(turns, this.opts.inputBudgetTokens ?? 8000, tokenizer);
    const reply = await collectReply(
      this.opts.provider.stream({
        model: this.opts.model,
        conversationId: `${this.opts.conversationId}:summary`,
        maxOutputTokens: Math.max(16, maxTokens),
        signal,
        timeoutMs: this.opts.timeoutMs,
        messages: [
          { role: 'system', content: [{ type: 'text', text: SUMMARY_SYSTEM_PROMPT }] },
          {
            role: 'user',
            content: [{ type: 'text', text: `Summarize these ${turns.length} earlier turns in at most ${maxTokens} tokens.\n\n${body}` }],
          },
        ],
      }),
    );
    // The model may overshoot its budget; the caller relies on the bound.
    return truncateToTokens(reply.text.trim(), maxTokens, tokenizer);
  }
}
