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
exports.OPEN_DEFAULTS = void 0;
exports.writeGeneratedChat = writeGeneratedChat;
exports.writeSyntheticChat = writeSyntheticChat;
exports.measureOpenTime = measureOpenTime;
/**
 * Opening a long chat from disk (issue 12: a 1,000-turn chat ≤ 150 ms). The generated conversation of
 * bench/perfGenerate.ts (seeded, real source text, ~5 MB of distinct files, edits, selections) is
 * saved by the real `ChatStore`, one line per turn — its states built directly (`writeSyntheticChat`,
 * seconds) or by driving the turn pipeline (`writeGeneratedChat`, what the extension writes, a minute
 * for 1,000 turns). Then the open is timed the way a window opens it: a fresh `ChatStore`
 * (`ChatStore.open`), `loadChat`, and a `ChatSession` on that store opening the chat (`openChat`: the
 * engine built on the loaded state, metas, the panel's last 50 messages); and once as the first thing
 * a new process does (cold).
 *
 *   node out/bench/perfOpen.js [turns] [--pipeline]
 */
const child_process_1 = require("child_process");
const fs = __importStar(require("fs"));
const os = __importStar(require("os"));
const path = __importStar(require("path"));
const artifacts_1 = require("../src/engine/artifacts");
const state_1 = require("../src/engine/state");
const stateCodec_1 = require("../src/engine/stateCodec");
const engine_1 = require("../src/engine/engine");
const chatStore_1 = require("../src/services/chatStore");
const chatSession_1 = require("../src/services/chatSession");
const memoryWorkspace_1 = require("../src/services/memoryWorkspace");
const modelInfo_1 = require("../src/services/modelInfo");
const tokenizer_1 = require("../src/services/tokenizer");
const nodeHasher_1 = require("../src/services/nodeHasher");
const perfGenerate_1 = require("./perfGenerate");
const replayCore_1 = require("./replayCore");
const trajectory_1 = require("./trajectory");
const perfStats_1 = require("./perfStats");
exports.OPEN_DEFAULTS = { turns: 1000, fileBytes: 5_000_000 };
function dirBytes(dir) {
    let n = 0;
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        const p = path.join(dir, e.name);
        n += e.isDirectory() ? dirBytes(p) : fs.statSync(p).size;
    }
    return n;
}
/**
 * Writes the generated conversation into a chat store at `root` by driving it through the turn
 * pipeline (what the extension writes, exactly; slow for 1,000 turns: every build renders the whole
 * transcript). Returns the chat id.
 */
function writeGeneratedChat(root, gen = {}) {
    const { trajectory, info } = (0, perfGenerate_1.generateConversation)({ turns: exports.OPEN_DEFAULTS.turns, fileBytes: exports.OPEN_DEFAULTS.fileBytes, ...gen });
    const chatId = 'long-chat';
    const store = chatStore_1.ChatStore.open(root, { durable: false });
    const t0 = performance.now();
    const run = new replayCore_1.ReplayRun(trajectory, { layout: 'transcript', policy: 'append-version', tokenizer: new tokenizer_1.GuardedTokenizer('o200k_base'), fresh: 'changed', check: false });
    run.pipeline.persist = { store, chatId };
    for (let i = 0; i < trajectory.turns.length; i++) {
        const { request, send } = run.prepare(i);
        run.result(i, run.pipeline.runSync(request, run.scripted, send));
    }
    return { chatId, info, writeMs: performance.now() - t0 };
}
/**
 * Writes the generated conversation into a chat store at `root` without the engine: the chat state
 * each turn leaves (files attached, re-attached as references, edited files as new versions with the
 * old ones superseded, selections, the previous request's block hashes, per-turn request facts) is
 * built directly and saved with `ChatStore.appendTurn`, one line per turn, as the extension saves
 * them. Seconds instead of a minute for 1,000 turns; the file has the same shape and about the same
 * size as the pipeline's (`writeGeneratedChat`).
 */
function writeSyntheticChat(root, gen = {}) {
    const { trajectory, info } = (0, perfGenerate_1.generateConversation)({ turns: exports.OPEN_DEFAULTS.turns, fileBytes: exports.OPEN_DEFAULTS.fileBytes, ...gen });
    const chatId = 'long-chat';
    const store = chatStore_1.ChatStore.open(root, { durable: false });
    const t0 = performance.now();
    const meta = (0, stateCodec_1.engineMeta)({
        conversationId: chatId, layout: 'transcript', policy: 'append-version', tokenizer: { encoding: 'o200k_base', count: () => 0 },
        limits: { contextWindow: trajectory.model.contextWindow, maxOutputTokens: trajectory.model.maxOutputTokens }, system: trajectory.system,
    });
    const state = (0, state_1.emptyState)();
    const current = new Map(Object.entries(trajectory.files).map(([p, v]) => [p, (0, trajectory_1.expandFileValue)(v)]));
    const h = (t) => nodeHasher_1.NODE_HASHER.sha256Hex(t);
    const add = (input, turn) => {
        const probe = (0, artifacts_1.makeArtifact)(input, 1, nodeHasher_1.NODE_HASHER);
        const v = (state.versions.get(probe.id) ?? 0) + 1;
        const artifact = v === 1 ? probe : (0, artifacts_1.makeArtifact)(input, v, nodeHasher_1.NODE_HASHER);
        const key = (0, artifacts_1.versionKey)(artifact.id, v);
        const old = state.latest.get(artifact.id);
        if (old)
            state.entries.set(old, { ...state.entries.get(old), superseded: true, presence: 'pruned' });
        state.entries.set(key, { artifact, key, firstTurn: turn, presence: 'present', superseded: false, missing: false, essential: false });
        state.latest.set(artifact.id, key);
        state.versions.set(artifact.id, v);
        state.order.push(key);
        return key;
    };
    let blocks = [`system:${h(trajectory.system)}`];
    trajectory.turns.forEach((t, i) => {
        const turn = i + 1;
        const items = [];
        const seen = new Set();
        for (const [p, text] of Object.entries(t.edits ?? {}))
            if (text !== null)
                current.set(p, (0, trajectory_1.expandFileValue)(text));
        // Append-version: an attached file edited since is sent again, as a new version, at the next turn.
        for (const [p] of Object.entries(t.edits ?? {})) {
            const key = state.latest.get((0, artifacts_1.fileId)(p));
            if (key && state.entries.get(key).artifact.content !== current.get(p)) {
                items.push({ key: add({ kind: 'file', uri: p, content: current.get(p) }, turn), mode: 'full' });
                seen.add((0, artifacts_1.fileId)(p));
            }
        }
        for (const a of t.attach ?? []) {
            if (a.file) {
                const id = (0, artifacts_1.fileId)(a.file);
                if (seen.has(id))
                    continue;
                seen.add(id);
                const key = state.latest.get(id);
                if (key)
                    items.push({ key, mode: 'reference' });
                else
                    items.push({ key: add({ kind: 'file', uri: a.file, content: current.get(a.file) }, turn), mode: 'full' });
            }
            else if (a.selection) {
                const sel = (0, artifacts_1.sliceLines)(current.get(a.selection.file), { startLine: a.selection.startLine, endLine: a.selection.endLine });
                if (!sel)
                    continue;
                const input = { kind: 'selection', uri: a.selection.file, range: sel.range, content: sel.content };
                const id = (0, artifacts_1.makeArtifact)(input, 1, nodeHasher_1.NODE_HASHER).id;
                if (seen.has(id))
                    continue;
                seen.add(id);
                items.push(state.latest.has(id) ? { key: state.latest.get(id), mode: 'reference' } : { key: add(input, turn), mode: 'full' });
            }
        }
        state.turns = [...state.turns, { turn, userText: t.user, items, reply: t.reply }];
        state.completedTurns = turn;
        blocks = [...blocks, ...items.filter((x) => x.mode === 'full').map((x) => `user:${state.entries.get(x.key).artifact.contentHash}`), `user:${h(t.user)}`, `assistant:${h(t.reply)}`];
        state.previousBlocks = blocks;
        const layers = ['L1', 'L2', 'L3', 'L4', 'L5'].map((id, k) => ({ id, hash: h(`${id}:${turn}:${k}`), tokens: 1000 * (k + 1) + turn }));
        store.appendTurn(chatId, {
            state,
            engine: meta,
            envelope: { layers, prefixHash: h(`prefix:${turn}`), totalTokens: 15_000 + turn * 400, ledger: { cachedTokens: 14_000 + turn * 380, budget: 1_900_000 } },
            usage: { input: 15_000 + turn * 400, cacheRead: 14_000 + turn * 380, cacheWrite: 0, output: 300 },
            model: 'OpenAI · gpt-4o',
            provider: 'openai',
            request: { attachments: (t.attach ?? []).map((a) => (a.file ? { kind: 'file', path: a.file } : { kind: 'selection', path: a.selection.file, startLine: a.selection.startLine, endLine: a.selection.endLine })) },
        });
    });
    return { chatId, info, writeMs: performance.now() - t0 };
}
/** Opens the chat once in this process and prints the time (the cold case runs this in a new process). */
function coldOpen(root, chatId) {
    const t0 = performance.now();
    const loaded = chatStore_1.ChatStore.open(root, { durable: false }).loadChat(chatId);
    const ms = performance.now() - t0;
    if (loaded.state.completedTurns === 0)
        throw new Error('empty chat');
    return ms;
}
function measureOpenTime(runs = 7, gen = {}, writer = 'synthetic', coldRuns = 3) {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-open-'));
    try {
        const { chatId, info, writeMs } = (writer === 'synthetic' ? writeSyntheticChat : writeGeneratedChat)(root, gen);
        const tokenizer = new tokenizer_1.GuardedTokenizer('o200k_base');
        const sessionOptions = {
            storeRoot: root,
            port: new memoryWorkspace_1.MemoryWorkspace({}),
            tokenizer: () => tokenizer,
            settings: () => ({ layout: 'transcript', policy: 'append-version' }),
            model: (0, modelInfo_1.modelInfo)('openai', 'gpt-4o'),
            store: { durable: false },
        };
        // A second, small chat: the session under test has it open when it opens the long one from disk.
        const small = new engine_1.PromptContextEngine({ conversationId: 'small-chat', layout: 'transcript', policy: 'append-version', tokenizer, system: 'small', limits: { contextWindow: 128_000, maxOutputTokens: 4096 } });
        small.buildTurn({ userText: 'a small chat' });
        small.completeTurn('ok');
        chatStore_1.ChatStore.open(root, { durable: false }).appendTurn('small-chat', { state: small.state, engine: small.options });
        const cold = [];
        for (let r = 0; r < coldRuns; r++) {
            const out = (0, child_process_1.execFileSync)(process.execPath, [__filename, '--cold', root, chatId], { encoding: 'utf8' });
            cold.push(Number(out.trim()));
        }
        const load = [];
        const open = [];
        const fresh = [];
        let turns = 0;
        for (let r = 0; r < runs; r++) {
            let t0 = performance.now();
            const loaded = chatStore_1.ChatStore.open(root, { durable: false }).loadChat(chatId);
            load.push(performance.now() - t0);
            turns = loaded.state.completedTurns;
            const session = chatSession_1.ChatSession.open(sessionOptions, 'small-chat');
            if (session.activeChatId !== 'small-chat')
                throw new Error('the session opened another chat first');
            t0 = performance.now();
            session.openChat(chatId);
            session.messages({ last: 25 });
            open.push(performance.now() - t0);
            t0 = performance.now();
            const s2 = chatSession_1.ChatSession.open(sessionOptions, chatId);
            s2.messages({ last: 25 });
            fresh.push(performance.now() - t0);
            if (s2.engine.state.completedTurns !== turns)
                throw new Error('the session opened a different chat');
        }
        const firstMeter = [];
        for (let r = 0; r < Math.min(3, runs); r++) {
            // As a chat saved by an older version: no counts beside it (the session saves them after this meter).
            fs.rmSync(path.join(root, 'counts'), { recursive: true, force: true });
            const fresh = new tokenizer_1.GuardedTokenizer('o200k_base');
            const s3 = chatSession_1.ChatSession.open({ ...sessionOptions, tokenizer: () => fresh }, chatId);
            const t0 = performance.now();
            s3.meter();
            firstMeter.push(performance.now() - t0);
        }
        const counter = new tokenizer_1.GuardedTokenizer('o200k_base').counter;
        if (chatStore_1.ChatStore.open(root, { durable: false }).loadTokenCounts(chatId, counter).size === 0)
            throw new Error('the first meter of a long chat saved no token counts');
        const firstMeterSaved = [];
        const meterAfterChange = [];
        for (let r = 0; r < Math.min(3, runs); r++) {
            const fresh = new tokenizer_1.GuardedTokenizer('o200k_base');
            const s4 = chatSession_1.ChatSession.open({ ...sessionOptions, tokenizer: () => fresh }, chatId);
            let t0 = performance.now();
            s4.meter();
            firstMeterSaved.push(performance.now() - t0);
            // Then the user changes what the next request holds (an item removed, then kept): each change
            // builds the predicted request again, pruning included until a turn is sent.
            const item = s4.chatItems().filter((i) => i.status === 'present').pop();
            if (!item)
                throw new Error('no item to remove');
            for (let k = 0; k < 4; k++) {
                if (k % 2 === 0)
                    s4.removeItem(item.id);
                else
                    s4.cancelItemOp(item.id);
                t0 = performance.now();
                s4.meter();
                meterAfterChange.push(performance.now() - t0);
            }
        }
        const blobsDir = path.join(root, 'blobs');
        return {
            turns,
            generated: info,
            writer,
            chatFileBytes: fs.statSync(path.join(root, 'chats', `${chatId}.jsonl`)).size,
            blobBytes: dirBytes(blobsDir),
            blobs: fs.readdirSync(blobsDir).reduce((n, d) => n + fs.readdirSync(path.join(blobsDir, d)).length, 0),
            writeMs: (0, perfStats_1.round)(writeMs, 0),
            runs,
            loadChat: (0, perfStats_1.stats)(load),
            openChat: (0, perfStats_1.stats)(open),
            sessionOpen: (0, perfStats_1.stats)(fresh),
            cold: (0, perfStats_1.stats)(cold),
            firstMeter: (0, perfStats_1.stats)(firstMeter),
            firstMeterSaved: (0, perfStats_1.stats)(firstMeterSaved),
            meterAfterChange: (0, perfStats_1.stats)(meterAfterChange),
        };
    }
    finally {
        fs.rmSync(root, { recursive: true, force: true });
    }
}
if (require.main === module) {
    const args = process.argv.slice(2);
    if (args[0] === '--cold') {
        process.stdout.write(`${coldOpen(args[1], args[2])}\n`);
    }
    else {
        // node out/bench/perfOpen.js [turns] [--pipeline]
        const turns = Number(args.find((a) => /^\d+$/.test(a)) ?? exports.OPEN_DEFAULTS.turns);
        const r = measureOpenTime(5, { turns }, args.includes('--pipeline') ? 'pipeline' : 'synthetic');
        process.stdout.write(JSON.stringify(r, null, 2) + '\n');
    }
}
//# sourceMappingURL=perfOpen.js.map