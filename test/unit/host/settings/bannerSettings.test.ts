import * as assert from 'node:assert/strict';
import { actionKeepsBanner, settingNamedIn, settingsQuery } from '../../../../src/host/settings/bannerSettings';
import { validateThresholds } from '../../../../src/engine/budget';
import { BANNER_ACTIONS } from '../../../../src/protocol/messages';

/** A banner's Open Settings opens the one setting its message names (src/host/settings/bannerSettings.ts). */
describe('banner settings', () => {
  it('finds the first declared setting a message names', () => {
    assert.equal(
      settingNamedIn('strata.budget.targetPercent (90) must be below strata.budget.warnPercent (70).'),
      'strata.budget.targetPercent',
    );
    assert.equal(settingNamedIn("This workspace's settings (strata.baseUrl) send Strata's requests to 10.0.0.2."), 'strata.baseUrl');
    assert.equal(settingNamedIn('Set `strata.provider` to openai.'), 'strata.provider');
  });

  it('skips names that are not declared settings, and finds none in a message without one', () => {
    assert.equal(settingNamedIn('strata.nothing and strata.tools is a section; strata.tools.maxSteps is one.'), 'strata.tools.maxSteps');
    assert.equal(settingNamedIn('The provider did not answer.'), undefined);
    assert.equal(settingNamedIn('mystrata.model is not ours'), undefined);
  });

  it('names the setting of every thresholds error the budget check gives', () => {
    const errors = [
      validateThresholds({ warnPercent: 70, compactPercent: 80, targetPercent: 0 }),
      validateThresholds({ warnPercent: 70, compactPercent: 80, targetPercent: 75 }),
      validateThresholds({ warnPercent: 90, compactPercent: 80, targetPercent: 60 }),
      validateThresholds({ warnPercent: 70, compactPercent: 120, targetPercent: 60 }),
    ];
    assert.deepEqual(
      errors.map((e) => settingNamedIn(e!)),
      ['strata.budget.targetPercent', 'strata.budget.targetPercent', 'strata.budget.warnPercent', 'strata.budget.compactPercent'],
    );
  });

  it('scans a long message without a setting in linear time', () => {
    const long = 'strata.'.repeat(50_000);
    const started = process.hrtime.bigint();
    assert.equal(settingNamedIn(long), undefined);
    assert.ok(Number(process.hrtime.bigint() - started) / 1e6 < 1000, 'under a second for 350 KB');
  });

  it("opens exactly the named setting, or all of Strata's", () => {
    assert.equal(settingsQuery('strata.budget.warnPercent'), 'strata.budget.warnPercent');
    assert.equal(settingsQuery(undefined), '@ext:strata-dev.strata');
  });

  it('keeps the banner for the actions that only show something (settings, the log); the resolution and Dismiss settle it', () => {
    assert.deepEqual(
      BANNER_ACTIONS.filter((a) => actionKeepsBanner(a)),
      ['openSettings', 'editBaseUrl', 'showLog', 'raiseLimit'],
    );
  });
});
