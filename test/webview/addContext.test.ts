/**
 * Add Context… in the composer (a named button, reached and pressed from the keyboard, asks the host
 * for its quick pick; axe finds nothing serious), messages announced with their turn, size and first
 * words, and the last messages shown from the view's saved state after a reload, before the host
 * answers, then replaced by the host's state.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { assistantMessage, CHAT_ID, state, userMessage } from './fixtures';
import type { Panel } from './harness';
import { panelSuite } from './suite';

const AXE_SOURCE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

async function seriousAxe(p: Panel): Promise<string[]> {
  await p.settle();
  assert.deepEqual(await p.problems(), { violations: [], errors: [] });
  await p.page.evaluate(AXE_SOURCE);
  return p.page.evaluate(async () => {
    type Result = { violations: { id: string; impact: string | null; nodes: { target: unknown[] }[] }[] };
    const axe = (globalThis as unknown as { axe: { run(ctx: unknown, opts: unknown): Promise<Result> } }).axe;
    const r = await axe.run((globalThis as unknown as { document: unknown }).document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'] },
      resultTypes: ['violations'],
    });
    return r.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id}: ${JSON.stringify(v.nodes.map((n) => n.target))}`);
  });
}

type Doc = { activeElement: { getAttribute(n: string): string | null } | null; body: { classList: { contains(c: string): boolean } } };

async function savedShown(p: Panel): Promise<boolean> {
  return p.page.evaluate(() => (globalThis as unknown as { document: Doc }).document.body.classList.contains('strata-saved'));
}

async function labels(p: Panel): Promise<(string | null)[]> {
  return p.page.getByTestId('strata-message').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')));
}

async function bodies(p: Panel): Promise<string[]> {
  return p.page.getByTestId('strata-message-body').evaluateAll((els) => els.map((e) => (e.textContent ?? '').trim()));
}

describe('chat panel: Add Context…, announced messages, the saved transcript', function () {
  this.timeout(60_000);
  const { open } = panelSuite();

  it('has a named Add Context… button, reached by Tab and pressed with Enter or Space, that asks the host', async () => {
    const p = await open({ width: 260, height: 600 });
    await p.init(state({ messages: [userMessage(1, 'One'), assistantMessage(1, 'Reply.')] }));
    const button = p.byTestId('strata-add-context');
    assert.equal(await button.isVisible(), true, 'visible at 260 px');
    assert.equal(await button.getAttribute('label'), 'Add Context…');
    // Tab from the input goes to it first: it is the toolbar's first control.
    await p.byTestId('strata-input').focus();
    await p.page.keyboard.press('Tab');
    assert.equal(
      await p.page.evaluate(() => (globalThis as unknown as { document: Doc }).document.activeElement?.getAttribute('data-testid') ?? null),
      'strata-add-context',
    );
    await p.clearPosted();
    await p.page.keyboard.press('Enter');
    const first = await p.waitForRequest('addContext');
    assert.deepEqual(first.request, { kind: 'addContext' });
    await p.clearPosted();
    await p.page.keyboard.press(' ');
    assert.deepEqual((await p.waitForRequest('addContext')).request, { kind: 'addContext' });
    // The other attach buttons keep their hooks.
    for (const id of ['strata-attach-file', 'strata-attach-selection', 'strata-attach-editors'])
      assert.equal(await p.byTestId(id).count(), 1);
    assert.deepEqual(await seriousAxe(p), []);
    await p.reload(); // axe's own inline styles are reported by the page's CSP: a fresh page for the suite's check
  });

  it('announces each message with who, its turn, its size and its first words', async () => {
    const p = await open({ width: 400, height: 700 });
    await p.init(
      state({
        messages: [
          userMessage(3, 'Why does the cart total drop the discount when a coupon and a sale apply together?'),
          assistantMessage(3, '## Cause\n\nThe **discount** is applied twice.'),
          userMessage(4, 'Thanks'),
        ],
      }),
    );
    assert.deepEqual(await labels(p), [
      'You, turn 3, 16 words: Why does the cart total drop the discount…',
      'Strata, turn 3, 6 words: Cause The discount is applied twice.',
      'You, turn 4, 1 word: Thanks',
    ]);
    // A streaming reply says so, and gets its words once it is complete.
    await p.post({
      type: 'turnStarted',
      chatId: CHAT_ID,
      turnId: 't5',
      user: userMessage(5, 'And the tax?'),
      assistant: assistantMessage(5, '', { status: 'streaming', usage: undefined }),
    });
    await p.post({ type: 'chunk', chatId: CHAT_ID, turnId: 't5', seq: 0, text: 'Tax is computed' });
    await p.settle();
    assert.equal((await labels(p))[4], 'Strata, turn 5, replying');
    await p.post({ type: 'turnEnded', chatId: CHAT_ID, turnId: 't5', assistant: assistantMessage(5, 'Tax is computed last.'), kept: true });
    await p.settle();
    assert.equal((await labels(p))[4], 'Strata, turn 5, 4 words: Tax is computed last.');
  });

  it('after a reload shows the last transcript from its saved state before the host answers, then the host’s', async () => {
    const p = await open({ width: 400, height: 700 });
    await p.init(state({ messages: [userMessage(1, 'First question'), assistantMessage(1, 'First answer.')] }));
    await p.post({
      type: 'turnStarted',
      chatId: CHAT_ID,
      turnId: 't2',
      user: userMessage(2, 'Second question'),
      assistant: assistantMessage(2, '', { status: 'streaming', usage: undefined }),
    });
    await p.post({ type: 'turnEnded', chatId: CHAT_ID, turnId: 't2', assistant: assistantMessage(2, 'Second answer.'), kept: true });
    await p.settle();
    await p.reload();
    await p.settle();
    // No init yet: the saved messages, in order.
    assert.deepEqual(await bodies(p), ['First question', 'First answer.', 'Second question', 'Second answer.']);
    assert.equal(await savedShown(p), true);
    assert.deepEqual(await seriousAxe(p), []);
    // axe's own inline styles are reported by the page's CSP: loaded again, from the same saved state.
    await p.reload();
    await p.settle();
    assert.deepEqual(await bodies(p), ['First question', 'First answer.', 'Second question', 'Second answer.']);
    // The host's state replaces them (another window added a turn meanwhile).
    await p.init(
      state({
        messages: [
          userMessage(1, 'First question'),
          assistantMessage(1, 'First answer.'),
          userMessage(2, 'Second question'),
          assistantMessage(2, 'Second answer.'),
          userMessage(3, 'Third'),
          assistantMessage(3, 'Third answer.'),
        ],
      }),
    );
    assert.deepEqual(await bodies(p), ['First question', 'First answer.', 'Second question', 'Second answer.', 'Third', 'Third answer.']);
    assert.equal(await savedShown(p), false);
  });
});
