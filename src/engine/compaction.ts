import type { Artifact } from './types';
import { lineSpans } from './artifacts';

/**
 * Structure + preview of a recoverable artifact (DESIGN §5): headings, declarations/signatures, and
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

function isStructural(line: string): boolean {
  return STRUCTURE.some((re) => re.test(line));
}

export interface Preview {
  body: string;
  keptLines: number;
  totalLines: number;
}

/**
 * Keeps structural lines plus up to `leadLines` lines after each of them, bounded by `maxLines`.
 * Gaps are marked with `…` lines so the model sees where text was cut.
 */
export function buildPreview(a: Artifact, opts: { leadLines?: number; maxLines?: number; headLines?: number } = {}): Preview {
  const leadLines = opts.leadLines ?? 2;
  const maxLines = opts.maxLines ?? 120;
  const headLines = opts.headLines ?? 8;
  const text = a.content;
  const spans = lineSpans(text);
  const lines = spans.map(([s, e]) => text.slice(s, e));
  const keep = new Uint8Array(lines.length);
  let kept = 0;
  const mark = (i: number) => {
    if (i < lines.length && !keep[i] && kept < maxLines) {
      keep[i] = 1;
      kept++;
    }
  };
  for (let i = 0; i < Math.min(headLines, lines.length); i++) mark(i);
  for (let i = 0; i < lines.length && kept < maxLines; i++) {
    if (isStructural(lines[i])) {
      for (let j = 0; j <= leadLines; j++) mark(i + j);
    }
  }
  const out: string[] = [];
  let gap = false;
  for (let i = 0; i < lines.length; i++) {
    if (keep[i]) {
      if (gap) out.push('…');
      out.push(lines[i]);
      gap = false;
    } else gap = true;
  }
  if (gap) out.push('…');
  const hint =
    `[compacted to fit the context budget: ${kept} of ${lines.length} lines kept (structure and first lines of each section); ` +
    `the rest of ${a.source.uri} was cut. Ask the user to re-attach ${a.source.uri} to see it in full.]`;
  return { body: `${out.join('\n')}\n${hint}`, keptLines: kept, totalLines: lines.length };
}
