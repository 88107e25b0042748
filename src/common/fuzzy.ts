/**
 * Fuzzy matching for the composer's pickers (`@` mentions, `/` commands): the query's characters in
 * order, case-insensitive, anywhere in the text. Matches at word starts (after `/`, `.`, `_`, `-`, a
 * space, or a lower-to-upper case change), runs of adjacent characters and matches inside a path's
 * file name rank higher; shorter texts win ties. Pure and allocation-light: the host ranks a
 * workspace's file list on every keystroke.
 */

export interface FuzzyMatch {
  score: number;
  /** Indices of the matched characters in the text, ascending (for highlighting). */
  positions: number[];
}

const BOUNDARY_BEFORE = new Set(['/', '\\', '.', '_', '-', ' ', ':', '#', '@']);

const WORD_START = 8;
const ADJACENT = 6;
const IN_FILE_NAME = 4;
const FIRST_CHAR = 6;

function isBoundary(text: string, i: number): boolean {
  if (i === 0) return true;
  const prev = text[i - 1];
  if (BOUNDARY_BEFORE.has(prev)) return true;
  const c = text[i];
  return prev >= 'a' && prev <= 'z' && c >= 'A' && c <= 'Z';
}

/**
 * Positions of `q` (lower case) in `lower`, from `start`, preferring word starts: each character
 * takes the next word start that still leaves room for the rest, else the next occurrence.
 */
function matchFrom(q: string, lower: string, text: string, start: number): number[] | undefined {
  const positions: number[] = [];
  let from = start;
  for (let qi = 0; qi < q.length; qi++) {
    const ch = q[qi];
    const next = lower.indexOf(ch, from);
    if (next < 0) return undefined;
    let pick = next;
    // A word start further on is better, unless it continues a run.
    if (!(positions.length > 0 && positions[positions.length - 1] === next - 1) && !isBoundary(text, next)) {
      for (let j = lower.indexOf(ch, next + 1); j >= 0; j = lower.indexOf(ch, j + 1)) {
        if (isBoundary(text, j)) {
          if (canFinish(q, qi + 1, lower, j + 1)) pick = j;
          break;
        }
      }
    }
    positions.push(pick);
    from = pick + 1;
  }
  return positions;
}

function canFinish(q: string, qi: number, lower: string, from: number): boolean {
  for (let i = qi; i < q.length; i++) {
    const at = lower.indexOf(q[i], from);
    if (at < 0) return false;
    from = at + 1;
  }
  return true;
}

function scoreOf(positions: readonly number[], text: string, nameStart: number): number {
  let score = 0;
  for (let i = 0; i < positions.length; i++) {
    const p = positions[i];
    score += 1;
    if (isBoundary(text, p)) score += WORD_START;
    if (i > 0 && positions[i - 1] === p - 1) score += ADJACENT;
    else if (i > 0) score -= Math.min(3, (p - positions[i - 1] - 1) * 0.25);
    if (p >= nameStart) score += IN_FILE_NAME;
  }
  if (positions[0] === nameStart) score += FIRST_CHAR;
  return score - text.length * 0.01;
}

/** The match of `query` in `text`, or undefined when its characters do not all appear in order. */
export function fuzzyMatch(query: string, text: string): FuzzyMatch | undefined {
  // Nothing typed yet: everything matches equally, in the order given.
  if (query.length === 0) return { score: 0, positions: [] };
  if (query.length > text.length) return undefined;
  const q = query.toLowerCase();
  const lower = text.toLowerCase();
  const slash = Math.max(text.lastIndexOf('/'), text.lastIndexOf('\\'));
  const nameStart = slash + 1;
  // In the file name alone first (what people type), else anywhere in the path.
  const inName = nameStart > 0 ? matchFrom(q, lower, text, nameStart) : undefined;
  const positions = inName ?? matchFrom(q, lower, text, 0);
  if (!positions) return undefined;
  let score = scoreOf(positions, text, nameStart);
  if (inName) {
    // A path whose folders match better than its file name: keep the better of the two.
    const whole = matchFrom(q, lower, text, 0);
    if (whole) {
      const wholeScore = scoreOf(whole, text, nameStart);
      if (wholeScore > score) return { score: wholeScore, positions: whole };
    }
  }
  const name = lower.slice(nameStart);
  // The whole file name, with or without its extension, as typed.
  if (lower === q || name === q || name.slice(0, name.lastIndexOf('.')) === q) score += 20;
  return { score, positions };
}

/**
 * The best `limit` items for `query`, best first (ties keep the input order). `textOf` gives the text
 * an item is matched on.
 */
export function rankFuzzy<T>(
  query: string,
  items: readonly T[],
  textOf: (item: T) => string,
  limit: number,
): { item: T; match: FuzzyMatch }[] {
  const out: { item: T; match: FuzzyMatch; order: number }[] = [];
  for (let i = 0; i < items.length; i++) {
    const match = fuzzyMatch(query, textOf(items[i]));
    if (match) out.push({ item: items[i], match, order: i });
  }
  out.sort((a, b) => b.match.score - a.match.score || a.order - b.order);
  return out.slice(0, limit).map(({ item, match }) => ({ item, match }));
}
