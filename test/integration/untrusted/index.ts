import { findTests, runIntegrationSuite } from '../support/runSuite';

/**
 * Entry point of the Restricted Mode session (scripts/harness/run-integration.js): code-server with
 * workspace trust on, opened on a folder nobody trusted, so the editor itself applies Restricted
 * Mode — nothing is simulated.
 */
export function run(): Promise<void> {
  return runIntegrationSuite(findTests(__dirname), ', in an untrusted workspace');
}
