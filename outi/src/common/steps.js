"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.wait = wait;
exports.isThenable = isThenable;
exports.runSteps = runSteps;
exports.runStepsSync = runStepsSync;
/** Yields `value` to the driver and returns what the driver resolved it to. */
function* wait(value) {
    return (yield value);
}
function isThenable(v) {
    return typeof v === 'object' && v !== null && typeof v.then === 'function';
}
/** Runs a step generator, awaiting what it yields; a rejection is thrown into the generator. */
async function runSteps(steps) {
    let r = steps.next();
    while (!r.done) {
        let value;
        let failed = false;
        try {
            value = isThenable(r.value) ? await r.value : r.value;
        }
        catch (e) {
            failed = true;
            value = e;
        }
        r = failed ? steps.throw(value) : steps.next(value);
    }
    return r.value;
}
/**
 * Runs a step generator synchronously. A promise yielded means the caller chose the wrong driver:
 * the generator is closed (its `finally` blocks run) and `message` is thrown.
 */
function runStepsSync(steps, message = 'a step answered with a promise; drive it asynchronously') {
    let r = steps.next();
    while (!r.done) {
        if (isThenable(r.value)) {
            steps.return(undefined);
            throw new Error(message);
        }
        r = steps.next(r.value);
    }
    return r.value;
}
//# sourceMappingURL=steps.js.map