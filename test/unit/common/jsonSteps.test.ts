/**
 * `jsonStringifySteps` (src/common/jsonSteps.ts): the text of a large value made an element at a
 * time is the text `JSON.stringify` gives, byte for byte.
 */
import * as assert from 'node:assert/strict';
import * as fc from 'fast-check';
import { jsonStringifySteps } from '../../../src/common/jsonSteps';
import { runStepsSync } from '../../../src/common/steps';

function stepsAndText(value: unknown, depth?: number): { steps: number; text: string | undefined } {
  const gen = jsonStringifySteps(value, depth);
  let steps = 0;
  for (let r = gen.next(); ; r = gen.next()) {
    if (r.done) return { steps, text: r.value };
    steps++;
  }
}

describe('jsonStringifySteps', () => {
  it('gives the text JSON.stringify gives, for any JSON value and depth', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.integer({ min: 0, max: 5 }), (value, depth) => {
        assert.equal(runStepsSync(jsonStringifySteps(value, depth)), JSON.stringify(value));
      }),
    );
  });

  it('follows JSON.stringify where it leaves out or replaces values', () => {
    const date = new Date(Date.UTC(2026, 0, 2));
    const withToJson = { toJSON: () => ({ replaced: true }) };
    const holey: unknown[] = [1];
    holey[3] = 'x';
    const value = {
      gone: undefined,
      fn: () => 1,
      sym: Symbol('s'),
      list: [undefined, () => 1, Symbol('t'), null, 1, holey],
      date,
      withToJson,
      boxed: [new Number(3), new String('s'), new Boolean(false)],
      noProto: Object.assign(Object.create(null) as object, { a: 1, 'quote"key': '\u2028' }),
      nested: { deeper: { deepest: { bottom: [1, { two: 2 }] } } },
    };
    for (const depth of [0, 1, 2, 3, 6]) assert.equal(runStepsSync(jsonStringifySteps(value, depth)), JSON.stringify(value));
    assert.equal(runStepsSync(jsonStringifySteps(undefined)), undefined);
    assert.equal(runStepsSync(jsonStringifySteps(() => 1)), undefined);
    assert.equal(runStepsSync(jsonStringifySteps(date)), JSON.stringify(date));
  });

  it('yields once per element down to its depth', () => {
    const value = { turns: [{ a: 1, b: [1, 2, 3] }, { a: 2 }], n: 1 };
    // depth 1: the two keys; depth 2: and the two turns; depth 3: and their three keys.
    assert.deepEqual(stepsAndText(value, 1), { steps: 2, text: JSON.stringify(value) });
    assert.deepEqual(stepsAndText(value, 2), { steps: 4, text: JSON.stringify(value) });
    assert.deepEqual(stepsAndText(value, 3), { steps: 7, text: JSON.stringify(value) });
  });
});
