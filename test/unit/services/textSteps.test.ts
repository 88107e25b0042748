import * as assert from 'node:assert/strict';
import * as fc from 'fast-check';
import { runStepsSync } from '../../../src/common/steps';
import { base64Utf8Steps, runStepsSliced, utf8DecodeSteps } from '../../../src/services/textSteps';
import { TimeSlice } from '../../../src/services/timeSlice';

const PIECE = 256 * 1024;

/** Steps taken by a generator before it returns, and what it returned. */
function stepped<T>(steps: Generator<unknown, T, unknown>): { steps: number; value: T } {
  let n = 0;
  let r = steps.next();
  for (; !r.done; r = steps.next()) n++;
  return { steps: n, value: r.value };
}

describe('textSteps: decoding megabytes a piece per step', () => {
  it('decodes UTF-8 as one TextDecoder call does, with characters cut between pieces', () => {
    // A 4-byte character straddles the first piece boundary, a 3-byte one the second.
    const head = Buffer.alloc(PIECE - 2, 'a');
    const mid = Buffer.alloc(PIECE - 4, 'b');
    const bytes = Buffer.concat([head, Buffer.from('😀'), mid, Buffer.from('€'), Buffer.from(' end')]);
    const { steps, value } = stepped(utf8DecodeSteps(bytes));
    assert.equal(value, new TextDecoder().decode(bytes));
    assert.equal(steps, Math.ceil(bytes.length / PIECE));
    assert.equal(steps, 3);
  });

  it('keeps a byte order mark only when asked to, and replaces invalid bytes as one call does', () => {
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.alloc(PIECE, 'x'), Buffer.from([0xc3]), Buffer.from('tail')]);
    assert.equal(runStepsSync(utf8DecodeSteps(bytes)), new TextDecoder().decode(bytes));
    assert.equal(runStepsSync(utf8DecodeSteps(bytes, { ignoreBOM: true })), new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes));
    assert.equal(runStepsSync(utf8DecodeSteps(bytes, { ignoreBOM: true })), bytes.toString('utf8'));
    assert.throws(() => runStepsSync(utf8DecodeSteps(bytes, { fatal: true })), TypeError);
  });

  it('decodes base64 of UTF-8 as Buffer does, in pieces', () => {
    const text = '\ufeff' + 'ü€😀'.repeat(40_000) + 'x';
    const b64 = Buffer.from(text, 'utf8').toString('base64');
    const { steps, value } = stepped(base64Utf8Steps(b64));
    assert.equal(value, Buffer.from(b64, 'base64').toString('utf8'));
    assert.equal(value, text);
    assert.equal(steps, Math.ceil(b64.length / (4 * 65_536)));
  });

  it('decodes damaged base64 (padding inside) in one call, as Buffer does', () => {
    const b64 = 'QUJD'.repeat(70_000) + '=QUJD' + 'QUJD'.repeat(10);
    const { steps, value } = stepped(base64Utf8Steps(b64));
    assert.equal(steps, 0);
    assert.equal(value, Buffer.from(b64, 'base64').toString('utf8'));
  });

  it('agrees with the one-call decoders on any text (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 400 }), fc.integer({ min: 1, max: 2 }), (s, copies) => {
        const text = s.repeat(Math.ceil((PIECE * copies) / Math.max(1, s.length * 3)) || 1);
        const bytes = Buffer.from(text, 'utf8');
        assert.equal(runStepsSync(utf8DecodeSteps(bytes, { ignoreBOM: true })), bytes.toString('utf8'));
        const b64 = bytes.toString('base64');
        assert.equal(runStepsSync(base64Utf8Steps(b64)), Buffer.from(b64, 'base64').toString('utf8'));
      }),
      { numRuns: 5 },
    );
  });

  it('runs steps giving the event loop a turn whenever the slice is due', async () => {
    const slice = new TimeSlice(0);
    const bytes = Buffer.alloc(3 * PIECE + 1, 'z');
    assert.equal(await runStepsSliced(utf8DecodeSteps(bytes), slice), bytes.toString('latin1'));
    assert.equal(slice.pauses, 4);
  });
});
