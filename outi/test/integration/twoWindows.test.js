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
const chatSession_1 = require("../../src/services/chatSession");
const scripted_1 = require("../../src/services/providers/scripted");
const tokenizer_1 = require("../../src/services/tokenizer");
const imitationServers_1 = require("../support/imitationServers");
const panel_1 = require("./support/panel");
/**
 * Two windows on one folder share its chat store (issue 12). The other window is a second
 * `ChatSession` on this window's storage folder, in this process, writing through its own `ChatStore`
 * instance exactly as another extension host would (the store lock and the files are the only
 * channel). This window's panel must follow it through the store watcher, and a turn of the other
 * window saved while this one streams must end up before this window's turn, with a banner.
 */
describe('Two windows, one workspace (host)', function () {
    this.timeout(120_000);
    let api;
    let panel;
    let openai;
    const otherWindow = (chatId) => chatSession_1.ChatSession.open({ storeRoot: api.testing.session.store.root, port: api.testing.workspace, tokenizer: tokenizer_1.getTokenizer, settings: () => ({ layout: 'transcript', policy: 'append-version' }) }, chatId);
    before(async () => {
        api = await (0, panel_1.strataApi)();
        await vscode.commands.executeCommand('strata.chat.focus');
        await (0, panel_1.withTimeout)(api.whenChatReady(), 30_000, 'the chat webview saying ready');
        panel = new panel_1.PanelDriver(api);
        openai = await (0, imitationServers_1.startOpenAIImitation)({ defaultReply: 'A reply that streams slowly, piece by piece, so the other window can save meanwhile.', deltaChars: 4, chunkDelayMs: 40 });
        await (0, panel_1.configure)(api, { provider: 'openai', baseUrl: `${openai.url}`, model: 'gpt-4o' });
    });
    after(async () => {
        panel?.dispose();
        await openai?.close();
        await (0, panel_1.configure)(api, { provider: undefined, baseUrl: undefined, model: undefined });
    });
    beforeEach(async () => {
        await api.testing.controller.newChat();
        panel.clear();
    });
    it('a turn the other window saves reaches this panel as a fresh state (and the tree), and this window continues after it', async () => {
        await panel.sendAndWait('From this window');
        const session = api.testing.session;
        const chatId = session.activeChatId;
        const other = otherWindow(chatId);
        let treeChanged = 0;
        const sub = api.testing.controller.onDidChange(() => treeChanged++);
        try {
            panel.clear();
            const o = await other.send('From the other window', new scripted_1.ScriptedProvider(() => 'The other window\'s reply.'));
            assert.equal(o.status, 'done');
            await (0, panel_1.until)('a fresh panel state with the other window\'s turn', () => panel.of('state').some((m) => m.state.chatId === chatId && m.state.messages.some((x) => x.text === 'From the other window')), 10_000);
            assert.equal(session.engine.state.completedTurns, 2);
            assert.ok(treeChanged > 0, 'the Context Layers tree was told');
            const { started } = await panel.sendAndWait('Back in this window');
            assert.equal(started.user.turn, 3);
            assert.deepEqual(session.messages().messages.filter((m) => m.role === 'user').map((m) => m.text), ['From this window', 'From the other window', 'Back in this window']);
            // Renamed in the other window: the chat list follows.
            other.renameChat(chatId, 'Renamed in the other window');
            await (0, panel_1.until)('the chat list with the new title', () => panel.of('chats').some((m) => m.chats.some((c) => c.id === chatId && c.title === 'Renamed in the other window')), 10_000);
        }
        finally {
            sub.dispose();
        }
    });
    it('a turn the other window saves while this one streams: this turn is saved after it, the panel shows both and says so', async () => {
        await panel.sendAndWait('First');
        const session = api.testing.session;
        const chatId = session.activeChatId;
        const other = otherWindow(chatId);
        panel.clear();
        let otherDone;
        const sub = api.testing.onDidPost((m) => {
            if (m.type === 'chunk' && !otherDone)
                otherDone = other.send('The other window, meanwhile', new scripted_1.ScriptedProvider(() => 'Saved while the first window streamed.'));
        });
        try {
            await panel.requestOk({ kind: 'send', text: 'This window, streaming' });
            await (0, panel_1.withTimeout)(api.testing.controller.whenTurnDone(), 30_000, 'the turn to end');
            await otherDone;
        }
        finally {
            sub.dispose();
        }
        const ended = panel.last('turnEnded');
        assert.equal(ended.kept, true);
        await (0, panel_1.until)('the banner about the other window', () => (panel.last('banners')?.banners ?? []).some((b) => /Another window added a turn to this chat while this reply streamed\. Your turn was saved after it \(turn 3\)/.test(b.message)), 10_000);
        await (0, panel_1.until)('a fresh state with all three turns', () => panel.of('state').some((m) => m.state.messages.filter((x) => x.role === 'user').map((x) => x.text).join('|') === 'First|The other window, meanwhile|This window, streaming'), 10_000);
        assert.equal(session.engine.state.completedTurns, 3);
        const onDisk = session.store.loadChat(chatId);
        assert.deepEqual(onDisk.state.turns.map((t) => t.userText), ['First', 'The other window, meanwhile', 'This window, streaming']);
        assert.deepEqual(onDisk.turns[2].rebased, { builtAfterTurn: 1 });
    });
    it('the open chat deleted in the other window: this panel moves to another chat and says so', async () => {
        await panel.sendAndWait('Soon deleted elsewhere');
        const chatId = api.testing.session.activeChatId;
        panel.clear();
        otherWindow(chatId).deleteChat(chatId);
        await (0, panel_1.until)('the panel on another chat', () => panel.of('state').some((m) => m.state.chatId !== chatId), 10_000);
        assert.notEqual(api.testing.session.activeChatId, chatId);
        assert.ok((panel.last('banners')?.banners ?? []).some((b) => /deleted in another window/.test(b.message)));
    });
});
//# sourceMappingURL=twoWindows.test.js.map