/**
 * `jsonParseSteps` (src/common/jsonParseSteps.ts): a long text parsed an element at a time gives the
 * value `JSON.parse` gives, and the error it throws; the steps are the elements of the long containers.
 */
import * as assert from 'node:assert/strict';
import * as fc from 'fast-check';
import { jsonParseSteps, PARSE_STEPS_MIN } from '../../../src/common/jsonParseSteps';

function stepsAndValue(text: string): { steps: number; value: unknown } {
  const gen = jsonParseSteps(text);
  let steps = 0;
  for (let r = gen.next(); ; r = gen.next()) {
    if (r.done) return { steps, value: r.value };
    steps++;
  }
}

function thrown(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    return `${(e as Error).name}: ${(e as Error).message}`;
  }
  return 'nothing thrown';
}

/** `text` padded with spaces inside its outer brackets to the length parsed in steps. */
function long(text: string): string {
  return `${text[0]}${' '.repeat(PARSE_STEPS_MIN)}${text.slice(1)}`;
}

describe('jsonParseSteps', () => {
  it('gives the value JSON.parse gives, for any JSON value made long', () => {
    fc.assert(
      fc.property(
        fc.array(fc.jsonValue(), { minLength: 1, maxLength: 30 }),
        fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 30 }),
        (arr, obj) => {
          for (const v of [arr, obj]) {
            const text = long(JSON.stringify(v));
            assert.deepStrictEqual(stepsAndValue(text).value, JSON.parse(text));
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it('steps through the elements of long containers: one step per element of a 300-element array', () => {
    const strings = Array.from({ length: 300 }, (_, i) => `${i}: ${'x'.repeat(1000)} "quoted" \\ back \u00e9 \ud83d\ude00`);
    const text = JSON.stringify({ format: 'strata-chat', state: { turns: strings } });
    assert.ok(text.length > PARSE_STEPS_MIN);
    const r = stepsAndValue(text);
    assert.deepStrictEqual(r.value, JSON.parse(text));
    // 300 strings, then the `turns` key of `state`, then the two keys of the line.
    assert.equal(r.steps, 300 + 1 + 2);
  });

  it('parses a short text in one piece', () => {
    assert.deepStrictEqual(stepsAndValue('{"a":[1,2,{"b":null}]}'), { steps: 0, value: { a: [1, 2, { b: null }] } });
  });

  it('keeps `__proto__` an own property and the last of repeated keys, as JSON.parse does', () => {
    const text = long('{"__proto__":{"polluted":true},"a":1,"b":2,"a":3}');
    const v = stepsAndValue(text).value as Record<string, unknown>;
    assert.deepStrictEqual(v, JSON.parse(text));
    assert.equal(Object.getPrototypeOf(v), Object.prototype);
    assert.deepStrictEqual(Object.keys(v), ['__proto__', 'a', 'b']);
    assert.equal(v.a, 3);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  it('throws the error JSON.parse throws for a malformed long text', () => {
    for (const bad of ['{"a":1,}', '[1,]', '{"a" 1}', '{"a":tru}', '["a\\"]', '{"a":1}}', '[1 2]', '{"a":"\u0001"}']) {
      const text = long(bad);
      assert.equal(
        thrown(() => stepsAndValue(text)),
        thrown(() => JSON.parse(text)),
        bad,
      );
    }
  });
});
