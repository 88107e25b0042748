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
exports.ChatViewProvider = void 0;
const vscode = __importStar(require("vscode"));
const lifecycle_1 = require("../common/lifecycle");
const messages_1 = require("../protocol/messages");
const commandIds_1 = require("./commandIds");
const webviewHtml_1 = require("./webviewHtml");
/**
 * The chat side panel (WebviewView `strata.chat`). Loads the webview bundle, waits for the webview's
 * `ready`, then sends `init`; messages posted before `ready` are dropped (the `init` state carries
 * everything). Every inbound message is validated (DESIGN §6): a malformed or forged one is rejected
 * and logged, never acted on.
 */
class ChatViewProvider extends lifecycle_1.Disposable {
    extensionUri;
    extensionVersion;
    log;
    static viewId = commandIds_1.VIEW_IDS.chat;
    view;
    ready = false;
    handler;
    viewDisposables = this._register(new lifecycle_1.DisposableStore());
    onDidBecomeReadyEmitter = this._register(new vscode.EventEmitter());
    /** Fires each time a (re)created webview reports `ready` and has been sent `init`. */
    onDidBecomeReady = this.onDidBecomeReadyEmitter.event;
    onDidRejectEmitter = this._register(new vscode.EventEmitter());
    /** Fires with the reason whenever an inbound message is rejected (tests, diagnostics). */
    onDidReject = this.onDidRejectEmitter.event;
    /** Messages the panel received and handled, by request kind (tests, diagnostics). */
    postedListeners = new Set();
    constructor(extensionUri, extensionVersion, log) {
        super();
        this.extensionUri = extensionUri;
        this.extensionVersion = extensionVersion;
        this.log = log;
    }
    setHandler(handler) {
        this.handler = handler;
    }
    get isReady() {
        return !!this.view && this.ready;
    }
    get visible() {
        return !!this.view?.visible;
    }
    /** Resolves once a webview has said `ready` and got `init` (at once if the current one has). */
    whenReady() {
        if (this.isReady)
            return Promise.resolve();
        return new Promise((resolve) => {
            const subscription = this.onDidBecomeReady(() => {
                subscription.dispose();
                resolve();
            });
        });
    }
    /** Observes every message posted to the webview (used by the integration tests). */
    onDidPost(listener) {
        this.postedListeners.add(listener);
        return new vscode.Disposable(() => this.postedListeners.delete(listener));
    }
    resolveWebviewView(webviewView) {
        // One webview at a time: drop the listeners of a previous one (the view was closed and reopened).
        this.viewDisposables.clear();
        this.view = webviewView;
        this.ready = false;
        webviewView.webview.options = {
            enableScripts: true,
            enableCommandUris: false,
            localResourceRoots: (0, webviewHtml_1.webviewResourceRoots)(this.extensionUri),
        };
        this.viewDisposables.add(webviewView.webview.onDidReceiveMessage((raw) => void this.receive(raw)));
        this.viewDisposables.add(webviewView.onDidDispose(() => {
            if (this.view === webviewView) {
                this.view = undefined;
                this.ready = false;
                this.viewDisposables.clear();
            }
        }));
        webviewView.webview.html = (0, webviewHtml_1.renderWebviewHtml)(webviewView.webview, this.extensionUri, 'Strata Chat');
    }
    /** Reveals the panel (and focuses its input when asked). */
    async reveal(focusInput = false) {
        await vscode.commands.executeCommand(`${commandIds_1.VIEW_IDS.chat}.focus`);
        if (focusInput)
            this.post({ type: 'focusInput' });
    }
    /** Sends now when the webview is ready; otherwise drops it (`init` will carry the current state). */
    post(message) {
        void this.postDelivered(message);
    }
    /**
     * `post`, resolved once the message has left this process (the extension host), so that work
     * started after it does not hold the message back.
     */
    async postDelivered(message) {
        for (const l of this.postedListeners)
            l(message);
        if (this.view && this.ready)
            await this.view.webview.postMessage(message).then(undefined, () => false);
    }
    /**
     * The one entry point for everything the webview sends (also used by the integration suite to
     * deliver forged messages through the same checks).
     */
    async receive(raw) {
        const message = (0, messages_1.parseWebviewToHostMessage)(raw);
        if (message instanceof messages_1.ProtocolError) {
            this.log.warn(`chat view: rejected a message from the webview: ${message.message}`);
            this.onDidRejectEmitter.fire(message.message);
            return;
        }
        if (message.type === 'ready') {
            this.ready = !!this.view;
            if (this.handler) {
                try {
                    const state = await this.handler.panelState();
                    await this.postDelivered({ type: 'init', protocolVersion: messages_1.PROTOCOL_VERSION, extensionVersion: this.extensionVersion, state });
                    this.handler.statePosted(state);
                }
                catch (e) {
                    this.log.error(`chat view: could not build the panel state: ${e instanceof Error ? e.message : String(e)}`);
                }
            }
            this.onDidBecomeReadyEmitter.fire();
            return;
        }
        const { requestId, request } = message;
        if (!this.handler) {
            this.post({ type: 'response', requestId, ok: false, error: 'Strata is still starting.' });
            return;
        }
        try {
            const value = await this.handler.handle(request);
            this.post({ type: 'response', requestId, ok: true, value: value === undefined ? undefined : value });
        }
        catch (e) {
            const error = e instanceof Error ? e.message : String(e);
            this.log.warn(`chat view: ${request.kind} failed: ${error}`);
            this.post({ type: 'response', requestId, ok: false, error });
        }
    }
}
exports.ChatViewProvider = ChatViewProvider;
//# sourceMappingURL=chatViewProvider.js.map