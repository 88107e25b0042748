import type { Artifact } from './types';

/**
 * Structure + preview of a recoverable artifact: headings, declarations/signatures, and
 * the first lines of each section, with a recovery hint. Deterministic; never used on selections.
 */

const STRUCTURE = [
  /^#{1,6}\s/, // markdown headings
  /^\s*(export\s+)?(default\s+)?(declare\s+)?(abstract\s+)?(async\s+)?(function\*?|class|interface|type|enum|namespace|module)\s/,
  /^\s*(export\s+)(const|let|var)\s/,
  /^(const|let|var)\s+\w+\s*=\s*(async\s*)?(\(|function|class|require\()/,
  /^\s*(public|private|protected|static|readonly|get|set|async)\s+[\w$]+\s*\(/,
  /^\s*(def|class|fn|pub fn|impl|struct|trait|func|package|import|from)\s/,
  /^\s*module\.exports\b/,
  /^\s*[\w$.]+\s*=\s*(async\s*)?function\b/,
];

/** Any of them, as one expression: one match per line instead of eight (a long chat over budget compacts hundreds of files at once). */
const ANY_STRUCTURE = new RegExp(STRUCTURE.map((re) => `(?:${re.source})`).join('|'));

function isStructural(line: string): boolean {
  return ANY_STRUCTURE.test(line);
}

export interface Preview {
  body: string;
  keptLines: number;
  totalLines: number;
}

/** Lines of `text` as `lineSpans` counts them (\r\n, \n and \r end a line), without building them. */
function countLines(text: string): number {
  let n = 1;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++;
  for (let i = text.indexOf('\r'); i >= 0; i = text.indexOf('\r', i + 1)) if (text.charCodeAt(i + 1) !== 10) n++;
  return n;
}

/**
 * Keeps structural lines plus up to `leadLines` lines after each of them, bounded by `maxLines`.
 * Gaps are marked with `…` lines so the model sees where text was cut.
 *
 * One forward pass that stops once `maxLines` are kept: lines are marked in index order (the first
 * `headLines`, then each structural line and its lead lines), so a line is kept exactly when it is a
 * head line or within the lead of a structural line at or before it, while fewer than `maxLines` are
 * kept. A 5 MB file is not split into lines first.
 */
export function buildPreview(
  a: Artifact,
  opts: { leadLines?: number; maxLines?: number; headLines?: number; recovery?: 'attach' | 'read_file' } = {},
): Preview {
  const leadLines = opts.leadLines ?? 2;
  const maxLines = opts.maxLines ?? 120;
  const headLines = opts.headLines ?? 8;
  const text = a.content;
  const n = text.length;
  const totalLines = countLines(text);
  const out: string[] = [];
  let kept = 0;
  let lastKept = -1;
  let leadUntil = -1;
  let start = 0;
  for (let i = 0; kept < maxLines; i++) {
    let end = n;
    let next = -1;
    for (let j = start; j < n; j++) {
      const c = text.charCodeAt(j);
      if (c === 10) {
        end = j;
        next = j + 1;
        break;
      }
      if (c === 13) {
        end = j;
        next = text.charCodeAt(j + 1) === 10 ? j + 2 : j + 1;
        break;
      }
    }
    const line = text.slice(start, end);
    if (isStructural(line)) leadUntil = Math.max(leadUntil, i + leadLines);
    if (i < headLines || i <= leadUntil) {
      if (i > lastKept + 1) out.push('…');
      out.push(line);
      kept++;
      lastKept = i;
    }
    if (next < 0) break;
    start = next;
  }
  if (lastKept < totalLines - 1) out.push('…');
  // With workspace tools on, the model can get the rest itself.
  const recover =
    opts.recovery === 'read_file'
      ? `Call read_file on ${a.source.uri} (with startLine and endLine for a part) to see the rest.`
      : `Ask the user to re-attach ${a.source.uri} to see it in full.`;
  const hint = `[compacted to fit the context budget: ${kept} of ${totalLines} lines kept (structure and first lines of each section); the rest of ${a.source.uri} was cut. ${recover}]`;
  return { body: `${out.join('\n')}\n${hint}`, keptLines: kept, totalLines };
}
