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
const assert = __importStar(require("assert"));
const path = __importStar(require("path"));
const replay_1 = require("../../bench/replay");
const replayCore_1 = require("../../bench/replayCore");
const render_1 = require("../../src/engine/render");
const artifacts_1 = require("../../src/engine/artifacts");
const trajectory_1 = require("../../bench/trajectory");
const tokenizer_1 = require("../../src/services/tokenizer");
const file = path.resolve(__dirname, '../../../test/fixtures/trajectories/budget-pressure.json');
describe('budget-pressure trajectory (DESIGN §5)', () => {
    const traj = (0, replay_1.loadTrajectory)(file);
    const sel = traj.turns[0].attach[0].selection;
    const snapshot = (0, artifacts_1.sliceLines)((0, trajectory_1.expandFileValue)(traj.files[sel.file]), sel).content;
    for (const layout of ['transcript', 'library']) {
        it(`${layout}: every request fits the budget, the pinned selection is verbatim in every request after the pin, cuts are reported`, () => {
            const turns = [...(0, replayCore_1.replay)(traj, { layout, policy: 'append-version', tokenizer: (0, tokenizer_1.getTokenizer)('o200k_base') })];
            assert.strictEqual(turns.length, 10);
            let cuts = 0;
            let breaks = 0;
            let prunedTurns = 0;
            const resent = [];
            for (const t of turns) {
                const env = t.envelope;
                assert.deepStrictEqual(t.violations, []);
                assert.strictEqual(env.blocked, undefined);
                assert.ok(env.totalTokens <= env.budget, `turn ${t.turn}: ${env.totalTokens} > ${env.budget}`);
                assert.strictEqual(env.budget, 13632);
                if (t.turn >= 2) {
                    const blocks = env.layers.flatMap((l) => l.segments).filter((g) => g.kind === 'artifact' && g.artifactKey?.startsWith('sel:docs/commander-readme.md#L1-L12@'));
                    assert.strictEqual(blocks.length, 1, `turn ${t.turn}: the pinned selection is sent once`);
                    assert.strictEqual((0, render_1.extractBody)(blocks[0].text), snapshot, `turn ${t.turn}: verbatim`);
                    const item = env.ledger.layers.flatMap((l) => l.items).find((i) => i.id === blocks[0].id);
                    assert.strictEqual(item.essential, true);
                }
                for (const p of env.pruned) {
                    assert.ok(!p.item.startsWith('sel:'), 'the pinned selection is never cut');
                    assert.ok(p.preTokens >= p.postTokens);
                    assert.ok(p.kept.length > 0 && p.lost.length > 0 && p.reason.length > 0);
                }
                // Budget cuts; a compacted preview superseded by its content sent in full again (library,
                // issue 12) is reported too, but it is not a cut for the budget.
                const budgetCuts = env.pruned.filter((p) => p.reason !== 'resent-in-full');
                for (const p of env.pruned)
                    if (p.reason === 'resent-in-full')
                        resent.push(`${t.turn} ${p.item}`);
                cuts += budgetCuts.length;
                if (budgetCuts.length > 0)
                    prunedTurns++;
                if (env.prefixBreak)
                    breaks++;
            }
            // Pruning happens, and hysteresis keeps it to a few turns rather than every turn after it starts.
            assert.ok(cuts > 0, 'the trajectory is built to need pruning');
            assert.ok(prunedTurns <= 3, `pruned in ${prunedTurns} turns`);
            if (layout === 'transcript')
                assert.strictEqual(breaks, prunedTurns, 'in transcript only a pruning turn breaks the prefix');
            // Library: the compacted files re-attached in turns 7–10 supersede their previews there.
            assert.deepStrictEqual(resent, layout === 'library' ? ['7 file:docs/commander-readme.md', '8 file:src/p-queue.js', '9 file:src/p-retry.js', '10 file:src/picomatch/scan.js'] : []);
        });
    }
});
//# sourceMappingURL=budgetPressure.test.js.map