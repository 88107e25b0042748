"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.sha256Hex = sha256Hex;
const sha256_1 = require("@noble/hashes/sha256");
const utils_1 = require("@noble/hashes/utils");
const HEX = '0123456789abcdef';
const codes = new Array(64);
/**
 * sha256 hex of the UTF-8 bytes of `text`. Pure JS: usable in the engine, the webview and Node.
 * The hex is made as one flat string (a string built by 32 concatenations is a chain of ~30 nodes
 * in V8, ~1 KB instead of ~80 bytes, and the engine keeps thousands of hashes: issue 12).
 */
function sha256Hex(text) {
    const d = (0, sha256_1.sha256)((0, utils_1.utf8ToBytes)(text));
    for (let i = 0; i < 32; i++) {
        codes[2 * i] = HEX.charCodeAt(d[i] >> 4);
        codes[2 * i + 1] = HEX.charCodeAt(d[i] & 15);
    }
    return String.fromCharCode.apply(null, codes);
}
//# sourceMappingURL=hash.js.map