/**
 * Which file a code block of a reply is meant for. In order: a path the reply names (in the fence's
 * info string, or on the line just above the block), else the attached file the block shares the
 * most with, else nobody knows (the host then asks the user). Pure: the host checks the chosen path
 * against the workspace (isolation, excludes) before anything is read or written.
 */

/** A relative file path (dot files included) with an extension, or with at least one directory. */
const PATH_TOKEN = /^(?:\.{1,2}\/)*(?:\.?[\w@$+-][\w@$+.-]*\/)*\.?[\w@$+-][\w@$+.-]*$/;

/** Whether `token` reads as a file path (a URL, a version number or a bare word does not). */
export function looksLikePath(token: string): boolean {
  if (token.length === 0 || token.length > 300 || token.includes('://')) return false;
  if (!PATH_TOKEN.test(token)) return false;
  const base = token.slice(token.lastIndexOf('/') + 1);
  if (/^\d+(?:\.\d+)*$/.test(base)) return false;
  const ext = /\.([A-Za-z][A-Za-z0-9]{0,9})$/.exec(base);
  return ext !== null || (token.includes('/') && !token.endsWith('/'));
}

const LEADING_PUNCTUATION = new Set(['"', "'", '`', '(']);
const TRAILING_PUNCTUATION = new Set(['"', "'", '`', ')', ',', ';', ':', '.']);

/** Longer fence info strings and lines above a block name no path (a path is at most 300 characters). */
export const MAX_NAMING_LINE_CHARS = 2000;

/** `./src/a.ts` → `src/a.ts`; trailing punctuation of prose (`src/a.ts:`) removed. */
export function cleanPath(token: string): string {
  // Trimmed by hand: a pattern anchored only at the end (`[…]+$`) rescans a long run of its own
  // characters from every position in it.
  let t = token.trim();
  let a = 0;
  let b = t.length;
  while (a < b && LEADING_PUNCTUATION.has(t[a])) a++;
  while (b > a && TRAILING_PUNCTUATION.has(t[b - 1])) b--;
  t = t.slice(a, b);
  while (t.startsWith('./')) t = t.slice(2);
  return t;
}

/** The path a fence's info string names: ```ts src/a.ts```, ```ts title="src/a.ts"```, ```ts:src/a.ts```. */
export function pathFromFenceInfo(info: string): string | undefined {
  if (info.length > MAX_NAMING_LINE_CHARS) return undefined;
  const attr = /\b(?:title|file|filename|path)\s*=\s*(?:"([^"]+)"|'([^']+)'|(\S+))/.exec(info);
  if (attr) {
    const p = cleanPath(attr[1] ?? attr[2] ?? attr[3] ?? '');
    if (looksLikePath(p)) return p;
  }
  const tokens = info.trim().split(/\s+/).filter(Boolean);
  const first = tokens[0] ?? '';
  const colon = first.indexOf(':');
  if (colon > 0) {
    const p = cleanPath(first.slice(colon + 1));
    if (looksLikePath(p)) return p;
  }
  for (const [i, token] of tokens.entries()) {
    if (token.includes('=')) continue;
    const p = cleanPath(token);
    // The first token is the language unless it is itself a path (```src/a.ts```).
    if (i === 0 && !(p.includes('/') || /\.[A-Za-z][A-Za-z0-9]*$/.test(p))) continue;
    if (looksLikePath(p)) return p;
  }
  return undefined;
}

/**
 * The path the line above a block names: a backticked path first ("`src/a.ts`:"), else one in prose
 * ("In src/a.ts:"). `explicit` is false for prose, where a word like "Node.js" can look like a path:
 * such a path is used only if the file exists.
 */
export function pathFromLineAbove(line: string): { path: string; explicit: boolean } | undefined {
  if (line.length > MAX_NAMING_LINE_CHARS) return undefined;
  for (const m of line.matchAll(/`([^`\n]+)`/g)) {
    const p = cleanPath(m[1].replace(/(?::\d+(?:-\d+)?|#L\d+(?:-L?\d+)?)$/, ''));
    if (looksLikePath(p)) return { path: p, explicit: true };
  }
  for (const raw of line.replace(/[*_]/g, ' ').split(/\s+/)) {
    const p = cleanPath(raw);
    if ((p.includes('/') || /\.[A-Za-z][A-Za-z0-9]{0,9}$/.test(p)) && looksLikePath(p)) return { path: p, explicit: false };
  }
  return undefined;
}

/** A path named by the reply for the block: the fence info wins over the line above. */
export function namedPath(info: string, lineAbove: string): { path: string; explicit: boolean } | undefined {
  const fromInfo = pathFromFenceInfo(info);
  return fromInfo ? { path: fromInfo, explicit: true } : pathFromLineAbove(lineAbove);
}

function significantLines(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l.length > 2 && !/^[{}()[\];,]+$/.test(l));
}

function identifiers(text: string): Set<string> {
  return new Set(text.match(/[A-Za-z_$][\w$]{2,}/g) ?? []);
}

/**
 * How much of `code` is already in `content`, 0..1: the share of its significant lines found there,
 * with the share of its identifiers as the tiebreak (a rewritten block keeps its names).
 */
export function matchScore(code: string, content: string): number {
  const lines = significantLines(code);
  const have = new Set(significantLines(content));
  const lineShare = lines.length === 0 ? 0 : lines.filter((l) => have.has(l)).length / lines.length;
  const ids = identifiers(code);
  const fileIds = identifiers(content);
  let shared = 0;
  for (const id of ids) if (fileIds.has(id)) shared++;
  const idShare = ids.size === 0 ? 0 : shared / ids.size;
  return 0.6 * lineShare + 0.4 * idShare;
}

/** Below this a block is not considered to belong to a file (a few common words match anything). */
export const MIN_MATCH_SCORE = 0.35;

/** The attached file the block matches best, or undefined when none matches well enough. */
export function bestMatchingFile(code: string, files: readonly { path: string; content: string }[]): string | undefined {
  let best: { path: string; score: number } | undefined;
  for (const f of files) {
    const score = matchScore(code, f.content);
    if (score >= MIN_MATCH_SCORE && (!best || score > best.score)) best = { path: f.path, score };
  }
  return best?.path;
}

export type TargetChoice =
  { kind: 'named'; path: string; explicit: boolean; fallback?: string } | { kind: 'attached'; path: string } | { kind: 'ask' };

/**
 * The target for a block: named by the reply, else the best-matching attached file, else ask. A
 * path named in prose carries the attached match as `fallback`, for when no such file exists.
 */
export function chooseTarget(
  block: { code: string; info: string; lineAbove: string },
  attached: readonly { path: string; content: string }[],
): TargetChoice {
  const named = namedPath(block.info, block.lineAbove);
  const match = bestMatchingFile(block.code, attached);
  if (named) return { kind: 'named', ...named, ...(match && !named.explicit ? { fallback: match } : {}) };
  return match ? { kind: 'attached', path: match } : { kind: 'ask' };
}
