/**
 * Where the model's window came from, in the meter's tooltip, and the notes under a reply that say
 * what the model did not see (a file cut to fit a small window, a server's own cut).
 */
import * as assert from 'node:assert/strict';
import { assistantMessage, meter, state, userMessage } from './fixtures';
import { panelSuite } from './suite';

describe('the model window in the panel', () => {
  const { open } = panelSuite();

  for (const [source, words] of [
    ['server', 'from the server'],
    ['user', 'your setting'],
    ['table', "Strata's table"],
    ['assumed', 'assumed'],
  ] as const) {
    it(`the meter's tooltip says the window is ${words}`, async () => {
      const p = await open();
      await p.init(
        state({ meter: meter({ used: 1127, budget: 5981, contextWindow: 8192, reservedOutput: 2048, margin: 163, windowSource: source }) }),
      );
      const m = p.byTestId('strata-meter');
      await m.hover();
      const tip = p.byTestId('strata-tooltip');
      await tip.waitFor({ state: 'visible' });
      const text = (await tip.textContent()) ?? '';
      assert.ok(text.includes(`Context window8,192 · ${words}`), text);
      assert.ok(text.includes('− Reserved output2,048'), text);
      assert.equal(await p.byTestId('strata-window-assumed').count(), source === 'assumed' ? 1 : 0);
    });
  }

  it('a reply shows its notes under the text', async () => {
    const p = await open();
    const note =
      'src/big.ts was sent as its outline to fit the context window: structure and first lines (120 of 3385 lines) (see Context Layers).';
    await p.init(
      state({ messages: [userMessage(1, 'What does compute3 return?'), assistantMessage(1, 'value * factor + 3', { notes: [note] })] }),
    );
    const notes = p.byTestId('strata-message-note');
    assert.equal(await notes.count(), 1);
    assert.equal(await notes.first().textContent(), note);
    assert.equal(await notes.first().isVisible(), true);
  });
});
