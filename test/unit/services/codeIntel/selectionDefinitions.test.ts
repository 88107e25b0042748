/**
 * The definitions a selection uses, with the in-memory TypeScript port: identifiers scanned from the
 * selection (keywords and its own declarations left out), definitions inside it dropped, each
 * definition's enclosing declaration (nearby ones merged into one range), nearest first (the same
 * file by distance, then other files in order of first use), a path alias followed, an excluded
 * file refused with its reason, the budget kept (what does not fit is skipped, smaller ones after it
 * still fit), and the same answer through promises. Each is a ranged `get_definition` excerpt.
 */
import * as assert from 'node:assert/strict';
import { DEFAULT_EXCLUDES, IsolationPolicy } from '../../../../src/engine/isolation';
import { definitionsForSelection, type SelectionDefinitions } from '../../../../src/services/codeIntel/selectionDefinitions';
import { identifierUses } from '../../../../src/services/codeIntel/identifiers';
import { CodeIntelWorkspace } from '../../../../bench/codeIntelWorkspace';
import { asyncPort, PROJECT } from './fakeIntel';

const SELECTION = { path: 'src/main.ts', startLine: 13, endLine: 15 };
const count = (t: string) => t.length;
const rows = (r: SelectionDefinitions) =>
  r.definitions.map((d) => `${d.path}:${d.startLine}-${d.endLine} ${d.kind} ${d.symbol} <- ${d.usedBy}`);

describe('codeIntel / definitionsForSelection (TypeScript in memory)', function () {
  this.timeout(60_000);
  const isolation = new IsolationPolicy([...DEFAULT_EXCLUDES, '**/secret/**']);

  it('scans identifiers: keywords, strings, comments and the selection’s own declarations left out', () => {
    const uses = identifierUses(PROJECT['src/main.ts'].split('\n').slice(12, 15).join('\n'), 13).map(
      (u) => `${u.name}@${u.line}:${u.column}`,
    );
    assert.deepEqual(uses, ['add@13:13', 'p@13:17', 'x@13:19', 'y@13:24', 'local@14:13', 'fmt@15:10', 'clamp@15:14', 'LIMIT@15:25']);
  });

  it('nearest first: the same file by distance, then other files in order of first use; an alias resolves; excluded refused', () => {
    const ws = new CodeIntelWorkspace(PROJECT, { isolation });
    const r = definitionsForSelection(ws, SELECTION, { budgetTokens: 10_000, countTokens: count }) as SelectionDefinitions;
    // p's declaration is the function the selection is in: its own line instead. x and y are one range.
    assert.deepEqual(rows(r), [
      'src/main.ts:12-12 definition p <- p',
      'src/main.ts:18-20 function local <- local',
      'src/main.ts:5-7 function clamp <- clamp',
      'src/geo.ts:10-12 function add <- add',
      'src/geo.ts:3-4 property x, y <- x',
      'src/util/fmt.ts:1-1 constant fmt <- fmt',
    ]);
    assert.deepEqual(
      r.rejections.map((x) => [x.attachment, x.reason]),
      [['src/secret/limits.ts#L1-L1', 'excluded']],
    );
    assert.deepEqual(r.skippedForBudget, []);
    const clamp = r.definitions[2].input;
    assert.deepEqual(clamp, {
      kind: 'tool',
      tool: 'get_definition',
      uri: 'src/main.ts',
      range: { startLine: 5, endLine: 7 },
      content: 'function clamp(n: number): number {\n  return Math.min(n, 100);\n}',
    });
    assert.equal(r.selection?.content, PROJECT['src/main.ts'].split('\n').slice(12, 15).join('\n'));
  });

  it('the budget: a declaration that does not fit is skipped, smaller ones after it still fit', () => {
    const ws = new CodeIntelWorkspace(PROJECT, { isolation });
    const all = definitionsForSelection(ws, SELECTION, { budgetTokens: 10_000, countTokens: count }) as SelectionDefinitions;
    const [add, xy, fmt] = all.definitions.slice(3);
    assert.ok(add.tokens > xy.tokens);
    // Room for the three nearest and for x, y: add (larger) is skipped, x, y after it goes in, then nothing is left.
    const budget = all.definitions.slice(0, 3).reduce((n, d) => n + d.tokens, 0) + xy.tokens;
    const r = definitionsForSelection(ws, SELECTION, { budgetTokens: budget, countTokens: count }) as SelectionDefinitions;
    assert.deepEqual(rows(r), [...rows(all).slice(0, 3), rows(all)[4]]);
    const left = budget - all.definitions.slice(0, 3).reduce((n, d) => n + d.tokens, 0);
    assert.deepEqual(r.skippedForBudget, [
      {
        path: 'src/geo.ts',
        startLine: 10,
        endLine: 12,
        symbol: 'add',
        tokens: add.tokens,
        reason: `${add.tokens} tokens, ${left} left of the ${budget}-token budget`,
      },
      {
        path: 'src/util/fmt.ts',
        startLine: 1,
        endLine: 1,
        symbol: 'fmt',
        tokens: fmt.tokens,
        reason: `${fmt.tokens} tokens, 0 left of the ${budget}-token budget`,
      },
    ]);
    assert.equal(
      r.definitions.reduce((n, d) => n + d.tokens, 0),
      budget,
    );
    const none = definitionsForSelection(ws, SELECTION, { budgetTokens: 0, countTokens: count }) as SelectionDefinitions;
    assert.deepEqual(none.definitions, []);
  });

  it('a refused selection: its rejection alone, nothing asked', () => {
    const ws = new CodeIntelWorkspace(PROJECT, { isolation });
    const r = definitionsForSelection(
      ws,
      { path: 'src/secret/limits.ts', startLine: 1, endLine: 1 },
      { budgetTokens: 1000, countTokens: count },
    ) as SelectionDefinitions;
    assert.deepEqual(r.definitions, []);
    assert.deepEqual(
      r.rejections.map((x) => x.reason),
      ['excluded'],
    );
  });

  it('the same answer through a port that answers with promises, and deterministic', async () => {
    const sync = definitionsForSelection(new CodeIntelWorkspace(PROJECT, { isolation }), SELECTION, {
      budgetTokens: 10_000,
      countTokens: count,
    }) as SelectionDefinitions;
    const pending = definitionsForSelection(asyncPort(new CodeIntelWorkspace(PROJECT, { isolation })), SELECTION, {
      budgetTokens: 10_000,
      countTokens: count,
    });
    assert.ok(pending instanceof Promise);
    assert.deepEqual(await pending, sync);
  });

  it('a stop signal ends the walk with an AbortError', () => {
    const c = new AbortController();
    c.abort();
    const ws = new CodeIntelWorkspace(PROJECT, { isolation });
    assert.throws(
      () => definitionsForSelection(ws, SELECTION, { budgetTokens: 1000, countTokens: count, signal: c.signal }),
      (e: Error) => e.name === 'AbortError',
    );
  });
});
