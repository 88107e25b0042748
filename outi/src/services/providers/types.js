"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.DEFAULT_TIMEOUT_MS = exports.DEFAULT_RETRY = exports.ProviderError = void 0;
/** A failed provider call. `message` is user-facing and never contains the API key. */
class ProviderError extends Error {
    code;
    name = 'ProviderError';
    retryAfterMs;
    status;
    attempts;
    constructor(code, message, init = {}) {
        super(message);
        this.code = code;
        this.retryAfterMs = init.retryAfterMs;
        this.status = init.status;
        this.attempts = init.attempts ?? 1;
    }
    /** The caller should prune harder (DESIGN §5: target 50%) and retry once. */
    get shouldPruneHarder() {
        return this.code === 'context-length';
    }
    static is(e, code) {
        return e instanceof ProviderError && (code === undefined || e.code === code);
    }
}
exports.ProviderError = ProviderError;
exports.DEFAULT_RETRY = { maxAttempts: 4, baseDelayMs: 1000, maxDelayMs: 20_000, maxRetryAfterMs: 60_000 };
exports.DEFAULT_TIMEOUT_MS = 120_000;
//# sourceMappingURL=types.js.map