/**
 * The composer's code-intelligence chips (src/services/session/codeIntelAttach.ts) through a real
 * ChatSession over the in-memory TypeScript workspace: a selection with the declarations it uses
 * ("+N definitions", each sent once after the selection, refused files with their reasons), and a
 * file with its imports (each a chip, an outline when it does not fit; a large module as the
 * declarations imported from it, on the importer's chip, with what did not fit and why).
 */
import * as assert from 'node:assert/strict';
import { CodeIntelWorkspace } from '../../../../bench/codeIntelWorkspace';
import type { ChatMessage } from '../../../../src/engine/types';
import { DEFAULT_EXCLUDES, IsolationPolicy } from '../../../../src/engine/isolation';
import { ChatSession } from '../../../../src/services/chatSession';
import { modelInfo } from '../../../../src/services/modelInfo';
import { ScriptedProvider } from '../../../../src/services/providers/scripted';
import { getTokenizer } from '../../../../src/services/tokenizer';
import { LARGE_MODULE_TOKENS } from '../../../../src/services/codeIntel/importGraph';
import { tempDir } from '../../../support/tempDir';

const GEOMETRY = ['export function area(w: number, h: number): number {', '  return w * h;', '}', ''].join('\n');
const FORMAT = ['export function label(n: number): string {', '  return `${n} m²`;', '}', ''].join('\n');
const SECRET = ['export function token(): string {', "  return 'not-a-real-token';", '}', ''].join('\n');
const REPORT = [
  "import { area } from './geometry';",
  "import { label } from './format';",
  "import { token } from './secret/keys';",
  '',
  'export function report(w: number, h: number): string {',
  '  return label(area(w, h));',
  '}',
  '',
  'export function signed(): string {',
  '  return token();',
  '}',
  '',
].join('\n');

function session(files: Record<string, string>) {
  const ws = new CodeIntelWorkspace(files, { isolation: new IsolationPolicy([...DEFAULT_EXCLUDES, '**/secret/**'], 1_000_000) });
  const s = ChatSession.open({
    storeRoot: tempDir('strata-codeintel-'),
    port: ws,
    tokenizer: (e) => getTokenizer(e),
    settings: () => ({ layout: 'transcript', policy: 'append-version', system: 'Test.' }),
    model: modelInfo('openai', 'gpt-4o'),
    store: { durable: false },
    check: true,
  });
  return s;
}

function requestText(messages: ChatMessage[]): string {
  return messages.map((m) => m.content.map((b) => b.text).join('')).join('\n');
}

const FILES = { 'src/report.ts': REPORT, 'src/geometry.ts': GEOMETRY, 'src/format.ts': FORMAT, 'src/secret/keys.ts': SECRET };

describe('code intelligence chips', () => {
  it('attaches a selection with the two declarations it calls, sent once each after it', async () => {
    const s = session(FILES);
    const r = await s.codeIntel.selectionWithDefinitions({ kind: 'selection', path: 'src/report.ts', startLine: 5, endLine: 7 }, 4000);
    assert.deepEqual(r.rejections, []);
    assert.equal(r.skippedForBudget, 0);
    assert.deepEqual(r.leftOut, []);
    assert.deepEqual(
      s.chips().map((c) => [c.kind, c.label, (c.definitions ?? []).map((d) => [d.label, d.symbol, d.usedBy])]),
      [
        [
          'selection',
          'src/report.ts:L5-7',
          [
            ['src/format.ts:L1-3', 'label', 'label'],
            ['src/geometry.ts:L1-3', 'area', 'area'],
          ],
        ],
      ],
    );
    assert.match(s.chips()[0].detail!, /with 2 definitions$/);

    const requests: ChatMessage[][] = [];
    const provider = new ScriptedProvider(() => 'ok', { onRequest: (req) => requests.push(req.messages) });
    await s.send('What does report return?', provider);
    const text = requestText(requests[0]);
    for (const decl of [GEOMETRY.trimEnd(), FORMAT.trimEnd()]) assert.equal(text.split(decl).length - 1, 1, decl);
    assert.ok(text.indexOf('return label(area(w, h));') < text.indexOf(GEOMETRY.trimEnd()), 'the selection comes first');
    assert.deepEqual(s.chips(), [], 'the chips left with the turn');
  });

  it('refuses a definition in an excluded file with its reason, and keeps the selection', async () => {
    const s = session(FILES);
    const r = await s.codeIntel.selectionWithDefinitions({ kind: 'selection', path: 'src/report.ts', startLine: 9, endLine: 11 }, 4000);
    assert.deepEqual(
      r.rejections.map((x) => [x.attachment, x.reason]),
      [['src/secret/keys.ts#L1-L3', 'excluded']],
    );
    assert.deepEqual(
      s.chips().map((c) => [c.label, c.definitions?.length]),
      [['src/report.ts:L9-11', 0]],
    );
  });

  it('counts what did not fit the budget, and refreshes a selection attached again', async () => {
    const s = session(FILES);
    await s.attach({ kind: 'selection', path: 'src/report.ts', startLine: 5, endLine: 7 });
    const r = await s.codeIntel.selectionWithDefinitions({ kind: 'selection', path: 'src/report.ts', startLine: 5, endLine: 7 }, 20);
    assert.equal(s.chips().length, 1, 'the same selection keeps its chip');
    assert.equal((s.chips()[0].definitions ?? []).length + r.skippedForBudget, 2);
    // What was left out is named, so the message can say which.
    assert.equal(r.leftOut.length, r.skippedForBudget);
    assert.equal(r.skippedForBudget, 1);
    // The chip carries them with why, for the panel's "· N left out".
    assert.deepEqual(
      (s.chips()[0].definitionsLeftOut ?? []).map((l) => l.symbol),
      r.leftOut,
    );
    for (const l of s.chips()[0].definitionsLeftOut ?? []) assert.match(l.reason, /^\d+ tokens, \d+ left of the 20-token budget$/);
    const all = await s.codeIntel.selectionWithDefinitions({ kind: 'selection', path: 'src/report.ts', startLine: 5, endLine: 7 }, 4000);
    assert.equal((s.chips()[0].definitions ?? []).length, 2);
    assert.deepEqual(all.leftOut, []);
    assert.equal(all.bodiesLeftOut, 0);
    assert.equal(s.chips()[0].definitionsLeftOut, undefined);
  });

  it('attaches a file with its imports, one chip each, an outline when it does not fit', async () => {
    const s = session({ ...FILES, 'src/secret/keys.ts': SECRET });
    const whole = await s.codeIntel.filesWithImports(['src/report.ts'], 2, 16000);
    assert.deepEqual(
      whole.chips.map((c) => [c.label, c.outline ?? false]),
      [
        ['src/report.ts', false],
        ['src/geometry.ts', false],
        ['src/format.ts', false],
      ],
    );
    assert.equal(whole.outlines, 0);
    assert.deepEqual(
      whole.rejections.map((x) => [x.attachment, x.reason]),
      [['src/secret/keys.ts', 'excluded']],
    );

    const small = session(FILES);
    const tight = await small.codeIntel.filesWithImports(['src/report.ts'], 0, getTokenizer('o200k_base').count(REPORT) - 1);
    assert.deepEqual(
      tight.chips.map((c) => [c.label, c.outline ?? false]),
      [['src/report.ts', true]],
    );
    assert.equal(tight.outlines, 1);
    assert.match(small.chips()[0].detail!, /its outline/);
  });

  it('a large imported module: the declarations the file imports ride on its chip, what did not fit listed with why', async () => {
    const filler = Array.from({ length: 120 }, (_, i) => `export function unused${i}(v: number): number {\n  return v + ${i};\n}\n`).join(
      '\n',
    );
    const big = `${GEOMETRY}\n${filler}`;
    const main = [
      "import { area } from './big';",
      "import { label } from './format';",
      '',
      'export const shown = label(area(2, 3));',
      '',
    ].join('\n');
    const count = (t: string) => getTokenizer('o200k_base').count(t);
    assert.ok(count(big) > LARGE_MODULE_TOKENS);
    const s = session({ 'src/main.ts': main, 'src/big.ts': big, 'src/format.ts': FORMAT });
    const r = await s.codeIntel.filesWithImports(['src/main.ts'], 1, 16000);
    assert.deepEqual([r.names, r.leftOut, r.outlines], [1, 0, 0]);
    assert.deepEqual(
      s.chips().map((c) => [c.label, (c.definitions ?? []).map((d) => `${d.symbol} ${d.label}`)]),
      [
        ['src/main.ts', ['area src/big.ts:L1-3']],
        ['src/format.ts', []],
      ],
    );

    const tight = session({ 'src/main.ts': main, 'src/big.ts': big, 'src/format.ts': FORMAT });
    const t = await tight.codeIntel.filesWithImports(['src/main.ts'], 1, count(main) + count(FORMAT));
    assert.deepEqual([t.names, t.leftOut], [1, 1]);
    const areaTokens = count(GEOMETRY.trimEnd());
    assert.deepEqual(tight.chips()[0].definitionsLeftOut, [
      {
        label: 'src/big.ts:L1-3',
        symbol: 'area',
        reason: `${areaTokens} tokens, ${count(FORMAT)} left of the ${count(main) + count(FORMAT)}-token budget`,
      },
    ]);
  });
});
