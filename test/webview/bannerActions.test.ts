/**
 * A banner's actions that do not settle its problem leave it standing: Show Log opens the log and the
 * error banner keeps its Retry. A pending removal's banner offers Undo.
 */
import * as assert from 'node:assert/strict';
import type { BannerView } from '../../src/protocol/messages';
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

describe('panel: banner actions', function () {
  this.timeout(60_000);
  const { open } = panelSuite();

  it('Show Log does not dismiss the error banner: Retry is still there and still works', async () => {
    const p = await open();
    const error: BannerView = {
      id: 'b7',
      severity: 'error',
      message: 'The provider did not answer within 60 s.',
      actions: ['retry', 'showLog', 'dismiss'],
    };
    await p.init(state({ banners: [error] }));
    const banner = p.byTestId('strata-error');
    await banner.getByText('Show Log').click();
    const showLog = await p.waitForRequest('bannerAction');
    assert.deepEqual(showLog.request, { kind: 'bannerAction', bannerId: 'b7', action: 'showLog' });
    await p.respond(showLog.requestId, { ok: true });
    // The host keeps the banner after Show Log and says so again.
    await p.post({ type: 'banners', banners: [error] });
    await p.settle();
    assert.equal(await banner.isVisible(), true, 'the banner stays');
    const retry = banner.getByText('Retry');
    assert.equal(await retry.isVisible(), true, 'Retry stays');
    await retry.click();
    await until('retry', async () => (await p.requests()).filter((r) => r.request.kind === 'bannerAction').length === 2);
    assert.deepEqual((await p.requests()).filter((r) => r.request.kind === 'bannerAction')[1].request, {
      kind: 'bannerAction',
      bannerId: 'b7',
      action: 'retry',
    });
  });

  it('a pending removal says what it costs, with Undo', async () => {
    const p = await open();
    const pending: BannerView = {
      id: 'b9',
      severity: 'info',
      message: 'src/a.ts: removed from next message. Removing breaks the cache: next message ~1,240 → ~9,870 uncached tokens.',
      actions: ['undo', 'dismiss'],
    };
    await p.init(state({ banners: [pending] }));
    const banner = p.byTestId('strata-info');
    assert.match((await banner.textContent()) ?? '', /~1,240 → ~9,870 uncached tokens/);
    assert.deepEqual(await banner.getByTestId('strata-banner-action').allTextContents(), ['Undo']);
    await banner.getByText('Undo').click();
    assert.deepEqual((await p.waitForRequest('bannerAction')).request, { kind: 'bannerAction', bannerId: 'b9', action: 'undo' });
  });
});
