/**
 * The keys a repository's settings file sets, read from its text: what the panel names as ignored
 * in Restricted Mode, where the editor hides the values themselves. The files are the repository's:
 * a huge, deeply nested, unreadable or broken one must not hold the extension host or throw, and
 * the notice names each file it could not read.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  SCAN_STEP_CHARS,
  SETTINGS_FILE_MAX_BYTES,
  scanSettingsFiles,
  scanSettingsText,
  scanSettingsTextInSteps,
  strataKeysInSettingsText,
  type SettingsFileIo,
} from '../../../../src/host/settings/settingsFileKeys';
import { unreadSettingsSentence } from '../../../../src/host/settings/settingsPolicy';

const noPause = { pause: () => Promise.resolve() };

describe('strata keys in a settings file', () => {
  it('finds dotted and nested keys, and only declared ones', () => {
    const text = JSON.stringify({
      'strata.context.exclude': [],
      strata: { baseUrl: 'http://x', tools: { enabled: true } },
      'strata.cache': { lifetimeSeconds: 1 },
      'strata.notASetting': 1,
      'editor.fontSize': 12,
    });
    assert.deepEqual(strataKeysInSettingsText(text).sort(), ['baseUrl', 'cache.lifetimeSeconds', 'context.exclude', 'tools.enabled']);
  });

  it('reads JSON with comments and trailing commas, strings untouched', () => {
    const text =
      '{\n  // a comment\n  "strata.instructions": "see http://a // not a comment, /* nor this */",\n  /* block */ "strata.model": "m",\n}\n';
    assert.deepEqual(strataKeysInSettingsText(text).sort(), ['instructions', 'model']);
    // A key in a string value or a comment is not a key; an escaped key is.
    const hidden = '{ "a": "\\"strata.model\\": 1", /* "strata.baseUrl": 1 */ "strata\\u002eprovider": "openai", "b": [1, 2,], }';
    assert.deepEqual(strataKeysInSettingsText(hidden), ['provider']);
  });

  it("reads a workspace file's settings section", () => {
    const text = JSON.stringify({ folders: [{ path: '.' }], settings: { 'strata.provider': 'openai' }, 'strata.model': 'x' });
    assert.deepEqual(strataKeysInSettingsText(text, 'settings'), ['provider']);
    assert.deepEqual(strataKeysInSettingsText(text), ['model']);
  });

  it('text that does not parse sets nothing and says where; an empty file is not wrong', () => {
    assert.deepEqual(strataKeysInSettingsText('{ "strata.model": '), []);
    assert.deepEqual(strataKeysInSettingsText('[1, 2]'), []);
    assert.deepEqual(scanSettingsText('{\n  "strata.model": "m"\n  "strata.baseUrl": "x"\n}'), {
      ok: false,
      problem: 'an unexpected string on line 3',
    });
    assert.deepEqual(scanSettingsText('{ "a": tru }'), { ok: false, problem: 'an unexpected "tru" on line 1' });
    assert.deepEqual(scanSettingsText('{ "a": 1 } x'), { ok: false, problem: 'text after the end on line 1' });
    assert.deepEqual(scanSettingsText('{ /* open'), { ok: false, problem: 'a comment that is not closed on line 1' });
    assert.deepEqual(scanSettingsText('{ "a\nb": 1 }'), {
      ok: false,
      problem: 'a line break or control character inside a string on line 1',
    });
    assert.deepEqual(scanSettingsText('  // nothing here\n'), { ok: true, keys: [] });
  });

  it('a deeply nested file does not throw', () => {
    const depth = 200_000;
    const objects = `{"strata.model": 1, "x": ${'{"a": '.repeat(depth)}1${'}'.repeat(depth)}}`;
    assert.deepEqual(strataKeysInSettingsText(objects), ['model']);
    const strataDeep = `{${'"strata": {'.repeat(depth)}"model": 1${'}'.repeat(depth)}}`;
    assert.deepEqual(strataKeysInSettingsText(strataDeep), []);
    const arrays = `{"strata.baseUrl": ${'['.repeat(depth)}${']'.repeat(depth)}}`;
    assert.deepEqual(strataKeysInSettingsText(arrays), ['baseUrl']);
    const unclosed = '{"a": '.repeat(depth);
    assert.deepEqual(scanSettingsText(unclosed), { ok: false, problem: 'the text ends early on line 1' });
  });

  it('works in steps of SCAN_STEP_CHARS characters with a pause between them, and stops when cancelled', async () => {
    const text = `[${'0,'.repeat(400_000)}0]`;
    let pauses = 0;
    const scan = await scanSettingsTextInSteps(text, undefined, { pause: () => (pauses++, Promise.resolve()) });
    assert.deepEqual(scan, { ok: true, keys: [] });
    assert.equal(text.length, 800_003);
    assert.equal(pauses, Math.ceil(text.length / SCAN_STEP_CHARS) - 1);
    assert.equal(pauses, 12);

    let asked = 0;
    const stopped = await scanSettingsTextInSteps(text, undefined, { pause: () => Promise.resolve(), cancelled: () => ++asked === 2 });
    assert.equal(stopped, undefined);
    assert.equal(asked, 2);
  });
});

describe('the workspace settings files scan', () => {
  let dir: string;
  let reads: string[];
  const io: SettingsFileIo<string> = {
    async stat(file) {
      try {
        const st = await fs.promises.stat(file);
        return { size: st.size, regular: st.isFile() };
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
        throw e;
      }
    },
    async read(file) {
      reads.push(path.basename(file));
      return fs.promises.readFile(file);
    },
  };
  const write = (name: string, text: string): string => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, text);
    return file;
  };

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-settings-scan-'));
    reads = [];
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('does not read a file over the cap, and names every file it could not read with why', async () => {
    const big = write('big.json', `{"strata.model": "m", "pad": "${'x'.repeat(SETTINGS_FILE_MAX_BYTES)}"}`);
    const good = write('good.json', '{ "strata.baseUrl": "http://x", }');
    const broken = write('broken.json', '{\n"strata.provider": "openai",,\n}');
    const workspaceFile = write('a.code-workspace', JSON.stringify({ folders: [], settings: { 'strata.instructions': 'x' } }));
    fs.mkdirSync(path.join(dir, 'folder.json'));
    const scan = await scanSettingsFiles(
      [
        { file: big, label: 'big/.vscode/settings.json' },
        { file: good, label: 'good/.vscode/settings.json' },
        { file: broken, label: 'broken/.vscode/settings.json' },
        { file: path.join(dir, 'folder.json'), label: 'dir/.vscode/settings.json' },
        { file: path.join(dir, 'missing.json'), label: 'missing/.vscode/settings.json' },
        { file: workspaceFile, label: 'a.code-workspace', section: 'settings' },
      ],
      io,
      noPause,
    );
    assert.deepEqual(scan, {
      keys: ['baseUrl', 'instructions'],
      unread: [
        {
          label: 'big/.vscode/settings.json',
          why: `it is ${fs.statSync(big).size.toLocaleString('en-US')} bytes, over the 1,048,576-byte limit for a settings file`,
        },
        { label: 'broken/.vscode/settings.json', why: 'it is not valid JSON with comments (an unexpected "," on line 2)' },
        { label: 'dir/.vscode/settings.json', why: 'it is not a regular file' },
      ],
    });
    assert.equal(fs.statSync(big).size, 1_048_608);
    // The large file's bytes were never read.
    assert.deepEqual(reads, ['good.json', 'broken.json', 'a.code-workspace']);
  });

  it('names a file whose size it cannot ask or that fails to read, and one that grew past the cap after its size was checked', async () => {
    const grown = write('grown.json', '{}');
    const scan = await scanSettingsFiles(
      [
        { file: 'stat-fails', label: 'one/.vscode/settings.json' },
        { file: 'read-fails', label: 'two/.vscode/settings.json' },
        { file: grown, label: 'three/.vscode/settings.json' },
      ],
      {
        stat: async (f) => {
          if (f === 'stat-fails') throw Object.assign(new Error('denied'), { code: 'NoPermissions' });
          return { size: 2, regular: true };
        },
        read: async (f) => {
          if (f === 'read-fails') throw new Error('EACCES');
          return new Uint8Array(2048);
        },
      },
      { ...noPause, maxBytes: 1024 },
    );
    assert.deepEqual(scan, {
      keys: [],
      unread: [
        { label: 'one/.vscode/settings.json', why: 'it could not be read' },
        { label: 'two/.vscode/settings.json', why: 'it could not be read' },
        { label: 'three/.vscode/settings.json', why: 'it is 2,048 bytes, over the 1,024-byte limit for a settings file' },
      ],
    });
  });

  it('the Restricted Mode notice names the files it could not read', () => {
    assert.equal(unreadSettingsSentence([]), '');
    assert.equal(
      unreadSettingsSentence([
        { label: '.vscode/settings.json', why: 'it is 10,485,760 bytes, over the 1,048,576-byte limit for a settings file' },
      ]),
      'Strata did not read .vscode/settings.json (it is 10,485,760 bytes, over the 1,048,576-byte limit for a settings file), so this notice may not name every setting of that file that is ignored.',
    );
    assert.equal(
      unreadSettingsSentence([
        { label: 'a/.vscode/settings.json', why: 'it could not be read' },
        { label: 'b.code-workspace', why: 'it is not a regular file' },
      ]),
      'Strata did not read a/.vscode/settings.json (it could not be read); b.code-workspace (it is not a regular file), so this notice may not name every setting of those files that is ignored.',
    );
  });
});
