"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.charTokenizer = charTokenizer;
function charTokenizer() {
    return {
        encoding: 'char',
        encode: (text) => Array.from(text, (c) => c.codePointAt(0)),
        count: (text) => Array.from(text).length,
    };
}
//# sourceMappingURL=charTokenizer.js.map