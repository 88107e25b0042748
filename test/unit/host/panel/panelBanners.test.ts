/** The panel's banners (src/host/panel/panelBanners.ts): what is shown, replaced, capped and posted. */
import * as assert from 'node:assert/strict';
import { PanelBanners } from '../../../../src/host/panel/panelBanners';
import type { HostToWebviewMessage } from '../../../../src/protocol/messages';

function banners(): { b: PanelBanners; posted: HostToWebviewMessage[] } {
  const posted: HostToWebviewMessage[] = [];
  return { b: new PanelBanners((m) => posted.push(m)), posted };
}

describe('panel banners', () => {
  it('adds Dismiss, names the setting its message names for Open Settings, and posts the whole list', () => {
    const { b, posted } = banners();
    const id = b.show('error', 'The request timed out after 120 s (strata.requestTimeoutSeconds).', ['openSettings', 'retry']);
    assert.equal(id, 'b1');
    assert.deepEqual(b.shown, [
      {
        id: 'b1',
        severity: 'error',
        message: 'The request timed out after 120 s (strata.requestTimeoutSeconds).',
        actions: ['openSettings', 'retry', 'dismiss'],
        setting: 'strata.requestTimeoutSeconds',
      },
    ]);
    assert.deepEqual(posted, [{ type: 'banners', banners: b.shown }]);
    b.show('info', 'Saved.', ['dismiss'], 'strata.prices');
    assert.deepEqual(b.find('b2'), { id: 'b2', severity: 'info', message: 'Saved.', actions: ['dismiss'] }, 'no Open Settings: no setting');
  });

  it('replaces a banner with the same message and keeps the newest four', () => {
    const { b } = banners();
    for (const m of ['one', 'two', 'one', 'three', 'four', 'five']) b.show('warning', m);
    assert.deepEqual(
      b.shown.map((x) => `${x.id} ${x.message}`),
      ['b3 one', 'b4 three', 'b5 four', 'b6 five'],
    );
  });

  it('clears what the predicate picks and posts only when something went', () => {
    const { b, posted } = banners();
    b.show('error', 'bad');
    b.show('warning', 'careful');
    posted.length = 0;
    b.clear((x) => x.severity === 'info');
    assert.deepEqual(posted, []);
    b.clear((x) => x.severity === 'error');
    assert.deepEqual(
      b.shown.map((x) => x.message),
      ['careful'],
    );
    b.clear();
    assert.deepEqual(b.shown, []);
    assert.equal(posted.length, 2);
  });
});
