/** The question "Ask Strata" drafts in the input (src/host/panel/askDraft.ts). */
import * as assert from 'node:assert/strict';
import { draftQuestion, problemText } from '../../../../src/host/panel/askDraft';

describe('Ask Strata: the drafted question', () => {
  it('quotes the problem as the Problems view shows it, with its source and code', () => {
    const problem = {
      message: "Type 'string' is not assignable to type 'number'.",
      source: 'ts',
      code: '2322',
      line: 12,
      severity: 'error',
    };
    assert.equal(problemText(problem), "error ts 2322 (line 12): Type 'string' is not assignable to type 'number'.");
    assert.equal(
      draftQuestion({ label: 'src/tax.ts:L12-12', problem }),
      "Why does src/tax.ts:L12-12 report this problem, and how do I fix it?\n\n> error ts 2322 (line 12): Type 'string' is not assignable to type 'number'.",
    );
  });

  it('keeps a multi-line message quoted; a selection gets a question about it', () => {
    assert.match(
      draftQuestion({ label: 'a.ts:L1-2', problem: { message: 'one\ntwo', line: 1, severity: 'warning' } }),
      /> warning \(line 1\): one\n> two$/,
    );
    assert.equal(draftQuestion({ label: 'src/a.ts:L3-9' }), 'Explain src/a.ts:L3-9: what does it do, and what could go wrong?');
  });
});
