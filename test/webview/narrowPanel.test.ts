import * as assert from 'node:assert/strict';
import { assistantMessage, bar, chips, meter, model, state, userMessage } from './fixtures';
import { historyChats } from './historyFixtures';
import type { Panel } from './harness';
import type { ThemeKind } from './server';
import { panelSuite } from './suite';

/** Elements whose text is wider than they are and is not scrolled: cut by an ellipsis or clipped. */
async function clipped(p: Panel): Promise<string[]> {
  return (await p.page.evaluate(`(() => {
    const out = [];
    for (const el of Array.from(document.querySelectorAll('body *'))) {
      const cs = getComputedStyle(el);
      if (!el.offsetParent || !el.innerText || cs.overflowX === 'auto' || cs.overflowX === 'scroll') continue;
      if (el.closest('pre, .layer-bar')) continue;
      if (el.scrollWidth > el.clientWidth + 1) out.push(el.className + ': "' + el.innerText.slice(0, 60) + '"');
    }
    return out;
  })()`)) as string[];
}

function narrowState() {
  return state({
    chats: historyChats(),
    model: model({ label: 'gpt-4o', imitation: true }),
    chips: [...chips, { id: 'chip-3', kind: 'file', label: 'src/services/store/chatIndex.ts', tokens: 123_456, pinned: false }],
    messages: [
      userMessage(1, 'Why does the cache miss on every second turn?', ['src/engine/library.ts', 'src/engine/cache.ts:L12-30']),
      assistantMessage(
        1,
        'The library is re-sorted each turn. Keep the first-seen order:\n\n```ts\nconst seen = new Map<string, Artifact>();\n```',
        {
          cost: { text: '$0.021, saved $0.012', usd: 0.0213, savedUsd: 0.0123 },
          usage: { input: 123_245, cacheRead: 117_837, cacheWrite: 0, output: 1_412 },
          bar: bar({ layers: { L1: 1_200, L2: 96_400, L3: 18_500, L4: 7_000, L5: 145 } }),
        },
      ),
    ],
  });
}

describe('a 260 px panel: nothing clipped mid-word or mid-number (real browser)', function () {
  this.timeout(120_000);
  const suite = panelSuite();

  it('shows the title, the model, the chips, the reply footer and the meter whole or cut after a word', async () => {
    const p = await suite.open({ width: 260, height: 700 });
    await p.init(narrowState());
    assert.deepEqual(await clipped(p), []);
    assert.match((await p.byTestId('strata-chat-title').innerText()).trim(), /^Refactor( the( tokenizer)?)?…$/, 'cut after a word');
    assert.match((await p.page.locator('.model-label').innerText()).trim(), /^(Imitation · )?gpt-4o$/, 'the model’s name whole');
    assert.match((await p.byTestId('strata-model').getAttribute('title')) ?? '', /^Local imitation server · gpt-4o/);
    await p.screenshot('narrow-260-chat');
    // Wider, the labels come back whole.
    await p.page.setViewportSize({ width: 520, height: 700 });
    await p.settle();
    assert.equal((await p.byTestId('strata-chat-title').innerText()).trim(), 'Refactor the tokenizer cache');
    assert.equal((await p.page.locator('.model-label').innerText()).trim(), 'Local imitation server · gpt-4o');
  });

  it('fits the title again when its neighbours take its room, with no window resize', async () => {
    const p = await suite.open({ width: 520, height: 700 });
    await p.init(narrowState());
    assert.equal((await p.byTestId('strata-chat-title').innerText()).trim(), 'Refactor the tokenizer cache');
    // A neighbour grows inside the header (as toolbar buttons do when their element upgrades late).
    await p.page.evaluate(`(() => {
      const wide = document.createElement('span');
      wide.style.cssText = 'flex: none; width: 240px';
      document.querySelector('.header').appendChild(wide);
    })()`);
    // The observer reports after layout and the fit follows on the next frame.
    await p.settle();
    await p.settle();
    assert.deepEqual(await clipped(p), []);
    assert.match((await p.byTestId('strata-chat-title').innerText()).trim(), /^Refactor( the( tokenizer)?)?…$/, 'cut after a word');
  });

  it('gives the model its full label back when a neighbour leaves, with no window resize', async () => {
    const p = await suite.open({ width: 520, height: 700 });
    await p.init(narrowState());
    const label = async () => (await p.page.locator('.model-label').innerText()).trim();
    assert.equal(await label(), 'Local imitation server · gpt-4o');
    // Stop takes room beside the model while a reply streams, and leaves it afterwards.
    await p.page.evaluate(`(() => {
      const stop = document.querySelector('[data-testid="strata-stop"]');
      stop.hidden = false;
      stop.style.width = '260px';
    })()`);
    await p.settle();
    await p.settle();
    assert.notEqual(await label(), 'Local imitation server · gpt-4o', 'shortened while Stop takes the room');
    await p.page.evaluate(`document.querySelector('[data-testid="strata-stop"]').hidden = true`);
    await p.settle();
    await p.settle();
    assert.equal(await label(), 'Local imitation server · gpt-4o');
  });

  it('keeps the layer bar’s tooltip inside the panel', async () => {
    const p = await suite.open({ width: 260, height: 700 });
    await p.init(narrowState());
    await p.byTestId('strata-layer-bar').first().hover();
    const tip = p.byTestId('strata-tooltip');
    await tip.waitFor({ state: 'visible' });
    const box = (await tip.boundingBox())!;
    assert.ok(box.x >= 0 && box.x + box.width <= 260 && box.y >= 0 && box.y + box.height <= 700, `tooltip at ${JSON.stringify(box)}`);
    assert.deepEqual(await clipped(p), []);
  });

  for (const theme of ['dark', 'light', 'hc'] as ThemeKind[]) {
    it(`history view at 260 px, ${theme} theme: full titles, nothing clipped`, async () => {
      const p = await suite.open({ width: 260, height: 700, theme });
      await p.init(narrowState());
      await p.byTestId('strata-history-button').click();
      await p.byTestId('strata-history').waitFor({ state: 'visible' });
      assert.deepEqual(await clipped(p), []);
      await p.screenshot(`narrow-260-history-${theme}`);
      await p.byTestId('strata-history-search').fill('cache');
      const asked = await p.waitForRequest('searchChats');
      await p.respond(asked.requestId, {
        ok: true,
        value: {
          hits: [
            { chatId: 'chat-1' },
            { chatId: 'chat-2' },
            { chatId: 'chat-4', excerpt: '…so the prompt cache holds when the block order is kept…' },
          ],
          complete: true,
        },
      });
      await p.screenshot(`narrow-260-history-search-${theme}`);
    });
  }
  it('only the conversation scrolls: the page itself never overflows, typing or tabbing', async () => {
    // A root that overflows by a few pixels is scrolled by focus() and scrollIntoView even under
    // overflow: hidden, moving the whole panel (header and all) up.
    const rootOverflow = () =>
      p.page.evaluate(`(() => {
        const h = document.documentElement, b = document.body, a = document.getElementById('app');
        return [h.scrollHeight - h.clientHeight, b.scrollHeight - b.clientHeight, a.scrollHeight - a.clientHeight, h.scrollTop + b.scrollTop + a.scrollTop, h.scrollWidth - h.clientWidth];
      })()`) as Promise<number[]>;
    const states = {
      'a long chat, an error banner, a cache-expired meter': {
        ...narrowState(),
        meter: meter({
          cacheExpired: 'The cache likely expired: the next message costs $0.031 more.',
          chatCost: 'Chat $0.052 · saved $0.024',
        }),
      },
      'an empty chat with no model': state({
        messages: [],
        model: model({ provider: 'none', model: '', label: 'No model configured', configured: false }),
      }),
    };
    const p = await suite.open({ width: 1280, height: 800 });
    for (const [width, height] of [
      [1280, 800],
      [300, 700],
      [260, 380],
    ]) {
      await p.page.setViewportSize({ width, height });
      for (const [name, s] of Object.entries(states)) {
        await p.init({
          ...s,
          banners: name.includes('banner')
            ? [
                {
                  id: 'b',
                  severity: 'error',
                  message: 'Cannot connect: connection refused. '.repeat(6),
                  actions: ['retry', 'editBaseUrl', 'showLog', 'dismiss'],
                },
              ]
            : [],
        });
        await p.post({
          type: 'inContext',
          inContext: { items: [{ ref: 'file:src/a.ts', kind: 'file', label: 'src/a.ts', tokens: 1_200, pinned: false }], tokens: 1_200 },
        });
        await p.settle();
        assert.deepEqual(await rootOverflow(), [0, 0, 0, 0, 0], `${name} at ${width}×${height}`);
        await p.byTestId('strata-input').click();
        await p.page.keyboard.type('A question\nover\nthree lines');
        for (let i = 0; i < 6; i++) await p.page.keyboard.press('Tab');
        await p.settle();
        assert.deepEqual(await rootOverflow(), [0, 0, 0, 0, 0], `${name} at ${width}×${height}, typed and tabbed`);
      }
    }
  });
});
