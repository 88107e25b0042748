import * as fs from 'node:fs';
import * as path from 'node:path';
import Mocha = require('mocha');
import * as vscode from 'vscode';

/** Every `*.test.js` under `dir`, sorted, leaving out the folders named in `skip`. */
export function findTests(dir: string, skip: readonly string[] = []): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        return skip.includes(entry.name) ? [] : findTests(full, skip);
      }
      return entry.name.endsWith('.test.js') ? [full] : [];
    })
    .sort();
}

/** Appends a failed test's title to STRATA_FAILED_TESTS_FILE when set; a write failure never fails the run. */
function recordFailure(title: string): void {
  const file = process.env.STRATA_FAILED_TESTS_FILE;
  if (!file) return;
  try {
    fs.appendFileSync(file, `${title.replace(/\s+/g, ' ').trim()}\n`);
  } catch {
    // The summary then names the step only.
  }
}

/**
 * Runs `files` in one mocha run inside the extension host and ends with a plain `N passed, N failed`
 * line, which reaches the harness through the workbench's automation log.
 */
export function runIntegrationSuite(files: readonly string[], what = ''): Promise<void> {
  // STRATA_INTEGRATION_GREP runs only the tests whose titles match it (a test being worked on).
  const grep = process.env.STRATA_INTEGRATION_GREP || undefined;
  const mocha = new Mocha({ ui: 'bdd', color: false, timeout: 60_000, reporter: 'spec', grep });
  files.forEach((file) => mocha.addFile(file));
  // The harness shows the extension host's output from this line on (scripts/harness/run-integration.js).
  console.log(
    `Strata integration suite: ${files.length} file(s), VS Code ${vscode.version} (${vscode.env.uiKind === vscode.UIKind.Web ? 'web' : 'desktop'} UI)${what}`,
  );
  return new Promise((resolve, reject) => {
    try {
      const runner = mocha.run((failures) => {
        const stats = runner.stats;
        const passed = stats?.passes ?? 0;
        const failed = stats?.failures ?? failures;
        const skipped = stats?.pending ?? 0;
        console.log(`${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}`);
        if (failures > 0) {
          reject(new Error(`${failures} integration test(s) failed`));
        } else if (passed === 0) {
          reject(new Error('no integration test ran'));
        } else {
          resolve();
        }
      });
      // `npm test` names failed tests in its closing summary (scripts/mocha/summaryReporter.js does the same).
      runner.on('fail', (test) => recordFailure(test.fullTitle()));
    } catch (err) {
      console.log('0 passed, 1 failed');
      reject(err instanceof Error ? err : new Error(String(err)));
    }
  });
}
