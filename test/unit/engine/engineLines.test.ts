/**
 * `sliceLines` and `buildPreview` walk lines lazily (a selection near the top of a 5 MB file, or its
 * compacted preview, must not split the whole file first). They must give exactly what the earlier
 * implementations — kept here as references — gave, on random texts, ranges and options.
 */
import * as assert from 'node:assert/strict';
import * as fc from 'fast-check';
import { lineSpans, sliceLines } from '../../../src/engine/artifacts';
import { buildPreview, type Preview } from '../../../src/engine/compaction';
import type { Artifact, LineRange } from '../../../src/engine/types';

function referenceSlice(text: string, range: LineRange): { content: string; range: LineRange } | undefined {
  if (!Number.isInteger(range.startLine) || !Number.isInteger(range.endLine)) return undefined;
  if (range.startLine < 1 || range.endLine < range.startLine) return undefined;
  const spans = lineSpans(text);
  if (range.startLine > spans.length) return undefined;
  const endLine = Math.min(range.endLine, spans.length);
  const content = text.slice(spans[range.startLine - 1][0], spans[endLine - 1][1]);
  return { content, range: { startLine: range.startLine, endLine } };
}

const STRUCTURE = [
  /^#{1,6}\s/,
  /^\s*(export\s+)?(default\s+)?(declare\s+)?(abstract\s+)?(async\s+)?(function\*?|class|interface|type|enum|namespace|module)\s/,
  /^\s*(export\s+)(const|let|var)\s/,
  /^(const|let|var)\s+\w+\s*=\s*(async\s*)?(\(|function|class|require\()/,
  /^\s*(public|private|protected|static|readonly|get|set|async)\s+[\w$]+\s*\(/,
  /^\s*(def|class|fn|pub fn|impl|struct|trait|func|package|import|from)\s/,
  /^\s*module\.exports\b/,
  /^\s*[\w$.]+\s*=\s*(async\s*)?function\b/,
];

function referencePreview(a: Artifact, opts: { leadLines?: number; maxLines?: number; headLines?: number } = {}): Preview {
  const leadLines = opts.leadLines ?? 2;
  const maxLines = opts.maxLines ?? 120;
  const headLines = opts.headLines ?? 8;
  const text = a.content;
  const lines = lineSpans(text).map(([s, e]) => text.slice(s, e));
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
    if (STRUCTURE.some((re) => re.test(lines[i]))) for (let j = 0; j <= leadLines; j++) mark(i + j);
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

const pieces = [
  '\n',
  '\r\n',
  '\r',
  '\n\n',
  ' ',
  '  ',
  '\t',
  'x',
  'foo',
  'export function f() {',
  'class A ',
  '# Title ',
  'const a = require(',
  'def g ',
  '}',
  '\u2028',
  '  private m(',
  'é',
];
const textArb = fc.array(fc.constantFrom(...pieces), { maxLength: 120 }).map((p) => p.join(''));

function artifact(content: string): Artifact {
  return {
    id: 'file:x.ts',
    kind: 'file',
    source: { uri: 'x.ts' },
    recoverable: true,
    content,
    contentHash: '0'.repeat(64),
    version: 1,
    priority: 5,
    essential: false,
  };
}

describe('lazy line walking (sliceLines, buildPreview)', () => {
  it('sliceLines gives what splitting every line gave', () => {
    fc.assert(
      fc.property(textArb, fc.integer({ min: -1, max: 40 }), fc.integer({ min: 0, max: 40 }), (text, start, len) => {
        const range = { startLine: start, endLine: start + len };
        assert.deepStrictEqual(sliceLines(text, range), referenceSlice(text, range));
      }),
      { numRuns: 2000, seed: 7 },
    );
    assert.strictEqual(sliceLines('a\nb', { startLine: 1.5, endLine: 2 }), undefined);
  });

  it('buildPreview gives what splitting every line gave (any lead / max / head)', () => {
    fc.assert(
      fc.property(
        textArb,
        fc.integer({ min: 0, max: 3 }),
        fc.integer({ min: 0, max: 25 }),
        fc.integer({ min: 0, max: 12 }),
        (text, leadLines, maxLines, headLines) => {
          const a = artifact(text);
          assert.deepStrictEqual(
            buildPreview(a, { leadLines, maxLines, headLines }),
            referencePreview(a, { leadLines, maxLines, headLines }),
          );
          assert.deepStrictEqual(buildPreview(a), referencePreview(a));
        },
      ),
      { numRuns: 2000, seed: 11 },
    );
  });

  it('a selection at the top of a big file and its preview do not walk the whole file', () => {
    const big = Array.from({ length: 200_000 }, (_, i) => `  value${i} = compute(${i});`).join('\n');
    const t0 = performance.now();
    const s = sliceLines(big, { startLine: 3, endLine: 5 })!;
    const sliceMs = performance.now() - t0;
    assert.strictEqual(s.content.split('\n').length, 3);
    const p = buildPreview(artifact(`export function a() {\n${big}`));
    assert.deepStrictEqual(p, referencePreview(artifact(`export function a() {\n${big}`)));
    assert.ok(sliceMs < 5, `${sliceMs} ms`);
  });
});
