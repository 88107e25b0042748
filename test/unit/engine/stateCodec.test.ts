/**
 * The chat state codec (docs/design.md#storage): lossless, validated, blobs separate, compact
 * deltas.
 */
import * as assert from 'node:assert/strict';
import * as path from 'path';
import { loadTrajectory } from '../../../bench/replay';
import { replay } from '../../../bench/replayCore';
import { getTokenizer } from '../../../src/services/tokenizer';
import { PromptContextEngine } from '../../../src/engine/engine';
import type { ChatState } from '../../../src/engine/state';
import { sha256Hex } from '../../../src/common/hash';
import {
  applyDelta,
  canonicalJson,
  compareEngineMeta,
  decodeState,
  diffState,
  encodeState,
  engineMeta,
  referencedBlobs,
  stateBlobs,
  stateDigest,
  StateDecodeError,
  withoutEntries,
  type EncodedState,
} from '../../../src/engine/stateCodec';

const fixtures = path.resolve(__dirname, '../../../../test/fixtures/trajectories');
const tok = getTokenizer('o200k_base');

/** Committed states after every turn of a trajectory (states are copy-on-write, so keeping them is safe). */
function statesOf(name: string, layout: 'library' | 'transcript' = 'library'): { states: ChatState[]; engine: PromptContextEngine } {
  const traj = loadTrajectory(path.join(fixtures, `${name}.json`));
  const states: ChatState[] = [];
  let last: PromptContextEngine | undefined;
  for (const _ of replay(traj, {
    layout,
    policy: 'append-version',
    tokenizer: tok,
    afterTurn: (_t, e) => {
      states.push(e.state);
      last = e;
    },
  }))
    void _;
  return { states, engine: last! };
}

function blobGetter(state: ChatState): (h: string) => string {
  const m = new Map(stateBlobs(state).map((b) => [b.hash, b.text]));
  return (h) => {
    const t = m.get(h);
    if (t === undefined) throw new Error(`blob ${h} not found`);
    return t;
  };
}

/** A comparable view of a state that keeps Map order. */
function view(s: ChatState): unknown {
  return { ...s, entries: [...s.entries], latest: [...s.latest], versions: [...s.versions] };
}

const budget = statesOf('budget-pressure');
const adversarial = statesOf('adversarial', 'transcript');

describe('state codec', () => {
  it('round-trips real states exactly, Map order included (compacted previews, pruned and pinned items, versions)', () => {
    const final = budget.states[budget.states.length - 1];
    assert.ok(
      [...final.entries.values()].some((e) => e.compacted),
      'the fixture state has compacted entries',
    );
    for (const s of [...budget.states, ...adversarial.states]) {
      const enc = encodeState(s);
      const json = JSON.parse(JSON.stringify(enc)) as EncodedState;
      assert.deepStrictEqual(json, enc, 'JSON-safe');
      const back = decodeState(json, blobGetter(s));
      assert.deepStrictEqual(view(back), view(s));
    }
  });

  it('keeps snapshot content out of the encoded state: blobs are named by sha256 and listed once', () => {
    const s = adversarial.states[adversarial.states.length - 1];
    const text = JSON.stringify(encodeState(s));
    const blobs = stateBlobs(s);
    for (const e of s.entries.values()) {
      if (e.artifact.content.length > 80)
        assert.ok(!text.includes(JSON.stringify(e.artifact.content).slice(1, 81)), `${e.key} content not inline`);
    }
    for (const b of blobs) assert.strictEqual(sha256Hex(b.text), b.hash);
    assert.deepStrictEqual(new Set(referencedBlobs(encodeState(s))), new Set(blobs.map((b) => b.hash)));
  });

  it('a decoded state renders the same next request as the original', () => {
    const { engine } = statesOf('long-session-20', 'transcript');
    const copy = new PromptContextEngine(
      engine.options,
      decodeState(JSON.parse(JSON.stringify(encodeState(engine.state))), blobGetter(engine.state)),
    );
    const input = {
      userText: 'one more question',
      fresh: new Map<string, string | null>(engine.recoverableSources().map((r) => [r.id, 'changed\n'])),
    };
    assert.strictEqual(JSON.stringify(copy.buildTurn(input)), JSON.stringify(engine.buildTurn(input)));
  });

  it('stores a snapshot with a lone surrogate as a JSON blob and gets it back exactly', () => {
    const e = new PromptContextEngine({
      conversationId: 'x',
      layout: 'transcript',
      policy: 'append-version',
      tokenizer: tok,
      system: 'sys',
      limits: { contextWindow: 128000, maxOutputTokens: 4096 },
    });
    const content = 'before \uD800 after \uDC00!';
    e.buildTurn({ userText: 'look', attachments: [{ kind: 'selection', uri: 'a.ts', range: { startLine: 1, endLine: 1 }, content }] });
    e.completeTurn('ok');
    const enc = encodeState(e.state);
    assert.strictEqual(enc.entries[0].artifact.blobEncoding, 'json');
    const back = decodeState(enc, blobGetter(e.state));
    assert.strictEqual([...back.entries.values()][0].artifact.content, content);
  });

  it('rejects malformed input with a message naming the problem', () => {
    const s = budget.states[3];
    const get = blobGetter(s);
    const good = () => JSON.parse(JSON.stringify(encodeState(s))) as EncodedState;
    const cases: [string, (x: EncodedState) => unknown, RegExp][] = [
      ['not an object', () => 42, /must be a JSON object/],
      ['wrong format', (x) => ({ ...x, format: 'nope' }), /format: must be "strata-chat-state"/],
      ['future version', (x) => ({ ...x, version: 2 }), /version: 2 is not supported/],
      [
        'bad presence',
        (x) => {
          x.entries[0].presence = 'gone' as never;
          return x;
        },
        /presence: must be one of present, detached, pruned, replaced/,
      ],
      [
        'key/version mismatch',
        (x) => {
          x.entries[0].artifact.version = 7;
          return x;
        },
        /key does not match id/,
      ],
      [
        'unknown key in order',
        (x) => {
          x.order.push('file:nope');
          return x;
        },
        /order\[\d+\]: refers to unknown attachment "file:nope"/,
      ],
      [
        'turn item to nowhere',
        (x) => {
          x.turns[0].items.push({ key: 'sel:zzz', mode: 'full' });
          return x;
        },
        /turns\[0\]\.items\[\d+\]: refers to unknown attachment/,
      ],
      [
        'turn numbers out of order',
        (x) => {
          x.turns[1].turn = 1;
          return x;
        },
        /turns\[1\]\.turn: 1 does not follow turn 1/,
      ],
      [
        'bad hash',
        (x) => {
          x.entries[0].artifact.contentHash = 'abc';
          return x;
        },
        /contentHash: must be 64 lowercase hex/,
      ],
      [
        'bad previous block',
        (x) => {
          x.previousBlocks[0] = 'robot:123';
          return x;
        },
        /previousBlocks\[0\]: must be role:sha256/,
      ],
    ];
    for (const [name, mutate, re] of cases) {
      assert.throws(
        () => decodeState(mutate(good()), get),
        (e: Error) => e instanceof StateDecodeError && re.test(e.message),
        name,
      );
    }
  });

  it('fails clearly on a missing or wrong blob', () => {
    const s = budget.states[3];
    const enc = encodeState(s);
    const key = enc.entries[0].key;
    assert.throws(
      () =>
        decodeState(enc, () => {
          throw new Error('blob gone');
        }),
      new RegExp(`entries\\[0\\] \\(${key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\) snapshot: blob gone`),
    );
    assert.throws(() => decodeState(enc, () => 'other text'), /does not match its sha256/);
  });

  it('deltas rebuild every next state exactly and are much smaller than full states', () => {
    const { states } = statesOf('long-session-20', 'transcript');
    let prev: EncodedState | undefined;
    let deltaBytes = 0;
    let fullBytes = 0;
    for (const s of states) {
      const next = encodeState(s, {
        engine: engineMeta({
          conversationId: 'c',
          layout: 'transcript',
          policy: 'append-version',
          tokenizer: tok,
          system: 's',
          limits: { contextWindow: 1, maxOutputTokens: 0 },
        }),
      });
      const d = JSON.parse(JSON.stringify(diffState(prev, next)));
      const rebuilt = applyDelta(prev, d);
      assert.strictEqual(canonicalJson(rebuilt), canonicalJson(next));
      assert.strictEqual(stateDigest(rebuilt), stateDigest(next));
      deltaBytes += JSON.stringify(d).length;
      fullBytes += JSON.stringify(next).length;
      prev = rebuilt;
    }
    assert.ok(deltaBytes * 3 < fullBytes, `deltas ${deltaBytes} B vs full states ${fullBytes} B`);
  });

  it('withoutEntries drops attachments and everything naming them, leaving a valid state', () => {
    const s = budget.states[budget.states.length - 1];
    const enc = encodeState(s);
    const uri = enc.entries[0].artifact.source.uri;
    const drop = new Set(enc.entries.filter((e) => e.artifact.source.uri === uri).map((e) => e.key));
    const out = decodeState(withoutEntries(enc, drop), blobGetter(s));
    for (const k of drop) {
      assert.ok(!out.entries.has(k) && !out.order.includes(k));
      for (const t of out.turns) assert.ok(!t.items.some((i) => i.key === k));
    }
    assert.strictEqual(out.entries.size, s.entries.size - drop.size);
  });

  it('records the engine options in force and reports what differs', () => {
    const base = {
      conversationId: 'c',
      layout: 'library' as const,
      policy: 'append-version' as const,
      tokenizer: tok,
      system: 'sys',
      limits: { contextWindow: 1000, maxOutputTokens: 100 },
    };
    const a = engineMeta(base);
    assert.deepStrictEqual(compareEngineMeta(a, engineMeta({ ...base, conversationId: 'other' })), []);
    const diff = compareEngineMeta(
      a,
      engineMeta({
        ...base,
        layout: 'transcript',
        system: 'new',
        instructions: [{ source: 'AGENTS.md', text: 'x' }],
        limits: { contextWindow: 2000, maxOutputTokens: 100 },
      }),
    );
    assert.deepStrictEqual(diff, [
      'layout was library, now transcript',
      'model limits were {"contextWindow":1000,"maxOutputTokens":100}, now {"contextWindow":2000,"maxOutputTokens":100}',
      'the system prompt changed',
      'the instructions changed',
    ]);
  });
});
