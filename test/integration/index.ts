import { findTests, runIntegrationSuite } from './support/runSuite';

/**
 * Entry point VS Code calls inside the extension host (extensionTestsPath). Runs every
 * `*.test.js` beside this file in one mocha run, except those of `untrusted/`, which need a
 * workspace the editor itself does not trust and run in a session of their own (untrusted/index.ts),
 * and those of `stalls/`, which measure the host's holds in a host of their own (stalls/index.ts).
 */
export function run(): Promise<void> {
  return runIntegrationSuite(findTests(__dirname, ['untrusted', 'stalls']));
}
