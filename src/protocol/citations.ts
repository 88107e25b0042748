/**
 * Citations in a reply: `path:line`, `path:start-end`, `path#Lx-Ly` in prose, and a backticked
 * workspace path (with or without lines). The panel finds the candidates; the host says which paths
 * are files inside the workspace and not excluded, and only those become links. A link carries the
 * path and the lines, nothing executable; opening one is a request the host checks again.
 */
import { isObj } from '../common/guards';

export interface Citation {
  path: string;
  /** 1-based, inclusive; absent for a bare path. */
  startLine?: number;
  endLine?: number;
}

export interface CitationMatch extends Citation {
  /** Offsets of the cited text in the string searched. */
  start: number;
  end: number;
}

/** At most this many candidate paths per request (a reply listing a whole tree links the first ones). */
export const MAX_CITATION_PATHS = 64;
export const MAX_CITATION_PATH_CHARS = 300;
const MAX_LINE = 10_000_000;

const SEGMENT = String.raw`[\w@$+-][\w@$+.-]*`;
/** A file name with an extension, or a dotfile (`.env`, which the host then refuses as excluded). */
const PATH = String.raw`(?:\.{1,2}/)?(?:${SEGMENT}/)*(?:${SEGMENT}\.[A-Za-z][A-Za-z0-9]{0,9}|\.[A-Za-z][\w.-]*)`;
const LINES = String.raw`(?::(\d{1,7})(?:-(\d{1,7}))?|#L(\d{1,7})(?:-L?(\d{1,7}))?)`;
/**
 * In prose a path counts as a citation only with its lines (else every "setup.py" would be a
 * candidate). A match starts only where a run of path characters starts (the look-behind holds
 * every character a path segment may start with): each run is then scanned once, and a text like
 * `+a+a+a…` costs linear time instead of one scan to its end from every `a`.
 */
const IN_PROSE = new RegExp(String.raw`(?<![\w/.:#@$+-])(${PATH})${LINES}(?![\w/-])`, 'g');
const WHOLE = new RegExp(String.raw`^(${PATH})${LINES}?$`);

function lines(a?: string, b?: string, c?: string, d?: string): Pick<Citation, 'startLine' | 'endLine'> | undefined {
  const s = a ?? c;
  if (s === undefined) return {};
  const startLine = Number(s);
  const endLine = Number(b ?? d ?? s);
  if (startLine < 1 || endLine < startLine || endLine > MAX_LINE) return undefined;
  return { startLine, endLine };
}

function cleanPath(p: string): string {
  let out = p;
  while (out.startsWith('./')) out = out.slice(2);
  return out;
}

/** Citations with lines in a run of prose text. */
export function findCitations(text: string): CitationMatch[] {
  const out: CitationMatch[] = [];
  for (const m of text.matchAll(IN_PROSE)) {
    const range = lines(m[2], m[3], m[4], m[5]);
    if (!range || m[1].length > MAX_CITATION_PATH_CHARS) continue;
    out.push({ path: cleanPath(m[1]), ...range, start: m.index, end: m.index + m[0].length });
  }
  return out;
}

/** The citation an inline code span is, when all of it is a path (with or without lines). */
export function codeSpanCitation(text: string): Citation | undefined {
  const m = WHOLE.exec(text.trim());
  if (!m || m[1].length > MAX_CITATION_PATH_CHARS) return undefined;
  const range = lines(m[2], m[3], m[4], m[5]);
  return range ? { path: cleanPath(m[1]), ...range } : undefined;
}

/** The host's answer to `resolveCitations`: the paths that may become links. */
export function parseCitationPaths(value: unknown): string[] | undefined {
  if (!Array.isArray(value) || value.length > MAX_CITATION_PATHS) return undefined;
  return value.every((v) => typeof v === 'string' && v.length <= MAX_CITATION_PATH_CHARS) ? (value as string[]) : undefined;
}

/** Checks an `openCitation` request's fields. */
export function parseCitation(value: Record<string, unknown>): Citation | undefined {
  if (!isObj(value) || typeof value.path !== 'string' || value.path.length === 0 || value.path.length > MAX_CITATION_PATH_CHARS)
    return undefined;
  const { startLine, endLine } = value;
  if (startLine === undefined && endLine === undefined) return { path: value.path };
  const ok = (n: unknown): n is number => typeof n === 'number' && Number.isInteger(n) && n >= 1 && n <= MAX_LINE;
  if (!ok(startLine) || !ok(endLine) || endLine < startLine) return undefined;
  return { path: value.path, startLine, endLine };
}
