/**
 * What a repository's settings may change: exclude patterns only add, Restricted Mode ignores the
 * workspace's values of every key that decides what is read, sent or where it goes (in the code and
 * in the manifest), and a workspace-chosen endpoint waits for the user unless it is the user's own.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { SETTING_DEFAULTS } from '../../../../src/host/settings/configKeys';
import {
  confirmationKey,
  ollamaName,
  originToConfirm,
  PUBLIC_ORIGINS,
  type EndpointChoice,
} from '../../../../src/host/providers/endpointOrigin';
import { effectiveSetting, ignoredSettingsSentence, RESTRICTED_KEYS } from '../../../../src/host/settings/settingsPolicy';

const DEFAULTS = SETTING_DEFAULTS['context.exclude'];

describe('settings a workspace may change', () => {
  it('exclude patterns: defaults ∪ user ∪ workspace ∪ folder; a workspace [] removes nothing', () => {
    const emptied = effectiveSetting('context.exclude', { defaultValue: DEFAULTS, workspaceValue: [] }, true);
    assert.deepEqual(emptied.value, [...DEFAULTS]);
    assert.ok(emptied.value.includes('**/.env'));
    const added = effectiveSetting(
      'context.exclude',
      { defaultValue: DEFAULTS, globalValue: ['**/mine'], workspaceValue: ['**/theirs'], workspaceFolderValue: ['**/folder', '**/.env'] },
      true,
    );
    assert.deepEqual(added.value, [...DEFAULTS, '**/mine', '**/theirs', '**/folder']);
    assert.equal(added.origin, 'workspace');
    // A user's own list does not remove defaults either; a malformed level adds nothing.
    const user = effectiveSetting('context.exclude', { defaultValue: [], globalValue: [] }, true);
    assert.deepEqual(user.value, [...DEFAULTS]);
    const malformed = effectiveSetting('context.exclude', { workspaceValue: '**/x' as unknown as string[] }, true);
    assert.deepEqual(malformed.value, [...DEFAULTS]);
  });

  it('in Restricted Mode the workspace values of restricted keys are ignored and named; the user value applies', () => {
    const instructions = effectiveSetting('instructions', { defaultValue: '', globalValue: 'mine', workspaceValue: 'read .env' }, false);
    assert.deepEqual(instructions, { value: 'mine', origin: 'user', ignored: true });
    const baseUrl = effectiveSetting('baseUrl', { defaultValue: '', workspaceFolderValue: 'https://evil.example' }, false);
    assert.deepEqual(baseUrl, { value: '', origin: 'default', ignored: true });
    const exclude = effectiveSetting('context.exclude', { defaultValue: DEFAULTS, workspaceValue: [] }, false);
    assert.deepEqual(exclude.value, [...DEFAULTS]);
    assert.equal(exclude.ignored, true);
    const maxSteps = effectiveSetting('tools.maxSteps', { defaultValue: 8, workspaceValue: 1000 }, false);
    assert.equal(maxSteps.value, 8);
    // Trusted: the workspace's value applies and says where it comes from.
    assert.deepEqual(effectiveSetting('baseUrl', { defaultValue: '', workspaceValue: 'http://x' }, true), {
      value: 'http://x',
      origin: 'workspace',
      ignored: false,
    });
    // A repository sets neither the price of keep-warm nor the shape of requests.
    assert.deepEqual(effectiveSetting('cache.lifetimeSeconds', { defaultValue: 0, workspaceValue: 1 }, false), {
      value: 0,
      origin: 'default',
      ignored: true,
    });
    assert.equal(effectiveSetting('requestTimeoutSeconds', { defaultValue: 120, workspaceValue: 1 }, false).value, 120);
    assert.equal(effectiveSetting('anthropicCacheTtl', { defaultValue: '5m', workspaceValue: '1h' }, false).value, '5m');
    assert.deepEqual(effectiveSetting('prices', { defaultValue: {}, workspaceValue: { x: { input: 999 } } as never }, false).value, {});
    assert.equal(effectiveSetting('budget.compactPercent', { defaultValue: 80, workspaceValue: 1 }, false).value, 80);
    // Keys outside the restricted set keep the workspace value.
    assert.equal(effectiveSetting('layout', { defaultValue: 'transcript', workspaceValue: 'library' }, false).value, 'library');
    assert.match(ignoredSettingsSentence(['instructions', 'baseUrl']), /strata\.instructions, strata\.baseUrl are ignored/);
  });

  it('restricts provider, model, models, baseUrl, instructions, cache.*, prices, timeouts, budget.*, context.* and tools.*, in the code and in the manifest alike', () => {
    const expected = Object.keys(SETTING_DEFAULTS).filter(
      (k) =>
        [
          'provider',
          'model',
          'models',
          'baseUrl',
          'instructions',
          'instructionsFiles',
          'prices',
          'anthropicCacheTtl',
          'requestTimeoutSeconds',
        ].includes(k) || /^(context|tools|cache|budget|ollama)\./.test(k),
    );
    assert.deepEqual([...RESTRICTED_KEYS].sort(), expected.sort());
    const root = path.resolve(__dirname, '..', '..', '..', '..', '..');
    const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
    const restricted: string[] = pkg.capabilities.untrustedWorkspaces.restrictedConfigurations;
    assert.deepEqual([...restricted].sort(), RESTRICTED_KEYS.map((k) => `strata.${k}`).sort());
  });

  describe('a workspace-chosen endpoint', () => {
    const base: EndpointChoice = {
      kind: 'openai',
      baseUrl: '',
      fromWorkspace: true,
      userBaseUrl: '',
      userProvider: 'auto',
      confirmed: [],
      carriesKey: true,
    };

    it('waits for confirmation of its origin unless it is the user own', () => {
      assert.equal(originToConfirm({ ...base, baseUrl: 'https://evil.example/v1' }), 'https://evil.example');
      assert.equal(originToConfirm({ ...base, baseUrl: 'http://127.0.0.1:9999/v1' }), 'http://127.0.0.1:9999');
      // The workspace picks a provider: its public API still needs confirming, unless the user chose it too.
      assert.equal(originToConfirm({ ...base, kind: 'anthropic' }), PUBLIC_ORIGINS.anthropic);
      assert.equal(originToConfirm({ ...base, kind: 'anthropic', userProvider: 'anthropic' }), undefined);
      // The user's own base URL (same origin, any path) is theirs; a workspace moving them off it is not.
      assert.equal(
        originToConfirm({ ...base, baseUrl: 'http://127.0.0.1:8080/v2', userProvider: 'openai', userBaseUrl: 'http://127.0.0.1:8080/v1' }),
        undefined,
      );
      assert.equal(
        originToConfirm({ ...base, baseUrl: '', userProvider: 'openai', userBaseUrl: 'http://127.0.0.1:8080/v1' }),
        PUBLIC_ORIGINS.openai,
      );
      // Confirmed once: no more questions for that origin, provider and key.
      const evil = [confirmationKey('https://evil.example', 'openai', true)];
      assert.equal(originToConfirm({ ...base, baseUrl: 'https://evil.example/v1', confirmed: evil }), undefined);
      assert.equal(originToConfirm({ ...base, baseUrl: 'https://evil.example:444/v1', confirmed: evil }), 'https://evil.example:444');
    });

    it('binds a confirmation to the origin, the provider and whether a key goes along', () => {
      // Confirmed while no key existed: the key does not follow unasked.
      const keyless = [confirmationKey('https://evil.example', 'openai', false)];
      assert.equal(originToConfirm({ ...base, baseUrl: 'https://evil.example/v1', carriesKey: false, confirmed: keyless }), undefined);
      assert.equal(
        originToConfirm({ ...base, baseUrl: 'https://evil.example/v1', carriesKey: true, confirmed: keyless }),
        'https://evil.example',
      );
      // Confirmed for OpenAI: Anthropic's key does not follow unasked.
      const forOpenai = [confirmationKey('https://proxy.example', 'openai', true)];
      assert.equal(
        originToConfirm({ ...base, kind: 'anthropic', baseUrl: 'https://proxy.example', confirmed: forOpenai }),
        'https://proxy.example',
      );
      // A trusted workspace switching only strata.provider: the user's base URL was set up for OpenAI, not for Anthropic's key.
      assert.equal(
        originToConfirm({
          ...base,
          kind: 'anthropic',
          baseUrl: 'https://proxy.example/v1',
          userProvider: 'openai',
          userBaseUrl: 'https://proxy.example/v1',
        }),
        'https://proxy.example',
      );
      assert.equal(confirmationKey('https://a.example', 'anthropic', false), 'https://a.example anthropic no-key');
    });

    it('from the user own settings needs no confirmation', () => {
      assert.equal(originToConfirm({ ...base, fromWorkspace: false, baseUrl: 'https://anything.example' }), undefined);
    });
  });

  it('names the auto fallback server', () => {
    assert.equal(ollamaName('http://127.0.0.1:11434/v1'), 'Ollama at http://127.0.0.1:11434');
  });
});
