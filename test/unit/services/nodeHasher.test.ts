/**
 * The Node hashing port (src/services/nodeHasher.ts) gives the engine the same sha256 as its own
 * pure-JS one (src/common/hash.ts): layer hashes, block signatures and chat files must not depend on
 * which one hashed them.
 */
import * as assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { sha256Hex } from '../../../src/common/hash';
import {
  NODE_HASHER,
  rememberSha256,
  sha256HexBytes,
  sha256HexBytesSliced,
  sha256HexNode,
  sha256HexSliced,
} from '../../../src/services/nodeHasher';
import { TimeSlice } from '../../../src/services/timeSlice';

describe('Node sha256 port', () => {
  it('equals the pure-JS sha256 and createHash on empty, ASCII, non-Latin, astral, lone-surrogate and long texts', () => {
    const texts = [
      '',
      'abc',
      'héllo wörld ✓',
      'emoji 😀 and 𝔘𝔫𝔦𝔠𝔬𝔡𝔢',
      'lone \ud800 surrogate \udc00 here',
      '\u0000nul',
      'x'.repeat(1_000_003),
      'line\r\nbreaks\n'.repeat(5000),
    ];
    for (const t of texts) {
      const node = sha256HexNode(t);
      assert.equal(node, sha256Hex(t), `pure-JS, ${t.length} chars`);
      assert.equal(node, createHash('sha256').update(t, 'utf8').digest('hex'), `createHash, ${t.length} chars`);
      assert.equal(NODE_HASHER.sha256Hex(t), node);
      // A file's bytes hash like its text when the text is what they decode to (not for lone surrogates).
      if (!/[\ud800-\udfff]/.test(t.replace(/[\ud800-\udbff][\udc00-\udfff]/g, '')))
        assert.equal(sha256HexBytes(new TextEncoder().encode(t)), node, `bytes, ${t.length} chars`);
    }
  });

  it('answers a long text with the hash remembered for it, the last four long texts kept', () => {
    const long = (c: string) => c.repeat(1_000_000);
    const text = long('a');
    const real = createHash('sha256').update(text, 'utf8').digest('hex');
    assert.equal(sha256HexNode(text), real);
    // A stand-in hash shows the answer comes from what was remembered, not from hashing again.
    rememberSha256(text, 'remembered');
    assert.equal(sha256HexNode(text), 'remembered');
    assert.equal(sha256HexNode(long('a')), 'remembered', 'an equal text of another string');
    for (const c of 'bcd') sha256HexNode(long(c));
    assert.equal(sha256HexNode(text), 'remembered', 'used again: the most recent');
    for (const c of 'efgh') sha256HexNode(long(c));
    assert.equal(sha256HexNode(text), real, 'four other long texts since: hashed again');
    rememberSha256('short', 'not kept');
    assert.equal(sha256HexNode('short'), createHash('sha256').update('short', 'utf8').digest('hex'));
  });
});

/**
 * `sha256HexSliced` and `sha256HexBytesSliced`: a long text or buffer hashed a piece at a time, the
 * event loop given a turn between pieces, gives the one-piece hash; the hash is kept for the
 * synchronous call after.
 */
const PIECE = 512 * 1024;
const oneShot = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

describe('sha256 in slices', function () {
  this.timeout(60_000);

  it('hashes a long text as one piece does, with a surrogate pair across the first piece boundary', async () => {
    // An emoji (two UTF-16 units) at PIECE - 1 and PIECE: the first piece ends before it.
    const unit = 'a'.repeat(PIECE - 1) + '\ud83d\ude00' + 'b'.repeat(PIECE - 1);
    const text = unit + unit + 'é€ tail';
    const slice = new TimeSlice(0);
    assert.equal(await sha256HexSliced(text, slice), oneShot(text));
    // Every piece was due (a 0 ms slice): the event loop had a turn after each.
    assert.equal(slice.pauses, 5);
  });

  it('keeps the hash for the synchronous call that follows', async () => {
    const text = 'x'.repeat(1_200_000) + String(Date.now());
    const hex = await sha256HexSliced(text, new TimeSlice(0));
    assert.equal(sha256HexNode(text), hex);
    assert.equal(hex, oneShot(text));
  });

  it('hashes bytes as one piece does', async () => {
    const bytes = randomBytes(3 * PIECE + 17);
    const slice = new TimeSlice(0);
    assert.equal(await sha256HexBytesSliced(bytes, slice), createHash('sha256').update(bytes).digest('hex'));
    assert.equal(slice.pauses, 4);
  });
});
