/**
 * The Node hashing port (src/services/nodeHasher.ts) gives the engine the same sha256 as its own
 * pure-JS one (src/common/hash.ts): layer hashes, block signatures and chat files must not depend on
 * which one hashed them.
 */
import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { sha256Hex } from '../../../src/common/hash';
import { NODE_HASHER, rememberSha256, sha256HexBytes, sha256HexNode } from '../../../src/services/nodeHasher';

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
