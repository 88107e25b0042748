/**
 * The changes ("hunks") between a file and the proposal Apply made for it, so each can be accepted or
 * rejected on its own. A hunk replaces a run of the file's lines with the proposal's lines; hunks are
 * the runs the two texts do not share, found with Myers' line diff (O((N+M)·D), bounded: past
 * `MAX_EDITS` differing lines the differing middle is one hunk).
 */

export interface Hunk {
  /** First line of the base text the hunk replaces (0-based). */
  readonly start: number;
  /** Line after the last one it replaces (`start` when it only inserts). */
  readonly end: number;
  /** The lines put in their place (empty when it only deletes). */
  readonly lines: readonly string[];
}

/** Differing lines past which the diff stops looking for shared lines inside the changed middle. */
export const MAX_EDITS = 2000;

/** Lines of a text split on `\n` (a `\r` stays on its line, so CRLF text comes back as it was). */
export function linesOf(text: string): string[] {
  return text.split('\n');
}

/** Pairs of equal lines (index in `a`, index in `b`), in order, of a shortest edit script; undefined past `limit` edits. */
function equalPairs(a: readonly string[], b: readonly string[], limit: number): [number, number][] | undefined {
  const n = a.length;
  const m = b.length;
  const max = Math.min(n + m, limit);
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  let found = -1;
  for (let d = 0; d <= max && found < 0; d++) {
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[offset + k - 1] < v[offset + k + 1]) ? v[offset + k + 1] : v[offset + k - 1] + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) found = d;
    }
    trace.push(v.slice(offset - d, offset + d + 1));
  }
  if (found < 0) return undefined;
  const pairs: [number, number][] = [];
  let x = n;
  let y = m;
  for (let d = found; d > 0; d--) {
    const prev = trace[d - 1];
    const at = (k: number): number => prev[k + d - 1];
    const k = x - y;
    const down = k === -d || (k !== d && at(k - 1) < at(k + 1));
    const prevK = down ? k + 1 : k - 1;
    const prevX = at(prevK);
    const prevY = prevX - prevK;
    const startX = down ? prevX : prevX + 1;
    const startY = startX - k;
    while (x > startX && y > startY) {
      x--;
      y--;
      pairs.push([x, y]);
    }
    x = prevX;
    y = prevY;
  }
  while (x > 0 && y > 0) {
    x--;
    y--;
    pairs.push([x, y]);
  }
  return pairs.reverse();
}

/** The hunks that turn `base` into `proposed`, in order, none touching another. */
export function diffHunks(base: string, proposed: string, limit = MAX_EDITS): Hunk[] {
  if (base === proposed) return [];
  const a = linesOf(base);
  const b = linesOf(proposed);
  let pre = 0;
  while (pre < a.length && pre < b.length && a[pre] === b[pre]) pre++;
  let post = 0;
  while (post < a.length - pre && post < b.length - pre && a[a.length - 1 - post] === b[b.length - 1 - post]) post++;
  const midA = a.slice(pre, a.length - post);
  const midB = b.slice(pre, b.length - post);
  const pairs = equalPairs(midA, midB, limit);
  if (pairs === undefined) return [{ start: pre, end: pre + midA.length, lines: midB }];
  const hunks: Hunk[] = [];
  let i = 0;
  let j = 0;
  for (const [x, y] of [...pairs, [midA.length, midB.length] as [number, number]]) {
    if (x > i || y > j) hunks.push({ start: pre + i, end: pre + x, lines: midB.slice(j, y) });
    i = x + 1;
    j = y + 1;
  }
  return hunks;
}

/** `base` with the given hunks (of `diffHunks(base, …)`) applied and the others left out. */
export function applyHunks(base: string, hunks: readonly Hunk[]): string {
  const lines = linesOf(base);
  const out: string[] = [];
  let at = 0;
  for (const h of [...hunks].sort((p, q) => p.start - q.start)) {
    for (let i = at; i < h.start; i++) out.push(lines[i]);
    for (const line of h.lines) out.push(line);
    at = h.end;
  }
  for (let i = at; i < lines.length; i++) out.push(lines[i]);
  return out.join('\n');
}

/**
 * Where `hunk` sits in the text `applyHunks(base, applied)` (it must be one of `applied`): its first
 * line and how many lines it has there (0 for a deletion: the line it was removed before).
 */
export function hunkLines(hunk: Hunk, applied: readonly Hunk[]): { line: number; count: number } {
  let shift = 0;
  for (const h of applied) if (h.start < hunk.start) shift += h.lines.length - (h.end - h.start);
  return { line: hunk.start + shift, count: hunk.lines.length };
}
