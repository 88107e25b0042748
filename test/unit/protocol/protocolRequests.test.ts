/**
 * The request map's runtime checks (src/protocol/requests.ts): what the host accepts from the panel,
 * and what the panel accepts of the host's answers.
 */
import * as assert from 'node:assert/strict';
import { MAX_CODE_CHARS, parseHostToWebviewMessage, ProtocolError } from '../../../src/protocol/messages';
import { parseResponseValue, parseWebviewToHostMessage, type WebviewRequest } from '../../../src/protocol/requests';

describe('protocol: requests', () => {
  it('accepts each kind with its fields and returns a fresh copy', () => {
    const requests: WebviewRequest[] = [
      { kind: 'send', text: 'hi' },
      { kind: 'listModels' },
      { kind: 'addContext' },
      { kind: 'renameChat', chatId: 'c1', title: 'T' },
      { kind: 'selectModel', provider: 'openai', model: 'gpt-4o' },
      { kind: 'loadOlder', chatId: 'c1', beforeTurn: 3 },
      { kind: 'insertTerminal', code: 'npm test' },
      { kind: 'openSetting', setting: 'strata.prices' },
      { kind: 'openSetting', setting: 'strata.baseUrl' },
      { kind: 'applyCode', code: 'x', info: 'ts', lineAbove: '', blockId: 'c1/3:assistant/0' },
      { kind: 'undoApply', blockId: 'chat-9/12:assistant/2' },
    ];
    for (const request of requests) {
      const raw = { type: 'request', requestId: 7, request };
      const parsed = parseWebviewToHostMessage(raw);
      assert.deepEqual(parsed, raw);
      assert.ok(!(parsed instanceof ProtocolError) && parsed.type === 'request' && parsed.request !== request);
    }
  });

  it('accepts the typing notice, which takes no fields', () => {
    assert.deepEqual(parseWebviewToHostMessage({ type: 'typing' }), { type: 'typing' });
    assert.ok(parseWebviewToHostMessage({ type: 'typing', text: 'what the user typed' }) instanceof ProtocolError);
  });

  it('refuses extra fields, unknown kinds and wrong types', () => {
    for (const request of [
      { kind: 'stop', extra: 1 },
      { kind: 'addContext', source: 'git' },
      { kind: 'nope' },
      { kind: 'pinChip', chipId: 'a', pinned: 'yes' },
      [],
    ]) {
      assert.ok(parseWebviewToHostMessage({ type: 'request', requestId: 1, request }) instanceof ProtocolError);
    }
  });

  it('opens only the settings the panel offers (a message cannot steer the Settings editor elsewhere)', () => {
    for (const request of [
      { kind: 'openSetting' },
      { kind: 'openSetting', setting: 'workbench.startupEditor' },
      { kind: 'openSetting', setting: 'strata.prices', query: '@ext:x' },
      { kind: 'openSetting', setting: 7 },
    ]) {
      const parsed = parseWebviewToHostMessage({ type: 'request', requestId: 1, request });
      assert.ok(parsed instanceof ProtocolError, JSON.stringify(request));
    }
  });

  it('refuses a terminal insertion that is not one string within the code limit', () => {
    for (const request of [
      { kind: 'insertTerminal' },
      { kind: 'insertTerminal', code: 3 },
      { kind: 'insertTerminal', code: 'ls', run: true },
      { kind: 'insertTerminal', code: 'x'.repeat(MAX_CODE_CHARS + 1) },
    ]) {
      const parsed = parseWebviewToHostMessage({ type: 'request', requestId: 1, request });
      assert.ok(parsed instanceof ProtocolError);
    }
  });

  it('checks the model list the panel reads and drops the values it does not', () => {
    const options = [{ provider: 'openai', model: 'gpt-4o', label: 'OpenAI · gpt-4o', extra: true }];
    assert.deepEqual(parseResponseValue('listModels', options), [
      { provider: 'openai', model: 'gpt-4o', label: 'OpenAI · gpt-4o', detail: undefined },
    ]);
    for (const bad of [undefined, {}, [{ provider: 'other', model: 'm', label: 'l' }], [null]]) {
      const refused = parseResponseValue('listModels', bad);
      assert.ok(refused instanceof ProtocolError);
      assert.equal(refused.message, 'The extension sent an unexpected model list.');
    }
    assert.equal(parseResponseValue('attach', [{ id: 'c' }]), undefined);
    assert.equal(parseResponseValue('deleteChat', true), undefined);
  });

  it('refuses a code block id that is not <chat>/<message>/<number>, and checks the applied state the host posts', () => {
    for (const blockId of ['', 'c1', 'c1/3:assistant', '../x/1', 'c1/3 assistant/0', 'c1/3:assistant/x', `c1/${'m'.repeat(65)}/0`, 7]) {
      for (const request of [
        { kind: 'undoApply', blockId },
        { kind: 'applyCode', code: 'x', info: 'ts', lineAbove: '', blockId },
      ]) {
        assert.ok(parseWebviewToHostMessage({ type: 'request', requestId: 1, request }) instanceof ProtocolError, JSON.stringify(request));
      }
    }
    const applied = { type: 'applyState', blockId: 'c1/3:assistant/0', state: 'applied', accepted: 1, total: 2 };
    assert.deepEqual(parseHostToWebviewMessage(applied), applied);
    for (const bad of [
      { ...applied, state: 'maybe' },
      { ...applied, accepted: 3 },
      { ...applied, total: -1 },
      { ...applied, blockId: 4 },
    ]) {
      assert.equal(parseHostToWebviewMessage(bad), undefined, JSON.stringify(bad));
    }
  });
});
