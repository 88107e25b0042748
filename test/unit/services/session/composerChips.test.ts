/**
 * A chip taken off the next message keeps its place, id and content until the message is sent: it is
 * not sent, counted or pinned, the panel still shows it (marked), and Undo puts back exactly that chip.
 */
import * as assert from 'node:assert/strict';
import type { NewArtifactInput } from '../../../../src/engine/artifacts';
import { ComposerChips } from '../../../../src/services/session/composerChips';

function file(path: string, content = `export const x = '${path}';\n`): NewArtifactInput {
  return { kind: 'file', uri: path, content };
}

function threeChips(): { chips: ComposerChips; changes: () => number } {
  let changes = 0;
  const chips = new ComposerChips(() => void changes++);
  for (const p of ['src/a.ts', 'src/b.ts', 'src/c.ts']) chips.put({ kind: 'file', path: p }, file(p), 10);
  return { chips, changes: () => changes };
}

describe('ComposerChips: a chip taken off the next message, kept for Undo', () => {
  it('is not sent, counted or pinned, but the panel shows it in its place, marked', () => {
    const { chips, changes } = threeChips();
    const [, b] = chips.views();
    assert.ok(chips.setPinned(b.id, true));
    const before = changes();
    assert.equal(chips.takeOff(b.id, 'src/b.ts: removed from next message.'), true);
    assert.ok(changes() > before, 'the meter is told');
    assert.deepEqual(
      chips.views().map((c) => c.label),
      ['src/a.ts', 'src/c.ts'],
    );
    assert.deepEqual(
      chips.inputs().map((i) => i.uri),
      ['src/a.ts', 'src/c.ts'],
    );
    assert.equal(chips.turnAttachments().length, 2);
    assert.deepEqual(chips.pinnedRefs(), [], 'a pin of a chip taken off is not sent either');
    const panel = chips.panelViews();
    assert.deepEqual(
      panel.map((c) => [c.label, c.removed?.message]),
      [
        ['src/a.ts', undefined],
        ['src/b.ts', 'src/b.ts: removed from next message.'],
        ['src/c.ts', undefined],
      ],
    );
    assert.equal(chips.isTakenOff(b.id), true);
    assert.equal(chips.takeOff(b.id, 'again'), false, 'only a chip on the next message can be taken off');
    assert.equal(chips.setPinned(b.id, false), false, 'nor pinned while it is off');
  });

  it('Undo puts back exactly that chip: same id, same place, same content and pin', () => {
    const { chips } = threeChips();
    const before = chips.views();
    assert.ok(chips.setPinned(before[0].id, true));
    const pinned = chips.views();
    chips.takeOff(pinned[0].id, 'm');
    assert.ok(
      chips.describeRemoval(pinned[0].id, 'src/a.ts: removed from next message. Removing: next message ~30 → ~20 uncached tokens.'),
    );
    assert.match(chips.panelViews()[0].removed!.message, /~30 → ~20/);
    assert.equal(chips.restore(pinned[0].id), true);
    assert.deepEqual(chips.views(), pinned);
    assert.deepEqual(chips.panelViews(), pinned, 'nothing marked any more');
    assert.equal(chips.restore(pinned[0].id), false, 'nothing left to undo');
  });

  it('attaching the same file again puts its chip back, refreshed, in its place', () => {
    const { chips } = threeChips();
    const b = chips.views()[1];
    chips.takeOff(b.id, 'm');
    const again = chips.put({ kind: 'file', path: 'src/b.ts' }, file('src/b.ts', 'export const b = 2;\n'), 7);
    assert.equal(again.id, b.id);
    assert.equal(again.tokens, 7);
    assert.deepEqual(
      chips.views().map((c) => c.id),
      chips.panelViews().map((c) => c.id),
    );
    assert.equal(chips.views()[1].id, b.id);
  });

  it('dismiss forgets it for good; a send (reset) empties the composer, chips taken off included', () => {
    const { chips } = threeChips();
    const [a, b] = chips.views();
    assert.equal(chips.dismiss(a.id), false, 'only a chip taken off can be dismissed');
    chips.takeOff(a.id, 'm');
    assert.equal(chips.dismiss(a.id), true);
    assert.equal(chips.restore(a.id), false);
    assert.deepEqual(
      chips.panelViews().map((c) => c.label),
      ['src/b.ts', 'src/c.ts'],
    );
    chips.takeOff(b.id, 'm');
    chips.reset();
    assert.deepEqual(chips.panelViews(), []);
    assert.equal(chips.restore(b.id), false);
    const next = chips.put({ kind: 'file', path: 'src/a.ts' }, file('src/a.ts'), 10);
    assert.ok(![a.id, b.id].includes(next.id), 'an id is never reused');
  });

  it('a chat switch or New Chat forgets the chips taken off (their Undo belonged to that chat); the others stay', () => {
    const { chips } = threeChips();
    const [a, , c] = chips.views();
    chips.takeOff(a.id, 'm');
    chips.takeOff(c.id, 'm');
    assert.equal(chips.dismissTakenOff(), true);
    assert.deepEqual(
      chips.panelViews().map((v) => [v.label, v.removed === undefined]),
      [['src/b.ts', true]],
    );
    assert.equal(chips.restore(a.id), false);
    assert.equal(chips.dismissTakenOff(), false, 'nothing left to forget');
  });
});
