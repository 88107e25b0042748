"use strict";
var __createBinding = (this && this.__createBinding) || (Object.create ? (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    var desc = Object.getOwnPropertyDescriptor(m, k);
    if (!desc || ("get" in desc ? !m.__esModule : desc.writable || desc.configurable)) {
      desc = { enumerable: true, get: function() { return m[k]; } };
    }
    Object.defineProperty(o, k2, desc);
}) : (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    o[k2] = m[k];
}));
var __setModuleDefault = (this && this.__setModuleDefault) || (Object.create ? (function(o, v) {
    Object.defineProperty(o, "default", { enumerable: true, value: v });
}) : function(o, v) {
    o["default"] = v;
});
var __importStar = (this && this.__importStar) || (function () {
    var ownKeys = function(o) {
        ownKeys = Object.getOwnPropertyNames || function (o) {
            var ar = [];
            for (var k in o) if (Object.prototype.hasOwnProperty.call(o, k)) ar[ar.length] = k;
            return ar;
        };
        return ownKeys(o);
    };
    return function (mod) {
        if (mod && mod.__esModule) return mod;
        var result = {};
        if (mod != null) for (var k = ownKeys(mod), i = 0; i < k.length; i++) if (k[i] !== "default") __createBinding(result, mod, k[i]);
        __setModuleDefault(result, mod);
        return result;
    };
})();
Object.defineProperty(exports, "__esModule", { value: true });
exports.Steps = exports.StepError = void 0;
/**
 * Named steps: each one logs, takes a screenshot when it succeeds, and on failure takes a
 * `FAILED-…` screenshot and rethrows with the step's name and the screenshot's path, so a red run
 * says which step broke and where to look.
 */
const path = __importStar(require("node:path"));
const session_1 = require("./session");
/** Playwright appends the browser's whole stderr when the browser died; the cause is at the top. */
function firstLines(message, max = 12) {
    const lines = message.split('\nBrowser logs:')[0].split('\n');
    return lines.length > max ? `${lines.slice(0, max).join('\n')}\n    … (${lines.length - max} more lines)` : lines.join('\n');
}
class StepError extends Error {
    step;
    screenshot;
    constructor(step, cause, screenshot, logHint) {
        const reason = firstLines(cause instanceof Error ? cause.message : String(cause));
        super([
            `step "${step}" failed: ${reason}`,
            `    screenshot: ${screenshot ? path.relative(process.cwd(), screenshot) : '(none: the page could not be captured)'}`,
            `    ${logHint}`,
        ].join('\n'));
        this.step = step;
        this.screenshot = screenshot;
        this.name = 'StepError';
    }
}
exports.StepError = StepError;
class Steps {
    session;
    test;
    startedAt = Date.now();
    constructor(session, 
    /** Prefix of this test's screenshots. */
    test) {
        this.session = session;
        this.test = test;
    }
    async run(name, fn) {
        const started = Date.now();
        let value;
        try {
            value = await fn();
        }
        catch (err) {
            const shot = await this.session.screenshot(`${this.test}-${name}`, true).catch(() => undefined);
            (0, session_1.log)(`FAILED  ${name} (${Date.now() - started} ms)`);
            throw new StepError(name, err, shot, this.session.logHint());
        }
        const shot = await this.session.screenshot(`${this.test}-${name}`).catch(() => undefined);
        (0, session_1.log)(`ok      ${name} (${Date.now() - started} ms${shot ? `, ${path.basename(shot)}` : ''})`);
        return value;
    }
    elapsedMs() {
        return Date.now() - this.startedAt;
    }
}
exports.Steps = Steps;
//# sourceMappingURL=steps.js.map