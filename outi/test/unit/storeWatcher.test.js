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
 * The chat store watcher (src/services/storeWatcher.ts): another window's saved turn, rename and
 * delete are reported (chat ids, index), a save is one notification, and the polling fallback reports
 * the same changes.
 */
const assert = __importStar(require("assert"));
const fs = __importStar(require("fs"));
const os = __importStar(require("os"));
const path = __importStar(require("path"));
const engine_1 = require("../../src/engine/engine");
const chatStore_1 = require("../../src/services/chatStore");
const storeWatcher_1 = require("../../src/services/storeWatcher");
const tokenizer_1 = require("../../src/services/tokenizer");
const tmpDirs = [];
after(() => {
    for (const d of tmpDirs)
        fs.rmSync(d, { recursive: true, force: true });
});
function saveTurn(store, id, text) {
    const engine = new engine_1.PromptContextEngine({ conversationId: id, layout: 'transcript', policy: 'append-version', tokenizer: (0, tokenizer_1.getTokenizer)('o200k_base'), system: 's', limits: { contextWindow: 100_000, maxOutputTokens: 1000 } }, store.hasChat(id) ? store.loadChat(id).state : undefined);
    engine.buildTurn({ userText: text, attachments: [{ kind: 'file', uri: `${text}.ts`, content: `export const x = '${text}';\n` }] });
    engine.completeTurn('ok');
    store.appendTurn(id, { state: engine.state, engine: engine.options });
}
async function until(what, pred, ms = 5000) {
    const t0 = Date.now();
    while (!pred()) {
        if (Date.now() - t0 > ms)
            throw new Error(`timed out waiting for ${what}`);
        await new Promise((r) => setTimeout(r, 20));
    }
}
for (const mode of ['fs.watch', 'polling']) {
    describe(`chat store watcher (${mode})`, () => {
        it('reports the chats another window saved to, and index changes (rename, delete), a burst at a time', async () => {
            const root = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-watch-'));
            tmpDirs.push(root);
            const mine = chatStore_1.ChatStore.open(root, { durable: false });
            saveTurn(mine, 'one', 'first');
            const changes = [];
            const w = (0, storeWatcher_1.watchChatStore)(root, (c) => changes.push(c), mode === 'polling' ? { poll: true, pollMs: 50 } : { debounceMs: 100 });
            try {
                await new Promise((r) => setTimeout(r, mode === 'polling' ? 120 : 30));
                const other = chatStore_1.ChatStore.open(root, { durable: false });
                saveTurn(other, 'one', 'second');
                await until('the saved turn', () => changes.some((c) => c.chats.includes('one')));
                const burst = changes.filter((c) => c.chats.includes('one'));
                // Events are gathered: a save (blob, line, index) is one notification (a poll may split one).
                if (mode === 'fs.watch')
                    assert.strictEqual(burst.length, 1, 'one save is one notification');
                await until('the index change', () => changes.some((c) => c.index));
                changes.length = 0;
                other.renameChat('one', 'Renamed elsewhere');
                await until('the rename', () => changes.some((c) => c.index));
                assert.deepStrictEqual(changes[changes.length - 1].chats, []);
                changes.length = 0;
                other.deleteChat('one');
                await until('the delete', () => changes.some((c) => c.chats.includes('one') && c.index));
            }
            finally {
                w.dispose();
            }
            changes.length = 0;
            saveTurn(mine, 'two', 'after dispose');
            await new Promise((r) => setTimeout(r, 200));
            assert.deepStrictEqual(changes, [], 'nothing after dispose');
        });
    });
}
//# sourceMappingURL=storeWatcher.test.js.map