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
 * The open-time benchmark case (bench/perfOpen.ts): its directly built chat states are states the
 * engine accepts and continues (so the figure is about a real chat file), both writers give chats of
 * the same shape, and the case reports its figures and target.
 */
const assert = __importStar(require("assert"));
const fs = __importStar(require("fs"));
const os = __importStar(require("os"));
const path = __importStar(require("path"));
const bench_1 = require("../../bench/bench");
const perfOpen_1 = require("../../bench/perfOpen");
const engine_1 = require("../../src/engine/engine");
const invariants_1 = require("../../src/engine/invariants");
const hash_1 = require("../../src/common/hash");
const chatSession_1 = require("../../src/services/chatSession");
const chatStore_1 = require("../../src/services/chatStore");
const memoryWorkspace_1 = require("../../src/services/memoryWorkspace");
const modelInfo_1 = require("../../src/services/modelInfo");
const tokenizer_1 = require("../../src/services/tokenizer");
const tmpDirs = [];
function tmp() {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-perf-open-'));
    tmpDirs.push(d);
    return d;
}
after(() => {
    for (const d of tmpDirs)
        fs.rmSync(d, { recursive: true, force: true });
});
describe('bench: opening a long chat from disk', () => {
    it('the directly built chat is one the engine continues, shaped like the pipeline\'s', () => {
        const gen = { turns: 40, fileBytes: 150_000 };
        const synthetic = tmp();
        const pipeline = tmp();
        const a = (0, perfOpen_1.writeSyntheticChat)(synthetic, gen);
        const b = (0, perfOpen_1.writeGeneratedChat)(pipeline, gen);
        const la = chatStore_1.ChatStore.open(synthetic).loadChat(a.chatId);
        const lb = chatStore_1.ChatStore.open(pipeline).loadChat(b.chatId);
        assert.deepStrictEqual(la.warnings, []);
        assert.strictEqual(la.state.completedTurns, 40);
        assert.deepStrictEqual(la.state.turns.map((t) => t.userText), lb.state.turns.map((t) => t.userText));
        assert.strictEqual(la.state.latest.size, lb.state.latest.size, 'the same files and selections');
        assert.strictEqual(la.state.entries.size, lb.state.entries.size, 'the same versions');
        const size = (root, id) => fs.statSync(path.join(root, 'chats', `${id}.jsonl`)).size;
        const ratio = size(synthetic, a.chatId) / size(pipeline, b.chatId);
        assert.ok(ratio > 0.7 && ratio < 1.3, `chat file sizes comparable (${ratio.toFixed(2)})`);
        const engine = new engine_1.PromptContextEngine({ conversationId: a.chatId, layout: 'transcript', policy: 'append-version', tokenizer: (0, tokenizer_1.getTokenizer)('o200k_base'), system: 'You are a careful coding assistant. Answer precisely and cite file paths and line numbers.', limits: { contextWindow: 2_000_000, maxOutputTokens: 8192 } }, la.state);
        const env = engine.buildTurn({ userText: 'one more' });
        assert.deepStrictEqual((0, invariants_1.checkEnvelope)(env, env.budget, { hasher: { sha256Hex: hash_1.sha256Hex }, ...engine.checkContext(), blocked: !!env.blocked }), []);
        engine.completeTurn('ok');
        assert.strictEqual(engine.state.completedTurns, 41);
    });
    it('reports the open times and the ≤ 150 ms target', () => {
        const r = (0, perfOpen_1.measureOpenTime)(1, { turns: 30, fileBytes: 100_000 }, 'synthetic', 1);
        assert.strictEqual(r.turns, 30);
        assert.deepStrictEqual([r.loadChat.n, r.openChat.n, r.sessionOpen.n, r.cold.n], [1, 1, 1, 1]);
        assert.ok(r.blobs > 0 && r.chatFileBytes > 0);
        assert.match((0, bench_1.performanceMarkdown)({ openChat: r }), /### Opening a 30-turn chat from disk[\s\S]*`ChatSession\.openChat` \+ the last 50 messages/);
        const t = (0, bench_1.evaluateTargets)([], { openChat: r }).find((x) => x.id === 'open:1000-turn-chat');
        assert.match(t.description, /opening a 30-turn chat from disk .* ≤ 150 ms/);
        assert.ok(t.status === 'met' || t.status === 'missed');
    });
    it(`a chat of ${chatSession_1.METER_DEFERRED_TURNS} turns or more opened in a session has no meter at hand until it is counted; a shorter one has`, () => {
        const root = tmp();
        const long = (0, perfOpen_1.writeSyntheticChat)(root, { turns: chatSession_1.METER_DEFERRED_TURNS, fileBytes: 120_000 }).chatId;
        // Another chat, one turn short of the threshold.
        const shortRoot = tmp();
        const short = (0, perfOpen_1.writeSyntheticChat)(shortRoot, { turns: chatSession_1.METER_DEFERRED_TURNS - 1, fileBytes: 120_000 }).chatId;
        const open = (storeRoot, id) => chatSession_1.ChatSession.open({ storeRoot, port: new memoryWorkspace_1.MemoryWorkspace({}), tokenizer: tokenizer_1.getTokenizer, settings: () => ({ layout: 'transcript', policy: 'append-version' }), model: (0, modelInfo_1.modelInfo)('openai', 'gpt-4o'), store: { durable: false } }, id);
        const s = open(root, long);
        assert.strictEqual(s.engine.state.completedTurns, chatSession_1.METER_DEFERRED_TURNS);
        assert.strictEqual(s.meterIfReady(), undefined, 'the panel state leaves it out');
        const m = s.meter();
        assert.ok(m.used > 0);
        assert.strictEqual(s.meterIfReady(), m, 'counted once, then at hand');
        // A change to the next request: counted at once now (this engine has built the chat before).
        const item = s.chatItems().find((i) => i.status === 'present');
        s.removeItem(item.id);
        const after = s.meterIfReady();
        assert.ok(after && after !== m);
        // Reopened (a new engine on the chat): left out again.
        s.openChat(long);
        assert.strictEqual(s.meterIfReady(), undefined);
        const t = open(shortRoot, short);
        assert.ok(t.meterIfReady(), 'a shorter chat is counted with its state');
    });
});
//# sourceMappingURL=perfOpen.test.js.map