import * as assert from 'node:assert/strict';
import { BASE_URL_SETTING, providerErrorActions } from '../../../../src/host/providers/providerAdvice';

describe('Provider errors: the banner offers the fix first', () => {
  it('a connection that failed offers Edit Base URL (strata.baseUrl), except for the editor’s own models', () => {
    assert.deepEqual(providerErrorActions('network'), ['retry', 'editBaseUrl', 'showLog']);
    assert.deepEqual(providerErrorActions('network', false), ['retry', 'showLog']);
    assert.equal(BASE_URL_SETTING, 'strata.baseUrl');
    assert.deepEqual(providerErrorActions('bad-key'), ['setApiKey', 'retry']);
    assert.deepEqual(providerErrorActions('unknown-model'), ['selectModel', 'openSettings']);
    assert.deepEqual(providerErrorActions('server'), ['retry', 'showLog']);
  });
});
