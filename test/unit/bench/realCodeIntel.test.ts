/**
 * The bar of "selection with definitions" on a real project (`@tanstack/query-core`, vendored in
 * test/fixtures): over the benchmark's questions, the declarations the TypeScript compiler says each
 * selection uses are covered at ≥ 99% by what is attached at the default budget, for ≤ 0.2× the
 * tokens of attaching the files that hold them. Deterministic: the same files, the same counts.
 */
import * as assert from 'node:assert/strict';
import { REAL_IMPORT_FILES, REAL_QUESTIONS, REAL_SELECTION_LINES, runRealCodeIntel, runRealImports } from '../../../bench/realCodeIntel';
import { DEFAULT_DEFINITIONS_BUDGET } from '../../../src/services/codeIntel/selectionDefinitions';

describe('bench: definitions on a real project (recall and tokens at the default budget)', function () {
  this.timeout(180_000);

  it('covers ≥ 99% of the declarations the selections use, at ≤ 0.2× the tokens of their files', () => {
    const r = runRealCodeIntel();
    assert.equal(r.budget, DEFAULT_DEFINITIONS_BUDGET);
    assert.equal(r.questions.length, REAL_QUESTIONS.length);
    assert.equal(r.questions.length, 14);
    for (const q of r.questions) {
      const lines = q.selection.endLine - q.selection.startLine + 1;
      assert.ok(lines >= 16 && lines <= REAL_SELECTION_LINES, `${q.question}: ${lines} lines`);
    }
    // What the compiler says the selections use (independent of the code under test).
    assert.equal(r.used, 187);
    const missed = r.questions.flatMap((q) => q.missed.map((m) => `${m.name} (${m.path}:${m.line})`));
    assert.ok(r.recall >= 0.99, `recall ${r.recall}: missed ${missed.join(', ')}`);
    assert.ok(r.ratio <= 0.2, `ratio ${r.ratio}`);
    for (const q of r.questions) assert.ok(q.definitionTokens <= DEFAULT_DEFINITIONS_BUDGET, q.question);
  });

  it('attach with imports: every name imported from a large module is an item, for far fewer tokens than the whole modules', () => {
    const rows = runRealImports();
    assert.deepEqual(
      rows.map((r) => r.file),
      REAL_IMPORT_FILES,
    );
    // What the compiler says the import statements bring in from the large modules.
    assert.deepEqual(
      rows.map((r) => [r.modules, r.large, r.named.length]),
      [
        [9, 5, 23],
        [7, 5, 13],
        [6, 4, 11],
        [5, 5, 16],
        [6, 4, 12],
      ],
    );
    for (const r of rows) assert.deepEqual(r.missed, [], r.file);
    const tokens = rows.reduce((n, r) => n + r.tokens, 0);
    const whole = rows.reduce((n, r) => n + r.wholeTokens, 0);
    assert.deepEqual([tokens, whole], [39664, 255794]);
  });
});
