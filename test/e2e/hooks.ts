/**
 * Root hooks (loaded with --require by scripts/harness/run-e2e.js): the shared session is stopped
 * after the last test, and on Ctrl-C / SIGTERM, so no code-server or browser outlives the run.
 */
import { closeE2ESession } from './support/session';

export const mochaHooks = {
  async afterAll(this: Mocha.Context): Promise<void> {
    this.timeout?.(30_000);
    await closeE2ESession();
  },
};

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    console.error(`e2e: ${signal}, stopping the workbench`);
    void closeE2ESession().finally(() => process.exit(130));
  });
}
