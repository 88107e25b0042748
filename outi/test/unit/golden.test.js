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
 * Golden snapshots of whole requests (STYLE.md "Tests at three levels"): every trajectory in
 * test/fixtures/trajectories × both layouts, policy append-version, the real o200k tokenizer.
 * Per turn: each message's role and blocks (segment layer / kind / id, text length, sha256 prefix,
 * cache breakpoint), layer tokens, total, prefix hash, cut reports and rejections; walkthrough-6
 * also keeps the full request text. Any change to what the engine sends shows up here as a diff.
 *
 * A missing snapshot is written (except under CI, where it fails); UPDATE_SNAPSHOTS=1 rewrites them
 * all. Review the git diff of test/unit/__snapshots__ before committing.
 */
const assert = __importStar(require("node:assert/strict"));
const fs = __importStar(require("node:fs"));
const path = __importStar(require("node:path"));
const replay_1 = require("../../bench/replay");
const replayCore_1 = require("../../bench/replayCore");
const tokenizer_1 = require("../../src/services/tokenizer");
const snapshot_1 = require("./helpers/snapshot");
const repoRoot = path.resolve(__dirname, '../../..');
const fixtures = path.join(repoRoot, 'test/fixtures/trajectories');
const snapshots = path.resolve(__dirname, '../../../test/unit/__snapshots__');
const update = process.env.UPDATE_SNAPSHOTS === '1';
const ci = !!process.env.CI && process.env.CI !== 'false';
const LAYOUTS = ['library', 'transcript'];
/** Trajectories whose snapshot also keeps the full request text. */
const FULL_TEXT = new Set(['walkthrough-6']);
function snapshotOf(name, traj, layout) {
    const tokenizer = (0, tokenizer_1.getTokenizer)(traj.model.encoding);
    const turns = [...(0, replayCore_1.replay)(traj, { layout, policy: 'append-version', tokenizer })].map((t) => {
        const env = t.envelope;
        const segs = (0, snapshot_1.alignSegments)(env);
        return {
            turn: t.turn,
            messages: env.messages.map((m, mi) => ({
                role: m.role,
                blocks: m.content.map((b, bi) => {
                    const g = segs[mi][bi];
                    return { layer: g.layer, kind: g.kind, id: g.id, length: b.text.length, sha8: (0, snapshot_1.sha8)(b.text), ...(b.cacheBreakpoint ? { cacheBreakpoint: true } : {}) };
                }),
            })),
            layers: Object.fromEntries(env.layers.map((l) => [l.id, l.tokens])),
            totalTokens: env.totalTokens,
            prefixHash: env.prefixHash,
            pruned: t.pruned,
            rejections: t.rejections,
            ...(env.blocked ? { blocked: env.blocked.message } : {}),
            ...(FULL_TEXT.has(name) ? { request: env.messages.map((m) => ({ role: m.role, text: m.content.map((b) => b.text).join('').split('\n') })) } : {}),
        };
    });
    return { trajectory: name, layout, policy: 'append-version', encoding: traj.model.encoding, contextWindow: traj.model.contextWindow, maxOutputTokens: traj.model.maxOutputTokens, turns };
}
const names = fs.readdirSync(fixtures).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -'.json'.length)).sort();
describe('golden snapshots of every request (test/unit/__snapshots__)', function () {
    this.timeout(60_000);
    it('covers the five shared trajectories', () => {
        assert.deepEqual(names, ['adversarial', 'budget-pressure', 'long-session-20', 'selection-heavy', 'walkthrough-6']);
    });
    for (const name of names) {
        for (const layout of LAYOUTS) {
            it(`${name} (${layout})`, () => {
                const traj = (0, replay_1.loadTrajectory)(path.join(fixtures, `${name}.json`));
                const actual = JSON.parse(JSON.stringify(snapshotOf(name, traj, layout)));
                const file = path.join(snapshots, `${name}.${layout}.json`);
                const exists = fs.existsSync(file);
                if (update || (!exists && !ci)) {
                    fs.mkdirSync(snapshots, { recursive: true });
                    fs.writeFileSync(file, (0, snapshot_1.stableStringify)(actual) + '\n');
                    return;
                }
                assert.ok(exists, `${path.relative(repoRoot, file)} is missing; run the tests once without CI (or with UPDATE_SNAPSHOTS=1) and commit it`);
                const expected = JSON.parse(fs.readFileSync(file, 'utf8'));
                const diff = (0, snapshot_1.firstDifference)(actual, expected);
                // A changed hash formula changes every prefixHash; say also where the request itself first differs.
                const content = diff && (0, snapshot_1.firstDifference)(actual, expected, '$', new Set(['prefixHash']));
                const also = diff && content !== diff ? `\nFirst difference outside prefixHash: ${content ?? 'none'}` : '';
                assert.equal(diff, undefined, `${name} (${layout}) differs from ${path.relative(repoRoot, file)} at ${diff}${also}\nIf the change is intended, run with UPDATE_SNAPSHOTS=1 and review the diff.`);
            });
        }
    }
    it('holds no snapshot of a trajectory or layout that no longer exists', () => {
        const expected = names.flatMap((n) => LAYOUTS.map((l) => `${n}.${l}.json`)).sort();
        const present = fs.readdirSync(snapshots).filter((f) => /\.(library|transcript)\.json$/.test(f)).sort();
        assert.deepEqual(present, expected);
    });
});
//# sourceMappingURL=golden.test.js.map