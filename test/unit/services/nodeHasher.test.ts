/**
 * The Node hashing port (src/services/nodeHasher.ts) gives the engine the same sha256 as its own
 * pure-JS one (src/common/hash.ts): layer hashes, block signatures and chat files must not depend on
 * which one hashed them.
 */
import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { sha256Hex } from '../../../src/common/hash';
import { NODE_HASHER, sha256HexBytes, sha256HexNode } from '../../../src/services/nodeHasher';

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
});
