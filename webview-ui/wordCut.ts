const TRAILING = new Set([',', ';', ':', '·', '—', '-']);

/** The text without trailing punctuation and spaces; by hand, since `[…]+$` rescans a long run from every position in it. */
export function trimTrailingPunctuation(text: string): string {
  let end = text.length;
  while (end > 0 && (TRAILING.has(text[end - 1]) || /\s/.test(text[end - 1]))) end--;
  return text.slice(0, end);
}

/** The text, then shorter forms cut after a word with an ellipsis ("Refactor the tokenizer…", "Refactor…"). */
export function wordCandidates(text: string): string[] {
  const words = text.trim().split(/\s+/);
  const out = [text];
  for (let n = words.length - 1; n >= 1; n--) out.push(`${trimTrailingPunctuation(words.slice(0, n).join(' '))}…`);
  return out;
}
