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
exports.Panel = exports.BUNDLE = exports.SCREENSHOTS = exports.CHROMIUM_ARGS = exports.CHROMIUM = void 0;
exports.launchBrowser = launchBrowser;
exports.isRecord = isRecord;
const fs = __importStar(require("node:fs"));
const path = __importStar(require("node:path"));
const playwright_core_1 = require("playwright-core");
const server_1 = require("./server");
const harness_1 = require("../e2e/support/harness");
exports.CHROMIUM = process.env.STRATA_CHROMIUM || '/usr/bin/chromium';
/** The same headless Chromium flags as the code-server harness (scripts/harness/codeServer.js). */
exports.CHROMIUM_ARGS = harness_1.codeServer.CHROMIUM_ARGS;
exports.SCREENSHOTS = path.join(server_1.repoRoot, '.harness', 'webview', 'screenshots');
exports.BUNDLE = path.join(server_1.repoRoot, 'dist', 'webview', 'main.js');
async function launchBrowser() {
    if (!fs.existsSync(exports.CHROMIUM)) {
        throw new Error(`Chromium not found at ${exports.CHROMIUM}: install the Debian package (sudo apt-get install chromium) or set STRATA_CHROMIUM.`);
    }
    if (!fs.existsSync(exports.BUNDLE)) {
        throw new Error(`${exports.BUNDLE} is missing: run \`npx webpack --mode production --config-name webview\` first.`);
    }
    return playwright_core_1.chromium.launch({ executablePath: exports.CHROMIUM, args: exports.CHROMIUM_ARGS, headless: true });
}
/** One panel in one browser page, driven like the extension host drives the real webview. */
class Panel {
    page;
    server;
    theme;
    constructor(page, server, theme) {
        this.page = page;
        this.server = server;
        this.theme = theme;
    }
    static async open(browser, server, opts = {}) {
        const theme = opts.theme ?? 'dark';
        const page = await browser.newPage({ viewport: { width: opts.width ?? 400, height: opts.height ?? 700 }, deviceScaleFactor: 1 });
        const panel = new Panel(page, server, theme);
        await page.goto(server.pageUrl(theme));
        await panel.waitForPosted((m) => isRecord(m) && m.type === 'ready');
        await page.evaluate(() => globalThis.strataTest.fontsReady());
        return panel;
    }
    async close() {
        await this.page.close();
    }
    /** Posts a host → webview message. */
    async post(message) {
        await this.page.evaluate((m) => globalThis.strataTest.post(m), message);
    }
    async init(state, extensionVersion = '0.1.0') {
        await this.post({ type: 'init', protocolVersion: 2, extensionVersion, state });
        await this.settle();
    }
    /** Waits until the panel has handled what was posted and painted it. */
    async settle() {
        await this.page.evaluate(() => globalThis.strataTest.afterPaint());
    }
    async posted() {
        return this.page.evaluate(() => globalThis.strataTest.posted());
    }
    /** Everything the panel posted since the page loaded (clearPosted does not affect it). */
    async allPosted() {
        return this.page.evaluate(() => globalThis.strataTest.allPosted());
    }
    async requests() {
        return (await this.posted()).filter((m) => isRecord(m) && m.type === 'request');
    }
    async clearPosted() {
        await this.page.evaluate(() => globalThis.strataTest.clearPosted());
    }
    async waitForPosted(predicate, timeoutMs = 5000) {
        const deadline = Date.now() + timeoutMs;
        for (;;) {
            const found = (await this.page.evaluate(() => globalThis.strataTest.posted())).find(predicate);
            if (found !== undefined)
                return found;
            if (Date.now() > deadline)
                throw new Error('timed out waiting for a posted message');
            await new Promise((r) => setTimeout(r, 20));
        }
    }
    /** The latest request of `kind` (waits for it). */
    async waitForRequest(kind, timeoutMs = 5000) {
        const deadline = Date.now() + timeoutMs;
        for (;;) {
            const all = (await this.requests()).filter((r) => r.request.kind === kind);
            if (all.length > 0)
                return all[all.length - 1];
            if (Date.now() > deadline)
                throw new Error(`timed out waiting for a ${kind} request`);
            await new Promise((r) => setTimeout(r, 20));
        }
    }
    async respond(requestId, result) {
        await this.post({ type: 'response', requestId, ...result });
        await this.settle();
    }
    async autoRespond(map) {
        await this.page.evaluate((m) => globalThis.strataTest.setAutoRespond(m), map);
    }
    async problems() {
        return this.page.evaluate(() => ({ violations: globalThis.strataTest.violations(), errors: globalThis.strataTest.errors() }));
    }
    byTestId(id) {
        return this.page.getByTestId(id);
    }
    async screenshot(name) {
        fs.mkdirSync(exports.SCREENSHOTS, { recursive: true });
        const file = path.join(exports.SCREENSHOTS, `${name}.png`);
        await this.page.screenshot({ path: file });
        return file;
    }
}
exports.Panel = Panel;
function isRecord(v) {
    return typeof v === 'object' && v !== null && !Array.isArray(v);
}
//# sourceMappingURL=harness.js.map