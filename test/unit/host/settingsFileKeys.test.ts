/**
 * The keys a repository's settings file sets, read from its text: what the panel names as ignored
 * in Restricted Mode, where the editor hides the values themselves.
 */
import * as assert from 'node:assert/strict';
import { strataKeysInSettingsText, stripJsonComments } from '../../../src/host/settingsFileKeys';

describe('strata keys in a settings file', () => {
  it('finds dotted and nested keys, and only declared ones', () => {
    const text = JSON.stringify({
      'strata.context.exclude': [],
      strata: { baseUrl: 'http://x', tools: { enabled: true } },
      'strata.notASetting': 1,
      'editor.fontSize': 12,
    });
    assert.deepEqual(strataKeysInSettingsText(text).sort(), ['baseUrl', 'context.exclude', 'tools.enabled']);
  });

  it('reads JSON with comments and trailing commas, strings untouched', () => {
    const text =
      '{\n  // a comment\n  "strata.instructions": "see http://a // not a comment, /* nor this */",\n  /* block */ "strata.model": "m",\n}\n';
    assert.deepEqual(strataKeysInSettingsText(text).sort(), ['instructions', 'model']);
    assert.ok(stripJsonComments(text).includes('"see http://a // not a comment, /* nor this */"'));
  });

  it("reads a workspace file's settings section", () => {
    const text = JSON.stringify({ folders: [{ path: '.' }], settings: { 'strata.provider': 'openai' } });
    assert.deepEqual(strataKeysInSettingsText(text, 'settings'), ['provider']);
    assert.deepEqual(strataKeysInSettingsText(text), []);
  });

  it('text that does not parse sets nothing', () => {
    assert.deepEqual(strataKeysInSettingsText('{ "strata.model": '), []);
    assert.deepEqual(strataKeysInSettingsText('[1, 2]'), []);
  });
});
