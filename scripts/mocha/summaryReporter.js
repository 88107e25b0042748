'use strict';
// mocha's spec reporter plus a closing `N passed, N failed` line alone on a line: the CI log
// reader does not understand mocha's "N passing". When STRATA_FAILED_TESTS_FILE names a file, each
// failed test's full title is appended to it, so `npm test` can name the failures in its closing
// summary (the part of a long CI log that is read first).
const fs = require('node:fs');
const Mocha = require('mocha');

const { EVENT_RUN_END, EVENT_TEST_FAIL } = Mocha.Runner.constants;

/** Appends one failed test's title to the file `npm test` reads back; a write failure never fails the run. */
function recordFailure(title) {
  const file = process.env.STRATA_FAILED_TESTS_FILE;
  if (!file) return;
  try {
    fs.appendFileSync(file, `${title.replace(/\s+/g, ' ').trim()}\n`);
  } catch {
    // The summary then names the step only.
  }
}

class SummaryReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    runner.on(EVENT_TEST_FAIL, (test) => recordFailure(test.fullTitle()));
    runner.once(EVENT_RUN_END, () => {
      const { passes = 0, failures = 0, pending = 0 } = runner.stats || {};
      console.log(`${passes} passed, ${failures} failed${pending > 0 ? `, ${pending} skipped` : ''}`);
    });
  }
}

module.exports = Object.assign(SummaryReporter, { recordFailure });
