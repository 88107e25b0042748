"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.mochaHooks = void 0;
/**
 * Root hooks (loaded with --require by scripts/harness/run-e2e.js): the shared session is stopped
 * after the last test, and on Ctrl-C / SIGTERM, so no code-server or browser outlives the run.
 */
const session_1 = require("./support/session");
exports.mochaHooks = {
    async afterAll() {
        this.timeout?.(30_000);
        await (0, session_1.closeE2ESession)();
    },
};
for (const signal of ['SIGINT', 'SIGTERM']) {
    process.once(signal, () => {
        console.error(`e2e: ${signal}, stopping the workbench`);
        void (0, session_1.closeE2ESession)().finally(() => process.exit(130));
    });
}
//# sourceMappingURL=hooks.js.map