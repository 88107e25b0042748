import { findTests, runIntegrationSuite } from '../support/runSuite';

/**
 * Entry point of the stall session (scripts/harness/run-integration.js): the longest holds of the
 * extension host are measured in a host of their own, as a person's window has, not in one whose
 * heap carries the garbage of the ninety tests before them (its collector's pauses alone took
 * 40–58 ms of a hold there).
 */
export function run(): Promise<void> {
  return runIntegrationSuite(findTests(__dirname), ', the extension host’s longest holds');
}
