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
const fs = __importStar(require("node:fs"));
const path = __importStar(require("node:path"));
const replayCore_1 = require("../../bench/replayCore");
const trajectory_1 = require("../../bench/trajectory");
const cacheModel_1 = require("../../src/services/cacheModel");
const tokenizer_1 = require("../../src/services/tokenizer");
/**
 * DESIGN §9: a request's tokens are those of the concatenation, over messages, of `<|role|>\n` +
 * the message's text + `\n`, and the layer tokens add up to it. The engine counts segments one by
 * one; joins that merge when sent as one text ("?" + "\n" is one token) are taken into the message's
 * framing, so the engine's total is exactly what a provider (and the imitation servers) count.
 */
const dir = path.resolve(__dirname, '..', '..', '..', 'test', 'fixtures', 'trajectories');
describe('request tokens', () => {
    for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.json')).sort()) {
        for (const layout of ['transcript', 'library']) {
            it(`${file} ${layout}: every request's layer tokens add up to the §9 count of its messages`, () => {
                const traj = (0, trajectory_1.validateTrajectory)(JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')));
                const tokenizer = (0, tokenizer_1.getTokenizer)(traj.model.encoding);
                let checked = 0;
                for (const t of (0, replayCore_1.replay)(traj, { layout, policy: 'append-version', tokenizer })) {
                    if (t.envelope.blocked)
                        continue;
                    const layers = t.envelope.layers.reduce((n, l) => n + l.tokens, 0);
                    assert.equal(layers, t.envelope.totalTokens, `turn ${t.turn}: layers add up to the total`);
                    assert.equal(t.envelope.totalTokens, (0, cacheModel_1.requestTokenCount)(t.envelope.messages, tokenizer), `turn ${t.turn}: the engine's total is the §9 count`);
                    checked++;
                }
                assert.ok(checked > 0);
            });
        }
    }
});
//# sourceMappingURL=requestTokens.test.js.map