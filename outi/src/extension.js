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
exports.activate = activate;
exports.deactivate = deactivate;
const vscode = __importStar(require("vscode"));
const chatSession_1 = require("./services/chatSession");
const tokenizer_1 = require("./services/tokenizer");
const chatViewProvider_1 = require("./host/chatViewProvider");
const commandHandlers_1 = require("./host/commandHandlers");
const commands_1 = require("./host/commands");
const config_1 = require("./host/config");
const hostWorkspace_1 = require("./host/hostWorkspace");
const layersTreeProvider_1 = require("./host/layersTreeProvider");
const providerResolver_1 = require("./host/providerResolver");
const requestDocument_1 = require("./host/requestDocument");
const statusBar_1 = require("./host/statusBar");
const strataController_1 = require("./host/strataController");
const stateStorage_1 = require("./host/stateStorage");
const treeSource_1 = require("./host/treeSource");
const storeWatcher_1 = require("./services/storeWatcher");
const PRODUCT_PROMPT = 'You are Strata, a coding assistant inside VS Code. The user attaches files and selections; they appear in blocks that carry their path and version. ' +
    'A later mention of the same block is a reference to it. Answer precisely, cite paths and line numbers, and say when something you need was not attached.';
/** User and project instructions (L1 overlays), read after activation and when they change. */
let instructions = [];
function settings() {
    return {
        layout: (0, config_1.readSetting)('layout'),
        policy: (0, config_1.readSetting)('context.changedFiles'),
        thresholds: { warnPercent: (0, config_1.readSetting)('budget.warnPercent'), compactPercent: (0, config_1.readSetting)('budget.compactPercent'), targetPercent: (0, config_1.readSetting)('budget.targetPercent') },
        reservedOutputTokens: (0, config_1.readSetting)('budget.reservedOutputTokens'),
        requestTimeoutMs: (0, config_1.readSetting)('requestTimeoutSeconds') * 1000,
        tools: { enabled: (0, config_1.readSetting)('tools.enabled'), maxSteps: (0, config_1.readSetting)('tools.maxSteps'), maxResultTokens: (0, config_1.readSetting)('tools.maxResultTokens'), maxTurnTokens: (0, config_1.readSetting)('tools.maxTurnTokens') },
        system: PRODUCT_PROMPT,
        instructions,
    };
}
/** Composition root: build the host objects and register views and commands. Nothing else. */
function activate(context) {
    const started = performance.now();
    const log = vscode.window.createOutputChannel('Strata', { log: true });
    context.subscriptions.push(log);
    const noFolder = !context.storageUri;
    const storage = context.storageUri ?? vscode.Uri.joinPath(context.globalStorageUri, 'no-folder');
    const workspace = new hostWorkspace_1.HostWorkspace(() => ({ excludes: (0, config_1.readSetting)('context.exclude'), maxFileBytes: (0, config_1.readSetting)('context.maxFileBytes') }));
    const memento = new stateStorage_1.WorkspaceStateStore(context.workspaceState);
    // The chat that was open when the window closed (or reloaded) opens again.
    const session = chatSession_1.ChatSession.open({ storeRoot: storage.fsPath, port: workspace, tokenizer: tokenizer_1.getTokenizer, settings, log: (line) => log.info(line) }, memento.get('activeChatId'));
    const resolver = new providerResolver_1.ProviderResolver(context.secrets);
    const chatView = new chatViewProvider_1.ChatViewProvider(context.extensionUri, String(context.extension.packageJSON.version), log);
    const statusBar = new statusBar_1.MeterStatusBar();
    const documents = new requestDocument_1.RequestDocuments();
    const notices = () => {
        const out = [];
        if (!vscode.workspace.isTrusted)
            out.push({ id: 'restricted', message: 'Restricted Mode: project instruction files (strata.instructionsFiles) are not read until you trust this workspace.' });
        if (noFolder)
            out.push({ id: 'no-folder', message: 'No folder is open: chats are kept in Strata\'s global storage, shared by windows without a folder. Open a folder to keep its chats with it.' });
        return out;
    };
    const controller = new strataController_1.StrataController({ session, resolver, view: chatView, statusBar, log, notices });
    chatView.setHandler(controller);
    const tree = new layersTreeProvider_1.LayersTreeProvider(() => (0, treeSource_1.treeNodes)(controller, session));
    controller.onDidChange(() => {
        tree.refresh();
        if (memento.get('activeChatId') !== session.activeChatId)
            void memento.set('activeChatId', session.activeChatId);
    });
    const loadInstructions = async () => {
        const list = [];
        const own = (0, config_1.readSetting)('instructions').trim();
        if (own)
            list.push({ source: 'settings', text: own });
        if (vscode.workspace.isTrusted) {
            const multi = (vscode.workspace.workspaceFolders?.length ?? 0) > 1;
            for (const folder of vscode.workspace.workspaceFolders ?? []) {
                for (const file of (0, config_1.readSetting)('instructionsFiles')) {
                    const path = multi ? `${folder.name}/${file}` : file;
                    const r = await workspace.resolve({ kind: 'file', path });
                    if (r.ok && r.input.content.trim().length > 0)
                        list.push({ source: path, text: r.input.content });
                }
            }
        }
        instructions = list;
        const err = session.settingsChanged();
        if (err)
            controller.showBanner('error', err, ['openSettings']);
        controller.refreshMeter();
    };
    context.subscriptions.push(chatView, vscode.window.registerWebviewViewProvider(chatViewProvider_1.ChatViewProvider.viewId, chatView, { webviewOptions: { retainContextWhenHidden: false } }), statusBar, documents, controller, tree, (0, commands_1.registerCommands)((0, commandHandlers_1.commandHandlers)({ controller, session, resolver, documents, workspace }), log), (0, config_1.onDidChangeSettings)((keys) => {
        if (keys.some((k) => ['provider', 'model', 'baseUrl', 'promptCacheKey', 'anthropicCacheTtl'].includes(k)))
            void controller.refreshProvider();
        if (keys.some((k) => k === 'instructions' || k === 'instructionsFiles'))
            void loadInstructions();
        if (keys.some((k) => k.startsWith('budget.') || k.startsWith('tools.') || k === 'layout' || k === 'context.changedFiles')) {
            const err = session.settingsChanged();
            if (err)
                controller.showBanner('error', err, ['openSettings']);
            controller.refreshMeter();
        }
        if (keys.some((k) => k === 'context.exclude' || k === 'context.maxFileBytes'))
            workspace.invalidate();
    }), vscode.lm.onDidChangeChatModels(() => void controller.refreshProvider()), context.secrets.onDidChange(() => void controller.refreshProvider()), vscode.workspace.onDidGrantWorkspaceTrust(() => {
        void loadInstructions();
        void controller.refreshPanel();
    }));
    const watcher = vscode.workspace.createFileSystemWatcher('**/*', false, false, false);
    context.subscriptions.push(watcher, watcher.onDidChange((u) => workspace.invalidate(u)), watcher.onDidDelete((u) => workspace.invalidate(u)), watcher.onDidCreate((u) => workspace.invalidate(u)));
    // Everything that reads files or loads the tokenizer runs after activation returns.
    setTimeout(() => void loadInstructions(), 0);
    // Another window of this folder saving to the same chats: the panel follows (storeWatcher.ts).
    const storeWatch = (0, storeWatcher_1.watchChatStore)(session.store.root, () => void controller.storeChanged(), { log: (line) => log.warn(line) });
    context.subscriptions.push({ dispose: () => storeWatch.dispose() });
    const activationMs = performance.now() - started;
    log.info(`activated in ${activationMs.toFixed(1)} ms (storage: ${noFolder ? 'global, no folder open' : 'workspace'})`);
    return {
        whenChatReady: () => chatView.whenReady(),
        testing: {
            session,
            controller,
            workspace,
            resolver,
            tree,
            receive: (raw) => chatView.receive(raw),
            onDidPost: (l) => chatView.onDidPost(l),
            onDidReject: (l) => chatView.onDidReject(l),
            activationMs,
        },
    };
}
function deactivate() {
    // Everything is disposed through context.subscriptions.
}
//# sourceMappingURL=extension.js.map