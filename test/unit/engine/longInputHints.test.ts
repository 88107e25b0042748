/**
 * A build announces the texts of megabytes it is about to hash and count (`BuildHint`), so that the
 * editor's driver hashes and counts them in slices first; the request is the one `buildTurn` gives,
 * hints followed or not.
 */
import * as assert from 'node:assert/strict';
import { LONG_INPUT, PromptContextEngine, type BuildHint, type EngineOptions } from '../../../src/engine/engine';
import { NODE_HASHER } from '../../../src/services/nodeHasher';
import { getTokenizer } from '../../../src/services/tokenizer';

const options: EngineOptions = {
  conversationId: 'hints',
  layout: 'transcript',
  policy: 'append-version',
  tokenizer: getTokenizer('o200k_base'),
  hasher: NODE_HASHER,
  system: 'You are a helpful assistant.',
  limits: { contextWindow: 2_000_000, maxOutputTokens: 4096 },
};

function lines(prefix: string, chars: number): string {
  let out = '';
  for (let i = 0; out.length < chars; i++) out += `export const ${prefix}${i} = ${i * 7}; // line ${i}\n`;
  return out;
}

describe('long inputs announced by the build', function () {
  this.timeout(60_000);

  it('yields the long attachment, then its block, before hashing and counting them; the request is the one-piece one', () => {
    const big = lines('big', LONG_INPUT + 10);
    const small = lines('small', 2000);
    const input = {
      userText: '',
      attachments: [
        { kind: 'file' as const, uri: 'src/big.ts', content: big },
        { kind: 'file' as const, uri: 'src/small.ts', content: small },
      ],
    };
    const engine = new PromptContextEngine(options);
    const steps = engine.buildTurnSteps(input);
    const hints: BuildHint[] = [];
    let r = steps.next();
    while (!r.done) {
      if (r.value) hints.push(r.value as BuildHint);
      r = steps.next();
    }
    const stepped = JSON.parse(JSON.stringify(r.value));
    engine.abandonTurn();

    assert.equal(hints.length, 2);
    assert.equal(hints[0].hashText, big);
    assert.equal(hints[0].countText, undefined);
    const block = hints[1].hashText;
    assert.equal(hints[1].countText, block);
    const item = r.value.ledger.layers.flatMap((l) => l.items).find((i) => i.key?.startsWith('file:src/big.ts'));
    assert.equal(item?.status, 'full');
    assert.ok(
      block.includes(big) && block.length > big.length && block.length < big.length + 200,
      `the block wraps the file: ${block.length}`,
    );

    const oneShot = new PromptContextEngine(options).buildTurn(input);
    assert.deepStrictEqual(stepped, JSON.parse(JSON.stringify(oneShot)));
  });

  it('announces nothing for inputs under the threshold', () => {
    const engine = new PromptContextEngine(options);
    const steps = engine.buildTurnSteps({
      userText: 'q',
      attachments: [{ kind: 'file', uri: 'a.ts', content: lines('a', LONG_INPUT - 100) }],
    });
    let hinted = 0;
    for (let r = steps.next(); !r.done; r = steps.next()) if (r.value) hinted++;
    assert.equal(hinted, 0);
  });
});
