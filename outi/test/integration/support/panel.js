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
exports.PanelDriver = exports.EXTENSION_ID = void 0;
exports.strataApi = strataApi;
exports.withTimeout = withTimeout;
exports.until = until;
exports.configure = configure;
exports.folderUri = folderUri;
exports.selectLines = selectLines;
const assert = __importStar(require("node:assert/strict"));
const vscode = __importStar(require("vscode"));
exports.EXTENSION_ID = 'strata-dev.strata';
async function strataApi() {
    const extension = vscode.extensions.getExtension(exports.EXTENSION_ID);
    assert.ok(extension, `${exports.EXTENSION_ID} is not installed in this extension host`);
    return extension.activate();
}
async function withTimeout(promise, ms, what) {
    let timer;
    const timeout = new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms);
    });
    try {
        return await Promise.race([promise, timeout]);
    }
    finally {
        clearTimeout(timer);
    }
}
async function until(what, probe, ms = 10_000) {
    const deadline = Date.now() + ms;
    while (!probe()) {
        if (Date.now() > deadline)
            throw new Error(`${what}: not within ${ms} ms`);
        await new Promise((r) => setTimeout(r, 20));
    }
}
/**
 * The panel as the webview sees it: requests go through the same validation as the webview's
 * (`api.testing.receive`), and everything the host posts is recorded.
 */
class PanelDriver {
    api;
    posted = [];
    rejected = [];
    nextId = 1000;
    subscriptions;
    constructor(api) {
        this.api = api;
        this.subscriptions = [api.testing.onDidPost((m) => this.posted.push(m)), api.testing.onDidReject((r) => this.rejected.push(r))];
    }
    /** Sends a request as the webview would and returns the host's response. */
    async request(request) {
        const requestId = this.nextId++;
        await this.api.testing.receive({ type: 'request', requestId, request });
        const response = this.posted.find((m) => m.type === 'response' && m.requestId === requestId);
        assert.ok(response && response.type === 'response', `no response to ${request.kind}`);
        return response.ok ? { ok: true, value: response.value } : { ok: false, error: response.error };
    }
    async requestOk(request) {
        const r = await this.request(request);
        assert.ok(r.ok, `${request.kind} failed: ${r.error}`);
        return r.value;
    }
    of(type) {
        return this.posted.filter((m) => m.type === type);
    }
    last(type) {
        const all = this.of(type);
        return all[all.length - 1];
    }
    clear() {
        this.posted.length = 0;
        this.rejected.length = 0;
    }
    /** Sends a message and waits for the turn to end; returns the turn's messages. */
    async sendAndWait(text) {
        const from = this.posted.length;
        await this.requestOk({ kind: 'send', text });
        await withTimeout(this.api.testing.controller.whenTurnDone(), 30_000, 'the turn to end');
        const mine = this.posted.slice(from);
        const started = mine.find((m) => m.type === 'turnStarted');
        assert.ok(started, 'no turnStarted was posted');
        const chunks = mine.filter((m) => m.type === 'chunk' && m.turnId === started.turnId);
        const ended = mine.find((m) => m.type === 'turnEnded' && m.turnId === started.turnId);
        assert.ok(ended, 'no turnEnded was posted');
        return { started, chunks, ended };
    }
    dispose() {
        this.subscriptions.forEach((s) => s.dispose());
    }
}
exports.PanelDriver = PanelDriver;
/** Sets `strata.*` user settings and waits until the controller resolved the provider again. */
async function configure(api, values) {
    const config = vscode.workspace.getConfiguration('strata');
    for (const [key, value] of Object.entries(values))
        await config.update(key, value, vscode.ConfigurationTarget.Global);
    await api.testing.controller.refreshProvider();
}
function folderUri(name) {
    const f = vscode.workspace.workspaceFolders?.find((w) => w.name === name);
    assert.ok(f, `workspace folder ${name} is not open`);
    return f.uri;
}
/** Opens a workspace file in an editor and selects whole lines `from`–`to` (1-based, inclusive). */
async function selectLines(relative, from, to) {
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.joinPath(folderUri('app'), ...relative));
    const editor = await vscode.window.showTextDocument(doc);
    editor.selection = new vscode.Selection(from - 1, 0, to, 0);
    return editor;
}
//# sourceMappingURL=panel.js.map