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
 * The Node hashing port (src/services/nodeHasher.ts) gives the engine the same sha256 as its own
 * pure-JS one (src/common/hash.ts): layer hashes, block signatures and chat files must not depend on
 * which one hashed them.
 */
const assert = __importStar(require("node:assert/strict"));
const node_crypto_1 = require("node:crypto");
const hash_1 = require("../../src/common/hash");
const nodeHasher_1 = require("../../src/services/nodeHasher");
describe('Node sha256 port', () => {
    it('equals the pure-JS sha256 and createHash on empty, ASCII, non-Latin, astral, lone-surrogate and long texts', () => {
        const texts = ['', 'abc', 'héllo wörld ✓', 'emoji 😀 and 𝔘𝔫𝔦𝔠𝔬𝔡𝔢', 'lone \ud800 surrogate \udc00 here', '\u0000nul', 'x'.repeat(1_000_003), 'line\r\nbreaks\n'.repeat(5000)];
        for (const t of texts) {
            const node = (0, nodeHasher_1.sha256HexNode)(t);
            assert.equal(node, (0, hash_1.sha256Hex)(t), `pure-JS, ${t.length} chars`);
            assert.equal(node, (0, node_crypto_1.createHash)('sha256').update(t, 'utf8').digest('hex'), `createHash, ${t.length} chars`);
            assert.equal(nodeHasher_1.NODE_HASHER.sha256Hex(t), node);
        }
    });
});
//# sourceMappingURL=nodeHasher.test.js.map