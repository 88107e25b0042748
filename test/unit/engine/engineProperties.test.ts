/**
 * Property tests of the context envelope engine (docs/design.md: layers, artifacts, budget,
 * invariants) over random chats: a small virtual workspace, random attachments, selections (also
 * past the end), edits (change, create, delete, revert), pins, unpins and detaches of existing and
 * unknown items, both layouts, all three changed-file policies, the real tokenizer or a cheap one,
 * and context windows small enough to force pruning and sometimes to block a turn. The properties
 * themselves are in helpers/engineChecks.ts.
 *
 * Runs are reproducible: the seed is fixed (FC_SEED overrides it, FC_RUNS the number of runs).
 * A failure prints the generated spec; `buildTrajectory(spec)` (helpers/scenario.ts) turns it into
 * a trajectory that `npm run replay` can load.
 */
import * as assert from 'node:assert/strict';
import * as fc from 'fast-check';
import { validateTrajectory, type Trajectory, type TrajectoryTurn } from '../../../bench/trajectory';
import { extractBody } from '../../../src/engine/render';
import { charTokenizer } from '../../support/charTokenizer';
import { scenarioArb } from '../helpers/scenario';
import { caseOf, PROPERTIES } from '../helpers/engineChecks';
import { allSegments, isDiffBlock, presentKeys, runTrajectory, sha256, type RunTurn } from '../helpers/chatModel';

const SEED = process.env.FC_SEED ? Number(process.env.FC_SEED) : 0x5eed2024;
const RUNS = process.env.FC_RUNS ? Number(process.env.FC_RUNS) : 120;

describe('engine properties (random chats, fast-check)', function () {
  this.timeout(60_000);
  for (const p of PROPERTIES) {
    it(p.title, () => {
      const runs = p.runs !== undefined ? Math.min(p.runs, RUNS) : RUNS;
      // Shrinking replays whole chats; cap its time so a failure is reported promptly.
      fc.assert(
        fc.property(scenarioArb(), (spec) => p.check(caseOf(spec))),
        { seed: SEED, numRuns: runs, interruptAfterTimeLimit: 4_000 },
      );
    });
  }
});

// ------------------------------------------------------------------------------------------------
// Minimal reproductions of the engine bugs the properties above found. Each names the design rule,
// the input, and what is expected; they fail until the engine is fixed. Token counts use the
// one-token-per-character tokenizer, so every budget decision below can be followed by hand:
// window 3000 − output 1000 − margin 60 = budget 1940; cuts start above 1552 and go down to 1164.

const charTok = charTokenizer();

function chat(files: Record<string, string>, turns: TrajectoryTurn[], contextWindow = 3000): Trajectory {
  return validateTrajectory({
    name: 'repro',
    model: { id: 'm', contextWindow, maxOutputTokens: 1000, encoding: 'o200k_base' },
    system: 'S',
    files,
    turns,
  });
}

function fullBlocks(t: RunTurn): Map<string, string> {
  const m = new Map<string, string>();
  for (const g of allSegments(t)) if (g.kind === 'artifact' && g.artifactKey) m.set(g.artifactKey, g.text);
  return m;
}

const A700 = 'a'.repeat(700);
const B700 = 'b'.repeat(700);
/** 100 lines, ~3,000 characters: compacts to ~500 (8 lines and a recovery hint). */
const NOTES = Array.from({ length: 100 }, (_, i) => `note line ${i} with some words`).join('\n');
const SEL_FILE = Array.from({ length: 30 }, (_, i) => `selected ${i} ${'x'.repeat(20)}`).join('\n');

describe('engine bugs found by the properties (minimal reproductions)', () => {
  it('pinning a file that was cut for budget sends it again in full (or rejects the pin) — pinned items are essential, never pruned', () => {
    // Turn 2 cuts a.txt (budget) to make room for b.txt; turn 3 pins a.txt.
    const run = runTrajectory(
      chat({ 'a.txt': A700, 'b.txt': B700 }, [
        { user: 'one', attach: [{ file: 'a.txt' }], reply: 'r1' },
        { user: 'two', attach: [{ file: 'b.txt' }], reply: 'r2' },
        { user: 'three', pin: [{ file: 'a.txt' }], reply: 'r3' },
      ]),
      'library',
      'append-version',
      charTok,
    );
    assert.deepEqual(
      run[1].pruned.map((p) => `${p.reason} ${p.item}`),
      ['budget file:a.txt'],
    );
    const t3 = run[2];
    // Actual: the pin is accepted (no rejection, a.txt is essential in the chat state) but a.txt stays
    // out of the request — a pinned item that is silently not sent.
    if (t3.rejections.length > 0) {
      assert.deepEqual(
        t3.rejections.map((r) => `${r.attachment} ${r.reason}`),
        ['a.txt not-found'],
      );
      assert.deepEqual([...t3.essentialAfter!.keys()], []);
      return;
    }
    // Pinned: a version of a.txt (the old one, or a new one made to send it again), sent in full.
    const pinned = [...t3.essentialAfter!.keys()];
    assert.equal(pinned.length, 1);
    assert.match(pinned[0], /^file:a\.txt(@v\d+)?$/);
    assert.equal(extractBody(fullBlocks(t3).get(pinned[0]) ?? ''), A700, 'the pinned file is sent in full');
  });

  it('pinning a selection that was cut for budget sends its snapshot again (or rejects the pin)', () => {
    const run = runTrajectory(
      chat({ 's.txt': SEL_FILE, 'b.txt': B700 }, [
        { user: 'one', attach: [{ selection: { file: 's.txt', startLine: 1, endLine: 30 } }], reply: 'r1' },
        { user: 'two', attach: [{ file: 'b.txt' }], reply: 'r2' },
        { user: 'three', pin: [{ selection: { file: 's.txt', startLine: 1, endLine: 30 } }], reply: 'r3' },
      ]),
      'transcript',
      'append-version',
      charTok,
    );
    const id = `sel:s.txt#L1-L30@${sha256(SEL_FILE).slice(0, 8)}`;
    assert.ok(
      run[1].pruned.some((p) => p.reason === 'budget' && p.item === id),
      JSON.stringify(run[1].pruned),
    );
    if (run[2].rejections.length > 0) {
      assert.deepEqual(
        run[2].rejections.map((r) => `${r.attachment} ${r.reason}`),
        ['s.txt#L1-L30 not-found'],
      );
      assert.deepEqual([...run[2].essentialAfter!.keys()], []);
      return;
    }
    const pinned = [...run[2].essentialAfter!.keys()];
    assert.equal(pinned.length, 1);
    assert.ok(pinned[0] === id || pinned[0].startsWith(`${id}@v`), pinned[0]);
    assert.equal(extractBody(fullBlocks(run[2]).get(pinned[0]) ?? ''), SEL_FILE, 'the pinned selection is sent verbatim');
  });

  it('pinning a compacted file sends it in full — pinned items are never compacted', () => {
    // Window 6000: budget 4880, cuts above 3904 down to 2928. Turn 1 sends a.md (~3,100); turn 2 adds
    // b.txt (~1,100) and compacts a.md (~1,800 left); turn 3 pins a.md.
    const run = runTrajectory(
      chat(
        { 'a.md': NOTES, 'b.txt': 'b'.repeat(1000) },
        [
          { user: 'one', attach: [{ file: 'a.md' }], reply: 'r1' },
          { user: 'two', attach: [{ file: 'b.txt' }], reply: 'r2' },
          { user: 'three', pin: [{ file: 'a.md' }], reply: 'r3' },
        ],
        6000,
      ),
      'library',
      'append-version',
      charTok,
    );
    assert.deepEqual(
      run[1].pruned.map((p) => `${p.reason} ${p.item}`),
      ['compacted file:a.md'],
    );
    assert.deepEqual(run[2].rejections, []);
    const pinned = [...run[2].essentialAfter!.keys()];
    assert.equal(pinned.length, 1);
    assert.match(pinned[0], /^file:a\.md(@v\d+)?$/);
    // Actual: still the compacted preview (kind 'compacted', format="preview").
    const seg = allSegments(run[2]).find((g) => g.artifactKey === pinned[0]);
    assert.equal(seg?.kind, 'artifact', 'the pinned file is a full block, not a preview');
    assert.equal(extractBody(seg.text), NOTES);
  });

  it('pinning a file the user detached is rejected as not-found, also when it had been compacted (detach removes it)', () => {
    // Turn 2 compacts a.md, turn 3 detaches it, turn 4 pins it.
    const run = runTrajectory(
      chat(
        { 'a.md': NOTES, 'b.txt': 'b'.repeat(1000) },
        [
          { user: 'one', attach: [{ file: 'a.md' }], reply: 'r1' },
          { user: 'two', attach: [{ file: 'b.txt' }], reply: 'r2' },
          { user: 'three', detach: [{ file: 'a.md' }], reply: 'r3' },
          { user: 'four', pin: [{ file: 'a.md' }], reply: 'r4' },
        ],
        6000,
      ),
      'transcript',
      'append-version',
      charTok,
    );
    assert.deepEqual(
      run[1].pruned.map((p) => `${p.reason} ${p.item}`),
      ['compacted file:a.md'],
    );
    assert.deepEqual(
      run[2].pruned.map((p) => `${p.reason} ${p.item}`),
      ['detached file:a.md'],
    );
    assert.deepEqual(
      run[3].rejections.map((r) => `${r.attachment} ${r.reason}`),
      ['a.md not-found'],
    );
    assert.deepEqual([...presentKeys(run[3])], ['file:b.txt']);
  });

  for (const layout of ['library', 'transcript'] as const) {
    it(`${layout}: after a blocked turn, a file that changed again is sent with its current content (no stale block for a reused version number)`, () => {
      // Turn 2 edits a.txt to "version B" and is blocked (its message alone is over budget), so
      // nothing of it is kept. Turn 3 edits a.txt to "version C": the new version is again a.txt@v2.
      // Actual: turn 3 sends "version B" under a.txt@v2 (a block cached by version key in the
      // abandoned turn) — content that is not the file; checkEnvelope reports not-verbatim.
      const run = runTrajectory(
        chat({ 'a.txt': 'version A' }, [
          { user: 'one', attach: [{ file: 'a.txt' }], reply: 'r1' },
          { user: 'x'.repeat(2500), edits: { 'a.txt': 'version B' }, reply: 'r2' },
          { user: 'three', edits: { 'a.txt': 'version C' }, reply: 'r3' },
        ]),
        layout,
        'append-version',
        charTok,
      );
      assert.ok(run[1].envelope.blocked, 'turn 2 is blocked');
      const blocks = fullBlocks(run[2]);
      assert.deepEqual([...blocks.keys()], ['file:a.txt', 'file:a.txt@v2']);
      assert.equal(extractBody(blocks.get('file:a.txt@v2')!), 'version C');
      assert.deepEqual(run[2].violations, []);
    });
  }

  it('append-diff never sends a diff against a version the request does not carry (file re-attached after a cut)', () => {
    // Turn 2 cuts a.txt; turn 3 attaches the unchanged a.txt again: a new version a.txt@v2 is made
    // (the old one is not present). Actual: v2 goes out as a diff against v1 — which the model no
    // longer has — so the request carries no content of a.txt at all.
    const run = runTrajectory(
      chat({ 'a.txt': A700, 'b.txt': B700 }, [
        { user: 'one', attach: [{ file: 'a.txt' }], reply: 'r1' },
        { user: 'two', attach: [{ file: 'b.txt' }], reply: 'r2' },
        { user: 'three', attach: [{ file: 'a.txt' }], reply: 'r3' },
      ]),
      'library',
      'append-diff',
      charTok,
    );
    assert.deepEqual(
      run[1].pruned.map((p) => `${p.reason} ${p.item}`),
      ['budget file:a.txt'],
    );
    const block = fullBlocks(run[2]).get('file:a.txt@v2')!;
    assert.equal(presentKeys(run[2]).has('file:a.txt'), false, 'v1 is not in the request');
    assert.equal(isDiffBlock(block), false, `a diff against an absent base: ${JSON.stringify(block.slice(0, 160))}`);
    assert.equal(extractBody(block), A700);
  });

  it('append-diff never keeps a diff whose base version the same turn cut (superseded versions go first)', () => {
    // Turn 2 edits one line of a.txt (v2 goes out as a small diff against v1) and attaches b.txt; the
    // request passes 1552, and the first cut is the superseded v1 — the base of v2's diff. Seen at
    // 0ea5a72: v2 stays a diff of a version the request no longer carries.
    const a = Array.from({ length: 30 }, (_, i) => `line ${i} of the file a.txt here`).join('\n');
    const a2 = a.replace('line 7 of', 'LINE 7 OF');
    const run = runTrajectory(
      chat({ 'a.txt': a, 'b.txt': 'b'.repeat(500) }, [
        { user: 'one', attach: [{ file: 'a.txt' }], reply: 'r1' },
        { user: 'two', attach: [{ file: 'b.txt' }], edits: { 'a.txt': a2 }, reply: 'r2' },
      ]),
      'library',
      'append-diff',
      charTok,
    );
    const t2 = run[1];
    assert.ok(
      t2.pruned.some((p) => p.item === 'file:a.txt'),
      JSON.stringify(t2.pruned),
    );
    assert.equal(presentKeys(t2).has('file:a.txt'), false);
    const block = fullBlocks(t2).get('file:a.txt@v2');
    if (block === undefined) {
      // Also acceptable: v2 cut as well, and reported.
      assert.ok(
        t2.pruned.some((p) => p.item === 'file:a.txt@v2' && (p.reason === 'budget' || p.reason === 'compacted')),
        JSON.stringify(t2.pruned),
      );
      return;
    }
    assert.equal(isDiffBlock(block), false, `v2 is a diff against the cut v1: ${JSON.stringify(block.slice(0, 200))}`);
    assert.equal(extractBody(block), a2);
  });

  it('transcript: a file cut for budget leaves the request (its past block becomes a stub) and only as much is cut as needed', () => {
    // Turn 2 attaches b.txt; a.txt (turn 1) is the oldest medium-priority item and is cut. Cutting it
    // alone reaches the target (~860 tokens ≤ 1164), so b.txt stays.
    const run = runTrajectory(
      chat({ 'a.txt': A700, 'b.txt': B700 }, [
        { user: 'one', attach: [{ file: 'a.txt' }], reply: 'r1' },
        { user: 'two', attach: [{ file: 'b.txt' }], reply: 'r2' },
      ]),
      'transcript',
      'append-version',
      charTok,
    );
    const t2 = run[1];
    assert.deepEqual(
      t2.pruned.map((p) => `${p.reason} ${p.item}`),
      ['budget file:a.txt'],
    );
    assert.deepEqual([...presentKeys(t2)], ['file:b.txt']);
    assert.deepEqual(
      t2.envelope.messages[1].content.map((b) => b.text),
      ['<removed id="file:a.txt" version="1"/> (dropped to fit the context budget; re-attach it to send it again)\n', 'one'],
    );
  });

  it('a selection attached again after a cut is sent verbatim under append-diff, never as a diff (snapshots are verbatim)', () => {
    const run = runTrajectory(
      chat({ 's.txt': SEL_FILE, 'b.txt': B700 }, [
        { user: 'one', attach: [{ selection: { file: 's.txt', startLine: 1, endLine: 30 } }], reply: 'r1' },
        { user: 'two', attach: [{ file: 'b.txt' }], reply: 'r2' },
        { user: 'three', attach: [{ selection: { file: 's.txt', startLine: 1, endLine: 30 } }], reply: 'r3' },
      ]),
      'transcript',
      'append-diff',
      charTok,
    );
    const key = `sel:s.txt#L1-L30@${sha256(SEL_FILE).slice(0, 8)}@v2`;
    const block = fullBlocks(run[2]).get(key)!;
    assert.ok(block, JSON.stringify([...fullBlocks(run[2]).keys()]));
    assert.equal(extractBody(block), SEL_FILE, `the snapshot is not verbatim: ${JSON.stringify(block.slice(0, 200))}`);
  });

  it('pin names a selection in the shape it was attached, also when endLine was past the end', () => {
    // a.txt has 5 lines; the selection is attached as 3-99 (clamped to 3-5) and pinned as 3-99.
    // Actual: the pin is rejected as not-found because the engine compares with the clamped range.
    const run = runTrajectory(
      chat({ 'a.txt': 'l1\nl2\nl3\nl4\nl5' }, [
        { user: 'one', attach: [{ selection: { file: 'a.txt', startLine: 3, endLine: 99 } }], reply: 'r1' },
        { user: 'two', pin: [{ selection: { file: 'a.txt', startLine: 3, endLine: 99 } }], reply: 'r2' },
      ]),
      'library',
      'append-version',
      charTok,
    );
    assert.deepEqual(run[0].rejections, []);
    assert.deepEqual(
      run[1].rejections.map((r) => `${r.attachment} ${r.reason}`),
      [],
      'the pin is rejected',
    );
    assert.deepEqual([...run[1].essentialAfter!.keys()], [`sel:a.txt#L3-L5@${sha256('l3\nl4\nl5').slice(0, 8)}`]);
  });

  it('an empty user message is re-sent in history as it was sent, so the transcript stays append-only', () => {
    // Turn 1 sends "(empty message)" for an empty text; turn 2 re-sends turn 1's user message as ""
    // (a changed prefix with no cut reported, and an empty text block some providers reject).
    const run = runTrajectory(
      chat({}, [
        { user: '', reply: 'r1' },
        { user: 'two', reply: 'r2' },
      ]),
      'transcript',
      'append-version',
      charTok,
    );
    const sent = run[0].envelope.messages[1].content.map((b) => b.text);
    assert.deepEqual(sent, ['(empty message)']);
    assert.deepEqual(run[1].pruned, []);
    assert.deepEqual(
      run[1].envelope.messages[1].content.map((b) => b.text),
      sent,
      'turn 1 as re-sent in turn 2',
    );
    assert.equal(run[1].envelope.prefixBreak, false, String(run[1].envelope.prefixBreakReason));
  });

  it("a cut version's stub keeps its wording when a newer version appears, so the transcript stays append-only", () => {
    // Turn 2 cuts a.txt (its block in turn 1's message becomes a stub, reported). Turn 3 edits a.txt:
    // v2 is made, v1 becomes superseded, and turn 1's stub is re-worded ("an older version, …") —
    // turn 1's message changes again with no cut reported in turn 3.
    const run = runTrajectory(
      chat({ 'a.txt': A700, 'b.txt': B700 }, [
        { user: 'one', attach: [{ file: 'a.txt' }], reply: 'r1' },
        { user: 'two', attach: [{ file: 'b.txt' }], reply: 'r2' },
        { user: 'three', edits: { 'a.txt': 'new' }, reply: 'r3' },
      ]),
      'transcript',
      'append-version',
      charTok,
    );
    assert.deepEqual(
      run[1].pruned.map((p) => `${p.reason} ${p.item}`),
      ['budget file:a.txt'],
    );
    assert.deepEqual(run[2].pruned, []);
    const turn1 = (t: RunTurn) => t.envelope.messages[1].content.map((b) => b.text).join('');
    assert.equal(turn1(run[2]), turn1(run[1]), "turn 1's user message as sent in turns 2 and 3");
    assert.equal(run[2].envelope.prefixBreak, false, String(run[2].envelope.prefixBreakReason));
  });
});
