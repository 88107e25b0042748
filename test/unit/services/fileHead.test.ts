import * as assert from 'node:assert/strict';
import { fitHeadToRoom } from '../../../src/services/fileHead';
import { getTokenizer } from '../../../src/services/tokenizer';

/** `n` lines of 20 characters ("line 0001 xxxxxxxxxx"), joined as a head is (no final line break). */
function head(n: number, eol = '\n') {
  const lines = Array.from({ length: n }, (_, i) => `line ${String(i + 1).padStart(4, '0')} ${'x'.repeat(10)}`);
  const content = lines.join(eol);
  return { input: { kind: 'selection' as const, uri: 'big.log', range: { startLine: 1, endLine: n }, content }, lines: n, of: 5000 };
}

describe('fitHeadToRoom: a file head cut to the lines the budget leaves', () => {
  const chars = async (t: string) => t.length;

  it('keeps the whole lines that fit (one token a character: 47 lines of 20 make 986 of 1,000)', async () => {
    const h = head(800);
    const fitted = (await fitHeadToRoom(h, 1000, chars))!;
    assert.equal(fitted.lines, 47);
    assert.equal(fitted.of, 5000);
    assert.equal(fitted.input.content, h.input.content.split('\n').slice(0, 47).join('\n'));
    assert.deepEqual(fitted.input.range, { startLine: 1, endLine: 47 });
    assert.equal(fitted.input.uri, 'big.log');
  });

  it('returns the head as it is when all of it fits', async () => {
    const h = head(10);
    assert.equal(await fitHeadToRoom(h, 1000, chars), h);
  });

  it('cuts CRLF lines without their carriage return', async () => {
    const fitted = (await fitHeadToRoom(head(800, '\r\n'), 1000, chars))!;
    // 22 characters a line with CRLF: 45 lines take 45 × 22 − 2 = 988.
    assert.equal(fitted.lines, 45);
    assert.ok(!fitted.input.content.endsWith('\r'));
    assert.equal(fitted.input.content.length, 45 * 22 - 2);
  });

  it('undefined when not even the first line fits', async () => {
    assert.equal(await fitHeadToRoom(head(800), 15, chars), undefined);
  });

  it('with the real tokenizer: within the room and close to it, counting prefixes only', async () => {
    const tok = getTokenizer('o200k_base');
    const h = head(200_000);
    let counted = 0;
    const fitted = (await fitHeadToRoom(h, 20_000, async (t) => {
      counted += t.length;
      return tok.count(t);
    }))!;
    const tokens = tok.count(fitted.input.content);
    assert.ok(tokens <= 20_000, `${tokens} tokens`);
    assert.ok(tokens >= 19_000, `${tokens} tokens: the cut wastes little of the room`);
    assert.ok(counted < h.input.content.length / 4, `counted ${counted} characters of ${h.input.content.length}`);
  });
});
