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
 * The `npm start -- --imitate` demo model (scripts/lib/imitation.js): it reads a file the message
 * names with `read_file` when tools are offered, then answers saying what it called; without tools,
 * or when no file is named, it answers at once.
 */
const assert = __importStar(require("node:assert/strict"));
const path = __importStar(require("node:path"));
// eslint-disable-next-line @typescript-eslint/no-require-imports
const demo = require(path.join(__dirname, '..', '..', '..', 'scripts', 'lib', 'imitation.js'));
const user = (text) => ({ role: 'user', content: [{ type: 'text', text }] });
describe('imitation demo model (npm start -- --imitate)', () => {
    it('finds the file a message names, and nothing in a message without one', () => {
        assert.equal(demo.namedPath('What does src/tax.ts export?'), 'src/tax.ts');
        assert.equal(demo.namedPath('Summarize `README.md`.'), 'README.md');
        assert.equal(demo.namedPath('see (test/invoice.test.ts)'), 'test/invoice.test.ts');
        assert.equal(demo.namedPath('Why is version 1.2 slower?'), undefined);
    });
    it('calls read_file first when tools are offered, then answers naming the call', () => {
        const first = demo.describeRequest({ model: 'gpt-4o', messages: [user('What is in src/tax.ts?')], tools: ['read_file', 'list_files'], promptTokens: 100, cachedTokens: 0 });
        assert.equal(typeof first, 'object');
        assert.deepEqual(first.toolCalls, [{ name: 'read_file', args: { path: 'src/tax.ts' } }]);
        const after = demo.describeRequest({
            model: 'gpt-4o',
            messages: [user('What is in src/tax.ts?'), { role: 'assistant', content: [], toolCalls: [{ id: 'c1', name: 'read_file', args: { path: 'src/tax.ts' } }] }, { role: 'tool', toolCallId: 'c1', content: [{ type: 'text', text: 'export const RATE = 1;' }] }],
            tools: ['read_file'],
            promptTokens: 140,
            cachedTokens: 100,
        });
        assert.equal(typeof after, 'string');
        assert.match(after, /read_file \{"path":"src\/tax\.ts"\}/);
        assert.match(after, /140 prompt tokens/);
    });
    it('answers at once without tools or without a named file', () => {
        assert.equal(typeof demo.describeRequest({ model: 'm', messages: [user('What is in src/tax.ts?')], promptTokens: 1, cachedTokens: 0 }), 'string');
        assert.equal(typeof demo.describeRequest({ model: 'm', messages: [user('Explain the invoice totals.')], tools: ['read_file'], promptTokens: 1, cachedTokens: 0 }), 'string');
    });
});
//# sourceMappingURL=imitationDemo.test.js.map