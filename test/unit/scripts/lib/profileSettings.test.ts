/**
 * `npm start`'s private-profile settings (scripts/lib/profileSettings.js): managed keys are written,
 * keys written by an earlier run and no longer managed are removed unless the person changed them,
 * and everything else (comments included, as VS Code allows) is read and kept.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { tempDir } from '../../../support/tempDir';

interface ProfileSettings {
  parseJsonc(text: string): unknown;
  applyManagedSettings(userDataDir: string, managed: Record<string, unknown>): Record<string, unknown>;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { parseJsonc, applyManagedSettings } = require('../../../../../scripts/lib/profileSettings.js') as ProfileSettings;

describe('npm start: private profile settings', () => {
  let dir: string;
  const settingsFile = () => path.join(dir, 'User', 'settings.json');
  const read = () => JSON.parse(fs.readFileSync(settingsFile(), 'utf8')) as Record<string, unknown>;

  beforeEach(() => {
    dir = tempDir('strata-profile-');
  });

  it('parses settings.json with comments, trailing commas and comment-like strings', () => {
    const text =
      '{\n  // a comment\n  "a": "http://x//y", /* block */ "b": [1, 2,],\n  "c": "quote \\" // not a comment",\n  "d": "a, }",\n}\n';
    assert.deepEqual(parseJsonc(text), { a: 'http://x//y', b: [1, 2], c: 'quote " // not a comment', d: 'a, }' });
    assert.deepEqual(parseJsonc(''), {});
  });

  it('writes managed keys and keeps the rest', () => {
    fs.mkdirSync(path.dirname(settingsFile()), { recursive: true });
    fs.writeFileSync(settingsFile(), '{\n  // mine\n  "editor.fontSize": 15,\n}\n');
    applyManagedSettings(dir, { 'strata.provider': 'openai', 'strata.baseUrl': 'http://127.0.0.1:1/v1' });
    assert.deepEqual(read(), { 'editor.fontSize': 15, 'strata.provider': 'openai', 'strata.baseUrl': 'http://127.0.0.1:1/v1' });
  });

  it('removes what an earlier run wrote once it is no longer managed, unless the person changed it', () => {
    applyManagedSettings(dir, { 'strata.provider': 'openai', 'strata.baseUrl': 'http://127.0.0.1:1/v1', 'strata.model': 'gpt-4o' });
    const changed = { ...read(), 'strata.model': 'gpt-4.1' };
    fs.writeFileSync(settingsFile(), JSON.stringify(changed));
    applyManagedSettings(dir, {
      'strata.provider': undefined,
      'strata.baseUrl': undefined,
      'strata.model': undefined,
      'update.mode': 'none',
    });
    assert.deepEqual(read(), { 'update.mode': 'none' });

    applyManagedSettings(dir, { 'strata.baseUrl': 'http://127.0.0.1:2/v1' });
    fs.writeFileSync(settingsFile(), JSON.stringify({ ...read(), 'strata.baseUrl': 'https://my.server/v1' }));
    applyManagedSettings(dir, {});
    assert.equal(read()['strata.baseUrl'], 'https://my.server/v1');
  });

  it('moves an unreadable settings file aside instead of guessing', () => {
    fs.mkdirSync(path.dirname(settingsFile()), { recursive: true });
    fs.writeFileSync(settingsFile(), '{ not json');
    const originalWrite = process.stderr.write;
    process.stderr.write = (() => true) as typeof process.stderr.write;
    try {
      applyManagedSettings(dir, { 'update.mode': 'none' });
    } finally {
      process.stderr.write = originalWrite;
    }
    assert.deepEqual(read(), { 'update.mode': 'none' });
    assert.equal(fs.readdirSync(path.dirname(settingsFile())).filter((f) => f.startsWith('settings.json.unreadable-')).length, 1);
  });
});
