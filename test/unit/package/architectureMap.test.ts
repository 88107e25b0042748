/**
 * ARCHITECTURE.md is the map of the source: every folder and root file of `src/`, `src/services/`
 * and `src/host/`, and every file of a feature folder of `src/host/`, must be on it, so a new one
 * cannot be added without saying where it belongs.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

const root = path.resolve(__dirname, '../../../..');

/** The folders (`name/`) and `.ts` files (`name.ts`) of `dir` that `map` does not name. */
export function unmapped(map: string, dir: string, entries: readonly fs.Dirent[]): string[] {
  const named = (token: string) => {
    const escaped = token.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    return new RegExp(`(^|[\\s\`/(])${escaped}([\\s\`),.:;]|$)`, 'm').test(map);
  };
  const missing: string[] = [];
  for (const e of entries) {
    if (e.isDirectory() && !named(`${e.name}/`)) missing.push(`${dir}/${e.name}/`);
    else if (e.isFile() && e.name.endsWith('.ts') && !named(e.name)) missing.push(`${dir}/${e.name}`);
  }
  return missing;
}

describe('ARCHITECTURE.md: the map of the source', () => {
  const map = fs.readFileSync(path.join(root, 'ARCHITECTURE.md'), 'utf8');

  for (const dir of ['src', 'src/services', 'src/host']) {
    it(`names every folder and root file of ${dir}/`, () => {
      const entries = fs.readdirSync(path.join(root, dir), { withFileTypes: true });
      assert.deepEqual(unmapped(map, dir, entries), []);
    });
  }

  // The host's table lists every file of each feature folder.
  const hostFolders = fs
    .readdirSync(path.join(root, 'src/host'), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => `src/host/${e.name}`)
    .sort();
  it('has seven feature folders under src/host/', () => {
    assert.deepEqual(
      hostFolders,
      ['apply', 'commands', 'context', 'panel', 'providers', 'settings', 'views'].map((n) => `src/host/${n}`),
    );
  });
  for (const dir of hostFolders) {
    it(`names every file of ${dir}/`, () => {
      const entries = fs.readdirSync(path.join(root, dir), { withFileTypes: true });
      assert.deepEqual(unmapped(map, dir, entries), []);
    });
  }

  it('reports a folder or a file the map does not name', () => {
    const entry = (name: string, dir: boolean) => ({ name, isDirectory: () => dir, isFile: () => !dir }) as fs.Dirent;
    const doc = 'src/common/ helpers\n| `chatSession.ts` | chats |\n';
    assert.deepEqual(
      unmapped(doc, 'src', [entry('common', true), entry('pricing', true), entry('chatSession.ts', false), entry('session.ts', false)]),
      ['src/pricing/', 'src/session.ts'],
    );
  });
});
