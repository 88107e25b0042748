"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.projectTokenizer = projectTokenizer;
const tokenizer_1 = require("../../src/services/tokenizer");
/** The extension's own tokenizer, so usage numbers in the provider tests are real o200k/cl100k counts. */
function projectTokenizer(encoding = 'o200k_base') {
    return (0, tokenizer_1.getTokenizer)(encoding);
}
//# sourceMappingURL=tokenizers.js.map