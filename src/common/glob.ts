/**
 * Globs over workspace-relative, '/'-separated paths, matched without backtracking.
 *
 * A glob is split into segments at '/'. A segment that is exactly `**` spans any number of folders
 * (none included); in any other segment `*` matches any run of characters and `?` one character,
 * never a '/'. `[abc]`, `[a-z]` and negated `[!a-z]` / `[^a-z]` classes match one character, as the
 * editor's file search reads them (an unclosed `[` is a literal). `{a,b}` alternatives (nested too)
 * are expanded before matching. Dot files are matched like any other name.
 *
 * Matching never backtracks: a run of wildcards is normalised to its `?`s and one `*`, and the
 * pieces between stars are placed leftmost-first, which is exact for `*` (folders: for `**`). A
 * segment costs at most (pattern length × name length) steps, whatever the glob, so a glob the
 * model writes cannot stall the extension host; its length and alternatives are capped on top.
 */

/** A tool's glob may be this long at most. */
export const MAX_GLOB_LENGTH = 256;
/** `{...}` alternatives may expand to this many globs at most. */
export const MAX_GLOB_ALTERNATIVES = 64;
/** Any glob (a setting's too) longer than this is unusable: it is compiled on every check. */
const MAX_COMPILED_LENGTH = 4 * MAX_GLOB_LENGTH;

export interface GlobOptions {
  /** Match regardless of case (excludes on file systems that ignore case). */
  caseInsensitive?: boolean;
  /**
   * What a glob whose alternatives cannot be expanded matches: nothing (a tool's listing, the
   * default) or everything (an exclude: a broken exclude refuses rather than lets through).
   */
  unusable?: 'matches-nothing' | 'matches-everything';
}

/** One character of a segment: a literal, any character (`?`), or a class. */
type CharTest = string | null | { negated: boolean; ranges: [string, string][] };
/** A segment: pieces of characters separated by `*`; `star` says the segment has at least one. */
interface Segment {
  pieces: CharTest[][];
  star: boolean;
}
/** A glob alternative: runs of segments separated by `**`. */
type Compiled = { runs: Segment[][]; globstar: boolean };

export interface GlobMatcher {
  test(path: string): boolean;
}

/** Why a glob cannot be used as it is (too long, too many alternatives), or undefined. */
export function globProblem(glob: string, maxLength = MAX_GLOB_LENGTH): string | undefined {
  if (glob.length > maxLength) return `the glob is ${glob.length} characters long; at most ${maxLength} are accepted.`;
  if (expandBraces(glob, MAX_GLOB_ALTERNATIVES) === undefined)
    return `the glob's {…} alternatives expand to more than ${MAX_GLOB_ALTERNATIVES} globs.`;
  return undefined;
}

/**
 * The matcher of `glob`. One whose alternatives expand to more than {@link MAX_GLOB_ALTERNATIVES}
 * globs, or longer than four times {@link MAX_GLOB_LENGTH}, matches as `options.unusable` says.
 */
export function compileGlob(glob: string, options: GlobOptions = {}): GlobMatcher {
  const fold = options.caseInsensitive === true;
  const alternatives =
    glob.length > MAX_COMPILED_LENGTH ? undefined : expandBraces(fold ? glob.toLowerCase() : glob, MAX_GLOB_ALTERNATIVES);
  if (alternatives === undefined) {
    const answer = options.unusable === 'matches-everything';
    return { test: () => answer };
  }
  const compiled = alternatives.map(compileAlternative);
  return {
    test(path: string): boolean {
      const names = (fold ? path.toLowerCase() : path).split('/');
      return compiled.some((c) => matchAlternative(c, names));
    },
  };
}

/**
 * `{a,b}` groups expanded (the first group that closes, then recursively); a `{` that never closes
 * is a literal. Undefined when there would be more than `cap` globs.
 */
function expandBraces(glob: string, cap: number): string[] | undefined {
  const out: string[] = [];
  const pending = [glob];
  while (pending.length > 0) {
    const g = pending.pop()!;
    const group = firstBraceGroup(g);
    if (!group) {
      out.push(g);
      if (out.length > cap) return undefined;
      continue;
    }
    if (out.length + pending.length + group.options.length > cap) return undefined;
    const head = g.slice(0, group.start);
    const tail = g.slice(group.end + 1);
    for (let k = group.options.length - 1; k >= 0; k--) pending.push(head + group.options[k] + tail);
  }
  return out;
}

function firstBraceGroup(g: string): { start: number; end: number; options: string[] } | undefined {
  for (let start = g.indexOf('{'); start >= 0; start = g.indexOf('{', start + 1)) {
    let depth = 0;
    let from = start + 1;
    const options: string[] = [];
    for (let i = start; i < g.length; i++) {
      const c = g[i];
      if (c === '{') depth++;
      else if (c === '}') {
        depth--;
        if (depth === 0) {
          options.push(g.slice(from, i));
          return { start, end: i, options };
        }
      } else if (c === ',' && depth === 1) {
        options.push(g.slice(from, i));
        from = i + 1;
      }
    }
  }
  return undefined;
}

function compileAlternative(glob: string): Compiled {
  const runs: Segment[][] = [[]];
  let globstar = false;
  for (const seg of glob.split('/')) {
    if (seg === '**') {
      globstar = true;
      // Consecutive `**` segments are one.
      if (runs[runs.length - 1].length > 0 || runs.length === 1) runs.push([]);
      continue;
    }
    runs[runs.length - 1].push(compileSegment(seg));
  }
  return { runs, globstar };
}

/** A segment's pieces between stars; a run of `*` and `?` becomes its `?`s then one `*`. */
function compileSegment(seg: string): Segment {
  const pieces: CharTest[][] = [[]];
  let star = false;
  let i = 0;
  while (i < seg.length) {
    const c = seg[i];
    if (c === '*' || c === '?') {
      let stars = 0;
      while (i < seg.length && (seg[i] === '*' || seg[i] === '?')) {
        if (seg[i] === '*') stars++;
        else pieces[pieces.length - 1].push(null);
        i++;
      }
      if (stars > 0) {
        star = true;
        pieces.push([]);
      }
      continue;
    }
    if (c === '[') {
      const close = seg.indexOf(']', i + 1);
      if (close > i) {
        let body = seg.slice(i + 1, close);
        const negated = body.startsWith('!') || body.startsWith('^');
        if (negated) body = body.slice(1);
        const ranges: [string, string][] = [];
        for (let k = 0; k < body.length; k++) {
          if (body[k + 1] === '-' && k + 2 < body.length) {
            ranges.push([body[k], body[k + 2]]);
            k += 2;
          } else ranges.push([body[k], body[k]]);
        }
        pieces[pieces.length - 1].push({ negated, ranges });
        i = close + 1;
        continue;
      }
    }
    pieces[pieces.length - 1].push(c);
    i++;
  }
  return { pieces, star };
}

function charMatches(t: CharTest, c: string): boolean {
  if (t === null) return true;
  if (typeof t === 'string') return t === c;
  let inside = false;
  for (const [lo, hi] of t.ranges) {
    if (c >= lo && c <= hi) {
      inside = true;
      break;
    }
  }
  return inside !== t.negated;
}

function pieceAt(piece: CharTest[], name: string, at: number): boolean {
  if (at + piece.length > name.length) return false;
  for (let k = 0; k < piece.length; k++) if (!charMatches(piece[k], name[at + k])) return false;
  return true;
}

/**
 * `*`-separated pieces: the first anchored at the start, the last at the end, the ones between at
 * their leftmost place after the previous one. Leftmost is never worse for what follows, so no
 * choice is ever revisited.
 */
function segmentMatches(seg: Segment, name: string): boolean {
  const { pieces } = seg;
  if (!seg.star) return pieces[0].length === name.length && pieceAt(pieces[0], name, 0);
  const first = pieces[0];
  const last = pieces[pieces.length - 1];
  if (first.length + last.length > name.length) return false;
  if (!pieceAt(first, name, 0) || !pieceAt(last, name, name.length - last.length)) return false;
  let at = first.length;
  const end = name.length - last.length;
  for (let p = 1; p < pieces.length - 1; p++) {
    const piece = pieces[p];
    let found = -1;
    for (let s = at; s + piece.length <= end; s++) {
      if (pieceAt(piece, name, s)) {
        found = s;
        break;
      }
    }
    if (found < 0) return false;
    at = found + piece.length;
  }
  return true;
}

function runAt(run: Segment[], names: string[], at: number): boolean {
  if (at + run.length > names.length) return false;
  for (let k = 0; k < run.length; k++) if (!segmentMatches(run[k], names[at + k])) return false;
  return true;
}

/** The same placement one level up: runs of segments between `**`, over the path's folders. */
function matchAlternative(c: Compiled, names: string[]): boolean {
  const { runs } = c;
  if (!c.globstar) return runs[0].length === names.length && runAt(runs[0], names, 0);
  const first = runs[0];
  const last = runs[runs.length - 1];
  if (first.length + last.length > names.length) return false;
  if (!runAt(first, names, 0) || !runAt(last, names, names.length - last.length)) return false;
  let at = first.length;
  const end = names.length - last.length;
  for (let r = 1; r < runs.length - 1; r++) {
    const run = runs[r];
    let found = -1;
    for (let s = at; s + run.length <= end; s++) {
      if (runAt(run, names, s)) {
        found = s;
        break;
      }
    }
    if (found < 0) return false;
    at = found + run.length;
  }
  return true;
}

export class GlobSet {
  private readonly patterns: { glob: string; matcher: GlobMatcher }[];
  constructor(globs: readonly string[], options: GlobOptions = {}) {
    this.patterns = globs.map((glob) => ({ glob, matcher: compileGlob(glob, options) }));
  }
  /** The first pattern that matches `path`, or undefined. */
  match(path: string): string | undefined {
    for (const p of this.patterns) {
      if (p.matcher.test(path)) return p.glob;
    }
    return undefined;
  }
}
