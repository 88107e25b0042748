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
const assert = __importStar(require("node:assert/strict"));
const vscode = __importStar(require("vscode"));
const commandIds_1 = require("../../src/host/commandIds");
const configKeys_1 = require("../../src/host/configKeys");
const EXTENSION_ID = 'strata-dev.strata';
function strata() {
    const extension = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(extension, `${EXTENSION_ID} is not installed in this extension host`);
    return extension;
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
describe('Strata extension', () => {
    let api;
    before(async () => {
        api = await strata().activate();
    });
    it('activates', () => {
        assert.equal(strata().isActive, true);
        assert.equal(typeof api.whenChatReady, 'function');
    });
    it('registers every command declared in package.json', async () => {
        const declared = strata().packageJSON.contributes.commands.map((c) => c.command);
        assert.deepEqual([...declared].sort(), [...commandIds_1.COMMAND_IDS].sort());
        const registered = new Set(await vscode.commands.getCommands(true));
        const missing = declared.filter((id) => !registered.has(id));
        assert.deepEqual(missing, [], `declared but not registered: ${missing.join(', ')}`);
    });
    it('contributes the Strata container with the chat and Context Layers views', async () => {
        const registered = new Set(await vscode.commands.getCommands(true));
        for (const id of [`workbench.view.extension.${commandIds_1.VIEW_IDS.container}`, `${commandIds_1.VIEW_IDS.chat}.focus`, `${commandIds_1.VIEW_IDS.layers}.focus`]) {
            assert.ok(registered.has(id), `${id} is not a command, so its view does not exist`);
        }
        await vscode.commands.executeCommand(`${commandIds_1.VIEW_IDS.layers}.focus`);
    });
    it('loads the chat webview bundle, which says ready', async () => {
        await vscode.commands.executeCommand(`${commandIds_1.VIEW_IDS.chat}.focus`);
        await withTimeout(api.whenChatReady(), 30_000, 'the chat webview saying ready');
    });
    it('activates in at most 50 ms (LangChain and the tokenizer load later)', () => {
        const ms = api.testing.activationMs;
        console.log(`    activate(): ${ms.toFixed(1)} ms (target 50 ms)`);
        assert.ok(ms <= 50, `activate() took ${ms.toFixed(1)} ms`);
    });
    it('binds Attach Selection to a key that no default VS Code binding uses (on this platform)', async () => {
        await vscode.commands.executeCommand('workbench.action.openDefaultKeybindingsFile');
        const doc = vscode.window.activeTextEditor?.document;
        assert.ok(doc && doc.getText().length > 10_000, 'the default keybindings document opened');
        const ours = strata().packageJSON.contributes.keybindings.find((k) => k.command === 'strata.attachSelection');
        assert.ok(ours);
        const key = process.platform === 'darwin' ? ours.mac ?? ours.key : ours.key;
        const clashes = [...doc.getText().matchAll(/"key":\s*"([^"]+)",\s*"command":\s*"([^"]+)"/g)].filter((m) => m[1] === key && !m[2].startsWith('strata.')).map((m) => m[2]);
        assert.deepEqual(clashes, [], `${key} is already bound to ${clashes.join(', ')}`);
        await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
    });
    it('declares every setting with the defaults the code assumes', () => {
        const configuration = vscode.workspace.getConfiguration('strata');
        for (const key of configKeys_1.SETTING_KEYS) {
            const inspected = configuration.inspect(key);
            assert.ok(inspected, `strata.${key} is not declared`);
            assert.deepEqual(inspected.defaultValue, configKeys_1.SETTING_DEFAULTS[key], `default of strata.${key}`);
        }
    });
});
//# sourceMappingURL=extension.test.js.map