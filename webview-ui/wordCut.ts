/** The text, then shorter forms cut after a word with an ellipsis ("Refactor the tokenizer…", "Refactor…"). */
export function wordCandidates(text: string): string[] {
  const words = text.trim().split(/\s+/);
  const out = [text];
  for (let n = words.length - 1; n >= 1; n--)
    out.push(
      `${words
        .slice(0, n)
        .join(' ')
        .replace(/[\s,;:·—-]+$/, '')}…`,
    );
  return out;
}
