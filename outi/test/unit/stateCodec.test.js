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
/** The chat state codec (DESIGN §10): lossless, validated, blobs separate, compact deltas. */
const assert = __importStar(require("assert"));
const path = __importStar(require("path"));
const replay_1 = require("../../bench/replay");
const replayCore_1 = require("../../bench/replayCore");
const tokenizer_1 = require("../../src/services/tokenizer");
const engine_1 = require("../../src/engine/engine");
const hash_1 = require("../../src/common/hash");
const stateCodec_1 = require("../../src/engine/stateCodec");
const fixtures = path.resolve(__dirname, '../../../test/fixtures/trajectories');
const tok = (0, tokenizer_1.getTokenizer)('o200k_base');
/** Committed states after every turn of a trajectory (states are copy-on-write, so keeping them is safe). */
function statesOf(name, layout = 'library') {
    const traj = (0, replay_1.loadTrajectory)(path.join(fixtures, `${name}.json`));
    const states = [];
    let last;
    for (const _ of (0, replayCore_1.replay)(traj, { layout, policy: 'append-version', tokenizer: tok, afterTurn: (_t, e) => { states.push(e.state); last = e; } }))
        void _;
    return { states, engine: last };
}
function blobGetter(state) {
    const m = new Map((0, stateCodec_1.stateBlobs)(state).map((b) => [b.hash, b.text]));
    return (h) => {
        const t = m.get(h);
        if (t === undefined)
            throw new Error(`blob ${h} not found`);
        return t;
    };
}
/** A comparable view of a state that keeps Map order. */
function view(s) {
    return { ...s, entries: [...s.entries], latest: [...s.latest], versions: [...s.versions] };
}
const budget = statesOf('budget-pressure');
const adversarial = statesOf('adversarial', 'transcript');
describe('state codec (DESIGN §10)', () => {
    it('round-trips real states exactly, Map order included (compacted previews, pruned and pinned items, versions)', () => {
        const final = budget.states[budget.states.length - 1];
        assert.ok([...final.entries.values()].some((e) => e.compacted), 'the fixture state has compacted entries');
        for (const s of [...budget.states, ...adversarial.states]) {
            const enc = (0, stateCodec_1.encodeState)(s);
            const json = JSON.parse(JSON.stringify(enc));
            assert.deepStrictEqual(json, enc, 'JSON-safe');
            const back = (0, stateCodec_1.decodeState)(json, blobGetter(s));
            assert.deepStrictEqual(view(back), view(s));
        }
    });
    it('keeps snapshot content out of the encoded state: blobs are named by sha256 and listed once', () => {
        const s = adversarial.states[adversarial.states.length - 1];
        const text = JSON.stringify((0, stateCodec_1.encodeState)(s));
        const blobs = (0, stateCodec_1.stateBlobs)(s);
        for (const e of s.entries.values()) {
            if (e.artifact.content.length > 80)
                assert.ok(!text.includes(JSON.stringify(e.artifact.content).slice(1, 81)), `${e.key} content not inline`);
        }
        for (const b of blobs)
            assert.strictEqual((0, hash_1.sha256Hex)(b.text), b.hash);
        assert.deepStrictEqual(new Set((0, stateCodec_1.referencedBlobs)((0, stateCodec_1.encodeState)(s))), new Set(blobs.map((b) => b.hash)));
    });
    it('a decoded state renders the same next request as the original', () => {
        const { engine } = statesOf('long-session-20', 'transcript');
        const copy = new engine_1.PromptContextEngine(engine.options, (0, stateCodec_1.decodeState)(JSON.parse(JSON.stringify((0, stateCodec_1.encodeState)(engine.state))), blobGetter(engine.state)));
        const input = { userText: 'one more question', fresh: new Map(engine.recoverableSources().map((r) => [r.id, 'changed\n'])) };
        assert.strictEqual(JSON.stringify(copy.buildTurn(input)), JSON.stringify(engine.buildTurn(input)));
    });
    it('stores a snapshot with a lone surrogate as a JSON blob and gets it back exactly', () => {
        const e = new engine_1.PromptContextEngine({ conversationId: 'x', layout: 'transcript', policy: 'append-version', tokenizer: tok, system: 'sys', limits: { contextWindow: 128000, maxOutputTokens: 4096 } });
        const content = 'before \uD800 after \uDC00!';
        e.buildTurn({ userText: 'look', attachments: [{ kind: 'selection', uri: 'a.ts', range: { startLine: 1, endLine: 1 }, content }] });
        e.completeTurn('ok');
        const enc = (0, stateCodec_1.encodeState)(e.state);
        assert.strictEqual(enc.entries[0].artifact.blobEncoding, 'json');
        const back = (0, stateCodec_1.decodeState)(enc, blobGetter(e.state));
        assert.strictEqual([...back.entries.values()][0].artifact.content, content);
    });
    it('rejects malformed input with a message naming the problem', () => {
        const s = budget.states[3];
        const get = blobGetter(s);
        const good = () => JSON.parse(JSON.stringify((0, stateCodec_1.encodeState)(s)));
        const cases = [
            ['not an object', () => 42, /must be a JSON object/],
            ['wrong format', (x) => ({ ...x, format: 'nope' }), /format: must be "strata-chat-state"/],
            ['future version', (x) => ({ ...x, version: 2 }), /version: 2 is not supported/],
            ['bad presence', (x) => { x.entries[0].presence = 'gone'; return x; }, /presence: must be one of present, detached, pruned, replaced/],
            ['key/version mismatch', (x) => { x.entries[0].artifact.version = 7; return x; }, /key does not match id/],
            ['unknown key in order', (x) => { x.order.push('file:nope'); return x; }, /order\[\d+\]: refers to unknown attachment "file:nope"/],
            ['turn item to nowhere', (x) => { x.turns[0].items.push({ key: 'sel:zzz', mode: 'full' }); return x; }, /turns\[0\]\.items\[\d+\]: refers to unknown attachment/],
            ['turn numbers out of order', (x) => { x.turns[1].turn = 1; return x; }, /turns\[1\]\.turn: 1 does not follow turn 1/],
            ['bad hash', (x) => { x.entries[0].artifact.contentHash = 'abc'; return x; }, /contentHash: must be 64 lowercase hex/],
            ['bad previous block', (x) => { x.previousBlocks[0] = 'robot:123'; return x; }, /previousBlocks\[0\]: must be role:sha256/],
        ];
        for (const [name, mutate, re] of cases) {
            assert.throws(() => (0, stateCodec_1.decodeState)(mutate(good()), get), (e) => e instanceof stateCodec_1.StateDecodeError && re.test(e.message), name);
        }
    });
    it('fails clearly on a missing or wrong blob', () => {
        const s = budget.states[3];
        const enc = (0, stateCodec_1.encodeState)(s);
        const key = enc.entries[0].key;
        assert.throws(() => (0, stateCodec_1.decodeState)(enc, () => { throw new Error('blob gone'); }), new RegExp(`entries\\[0\\] \\(${key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\) snapshot: blob gone`));
        assert.throws(() => (0, stateCodec_1.decodeState)(enc, () => 'other text'), /does not match its sha256/);
    });
    it('deltas rebuild every next state exactly and are much smaller than full states', () => {
        const { states } = statesOf('long-session-20', 'transcript');
        let prev;
        let deltaBytes = 0;
        let fullBytes = 0;
        for (const s of states) {
            const next = (0, stateCodec_1.encodeState)(s, { engine: (0, stateCodec_1.engineMeta)({ conversationId: 'c', layout: 'transcript', policy: 'append-version', tokenizer: tok, system: 's', limits: { contextWindow: 1, maxOutputTokens: 0 } }) });
            const d = JSON.parse(JSON.stringify((0, stateCodec_1.diffState)(prev, next)));
            const rebuilt = (0, stateCodec_1.applyDelta)(prev, d);
            assert.strictEqual((0, stateCodec_1.canonicalJson)(rebuilt), (0, stateCodec_1.canonicalJson)(next));
            assert.strictEqual((0, stateCodec_1.stateDigest)(rebuilt), (0, stateCodec_1.stateDigest)(next));
            deltaBytes += JSON.stringify(d).length;
            fullBytes += JSON.stringify(next).length;
            prev = rebuilt;
        }
        assert.ok(deltaBytes * 3 < fullBytes, `deltas ${deltaBytes} B vs full states ${fullBytes} B`);
    });
    it('withoutEntries drops attachments and everything naming them, leaving a valid state', () => {
        const s = budget.states[budget.states.length - 1];
        const enc = (0, stateCodec_1.encodeState)(s);
        const uri = enc.entries[0].artifact.source.uri;
        const drop = new Set(enc.entries.filter((e) => e.artifact.source.uri === uri).map((e) => e.key));
        const out = (0, stateCodec_1.decodeState)((0, stateCodec_1.withoutEntries)(enc, drop), blobGetter(s));
        for (const k of drop) {
            assert.ok(!out.entries.has(k) && !out.order.includes(k));
            for (const t of out.turns)
                assert.ok(!t.items.some((i) => i.key === k));
        }
        assert.strictEqual(out.entries.size, s.entries.size - drop.size);
    });
    it('records the engine options in force and reports what differs', () => {
        const base = { conversationId: 'c', layout: 'library', policy: 'append-version', tokenizer: tok, system: 'sys', limits: { contextWindow: 1000, maxOutputTokens: 100 } };
        const a = (0, stateCodec_1.engineMeta)(base);
        assert.deepStrictEqual((0, stateCodec_1.compareEngineMeta)(a, (0, stateCodec_1.engineMeta)({ ...base, conversationId: 'other' })), []);
        const diff = (0, stateCodec_1.compareEngineMeta)(a, (0, stateCodec_1.engineMeta)({ ...base, layout: 'transcript', system: 'new', instructions: [{ source: 'AGENTS.md', text: 'x' }], limits: { contextWindow: 2000, maxOutputTokens: 100 } }));
        assert.deepStrictEqual(diff, ['layout was library, now transcript', 'model limits were {"contextWindow":1000,"maxOutputTokens":100}, now {"contextWindow":2000,"maxOutputTokens":100}', 'the system prompt changed', 'the instructions changed']);
    });
});
//# sourceMappingURL=stateCodec.test.js.map