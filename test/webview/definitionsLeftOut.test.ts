/**
 * A chip's definitions that did not all go: "+N definitions · M left out", the left-out note
 * focusable, its accessible name naming each declaration and why, and hover or focus showing the
 * list in the tooltip (so the user can raise the budget or pin). A `chips` message whose left-out
 * list is malformed is not rendered; a file chip carries the declarations it imports the same way.
 */
import * as assert from 'node:assert/strict';
import type { ChipView } from '../../src/protocol/messages';
import { chips, state } from './fixtures';
import { panelSuite } from './suite';

const SELECTION: ChipView = {
  ...chips[1],
  pinned: false,
  definitions: Array.from({ length: 12 }, (_, i) => ({
    label: `src/engine/types.ts:L${i * 5 + 1}-${i * 5 + 3}`,
    symbol: `Type${i}`,
    usedBy: `Type${i}`,
    tokens: 30,
  })),
  definitionsLeftOut: [
    { label: 'src/engine/engine.ts:L40-690', symbol: 'Engine', reason: '2104 tokens, 310 left of the 4000-token budget' },
    { label: 'src/engine/budget.ts:L4-20', symbol: 'fitBudget', reason: 'its body: 212 more tokens, 98 left of the 4000-token budget' },
    { label: 'src/engine/state.ts:L93-140', symbol: 'emptyState', reason: '402 tokens, 98 left of the 4000-token budget' },
  ],
};

const NAME =
  "3 left out of src/engine/cache.ts:L12-30's definitions: " +
  'Engine (src/engine/engine.ts:L40-690): 2104 tokens, 310 left of the 4000-token budget; ' +
  'fitBudget (src/engine/budget.ts:L4-20): its body: 212 more tokens, 98 left of the 4000-token budget; ' +
  'emptyState (src/engine/state.ts:L93-140): 402 tokens, 98 left of the 4000-token budget';

describe('chat panel: a chip says how many definitions were left out and why', function () {
  this.timeout(60_000);
  const { open } = panelSuite();

  it('"+12 definitions · 3 left out"; the note is focusable, named with the reasons, and focus or hover shows them', async () => {
    const p = await open({ width: 600, height: 700 });
    await p.init(state({ chips: [chips[0], SELECTION] }));
    const chip = p.byTestId('strata-chip').nth(1);
    assert.equal(await chip.getByTestId('strata-definitions-count').textContent(), '+12 definitions');
    const note = chip.getByTestId('strata-definitions-left-out');
    assert.equal(await note.textContent(), '· 3 left out');
    assert.equal(await chip.getByTestId('strata-chip-definitions').count(), 0);
    // The accessible name, as assistive technology reads it.
    assert.equal(await p.page.getByRole('note', { name: NAME, exact: true }).count(), 1);
    assert.equal(await note.getAttribute('tabindex'), '0');

    const tip = p.byTestId('strata-tooltip');
    await note.focus();
    await tip.waitFor({ state: 'visible' });
    assert.equal(await note.getAttribute('aria-describedby'), 'strata-tooltip');
    assert.deepEqual(await tip.locator('li').allTextContents(), [
      'Engine (src/engine/engine.ts:L40-690): 2104 tokens, 310 left of the 4000-token budget',
      'fitBudget (src/engine/budget.ts:L4-20): its body: 212 more tokens, 98 left of the 4000-token budget',
      'emptyState (src/engine/state.ts:L93-140): 402 tokens, 98 left of the 4000-token budget',
    ]);
    assert.match(
      (await tip.textContent()) ?? '',
      /^Left out \(raise the definitions or imports budget in Settings, or pin what you need\):/,
    );
    await note.blur();
    await tip.waitFor({ state: 'hidden' });
    await note.hover();
    await tip.waitFor({ state: 'visible' });
    assert.equal(await tip.locator('li').count(), 3);

    // Nothing left out: the count alone, as before.
    await p.post({ type: 'chips', chips: [chips[0], { ...SELECTION, definitionsLeftOut: undefined }] });
    await p.settle();
    assert.equal(await p.byTestId('strata-definitions-left-out').count(), 0);
    assert.equal(await chip.getByTestId('strata-definitions-count').textContent(), '+12 definitions');

    // A file chip with the declarations it imports from large modules, one of them left out.
    const file: ChipView = {
      ...chips[0],
      definitions: SELECTION.definitions!.slice(0, 2),
      definitionsLeftOut: SELECTION.definitionsLeftOut!.slice(0, 1),
    };
    await p.post({ type: 'chips', chips: [file] });
    await p.settle();
    const first = p.byTestId('strata-chip').first();
    assert.equal(await first.getByTestId('strata-definitions-count').textContent(), '+2 definitions');
    assert.equal(await first.getByTestId('strata-definitions-left-out').textContent(), '· 1 left out');

    // A malformed left-out list: the message is dropped, the chips stay as they were.
    await p.post({
      type: 'chips',
      chips: [{ ...chips[0], definitionsLeftOut: [{ label: 'a.ts:L1-2', symbol: 'a', reason: 7 }] }],
    } as never);
    await p.settle();
    assert.equal(await p.byTestId('strata-chip').first().getByTestId('strata-definitions-left-out').textContent(), '· 1 left out');
  });
});
