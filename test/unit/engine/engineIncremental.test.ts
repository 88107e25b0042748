/**
 * The engine carries each request's results into the next (rendered past turns, the
 * assembled request, ledger items, copy-on-write states). These tests hold it to the one thing that
 * matters: every envelope is exactly the one an engine with nothing carried builds from the same
 * committed state — over random chats (both layouts, all policies, pruning and blocked turns),
 * with meter previews and "prune harder" rebuilds abandoned in between, option changes, reloads;
 * and the committed state is never changed by a build that is abandoned.
 */
import * as assert from 'node:assert/strict';
import * as fc from 'fast-check';
import { PromptContextEngine, type TurnEnvelope, type TurnInput } from '../../../src/engine/engine';
import { cloneState, entryChanges, LayeredMap, putEntry, writableEntry, writeCount, emptyState } from '../../../src/engine/state';
import { encodeState, decodeState, stateBlobs } from '../../../src/engine/stateCodec';
import { engineFor, replay } from '../../../bench/replayCore';
import { validateTrajectory, type Trajectory } from '../../../bench/trajectory';
import { generateConversation } from '../../../bench/perf/generate';
import { getTokenizer } from '../../../src/services/tokenizer';
import { buildTrajectory, scenarioArb, type ScenarioSpec } from '../helpers/scenario';
import { tokenizerOf } from '../helpers/engineChecks';
import type { ITokenizer, Layout } from '../../../src/engine/types';

const SEED = process.env.FC_SEED ? Number(process.env.FC_SEED) : 0x1c4e12;
const RUNS = process.env.FC_RUNS ? Number(process.env.FC_RUNS) : 60;

interface Twists {
  /** Build a meter preview (other text, sometimes no attachments) and abandon it before odd turns. */
  preview?: boolean;
  /** Build with "prune harder" and abandon it every third turn. */
  pruneHarder?: boolean;
  /** Switch layout / policy every few turns (settings changed between turns). */
  switchOptions?: boolean;
  /** Resume from the encoded state every few turns (window reload). */
  reload?: boolean;
  /**
   * Read each envelope only at the end of the chat, after every later build (a kept request, the
   * tree reading an old one): what is made when first read must be what it was at its build.
   */
  lateRead?: boolean;
}

/** A fresh engine over the same committed state: nothing carried, everything assembled from scratch. */
function fromScratch(e: PromptContextEngine): PromptContextEngine {
  return new PromptContextEngine(e.options, e.state);
}

function reloaded(e: PromptContextEngine): PromptContextEngine {
  const blobs = new Map(stateBlobs(e.state).map((b) => [b.hash, b.text]));
  return new PromptContextEngine(
    e.options,
    decodeState(JSON.parse(JSON.stringify(encodeState(e.state))), (h) => blobs.get(h)!),
  );
}

/** Fails with where two JSON texts first differ (they are long: the whole envelope). */
function assertSameJson(actual: string, expected: string, what: string): void {
  if (actual === expected) return;
  let i = 0;
  while (i < actual.length && actual[i] === expected[i]) i++;
  assert.fail(
    `${what}; first difference at character ${i}:\n  carried: …${actual.slice(Math.max(0, i - 160), i + 160)}\n  scratch: …${expected.slice(Math.max(0, i - 160), i + 160)}`,
  );
}

function stateJson(e: PromptContextEngine): string {
  return JSON.stringify(encodeState(e.state));
}

/**
 * The engine inputs of every turn, as the turn pipeline assembles them for this chat (edits, isolation,
 * re-read files, pins, detaches). They depend on the workspace and the trajectory, not on the engine's
 * caches, so both engines of `compareRun` get the same ones.
 */
function inputsOf(
  traj: Trajectory,
  layout: Layout,
  policy: 'append-version' | 'append-diff' | 'refresh-in-place',
  tokenizer: ITokenizer,
): TurnInput[] {
  return [...replay(traj, { layout, policy, tokenizer, check: false })].map((t) => t.input);
}

/** Runs the chat; at every build, compares with a from-scratch engine. Returns the number of builds compared. */
function compareRun(
  traj: Trajectory,
  layout: Layout,
  policy: 'append-version' | 'append-diff' | 'refresh-in-place',
  tokenizer: ITokenizer,
  twists: Twists,
): number {
  const inputs = inputsOf(traj, layout, policy, tokenizer);
  let engine = engineFor(traj, { layout, policy, tokenizer });
  let compared = 0;
  const late: [TurnEnvelope, string, string][] = [];
  const check = (input: TurnInput, what: string, i: number) => {
    const before = stateJson(engine);
    const scratch = fromScratch(engine).buildTurn(input);
    const env = engine.buildTurn(input);
    const why = `turn ${i + 1} (${what}): the carried engine's envelope differs from a from-scratch build`;
    if (twists.lateRead) late.push([env, JSON.stringify(scratch), `${why}, read after the chat's later builds`]);
    else assertSameJson(JSON.stringify(env), JSON.stringify(scratch), why);
    assertSameJson(stateJson(engine), before, `turn ${i + 1} (${what}): building changed the committed state`);
    compared++;
    return env;
  };
  for (let i = 0; i < inputs.length; i++) {
    const input = inputs[i];
    if (twists.preview && i % 2 === 1) {
      check({ ...input, userText: `${input.userText} (typing)`, attachments: i % 4 === 1 ? [] : input.attachments }, 'preview', i);
      engine.abandonTurn();
    }
    if (twists.pruneHarder && i % 3 === 2) {
      check({ ...input, targetPercentOverride: 50 }, 'prune harder', i);
      engine.abandonTurn();
    }
    const env = check(input, 'turn', i);
    if (env.blocked) engine.abandonTurn();
    else engine.completeTurn(traj.turns[i].reply);
    if (twists.reload && i % 4 === 3) engine = reloaded(engine);
    if (twists.switchOptions && i % 5 === 4) {
      const o = engine.options;
      engine.updateOptions(
        i % 2 === 0
          ? { layout: o.layout === 'library' ? 'transcript' : 'library' }
          : { policy: o.policy === 'append-diff' ? 'append-version' : 'append-diff' },
      );
    }
  }
  for (const [env, scratch, why] of late) assertSameJson(JSON.stringify(env), scratch, why);
  return compared;
}

function trajOf(spec: ScenarioSpec): Trajectory {
  return validateTrajectory(JSON.parse(JSON.stringify(buildTrajectory(spec))));
}

describe('incremental assembly equals a from-scratch build', function () {
  this.timeout(120_000);

  const variants: [string, Twists][] = [
    ['plain turns', {}],
    ['meter previews and "prune harder" rebuilds abandoned between turns', { preview: true, pruneHarder: true }],
    ['layout and policy switched between turns, reloads', { switchOptions: true, reload: true }],
    [
      'every envelope read only after the chat\'s later builds, with previews and "prune harder" rebuilds',
      { preview: true, pruneHarder: true, lateRead: true },
    ],
  ];
  for (const [title, twists] of variants) {
    it(`random chats: ${title}`, () => {
      fc.assert(
        fc.property(scenarioArb(), (spec) => {
          compareRun(trajOf(spec), spec.layout, spec.policy, tokenizerOf(spec), twists);
        }),
        { seed: SEED, numRuns: RUNS, interruptAfterTimeLimit: 20_000 },
      );
    });
  }

  it('a generated long chat, both layouts, with previews; and with a tight window (pruning, summaries) under every policy', () => {
    const tok = getTokenizer('o200k_base');
    const { trajectory } = generateConversation({ turns: 40, fileBytes: 300_000 });
    let n = 0;
    for (const layout of ['library', 'transcript'] as const) n += compareRun(trajectory, layout, 'append-version', tok, { preview: true });
    const { trajectory: tight } = generateConversation({ turns: 40, fileBytes: 300_000, contextWindow: 40_000 });
    for (const layout of ['library', 'transcript'] as const) {
      for (const policy of ['append-version', 'append-diff', 'refresh-in-place'] as const)
        n += compareRun(tight, layout, policy, tok, { preview: true });
      n += compareRun(tight, layout, 'append-version', tok, { preview: true, pruneHarder: true, lateRead: true });
    }
    assert.ok(n >= 400, `compared ${n} builds`);
  });
});

describe('re-read files found from the fresh map', () => {
  it('several files changed, deleted or back in one turn: the same request whatever order the host passes them in', () => {
    const files = ['a', 'b', 'c', 'd', 'e'].map((n) => `src/${n}.ts`);
    const content = (f: string, v: number) => `// ${f} v${v}\nexport const x = ${v};\nfunction f() {\n  return ${v};\n}\n`;
    for (const layout of ['transcript', 'library'] as const) {
      for (const policy of ['append-version', 'append-diff', 'refresh-in-place'] as const) {
        const chat = (order: (fs: string[]) => string[]) => {
          const e = new PromptContextEngine({
            conversationId: 'c',
            layout,
            policy,
            tokenizer: getTokenizer('o200k_base'),
            system: 'sys',
            limits: { contextWindow: 200_000, maxOutputTokens: 4000 },
          });
          e.buildTurn({ userText: 'attach', attachments: files.map((f) => ({ kind: 'file' as const, uri: f, content: content(f, 1) })) });
          e.completeTurn('ok');
          const out: string[] = [];
          for (let t = 2; t < 7; t++) {
            // Every file changes; one is deleted (and comes back the turn after).
            const fresh = new Map<string, string | null>();
            for (const f of order(files)) fresh.set(`file:${f}`, f === files[t % files.length] ? null : content(f, t));
            const env = e.buildTurn({ userText: `turn ${t}`, fresh });
            e.completeTurn(`reply ${t}`);
            out.push(JSON.stringify(env));
          }
          return out;
        };
        const inOrder = chat((fs) => fs);
        assert.deepEqual(
          chat((fs) => fs.slice().reverse()),
          inOrder,
          `${layout} ${policy}: reversed`,
        );
        assert.deepEqual(
          chat((fs) => [fs[2], fs[0], fs[4], fs[1], fs[3]]),
          inOrder,
          `${layout} ${policy}: shuffled`,
        );
      }
    }
  });
});

describe('copy-on-write chat states', () => {
  it('a LayeredMap reads, iterates and copies like a Map that got the same writes', () => {
    const rand = (
      (seed) => () =>
        (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648
    )(7);
    for (let trial = 0; trial < 200; trial++) {
      let plain = new Map<string, number>();
      for (let i = 0; i < Math.floor(rand() * 20); i++) plain.set(`k${Math.floor(rand() * 30)}`, i);
      let layered: Map<string, number> = new Map(plain);
      for (let gen = 0; gen < 12; gen++) {
        layered = layered instanceof LayeredMap ? layered.relayer() : new LayeredMap(layered);
        plain = new Map(plain);
        for (let i = 0; i < Math.floor(rand() * 6); i++) {
          const k = `k${Math.floor(rand() * 40)}`;
          const v = Math.floor(rand() * 100);
          layered.set(k, v);
          plain.set(k, v);
        }
        assert.deepEqual([...layered], [...plain]);
        assert.deepEqual([...new Map(layered)], [...plain]);
        assert.deepEqual([...layered.keys()], [...plain.keys()]);
        assert.deepEqual([...layered.values()], [...plain.values()]);
        const viaForEach: [string, number][] = [];
        layered.forEach((v, k) => viaForEach.push([k, v]));
        assert.deepEqual(viaForEach, [...plain]);
        assert.equal(layered.size, plain.size);
        for (let q = 0; q < 20; q++) {
          const k = `k${Math.floor(rand() * 45)}`;
          assert.equal(layered.get(k), plain.get(k));
          assert.equal(layered.has(k), plain.has(k));
        }
      }
    }
    assert.throws(() => new LayeredMap(new Map([['a', 1]])).delete('a'), /does not delete/);
  });

  it('LayeredMap clones of one map (the meter building from the committed state) keep their own writes, and none reaches the others or the map', () => {
    const rand = (
      (seed) => () =>
        (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648
    )(11);
    const same = (m: Map<string, number | undefined>, plain: Map<string, number | undefined>, what: string) => {
      assert.deepEqual([...m], [...plain], what);
      assert.deepEqual([...m.keys()], [...plain.keys()], what);
      assert.deepEqual([...m.values()], [...plain.values()], what);
      assert.equal(m.size, plain.size, what);
      for (let q = 0; q < 60; q++) {
        const k = `k${q}`;
        assert.equal(m.get(k), plain.get(k), `${what}: get ${k}`);
        assert.equal(m.has(k), plain.has(k), `${what}: has ${k}`);
      }
    };
    const write = (a: Map<string, number | undefined>, b: Map<string, number | undefined>, n: number) => {
      for (let i = 0; i < n; i++) {
        const k = `k${Math.floor(rand() * 50)}`;
        const v = rand() < 0.1 ? undefined : Math.floor(rand() * 100);
        a.set(k, v);
        b.set(k, v);
      }
    };
    for (let trial = 0; trial < 100; trial++) {
      let plain = new Map<string, number | undefined>();
      write(plain, new Map(), Math.floor(rand() * 25));
      let layered: Map<string, number | undefined> = new LayeredMap(new Map(plain));
      for (let gen = 0; gen < 15; gen++) {
        // Siblings: clones of the same map, each written, then checked against copies.
        const siblings: [Map<string, number | undefined>, Map<string, number | undefined>][] = [];
        for (let c = 0; c < 3; c++) {
          const clone = (layered as LayeredMap<string, number | undefined>).relayer();
          const copy = new Map(plain);
          write(clone, copy, Math.floor(rand() * 5));
          siblings.push([clone, copy]);
        }
        siblings.forEach(([clone, copy], c) => same(clone, copy, `trial ${trial} gen ${gen} sibling ${c}`));
        same(layered, plain, `trial ${trial} gen ${gen}: the map its clones were made from`);
        // A clone of a clone before and after that clone writes again.
        const [clone, copy] = siblings[Math.floor(rand() * siblings.length)];
        const grandchild = (clone as LayeredMap<string, number | undefined>).relayer();
        const grandCopy = new Map(copy);
        write(clone, copy, 2);
        same(grandchild, grandCopy, `trial ${trial} gen ${gen}: a clone made before its parent wrote again`);
        layered = clone;
        plain = copy;
      }
    }
  });

  it('LayeredMap versions of one lineage read in any order (iterating one while others are read and written, old versions after many generations) are each what their copy is', () => {
    const rand = (
      (seed) => () =>
        (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648
    )(23);
    type M = Map<string, number | undefined>;
    for (let trial = 0; trial < 60; trial++) {
      // Every version made so far, with a plain copy of what it must hold.
      const versions: [M, M][] = [];
      const start = new Map<string, number | undefined>();
      for (let i = 0; i < Math.floor(rand() * 20); i++) start.set(`k${Math.floor(rand() * 40)}`, i);
      versions.push([new LayeredMap(new Map(start)), new Map(start)]);
      const pick = () => versions[Math.floor(rand() * versions.length)];
      const write = ([m, copy]: [M, M]) => {
        const k = `k${Math.floor(rand() * 60)}`;
        const v = rand() < 0.1 ? undefined : Math.floor(rand() * 100);
        m.set(k, v);
        copy.set(k, v);
      };
      for (let step = 0; step < 120; step++) {
        const r = rand();
        if (r < 0.3) {
          const [m, copy] = rand() < 0.6 ? versions[versions.length - 1] : pick();
          versions.push([(m as LayeredMap<string, number | undefined>).relayer(), new Map(copy)]);
        } else if (r < 0.7) {
          write(rand() < 0.7 ? versions[versions.length - 1] : pick());
        } else if (r < 0.85) {
          const [m, copy] = pick();
          const k = `k${Math.floor(rand() * 60)}`;
          assert.equal(m.get(k), copy.get(k), `trial ${trial} step ${step}: get ${k}`);
          assert.equal(m.has(k), copy.has(k), `trial ${trial} step ${step}: has ${k}`);
          assert.equal(m.size, copy.size, `trial ${trial} step ${step}: size`);
        } else {
          // Iterate one version; between its steps, read and write others (never the one iterated).
          const [m, copy] = pick();
          const expected = [...copy];
          const seen: [string, number | undefined][] = [];
          for (const e of m) {
            seen.push(e);
            const other = pick();
            if (other[0] === m) continue;
            const k = `k${Math.floor(rand() * 60)}`;
            assert.equal(other[0].get(k), other[1].get(k));
            if (rand() < 0.3) write(other);
          }
          assert.deepEqual(seen, expected, `trial ${trial} step ${step}: iteration while other versions were read`);
        }
      }
      for (const [i, [m, copy]] of versions.entries()) {
        assert.deepEqual([...m], [...copy], `trial ${trial}: version ${i} of ${versions.length}`);
        assert.deepEqual([...m.keys()], [...copy.keys()]);
        assert.deepEqual([...m.values()], [...copy.values()]);
        assert.equal(m.size, copy.size);
      }
    }
  });

  it('LayeredMap: a clone written and abandoned hundreds of times (the meter), its map made again on the way, while the committed map is iterated', () => {
    type M = Map<string, number>;
    const start = new Map<string, number>();
    for (let i = 0; i < 2000; i++) start.set(`file:f${i}`, i);
    const committed = new LayeredMap(new Map(start));
    const it = committed.entries();
    const seen: [string, number][] = [];
    for (let cycle = 0; cycle < 300; cycle++) {
      // A build: a clone of the committed map, two new keys and a changed one; then abandoned.
      const clone: M = committed.relayer();
      clone.set(`file:new${cycle % 3}`, cycle);
      clone.set('file:probe', cycle);
      clone.set(`file:f${cycle}`, -cycle);
      const copy = new Map(start);
      copy
        .set(`file:new${cycle % 3}`, cycle)
        .set('file:probe', cycle)
        .set(`file:f${cycle}`, -cycle);
      if (cycle % 50 === 7) assert.deepEqual([...clone], [...copy], `cycle ${cycle}`);
      assert.equal(clone.get('file:probe'), cycle);
      assert.equal(clone.size, copy.size);
      // The committed map, read between builds (each read moves the lineage's Map back to it).
      assert.equal(committed.get('file:probe'), undefined);
      assert.equal(committed.get(`file:f${cycle}`), cycle);
      assert.equal(committed.size, 2000);
      // One more step of an iteration begun before the first build.
      const r = it.next();
      if (!r.done) seen.push(r.value);
    }
    for (let r = it.next(); !r.done; r = it.next()) seen.push(r.value);
    assert.deepEqual(seen, [...start], 'the iteration begun before the builds');
    assert.deepEqual([...committed], [...start]);
    // A last build, kept: written after the many abandoned ones, in the order of its writes.
    const kept: M = committed.relayer();
    kept.set('file:probe', 1).set('file:new2', 2).set('file:new0', 0);
    assert.deepEqual([...kept].slice(-3), [
      ['file:probe', 1],
      ['file:new2', 2],
      ['file:new0', 0],
    ]);
  });

  it('a clone shares entries until it writes them, logs what it wrote, and never changes its parent', () => {
    const tok = getTokenizer('o200k_base');
    const e = new PromptContextEngine({
      conversationId: 'c',
      layout: 'transcript',
      policy: 'append-version',
      tokenizer: tok,
      system: 'S',
      limits: { contextWindow: 100_000, maxOutputTokens: 1000 },
    });
    e.buildTurn({
      userText: 'q',
      attachments: [
        { kind: 'file', uri: 'a.md', content: 'A' },
        { kind: 'file', uri: 'b.md', content: 'B' },
      ],
    });
    e.completeTurn('r');
    const parent = e.state;
    const before = JSON.stringify(encodeState(parent));
    const a = cloneState(parent);
    assert.equal(a.entries.get('file:a.md'), parent.entries.get('file:a.md'), 'shared until written');
    writableEntry(a, 'file:a.md').essential = true;
    assert.notEqual(a.entries.get('file:a.md'), parent.entries.get('file:a.md'));
    assert.equal(parent.entries.get('file:a.md')!.essential, false);
    putEntry(a, { ...a.entries.get('file:b.md')!, key: 'file:b.md@v2', firstTurn: 2 });
    assert.equal(parent.entries.has('file:b.md@v2'), false);
    assert.equal(JSON.stringify(encodeState(parent)), before, 'the parent is unchanged');
    assert.deepEqual(entryChanges(parent, writeCount(parent), a), ['file:a.md', 'file:b.md@v2']);
    const b = cloneState(parent);
    writableEntry(b, 'file:b.md').missing = true;
    assert.deepEqual(entryChanges(a, writeCount(a), b), ['file:a.md', 'file:b.md@v2', 'file:b.md'], 'siblings: what either wrote');
    assert.equal(entryChanges(emptyState(), 0, b), undefined, 'unrelated states: unknown');
  });

  it("a decoded state (plain maps) cloned again and again: its maps are copied once, and neither it nor its clones see the others' writes", () => {
    const tok = getTokenizer('o200k_base');
    const e = new PromptContextEngine({
      conversationId: 'c',
      layout: 'transcript',
      policy: 'append-version',
      tokenizer: tok,
      system: 'S',
      limits: { contextWindow: 100_000, maxOutputTokens: 1000 },
    });
    e.buildTurn({
      userText: 'q',
      attachments: [
        { kind: 'file', uri: 'a.md', content: 'A' },
        { kind: 'file', uri: 'b.md', content: 'B' },
      ],
    });
    e.completeTurn('r');
    const blobs = new Map(stateBlobs(e.state).map((b) => [b.hash, b.text]));
    const decoded = decodeState(JSON.parse(JSON.stringify(encodeState(e.state))), (h) => blobs.get(h)!);
    assert.ok(!(decoded.entries instanceof LayeredMap), 'a decoded state has plain maps');
    const before = JSON.stringify(encodeState(decoded));
    const a = cloneState(decoded);
    const root = decoded.entries;
    assert.ok(root instanceof LayeredMap, "the state now holds the root of its maps' lineage");
    const b = cloneState(decoded);
    assert.equal(decoded.entries, root, 'the second clone reuses it (no second copy)');
    putEntry(a, { ...a.entries.get('file:a.md')!, key: 'file:a.md@v2', firstTurn: 2 });
    a.latest.set('file:a.md', 'file:a.md@v2');
    writableEntry(b, 'file:b.md').missing = true;
    assert.equal(JSON.stringify(encodeState(decoded)), before, 'the decoded state is unchanged');
    assert.equal(b.entries.has('file:a.md@v2'), false);
    assert.equal(b.latest.get('file:a.md'), 'file:a.md');
    assert.equal(a.entries.get('file:b.md')!.missing, false);
    // The decoded state written after its clones were made (as a state that is not a clone is): its clones keep what they had.
    decoded.latest.set('file:b.md', 'elsewhere');
    assert.equal(a.latest.get('file:b.md'), 'file:b.md');
    assert.equal(b.latest.get('file:b.md'), 'file:b.md');
    assert.equal(decoded.latest.get('file:b.md'), 'elsewhere');
  });

  it('a version made by a build abandoned for the meter is the very artifact the next build of the turn sends; requests unchanged', () => {
    const tok = getTokenizer('o200k_base');
    const make = () =>
      new PromptContextEngine({
        conversationId: 'c',
        layout: 'transcript',
        policy: 'append-version',
        tokenizer: tok,
        system: 'S',
        limits: { contextWindow: 100_000, maxOutputTokens: 1000 },
      });
    const big = 'export const x = 1;\n'.repeat(800);
    const input: TurnInput = { userText: 'q', attachments: [{ kind: 'file', uri: 'a.ts', content: big }] };
    const e = make();
    e.buildTurn(input);
    const first = e.checkContext().artifacts.get('file:a.ts')!;
    e.abandonTurn();
    const env = e.buildTurn(input);
    assert.equal(e.checkContext().artifacts.get('file:a.ts'), first, 'the same artifact object: block and hashes reused');
    assert.equal(first.content, big, 'the same text');
    e.completeTurn('r');
    const fresh = make();
    assert.deepEqual(env.messages, fresh.buildTurn(input).messages, 'byte-identical to a build without the abandoned one');
    // After the turn is completed, a new build makes (and keeps) its own new versions again.
    const next = e.buildTurn({ userText: 'q2', attachments: [{ kind: 'file', uri: 'a.ts', content: `${big}// changed\n` }] });
    assert.ok(next.newBlocks.includes('file:a.ts@v2'));
    assert.equal(e.state.entries.get('file:a.ts')!.artifact, first);
  });
});
