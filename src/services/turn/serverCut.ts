/**
 * A server that cut the prompt without saying so (Ollama past its `num_ctx`, a llama.cpp server
 * shifting its context): it reports fewer prompt tokens than Strata sent. Counts never agree to the
 * token (a server's chat template adds a few, and an estimated tokenizer is only close), so only a
 * shortfall past the tolerance counts as a cut.
 */

/** The share of the sent tokens a server may report fewer of without it counting as a cut, by tokenizer. */
export const CUT_TOLERANCE = {
  /** The model's own encoding: the counts differ only by the server's chat template. */
  exact: 0.05,
  /** An estimate (a local model's tokenizer is not Strata's): code and prose can count a fifth apart either way. */
  estimated: 0.25,
} as const;

/** Tokens a server may report fewer of whatever the size (a short prompt's template alone differs by this much). */
export const CUT_TOLERANCE_TOKENS = 32;

/** What a cut looked like: Strata's count of the request, and the server's. */
export interface ServerCut {
  sent: number;
  reported: number;
}

/** The cut, when `reported` is short of `sent` by more than the tolerance for this tokenizer. */
export function detectServerCut(sent: number, reported: number | undefined, tokenizerEstimated: boolean): ServerCut | undefined {
  if (reported === undefined || !Number.isFinite(reported) || reported <= 0) return undefined;
  const share = tokenizerEstimated ? CUT_TOLERANCE.estimated : CUT_TOLERANCE.exact;
  const tolerance = Math.max(CUT_TOLERANCE_TOKENS, Math.ceil(sent * share));
  return sent - reported > tolerance ? { sent, reported } : undefined;
}

/**
 * The window the next request is built for after a cut: what the server took in. The server's
 * window holds at least that many of its tokens; a smaller figure than the truth only makes the
 * budget safer.
 */
export function learnedWindow(cut: ServerCut): number {
  return Math.floor(cut.reported);
}

/** The note under the reply. */
export function serverCutNote(cut: ServerCut, model: string): string {
  const n = (v: number) => v.toLocaleString('en-US');
  return `The server took in ${n(cut.reported)} of the ${n(cut.sent)} prompt tokens Strata sent: it cut the rest without an error, so this reply may not have seen all of it. From now on Strata budgets ${model} to a ${n(learnedWindow(cut))}-token window (set strata.models to change it).`;
}
