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
 * DESIGN §8: the trajectories the tests use are copied into test/fixtures/trajectories so a clone is
 * self-contained; the copies must stay byte-identical to ../shared/trajectories when that folder
 * exists next to the repository. Without it, the fixtures folder itself must be complete.
 */
const assert = __importStar(require("node:assert/strict"));
const fs = __importStar(require("node:fs"));
const path = __importStar(require("node:path"));
const replay_1 = require("../../bench/replay");
const repoRoot = path.resolve(__dirname, '../../..');
const fixtures = path.join(repoRoot, 'test/fixtures/trajectories');
const shared = path.resolve(repoRoot, '../shared/trajectories');
const EXPECTED = ['README.md', 'adversarial.json', 'budget-pressure.json', 'long-session-20.json', 'selection-heavy.json', 'walkthrough-6.json'];
const list = (dir) => fs.readdirSync(dir).filter((f) => fs.statSync(path.join(dir, f)).isFile()).sort();
describe('trajectory fixtures (DESIGN §8)', () => {
    it('the fixtures folder holds the five shared trajectories and their README, each a valid trajectory named after its file', () => {
        assert.deepEqual(list(fixtures), EXPECTED);
        for (const f of EXPECTED.filter((x) => x.endsWith('.json'))) {
            assert.equal((0, replay_1.loadTrajectory)(path.join(fixtures, f)).name, f.slice(0, -'.json'.length));
        }
    });
    if (fs.existsSync(shared)) {
        it(`every fixture is byte-identical to its original in ${shared}`, () => {
            const originals = new Set(list(shared));
            for (const f of list(fixtures)) {
                assert.ok(originals.has(f), `${f} has no original in ${shared}`);
                assert.ok(fs.readFileSync(path.join(fixtures, f)).equals(fs.readFileSync(path.join(shared, f))), `${f} differs from ${path.join(shared, f)}; copy it again`);
            }
        });
        it('no shared trajectory is missing from the fixtures', () => {
            assert.deepEqual(list(shared).filter((f) => f.endsWith('.json')), list(fixtures).filter((f) => f.endsWith('.json')));
        });
    }
});
//# sourceMappingURL=fixturesSync.test.js.map