/**
 * The question "Ask Strata" drafts in the chat input: about a problem (quoted as the Problems view
 * shows it, a snapshot taken when asked) or about a selection. Only drafted: the user edits and sends.
 * No vscode import: unit tests load it in plain Node.
 */

/** A diagnostic, as the draft quotes it. */
export interface Problem {
  message: string;
  source?: string;
  code?: string;
  /** 1-based. */
  line: number;
  severity: string;
}

export const SEVERITY = ['error', 'warning', 'info', 'hint'];

/** A diagnostic as text: `error TS2322 (line 12): Type 'string' is not assignable …`. */
export function problemText(p: Problem): string {
  const origin = [p.source, p.code].filter((x) => x !== undefined && x !== '').join(' ');
  return `${p.severity}${origin ? ` ${origin}` : ''} (line ${p.line}): ${p.message}`;
}

/** The question drafted in the input for an "Ask Strata" action. */
export function draftQuestion(args: { label: string; problem?: Problem }): string {
  if (args.problem)
    return `Why does ${args.label} report this problem, and how do I fix it?\n\n> ${problemText(args.problem).replace(/\n/g, '\n> ')}`;
  return `Explain ${args.label}: what does it do, and what could go wrong?`;
}
