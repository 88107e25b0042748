/**
 * An error banner is whole on screen: its message, its action buttons and Dismiss inside the
 * visible box of the banner area, unscrolled, with the input in view, in a side bar 260 px and
 * 300 px wide, as short as the chat view gets at 1280×800 with Context Layers open and as tall as it
 * is with Context Layers closed, in the light, dark and high-contrast themes. Screenshots in
 * .harness/webview/screenshots/.
 */
import * as assert from 'node:assert/strict';
import type { BannerView } from '../../src/protocol/messages';
import { chips, longChat, state } from './fixtures';
import type { Panel } from './harness';
import type { ThemeKind } from './server';
import { panelSuite } from './suite';

interface Box {
  top: number;
  bottom: number;
  left: number;
  right: number;
}

const BANNERS: Record<string, BannerView> = {
  'unknown model': {
    id: 'b1',
    severity: 'error',
    message:
      'Model "gpt-4o" was not found at http://127.0.0.1:37061 (HTTP 404). Check the model name (Strata: Select Model) and the base URL.',
    actions: ['selectModel', 'openSettings', 'dismiss'],
  },
  'no API key': {
    id: 'b2',
    severity: 'info',
    message: 'No API key is set for OpenAI: nothing is sent. Set one, or choose another provider in the settings.',
    actions: ['setApiKey', 'openSettings'],
  },
};

/** Each button's box and the area's visible box, in the page's coordinates. */
async function geometry(
  p: Panel,
): Promise<{ area: Box; scrollTop: number; buttons: { name: string; box: Box }[]; input: Box; view: number }> {
  return (await p.page.evaluate(`(() => {
    const box = (el) => {
      const r = el.getBoundingClientRect();
      return { top: r.top, bottom: r.bottom, left: r.left, right: r.right };
    };
    const area = document.querySelector('.banner-area');
    const buttons = [...document.querySelectorAll('[data-testid="strata-banner-action"], [data-testid="strata-banner-dismiss"]')]
      .filter((el) => el.getClientRects().length > 0)
      .map((el) => ({ name: el.textContent.trim() || el.getAttribute('aria-label') || '?', box: box(el) }));
    return {
      area: box(area),
      scrollTop: area.scrollTop,
      buttons,
      input: box(document.querySelector('[data-testid="strata-input"]')),
      view: window.innerHeight,
    };
  })()`)) as { area: Box; scrollTop: number; buttons: { name: string; box: Box }[]; input: Box; view: number };
}

describe('panel: an error banner is whole on screen', function () {
  this.timeout(120_000);
  const { open } = panelSuite();

  for (const theme of ['light', 'dark', 'hc'] as ThemeKind[]) {
    for (const [width, height] of [
      [260, 300],
      [300, 314],
      [260, 520],
    ]) {
      for (const [what, banner] of Object.entries(BANNERS)) {
        it(`${what}, ${theme}, ${width}×${height}: buttons inside the banner area's visible box, the input in view`, async () => {
          const p = await open({ theme, width, height });
          await p.init(state({ messages: longChat(8), chips: chips.slice(0, 1), banners: [banner] }));
          await p.settle();
          await p.settle();
          const g = await geometry(p);
          assert.ok(g.buttons.length >= 2, `the banner's buttons: ${g.buttons.map((b) => b.name).join(', ')}`);
          assert.equal(g.scrollTop, 0, 'the banner area is not scrolled');
          for (const b of g.buttons) {
            assert.ok(
              b.box.top >= g.area.top - 0.5 && b.box.bottom <= g.area.bottom + 0.5,
              `${b.name}: ${b.box.top}–${b.box.bottom} px, the banner area shows ${g.area.top}–${g.area.bottom} px`,
            );
            assert.ok(b.box.left >= 0 && b.box.right <= width + 0.5, `${b.name} ends at ${b.box.right} px in a ${width} px view`);
          }
          assert.ok(g.input.bottom <= g.view + 0.5, `the input ends at ${g.input.bottom} px in a ${g.view} px view`);
          if (what === 'unknown model') await p.screenshot(`banner-whole-${theme}-${width}x${height}`);
        });
      }
    }
  }

  it('a second banner scrolls inside the area; the first stays whole', async () => {
    const p = await open({ width: 260, height: 300 });
    const second: BannerView = { ...BANNERS['unknown model'], id: 'b3', message: 'The request could not be built.', actions: ['showLog'] };
    await p.init(state({ messages: longChat(8), banners: [BANNERS['unknown model'], second] }));
    await p.settle();
    const g = await geometry(p);
    const first = g.buttons.filter((b) => b.name !== 'Show Log');
    for (const b of first)
      assert.ok(b.box.bottom <= g.area.bottom + 0.5, `${b.name} ends at ${b.box.bottom}, the area at ${g.area.bottom}`);
    assert.ok(g.input.bottom <= g.view + 0.5, 'the input stays in view');
  });
});
