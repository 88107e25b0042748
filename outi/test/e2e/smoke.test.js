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
/**
 * Smoke: the packaged extension, installed into a private extensions dir with
 * `code-server --install-extension`, shows up in the real workbench and its chat webview loads.
 * Needs nothing of the chat panel beyond the view itself.
 */
const assert = __importStar(require("node:assert/strict"));
const fs = __importStar(require("node:fs"));
const path = __importStar(require("node:path"));
const harness_1 = require("./support/harness");
const session_1 = require("./support/session");
const steps_1 = require("./support/steps");
const workbench_1 = require("./support/workbench");
const { publisher, name, version } = JSON.parse(fs.readFileSync(path.join(harness_1.repoRoot, 'package.json'), 'utf8'));
describe('e2e smoke: Strata in the real workbench', function () {
    this.timeout(240_000);
    let session;
    before(async function () {
        this.timeout(180_000);
        session = await (0, session_1.e2eSession)();
    });
    it('opens the Strata view from the activity bar and loads the chat webview of the installed VSIX', async () => {
        const steps = new steps_1.Steps(session, 'smoke');
        const { page } = session;
        await steps.run('workbench loaded', () => (0, workbench_1.waitForWorkbench)(page));
        await steps.run('Strata view opened from the activity bar', () => (0, workbench_1.openStrataView)(page));
        const frame = await steps.run('chat webview found', () => (0, workbench_1.chatFrame)(page));
        await steps.run('chat webview runs the installed extension', async () => {
            const src = (await frame.locator(`script[src*="${publisher}.${name}"]`).first().getAttribute('src', { timeout: workbench_1.TIMEOUT.ui })) ?? '';
            const installed = `${session.paths.extensionsDir}/${publisher}.${name}-${version}/`;
            assert.ok(decodeURIComponent(src).includes(installed), `the webview bundle comes from ${src}, not from ${installed}`);
            await (0, workbench_1.poll)('the webview to render something', workbench_1.TIMEOUT.webview, async () => ((await frame.locator('body').innerText()).trim() ? true : undefined));
        });
        await steps.run('Context Layers view shown beside the chat', async () => {
            await page.locator('.part.sidebar .pane-header', { hasText: 'Context Layers' }).first().waitFor({ state: 'visible', timeout: workbench_1.TIMEOUT.ui });
        });
        await steps.run('Strata commands in the Command Palette', async () => {
            await page.keyboard.press('F1');
            const input = page.locator('.quick-input-widget .quick-input-box input');
            await input.waitFor({ state: 'visible', timeout: workbench_1.TIMEOUT.ui });
            await input.fill('>Strata: Attach Selection');
            await page.locator('.quick-input-widget .quick-input-list .monaco-list-row[aria-label^="Strata: Attach Selection"]').waitFor({ state: 'visible', timeout: workbench_1.TIMEOUT.ui });
            await page.keyboard.press('Escape');
            await input.waitFor({ state: 'hidden', timeout: workbench_1.TIMEOUT.ui });
        });
        await steps.run('notifications cleared', () => (0, workbench_1.runCommand)(page, 'Notifications: Clear All Notifications'));
    });
});
//# sourceMappingURL=smoke.test.js.map