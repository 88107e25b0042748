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
exports.E2ESession = exports.VIEWPORT = exports.IMITATION_MODEL = void 0;
exports.slug = slug;
exports.log = log;
exports.e2eSession = e2eSession;
exports.closeE2ESession = closeE2ESession;
/**
 * One e2e session for the whole run (one VS Code at a time on these machines): the OpenAI
 * imitation server, code-server with the packaged VSIX installed into a private extensions dir
 * and Strata pointed at the imitation through user settings, a copy of the sample workspace, and
 * Debian Chromium (playwright-core) on the workbench. Started by the first test that asks for it,
 * stopped by the root hook in hooks.ts (and on SIGINT/SIGTERM).
 *
 * Configuration comes from scripts/harness/run-e2e.js through the environment:
 *   STRATA_E2E_VSIX                 the VSIX to install (required)
 *   STRATA_E2E_DIR                  run folder (default .harness/e2e)
 *   STRATA_E2E_README_SCREENSHOT    where to write the README's panel screenshot (optional)
 */
const fs = __importStar(require("node:fs"));
const path = __importStar(require("node:path"));
const playwright_core_1 = require("playwright-core");
const imitationServers_1 = require("../../support/imitationServers");
const harness_1 = require("./harness");
/** The model Strata is configured with; the imitation lists and accepts only this one. */
exports.IMITATION_MODEL = 'gpt-4o';
exports.VIEWPORT = { width: 1280, height: 800 };
function sessionPaths() {
    const dir = path.resolve(process.env.STRATA_E2E_DIR || path.join(harness_1.repoRoot, '.harness', 'e2e'));
    const runDir = path.join(dir, 'run');
    return {
        dir,
        runDir,
        screenshotsDir: path.join(dir, 'screenshots'),
        workspace: path.join(runDir, 'workspace'),
        userDataDir: path.join(runDir, 'user-data'),
        extensionsDir: path.join(runDir, 'extensions'),
        serverLog: path.join(runDir, 'code-server.log'),
        browserLog: path.join(runDir, 'browser-console.log'),
    };
}
class E2ESession {
    paths;
    imitation;
    server;
    browser;
    context;
    page;
    workspace;
    shotCount = 0;
    constructor(paths, imitation, server, browser, context, page, 
    /** The folder the workbench has open (a fresh copy of samples/workspace). */
    workspace) {
        this.paths = paths;
        this.imitation = imitation;
        this.server = server;
        this.browser = browser;
        this.context = context;
        this.page = page;
        this.workspace = workspace;
    }
    static async start() {
        const vsix = process.env.STRATA_E2E_VSIX;
        if (!vsix || !fs.existsSync(vsix)) {
            throw new Error(`STRATA_E2E_VSIX must name a packaged VSIX (got ${vsix ?? 'nothing'}); run the suite with \`npm run test:e2e\``);
        }
        const paths = sessionPaths();
        fs.rmSync(paths.runDir, { recursive: true, force: true });
        fs.rmSync(paths.screenshotsDir, { recursive: true, force: true });
        for (const d of [paths.runDir, paths.screenshotsDir, paths.userDataDir, paths.extensionsDir])
            fs.mkdirSync(d, { recursive: true });
        fs.cpSync(path.join(harness_1.repoRoot, 'samples', 'workspace'), paths.workspace, { recursive: true });
        const env = harness_1.codeServer.isolatedEnv(paths.runDir);
        const started = Date.now();
        harness_1.codeServer.installVsix(vsix, { extensionsDir: paths.extensionsDir, userDataDir: paths.userDataDir, env });
        log(`installed ${path.relative(harness_1.repoRoot, vsix)} into the private extensions dir (${Date.now() - started} ms)`);
        // A visible streaming pace: the test must see the reply grow before it completes.
        const imitation = await (0, imitationServers_1.startOpenAIImitation)({ chunkDelayMs: 40, deltaChars: 4, models: [exports.IMITATION_MODEL] });
        const cleanups = [() => imitation.close()];
        try {
            harness_1.codeServer.writeUserSettings(paths.userDataDir, {
                ...harness_1.codeServer.QUIET_SETTINGS,
                'workbench.startupEditor': 'none',
                'workbench.secondarySideBar.defaultVisibility': 'hidden',
                'workbench.tips.enabled': false,
                'strata.provider': 'openai',
                'strata.baseUrl': imitation.url,
                'strata.model': exports.IMITATION_MODEL,
            });
            const server = await harness_1.codeServer.startCodeServer({
                runDir: paths.runDir,
                userDataDir: paths.userDataDir,
                extensionsDir: paths.extensionsDir,
                env,
                logFile: paths.serverLog,
            });
            cleanups.push(() => server.stop());
            log(`code-server ${harness_1.harnessConfig.CODE_SERVER_VERSION} on ${server.authority}; imitation server on ${imitation.url}`);
            const browser = await playwright_core_1.chromium.launch({ executablePath: harness_1.harnessConfig.chromiumPath, headless: true, args: harness_1.codeServer.CHROMIUM_ARGS, env });
            cleanups.push(() => browser.close());
            const context = await browser.newContext({ viewport: exports.VIEWPORT });
            const page = await context.newPage();
            page.on('console', (msg) => fs.appendFileSync(paths.browserLog, `[${msg.type()}] ${msg.text()}\n`));
            page.on('pageerror', (err) => fs.appendFileSync(paths.browserLog, `[pageerror] ${err.stack || err}\n`));
            const session = new E2ESession(paths, imitation, server, browser, context, page, paths.workspace);
            await page.goto(session.workbenchUrl, { waitUntil: 'domcontentloaded', timeout: 60_000 });
            return session;
        }
        catch (err) {
            for (const cleanup of cleanups.reverse())
                await cleanup().catch(() => undefined);
            throw err;
        }
    }
    get workbenchUrl() {
        return harness_1.codeServer.workbenchUrl(this.server.authority, this.workspace);
    }
    /** Saves a screenshot of the whole window as `NN-name.png` (`NN-FAILED-name.png`); returns its path. */
    async screenshot(name, failed = false) {
        this.shotCount++;
        const file = path.join(this.paths.screenshotsDir, `${String(this.shotCount).padStart(2, '0')}-${failed ? 'FAILED-' : ''}${slug(name)}.png`);
        await this.page.screenshot({ path: file, timeout: 15_000 });
        return file;
    }
    /** Where the last lines of the logs are, for failure messages. */
    logHint() {
        return [
            `code-server log: ${path.relative(process.cwd(), this.paths.serverLog)}`,
            `browser console: ${path.relative(process.cwd(), this.paths.browserLog)}`,
        ].join('\n    ');
    }
    /** Stops everything at once: code-server must not wait for a browser that is slow to close. */
    async close() {
        await Promise.all([this.server.stop(), this.browser.close(), this.imitation.close()].map((p) => p.catch(() => undefined)));
    }
}
exports.E2ESession = E2ESession;
function slug(text) {
    return text
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '-')
        .replace(/^-|-$/g, '')
        .slice(0, 60);
}
function log(message) {
    console.log(`      e2e: ${message}`);
}
let current;
let closing;
/** The run's session, started on first use. */
function e2eSession() {
    if (closing)
        return Promise.reject(new Error('the e2e session is shutting down'));
    current ??= E2ESession.start();
    return current;
}
/** Stops the session if one was started (root hook, signals); every caller waits for the same stop. */
function closeE2ESession() {
    closing ??= (async () => {
        const session = await current?.catch(() => undefined);
        await session?.close();
    })();
    return closing;
}
//# sourceMappingURL=session.js.map