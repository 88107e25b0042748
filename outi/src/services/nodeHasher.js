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
exports.NODE_HASHER = exports.sha256HexNode = void 0;
const crypto = __importStar(require("node:crypto"));
/**
 * One-shot `crypto.hash` (Node 20.12+, every VS Code this extension supports): no Hash object per
 * call, 3–4× faster than `createHash` on the short texts the engine hashes most (chain steps, block
 * signatures); `createHash` where it is missing.
 */
const oneShot = crypto.hash;
/** Node's native sha256 (hex of the UTF-8 bytes): ~10× faster than the engine's pure-JS one (src/common/hash.ts). */
exports.sha256HexNode = oneShot
    ? (text) => oneShot('sha256', text, 'hex')
    : (text) => crypto.createHash('sha256').update(text, 'utf8').digest('hex');
/**
 * The hashing port every Node caller gives the engine: the extension's chat sessions, the replay and
 * the benchmark (one path for one job). The engine itself stays free of Node built-ins (DESIGN §3).
 */
exports.NODE_HASHER = { sha256Hex: exports.sha256HexNode };
//# sourceMappingURL=nodeHasher.js.map