/**
 * Temporary folders for tests, made and removed in one place. Plain Node and mocha's globals only
 * (no `vscode`), so the unit tests and the integration tests inside the extension host share it.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const made: string[] = [];

/**
 * Removes every folder `tempDir` made once the whole run ends (a root-level hook: registered when
 * the first test file imports this module, before any suite runs).
 */
after(() => {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** A new empty folder under the OS temp folder, removed after the run unless `keep` is set. */
export function tempDir(prefix: string, options: { keep?: boolean } = {}): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  if (!options.keep) made.push(dir);
  return dir;
}

/**
 * Runs `fn` with a new empty folder and removes the folder as soon as `fn` returns or, when it
 * returns a promise, settles (passed or failed).
 */
export function withTempDir<T>(prefix: string, fn: (dir: string) => T): T {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const remove = () => fs.rmSync(dir, { recursive: true, force: true });
  let result: T;
  try {
    result = fn(dir);
  } catch (err) {
    remove();
    throw err;
  }
  if (result instanceof Promise) return result.finally(remove) as T;
  remove();
  return result;
}
