/**
 * Feedback where the action happened, in the panel: a cut banner message offers a visible More
 * (keyboard, aria-expanded) that is not an action; a connection error's Edit Base URL and a size
 * refusal's actions are buttons of the banner; the `@` picker marks the files an attach would
 * refuse, with the reason, and choosing one asks the host (which answers with the refusal).
 */
import * as assert from 'node:assert/strict';
import type { MentionView } from '../../src/protocol/mentions';
import type { BannerView, ChipView } from '../../src/protocol/messages';
import { state } from './fixtures';
import { panelSuite } from './suite';

async function until(what: string, fn: () => Promise<boolean>, timeoutMs = 4000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await fn()) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const CONNECTION =
  'Cannot connect to http://127.0.0.1:9/v1: connection refused. Is the server running? Check that the server is started and listening on that port, and that strata.baseUrl names it (OpenAI-compatible servers usually end in /v1).';

describe('panel: refusals and errors say what can be done', function () {
  this.timeout(60_000);
  const { open } = panelSuite();

  it('a cut message shows More (keyboard, aria-expanded); More is not an action; Edit Base URL is', async () => {
    const p = await open({ width: 280, height: 420 });
    const banner: BannerView = {
      id: 'b1',
      severity: 'error',
      message: CONNECTION,
      actions: ['retry', 'editBaseUrl', 'showLog', 'dismiss'],
    };
    await p.init(state({ banners: [banner] }));
    const error = p.byTestId('strata-error');
    const more = error.getByTestId('strata-banner-more');
    await more.waitFor({ state: 'visible' });
    assert.equal(await more.textContent(), 'More');
    assert.equal(await more.getAttribute('aria-expanded'), 'false');
    assert.equal(await more.getAttribute('aria-controls'), 'banner-message-b1');
    const message = error.getByTestId('strata-banner-message');
    const clamped = (await message.boundingBox())!.height;
    assert.deepEqual(
      await error.getByTestId('strata-banner-action').allTextContents(),
      ['Retry', 'Edit Base URL', 'Show Log'],
      'Edit Base URL beside Retry',
    );

    // Keyboard: Tab reaches More after the actions; Enter expands, Space collapses.
    await more.focus();
    await p.page.keyboard.press('Enter');
    assert.equal(await more.getAttribute('aria-expanded'), 'true');
    assert.equal(await more.textContent(), 'Less');
    const whole = (await message.boundingBox())!.height;
    assert.ok(whole > clamped + 10, `the whole message shows (${clamped}px → ${whole}px)`);
    assert.equal(await message.evaluate((el) => el.scrollHeight <= el.clientHeight + 1), true, 'nothing of it is cut');
    await p.page.keyboard.press('Space');
    assert.equal(await more.getAttribute('aria-expanded'), 'false');
    assert.equal((await message.boundingBox())!.height, clamped);
    // A click on the cut message itself expands it too.
    await message.click();
    assert.equal(await more.getAttribute('aria-expanded'), 'true');
    assert.equal((await p.requests()).filter((r) => r.request.kind === 'bannerAction').length, 0, 'More is not a banner action');

    await error.getByText('Edit Base URL').click();
    const action = await p.waitForRequest('bannerAction');
    assert.deepEqual(action.request, { kind: 'bannerAction', bannerId: 'b1', action: 'editBaseUrl' });
  });

  it('a message that fits shows no More', async () => {
    const p = await open({ width: 600, height: 600 });
    await p.init(
      state({
        banners: [
          {
            id: 'b2',
            severity: 'warning',
            message: 'logo.png is binary (PNG image); only text files can be attached.',
            actions: ['dismiss'],
          },
        ],
      }),
    );
    await p.settle();
    assert.equal(await p.byTestId('strata-warning').getByTestId('strata-banner-more').isVisible(), false);
    assert.equal(await p.page.locator('.banner-actions').first().isVisible(), false, 'no empty actions row');
  });

  it('a size refusal offers its actions as buttons, named for the file', async () => {
    const p = await open();
    const banner: BannerView = {
      id: 'b3',
      severity: 'warning',
      message: 'app.log is 20 MB (limit 8 MB); nothing of it was sent.',
      actions: ['attachHead', 'raiseLimit', 'dismiss'],
      setting: 'strata.context.maxFileBytes',
      path: 'app.log',
    };
    await p.init(state({ banners: [banner] }));
    const warning = p.byTestId('strata-warning');
    await warning.waitFor({ state: 'visible' });
    assert.deepEqual(await warning.getByTestId('strata-banner-action').allTextContents(), ['Attach First Lines', 'Raise Limit…']);
    await warning.getByText('Attach First Lines').click();
    assert.deepEqual((await p.waitForRequest('bannerAction')).request, { kind: 'bannerAction', bannerId: 'b3', action: 'attachHead' });
  });

  it('the @ picker marks the files an attach would refuse, with the reason; choosing one asks the host', async () => {
    const p = await open();
    await p.init(state());
    const mentions: MentionView[] = [
      { kind: 'file', label: 'src/app.ts', detail: 'src', ref: { kind: 'file', path: 'src/app.ts' } },
      { kind: 'file', label: 'logs/app.log', detail: 'logs', ref: { kind: 'file', path: 'logs/app.log' }, refused: '20 MB (limit 8 MB)' },
      {
        kind: 'file',
        label: 'media/logo.png',
        detail: 'media',
        ref: { kind: 'file', path: 'media/logo.png' },
        refused: 'binary (PNG image)',
      },
      { kind: 'editor', label: '.env', detail: 'open editor', ref: { kind: 'file', path: '.env' }, refused: 'excluded' },
    ];
    await p.byTestId('strata-input').click();
    await p.page.keyboard.type('@');
    await until('a mentions request', async () => (await p.requests()).some((r) => r.request.kind === 'mentions'));
    const req = (await p.requests()).filter((r) => r.request.kind === 'mentions').at(-1)!;
    await p.respond(req.requestId, { ok: true, value: mentions });
    const picker = p.byTestId('strata-picker');
    await until('the options', async () => (await picker.getByRole('option').count()) === 4);
    assert.deepEqual(await picker.getByTestId('strata-picker-refused').allTextContents(), [
      '20 MB (limit 8 MB)',
      'binary (PNG image)',
      'excluded',
    ]);
    assert.equal(await picker.getByRole('option').nth(0).getAttribute('data-refused'), null);
    assert.equal(await picker.getByRole('option').nth(1).getAttribute('title'), 'logs/app.log — logs (not attachable: 20 MB (limit 8 MB))');
    // Choosing a marked file is not a silent attach: the host is asked, and answers with the refusal (its banner).
    await p.page.keyboard.press('ArrowDown');
    await p.page.keyboard.press('Enter');
    const attach = await p.waitForRequest('attachMention');
    assert.deepEqual(attach.request, { kind: 'attachMention', ref: { kind: 'file', path: 'logs/app.log' } });
  });
  it('a First Lines chip in a narrow side bar keeps its name and its Remove inside the composer', async () => {
    const p = await open({ width: 360, height: 600 });
    await p.init(state());
    for (const width of [360, 300, 260]) {
      await p.page.setViewportSize({ width, height: 600 });
      const chip: ChipView = {
        id: 'chip-1',
        kind: 'file',
        label: 'logs/server.log:L1-2302',
        tokens: 64_812,
        pinned: false,
        partial: { lines: 2302, of: 262_144 },
      };
      await p.post({ type: 'chips', chips: [chip] });
      const el = p.byTestId('strata-chip');
      await el.waitFor({ state: 'visible' });
      const row = (await p.page.locator('footer.composer').boundingBox())!;
      const box = (await el.boundingBox())!;
      const label = (await el.locator('.chip-label').boundingBox())!;
      const remove = (await el.getByTestId('strata-chip-remove').boundingBox())!;
      const note = el.getByTestId('strata-chip-partial');
      assert.ok(
        box.x + box.width <= row.x + row.width + 0.5,
        `${width}px: the chip ends inside the composer (${box.x + box.width} > ${row.x + row.width})`,
      );
      assert.ok(remove.x + remove.width <= box.x + box.width + 0.5, `${width}px: Remove is inside the chip`);
      assert.ok(label.width >= 48, `${width}px: the file's name shows (${label.width}px)`);
      // The note gives way first (cut with an ellipsis); the chip's title says it whole.
      assert.match((await el.getAttribute('title')) ?? '', /first 2,302 lines of 262,144/);
      assert.equal(
        await note.evaluate(
          (n) => (globalThis as unknown as { getComputedStyle(e: unknown): { textOverflow: string } }).getComputedStyle(n).textOverflow,
        ),
        'ellipsis',
      );
    }
  });
});
