/**
 * What the review bar of a proposal diff says (src/host/apply/changeReview.ts shows it): the keys, and which
 * pending change is the current one. No editor API here, so it is tested in plain Node.
 */

/** The changes of a proposal still to decide, where they are in the proposal's text. */
export interface ReviewView {
  /** All the proposal's changes, decided or not. */
  total: number;
  /** The pending ones in order: index among all changes, first line in the proposal, line count. */
  pending: { index: number; line: number; count: number }[];
}

/** The keys of Accept and Reject as the user presses them on this platform (package.json binds them). */
export function reviewKeys(platform: NodeJS.Platform = process.platform): { accept: string; reject: string } {
  return platform === 'darwin' ? { accept: '⌘Enter', reject: '⌘⌫' } : { accept: 'Ctrl+Enter', reject: 'Ctrl+Backspace' };
}

/** The pending change the cursor at `line` is in, else the next one after it, else the first (its position in `pending`). */
export function currentChange(pending: ReviewView['pending'], line: number | undefined): number {
  if (pending.length === 0 || line === undefined) return 0;
  const inside = pending.findIndex((c) => line >= c.line && line < c.line + Math.max(1, c.count));
  if (inside >= 0) return inside;
  const after = pending.findIndex((c) => c.line > line);
  return after >= 0 ? after : 0;
}

/** The bar's text: what to press and which change of how many this is. */
export function reviewLabel(position: number, pending: number, keys = reviewKeys()): string {
  return `Accept ${keys.accept} · Reject ${keys.reject} · change ${position + 1} of ${pending}`;
}
