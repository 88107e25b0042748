import type { Artifact } from './types';

/**
 * The part of a file that fits in a number of tokens: the lines around a selection the chat holds
 * in that file, else the first lines. Used when a file attached this turn is larger than what is
 * left of the budget even as structure + preview (a small local window): the question is answered
 * on the part that fits, and the cut is reported, instead of the file being dropped or left for the
 * server to cut. Deterministic.
 */

export interface Excerpt {
  body: string;
  keptLines: number;
  totalLines: number;
  /** 1-based, inclusive. */
  fromLine: number;
  toLine: number;
}

/** Lines as `lineSpans` counts them: `\r\n`, `\n` and `\r` end a line. */
function splitLines(text: string): string[] {
  const out: string[] = [];
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10 || c === 13) {
      out.push(text.slice(start, i));
      if (c === 13 && text.charCodeAt(i + 1) === 10) i++;
      start = i + 1;
    }
  }
  out.push(text.slice(start));
  return out;
}

/** The lines kept for `k` lines of excerpt: the first `k`, or `k` lines centered on `focus`. */
function rangeOf(k: number, total: number, focus: { startLine: number; endLine: number } | undefined): [number, number] {
  if (!focus) return [0, k];
  const mid = Math.floor((Math.min(focus.startLine, total) - 1 + Math.min(focus.endLine, total) - 1) / 2);
  const start = Math.max(0, Math.min(total - k, mid - Math.floor((k - 1) / 2)));
  return [start, start + k];
}

/**
 * The longest excerpt of `a` whose body counts at most `maxTokens` (undefined when not even one
 * line with its note fits). `focus`: a selection's lines in this file, which the excerpt is
 * centered on. `recovery`: how the model can get the rest (with workspace tools on, `read_file`).
 */
export function fitExcerpt(
  a: Artifact,
  maxTokens: number,
  count: (text: string) => number,
  focus: { startLine: number; endLine: number } | undefined,
  recovery: 'attach' | 'read_file',
): Excerpt | undefined {
  if (maxTokens <= 0) return undefined;
  const lines = splitLines(a.content);
  const total = lines.length;
  const build = (k: number): Excerpt => {
    const [start, end] = rangeOf(k, total, focus);
    const where = focus ? `around the selection at lines ${focus.startLine}-${focus.endLine}` : 'the first part';
    const recover =
      recovery === 'read_file'
        ? `Call read_file on ${a.source.uri} (with startLine and endLine) for the other lines.`
        : `Ask the user for the other lines if the answer needs them.`;
    const note = `[cut to fit the model's context window: lines ${start + 1}-${end} of ${total} kept (${where}); the rest of ${a.source.uri} was not sent. ${recover}]`;
    const parts = [...(start > 0 ? ['…'] : []), ...lines.slice(start, end), ...(end < total ? ['…'] : []), note];
    return { body: parts.join('\n'), keptLines: end - start, totalLines: total, fromLine: start + 1, toLine: end };
  };
  // The most lines that fit (never the whole file: it did not fit): counts grow with the lines kept.
  let lo = 1;
  let hi = total - 1;
  let best: Excerpt | undefined;
  while (lo <= hi) {
    const mid = lo + Math.floor((hi - lo) / 2);
    const e = build(mid);
    if (count(e.body) <= maxTokens) {
      best = e;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return best;
}
