/**
 * What a screen reader hears for a message: who, which turn, how long and how it starts
 * ("You, turn 3, 42 words: Why does the cart…"), so a list of messages can be told apart without
 * reading each one. Markdown's marks are left out of the first words.
 */

/** Words of a message's start that its label gives. */
const FIRST_WORDS = 8;
/** Characters of the start at most (one long word, a URL). */
const FIRST_CHARS = 60;
/** Markdown's marks at the start of a word (one character class, no nested repetition: linear time). */
const MARKS = /[#*_`>~[\]|]+/g;

export function messageLabel(role: 'user' | 'assistant', turn: number, text: string): string {
  const who = role === 'user' ? 'You' : 'Strata';
  const plain = text
    .split(/\s+/)
    .map((w) => w.replace(MARKS, ''))
    .filter((w) => w.length > 0);
  if (plain.length === 0) return `${who}, turn ${turn}`;
  const size = `${plain.length.toLocaleString('en-US')} ${plain.length === 1 ? 'word' : 'words'}`;
  let start = plain.slice(0, FIRST_WORDS).join(' ');
  const cut = start.length > FIRST_CHARS || plain.length > FIRST_WORDS;
  if (start.length > FIRST_CHARS) start = start.slice(0, FIRST_CHARS).trimEnd();
  return `${who}, turn ${turn}, ${size}: ${start}${cut ? '…' : ''}`;
}
