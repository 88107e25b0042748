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
 * The chat store's in-place delta chain (src/services/chatChain.ts) against the engine's codec: the
 * same state as `applyDelta` after every line, the same digest as `stateDigest` (plain and canonical
 * lines, old key order too), the same refusals, and `canonicalize` giving `canonicalJson`'s order.
 */
const assert = __importStar(require("assert"));
const fc = __importStar(require("fast-check"));
const path = __importStar(require("path"));
const replay_1 = require("../../bench/replay");
const replayCore_1 = require("../../bench/replayCore");
const stateCodec_1 = require("../../src/engine/stateCodec");
const chatChain_1 = require("../../src/services/chatChain");
const tokenizer_1 = require("../../src/services/tokenizer");
const scenario_1 = require("./helpers/scenario");
const fixtures = path.resolve(__dirname, '../../../test/fixtures/trajectories');
const tok = (0, tokenizer_1.getTokenizer)('o200k_base');
function encodedStates(traj, layout) {
    const out = [];
    const grab = (_t, e) => {
        out.push((0, stateCodec_1.encodeState)(e.state, { engine: (0, stateCodec_1.engineMeta)(e.options) }));
    };
    for (const _ of (0, replayCore_1.replay)(traj, { layout, policy: 'append-version', tokenizer: tok, check: false, afterTurn: grab }))
        void _;
    return out;
}
/** Applies the deltas between consecutive states both ways and compares after each. */
function checkChain(states, canonicalLines, where) {
    const chain = new chatChain_1.StateChain();
    let engineSide;
    let prev;
    for (const [i, raw] of states.entries()) {
        const next = canonicalLines ? (0, chatChain_1.canonicalize)(raw).value : raw;
        const delta = (0, stateCodec_1.diffState)(prev, next);
        engineSide = (0, stateCodec_1.applyDelta)(engineSide, JSON.parse(JSON.stringify(delta)));
        chain.apply(JSON.parse(JSON.stringify(delta)));
        const enc = chain.encoded();
        assert.strictEqual((0, stateCodec_1.canonicalJson)(enc), (0, stateCodec_1.canonicalJson)(engineSide), `${where}: state after line ${i + 1}`);
        const digest = (0, stateCodec_1.stateDigest)(raw);
        assert.strictEqual((0, chatChain_1.encodedDigest)(enc), digest, `${where}: digest after line ${i + 1}`);
        assert.ok(chain.matches(digest), `${where}: matches after line ${i + 1}`);
        assert.strictEqual(chain.canonical, canonicalLines, `${where}: canonical after line ${i + 1}`);
        assert.strictEqual(chain.digest(), digest);
        prev = next;
    }
}
describe('chat store: the delta chain', () => {
    for (const name of ['walkthrough-6', 'budget-pressure', 'selection-heavy', 'adversarial', 'long-session-20']) {
        it(`${name}: the same states and digests as applyDelta / stateDigest, line by line (engine key order and canonical lines)`, () => {
            const traj = (0, replay_1.loadTrajectory)(path.join(fixtures, `${name}.json`));
            for (const layout of ['library', 'transcript']) {
                const states = encodedStates(traj, layout);
                checkChain(states, false, `${name}/${layout}`);
                checkChain(states, true, `${name}/${layout} canonical`);
            }
        });
    }
    it('random chats (pruning, compaction, summaries, deleted files, pins and detaches): the same states and digests', () => {
        fc.assert(fc.property((0, scenario_1.scenarioArb)({ maxTurns: 10, tokenizers: ['cheap'] }), (spec) => {
            const traj = (0, scenario_1.buildTrajectory)(spec);
            const layout = spec.layout ?? 'transcript';
            const states = encodedStates(traj, layout);
            checkChain(states, false, 'random');
            checkChain(states, true, 'random canonical');
        }), { numRuns: 25, seed: 12 });
    });
    it('canonicalize gives canonicalJson\'s key order to JSON.stringify, keeps objects already in order, and flags index-like keys', () => {
        const traj = (0, replay_1.loadTrajectory)(path.join(fixtures, 'walkthrough-6.json'));
        const enc = encodedStates(traj, 'transcript').pop();
        const c = (0, chatChain_1.canonicalize)(enc);
        assert.ok(c.canonical);
        assert.strictEqual(JSON.stringify(c.value), (0, stateCodec_1.canonicalJson)(enc));
        assert.notStrictEqual(c.value, enc, 'the engine writes keys in its own order');
        assert.strictEqual((0, chatChain_1.canonicalize)(c.value).value, c.value, 'already canonical: the same object');
        assert.strictEqual(JSON.stringify((0, chatChain_1.canonicalize)({ b: 1, a: { d: undefined, c: [{ z: 1, y: 2 }] } }).value), '{"a":{"c":[{"y":2,"z":1}]},"b":1}');
        assert.strictEqual((0, chatChain_1.canonicalize)({ b: { 10: 'x', 9: 'y' } }).canonical, false);
    });
    it('refuses the lines the engine codec refuses (applyDelta, then checkEncodedShape), and a line that names a key twice, without changing the chain', () => {
        const traj = (0, replay_1.loadTrajectory)(path.join(fixtures, 'walkthrough-6.json'));
        const states = encodedStates(traj, 'transcript');
        const first = (0, stateCodec_1.diffState)(undefined, states[0]);
        const bad = [
            ['turns keep past the end', (d) => ({ ...d, turns: { keep: 5, add: [] } })],
            ['order not an array delta', (d) => ({ ...d, order: { keep: 0 } })],
            ['entries not {set}', (d) => ({ ...d, entries: { put: [] } })],
            ['unknown key in keys', (d) => ({ ...d, latest: { set: [], keys: ['nope'] } })],
            ['entry not an object', (d) => ({ ...d, entries: { set: [42] } })],
            ['pair not a pair', (d) => ({ ...d, versions: { set: [['x']] } })],
            ['bad engine options', (d) => ({ ...d, engine: { layout: 'nope' } })],
            ['completedTurns not an integer', (d) => ({ ...d, completedTurns: 1.5 })],
        ];
        for (const [what, mutate] of bad) {
            const d = mutate(JSON.parse(JSON.stringify(first)));
            const chain = new chatChain_1.StateChain();
            assert.throws(() => chain.apply(d), /chat state/, `chain: ${what}`);
            assert.strictEqual(chain.turnCount, 0, `${what}: nothing applied`);
            assert.throws(() => (0, stateCodec_1.checkEncodedShape)((0, stateCodec_1.applyDelta)(undefined, d)), /chat state/, `engine: ${what}`);
        }
        const ok = new chatChain_1.StateChain();
        ok.apply(JSON.parse(JSON.stringify(first)));
        const twice = { completedTurns: 1, latest: { set: [], keys: [states[0].latest[0][0], states[0].latest[0][0]] } };
        assert.throws(() => ok.apply(twice), /names .* twice/);
        assert.strictEqual((0, stateCodec_1.canonicalJson)(ok.encoded()), (0, stateCodec_1.canonicalJson)((0, stateCodec_1.applyDelta)(undefined, first)), 'a refused line leaves the chain as it was');
    });
});
//# sourceMappingURL=chatChain.test.js.map