/**
 * `mapBounded` (src/common/steps.ts): what a turn uses to check the files a chat holds a few at a
 * time — results in order, never more calls in flight than the limit, synchronous when the port is.
 */
import * as assert from 'node:assert/strict';
import * as fc from 'fast-check';
import { mapBounded } from '../../../src/common/steps';

const tick = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

describe('steps: mapBounded', () => {
  it('answers with an array, not a promise, when every call answers at once', () => {
    const out = mapBounded([1, 2, 3], 2, (x) => x * 10);
    assert.ok(Array.isArray(out));
    assert.deepStrictEqual(out, [10, 20, 30]);
    assert.deepStrictEqual(
      mapBounded([], 4, (x: number) => x),
      [],
    );
  });

  it('keeps the order of the items and at most `limit` calls in flight, whatever order they finish in', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 3 }), fc.boolean()), { maxLength: 40 }),
        fc.integer({ min: 1, max: 6 }),
        async (items, limit) => {
          let inFlight = 0;
          let most = 0;
          const calls: number[] = [];
          const out = await mapBounded(items, limit, (item) => {
            const [ms, sync] = item;
            calls.push(items.indexOf(item));
            // Some answer at once, mixed with ones that wait.
            if (sync && calls.length > 1) return ms;
            inFlight++;
            most = Math.max(most, inFlight);
            return tick(ms).then(() => {
              inFlight--;
              return ms;
            });
          });
          assert.deepStrictEqual(
            out,
            items.map(([ms]) => ms),
          );
          assert.ok(most <= limit, `${most} calls in flight, limit ${limit}`);
          assert.strictEqual(calls.length, items.length, 'each item once');
        },
      ),
      { numRuns: 40 },
    );
  });

  it('rejects with the first failure', async () => {
    await assert.rejects(
      Promise.resolve(
        mapBounded([1, 2, 3, 4], 2, async (x) => {
          await tick(x);
          if (x === 3) throw new Error('three failed');
          return x;
        }),
      ),
      /three failed/,
    );
  });
});
