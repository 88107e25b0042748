/**
 * The chat store's in-place delta chain (src/services/store/chatChain.ts) against the engine's codec: the
 * same state as `applyDelta` after every line, the same digest as `stateDigest` (plain and canonical
 * lines, old key order too), the same refusals, and `canonicalize` giving `canonicalJson`'s order.
 */
import * as assert from 'node:assert/strict';
import * as fc from 'fast-check';
import * as path from 'path';
import { loadTrajectory } from '../../../../bench/replay';
import { replay } from '../../../../bench/replayCore';
import type { ChatState } from '../../../../src/engine/state';
import {
  applyDelta,
  canonicalJson,
  checkEncodedShape,
  diffState,
  encodeState,
  engineMeta,
  stateDigest,
  STATE_FORMAT,
  STATE_FORMAT_VERSION,
  type EncodedState,
  type StateDelta,
} from '../../../../src/engine/stateCodec';
import type { PromptContextEngine } from '../../../../src/engine/engine';
import { canonicalize, encodedDigest, StateChain } from '../../../../src/services/store/chatChain';
import { getTokenizer } from '../../../../src/services/tokenizer';
import { buildTrajectory, scenarioArb } from '../../helpers/scenario';

const fixtures = path.resolve(__dirname, '../../../../../test/fixtures/trajectories');
const tok = getTokenizer('o200k_base');

function encodedStates(traj: ReturnType<typeof loadTrajectory>, layout: 'library' | 'transcript'): EncodedState[] {
  const out: EncodedState[] = [];
  const grab = (_t: number, e: PromptContextEngine) => {
    out.push(encodeState(e.state as ChatState, { engine: engineMeta(e.options) }));
  };
  for (const _ of replay(traj, { layout, policy: 'append-version', tokenizer: tok, check: false, afterTurn: grab })) void _;
  return out;
}

/** Applies the deltas between consecutive states both ways and compares after each. */
function checkChain(states: EncodedState[], canonicalLines: boolean, where: string): void {
  let chain = new StateChain();
  let engineSide: EncodedState | undefined;
  let prev: EncodedState | undefined;
  let prevDigest: string | undefined;
  for (const [i, raw] of states.entries()) {
    const next = canonicalLines ? canonicalize(raw).value : raw;
    const delta = diffState(prev, next);
    engineSide = applyDelta(engineSide, JSON.parse(JSON.stringify(delta)) as StateDelta);
    // A clone shares what it can with its original: the line applied to the clone leaves the
    // original as it was, and the two go on alike (every other line the clone is carried on).
    const fork = chain.clone();
    fork.apply(JSON.parse(JSON.stringify(delta)) as StateDelta);
    if (prevDigest !== undefined)
      assert.strictEqual(chain.digest(), prevDigest, `${where}: the original after its clone took line ${i + 1}`);
    chain.apply(JSON.parse(JSON.stringify(delta)) as StateDelta);
    if (i % 2 === 1) chain = fork;
    const enc = chain.encoded();
    assert.strictEqual(canonicalJson(enc), canonicalJson(engineSide), `${where}: state after line ${i + 1}`);
    const digest = stateDigest(raw);
    assert.strictEqual(encodedDigest(enc), digest, `${where}: digest after line ${i + 1}`);
    assert.ok(chain.matches(digest), `${where}: matches after line ${i + 1}`);
    assert.strictEqual(chain.canonical, canonicalLines, `${where}: canonical after line ${i + 1}`);
    assert.strictEqual(chain.digest(), digest);
    // Format-1 lines: the whole state's canonical JSON.
    const digest1 = stateDigest(raw, 1);
    assert.strictEqual(encodedDigest(enc, 1), digest1, `${where}: version-1 digest after line ${i + 1}`);
    assert.strictEqual(chain.digest(1), digest1);
    assert.ok(chain.matches(digest1, 1) && !chain.matches(digest1, 2));
    prev = next;
    prevDigest = digest;
  }
}

describe('chat store: the delta chain', () => {
  for (const name of ['walkthrough-6', 'budget-pressure', 'selection-heavy', 'adversarial', 'long-session-20']) {
    it(`${name}: the same states and digests as applyDelta / stateDigest, line by line (engine key order and canonical lines)`, () => {
      const traj = loadTrajectory(path.join(fixtures, `${name}.json`));
      for (const layout of ['library', 'transcript'] as const) {
        const states = encodedStates(traj, layout);
        checkChain(states, false, `${name}/${layout}`);
        checkChain(states, true, `${name}/${layout} canonical`);
      }
    });
  }

  it('random chats (pruning, compaction, summaries, deleted files, pins and detaches): the same states and digests', () => {
    fc.assert(
      fc.property(scenarioArb({ maxTurns: 10, tokenizers: ['cheap'] }), (spec) => {
        const traj = buildTrajectory(spec);
        const layout = spec.layout ?? 'transcript';
        const states = encodedStates(traj, layout);
        checkChain(states, false, 'random');
        checkChain(states, true, 'random canonical');
      }),
      { numRuns: 25, seed: 12 },
    );
  });

  it('the streamed digest is stateDigest for elements of every size (staged or hashed alone) and non-Latin text', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 40_000 }), fc.constantFrom('a', 'é', '中', '😀', '\n"\\')), { maxLength: 12 }),
        fc.array(fc.string({ maxLength: 90 }), { maxLength: 400 }),
        (sizes, blocks) => {
          const enc: EncodedState = {
            format: STATE_FORMAT,
            version: STATE_FORMAT_VERSION,
            completedTurns: sizes.length,
            entries: [],
            latest: [],
            versions: [],
            order: [],
            turns: sizes.map(([n, ch], i) => ({ turn: i + 1, userText: ch.repeat(n), items: [], reply: `r${i}` })),
            previousBlocks: blocks,
          } as unknown as EncodedState;
          assert.strictEqual(encodedDigest(enc), stateDigest(enc));
          const chain = new StateChain();
          chain.apply(diffState(undefined, canonicalize(enc).value), true);
          assert.strictEqual(chain.digest(), stateDigest(enc));
        },
      ),
      { numRuns: 60 },
    );
  });

  it('a list digest keeps its full links: a save after an append hashes the last link and what it added; a cut back recomputes from the cut', () => {
    const turn = (i: number) => ({ items: [], reply: `reply ${i} `.repeat(40), turn: i, userText: `question ${i} `.repeat(40) });
    const state = (n: number, blocks: number): EncodedState =>
      ({
        completedTurns: n,
        entries: [],
        format: STATE_FORMAT,
        latest: [],
        order: [],
        previousBlocks: Array.from({ length: blocks }, (_, i) => `user:${String(i).padStart(64, '0')}`),
        turns: Array.from({ length: n }, (_, i) => turn(i + 1)),
        version: STATE_FORMAT_VERSION,
        versions: [],
      }) as unknown as EncodedState;
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const nodeCrypto = require('crypto') as typeof import('crypto');
    const createHash = nodeCrypto.createHash;
    let hashed = 0;
    (nodeCrypto as { createHash: unknown }).createHash = (alg: string) => {
      const h = createHash(alg);
      const update = h.update.bind(h);
      h.update = ((data: string | Buffer, enc?: BufferEncoding) => {
        hashed += typeof data === 'string' ? Buffer.byteLength(data, enc ?? 'utf8') : data.length;
        return enc ? update(data as string, enc) : update(data);
      }) as typeof h.update;
      return h;
    };
    try {
      const chain = new StateChain();
      let prev: EncodedState | undefined;
      for (let n = 1; n <= 200; n++) {
        const next = state(n, n * 4);
        chain.apply(diffState(prev, next), true);
        hashed = 0;
        const d = chain.digest();
        if (n % 37 === 0 || n === 200) assert.strictEqual(d, stateDigest(next), `after ${n} turns`);
        if (n === 200) {
          const whole = JSON.stringify(next).length;
          assert.ok(hashed < whole / 10, `turn 200 hashed ${hashed} bytes of a ${whole}-byte state`);
          assert.equal(hashed, 13462);
        }
        prev = next;
      }
      // Cut back inside a link (a regenerate, a cut history): the links from there are hashed again.
      for (const [n, blocks] of [
        [150, 97],
        [150, 600],
        [33, 5],
        [200, 800],
      ] as const) {
        const next = state(n, blocks);
        chain.apply(diffState(prev, next), true);
        assert.strictEqual(chain.digest(), stateDigest(next), `cut back to ${n} turns, ${blocks} blocks`);
        assert.strictEqual(chain.clone().digest(), stateDigest(next), 'a clone keeps the links');
        prev = next;
      }
    } finally {
      (nodeCrypto as { createHash: unknown }).createHash = createHash;
    }
  });

  it("canonicalize gives canonicalJson's key order to JSON.stringify, keeps objects already in order, and flags index-like keys", () => {
    const traj = loadTrajectory(path.join(fixtures, 'walkthrough-6.json'));
    const enc = encodedStates(traj, 'transcript').pop()!;
    const c = canonicalize(enc);
    assert.ok(c.canonical);
    assert.strictEqual(JSON.stringify(c.value), canonicalJson(enc));
    assert.notStrictEqual(c.value, enc, 'the engine writes keys in its own order');
    assert.strictEqual(canonicalize(c.value).value, c.value, 'already canonical: the same object');
    assert.strictEqual(
      JSON.stringify(canonicalize({ b: 1, a: { d: undefined, c: [{ z: 1, y: 2 }] } }).value),
      '{"a":{"c":[{"y":2,"z":1}]},"b":1}',
    );
    assert.strictEqual(canonicalize({ b: { 10: 'x', 9: 'y' } }).canonical, false);
  });

  it('refuses the lines the engine codec refuses (applyDelta, then checkEncodedShape), and a line that names a key twice, without changing the chain', () => {
    const traj = loadTrajectory(path.join(fixtures, 'walkthrough-6.json'));
    const states = encodedStates(traj, 'transcript');
    const first = diffState(undefined, states[0]);
    const bad: [string, (d: StateDelta) => unknown][] = [
      ['turns keep past the end', (d) => ({ ...d, turns: { keep: 5, add: [] } })],
      ['order not an array delta', (d) => ({ ...d, order: { keep: 0 } })],
      ['entries not {set}', (d) => ({ ...d, entries: { put: [] } })],
      ['unknown key in keys', (d) => ({ ...d, latest: { set: [], keys: ['nope'] } })],
      ['entry not an object', (d) => ({ ...d, entries: { set: [42] } })],
      ['pair not a pair', (d) => ({ ...d, versions: { set: [['x']] } })],
      ['bad engine options', (d) => ({ ...d, engine: { layout: 'nope' } })],
      ['completedTurns not an integer', (d) => ({ ...d, completedTurns: 1.5 })],
    ];
    for (const [what, mutate] of bad) {
      const d = mutate(JSON.parse(JSON.stringify(first)) as StateDelta) as StateDelta;
      const chain = new StateChain();
      assert.throws(() => chain.apply(d), /chat state/, `chain: ${what}`);
      assert.strictEqual(chain.turnCount, 0, `${what}: nothing applied`);
      assert.throws(() => checkEncodedShape(applyDelta(undefined, d)), /chat state/, `engine: ${what}`);
    }
    const ok = new StateChain();
    ok.apply(JSON.parse(JSON.stringify(first)) as StateDelta);
    const twice: StateDelta = { completedTurns: 1, latest: { set: [], keys: [states[0].latest[0][0], states[0].latest[0][0]] } };
    assert.throws(() => ok.apply(twice), /names .* twice/);
    assert.strictEqual(
      canonicalJson(ok.encoded()),
      canonicalJson(applyDelta(undefined, first)),
      'a refused line leaves the chain as it was',
    );
  });
});
