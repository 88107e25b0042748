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
 * `npm start`'s private-profile settings (scripts/lib/profileSettings.js): managed keys are written,
 * keys written by an earlier run and no longer managed are removed unless the person changed them,
 * and everything else (comments included, as VS Code allows) is read and kept.
 */
const assert = __importStar(require("node:assert/strict"));
const fs = __importStar(require("node:fs"));
const os = __importStar(require("node:os"));
const path = __importStar(require("node:path"));
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { parseJsonc, applyManagedSettings } = require('../../../scripts/lib/profileSettings.js');
describe('npm start: private profile settings', () => {
    let dir;
    const settingsFile = () => path.join(dir, 'User', 'settings.json');
    const read = () => JSON.parse(fs.readFileSync(settingsFile(), 'utf8'));
    beforeEach(() => {
        dir = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-profile-'));
    });
    afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));
    it('parses settings.json with comments, trailing commas and comment-like strings', () => {
        const text = '{\n  // a comment\n  "a": "http://x//y", /* block */ "b": [1, 2,],\n  "c": "quote \\" // not a comment",\n  "d": "a, }",\n}\n';
        assert.deepEqual(parseJsonc(text), { a: 'http://x//y', b: [1, 2], c: 'quote " // not a comment', d: 'a, }' });
        assert.deepEqual(parseJsonc(''), {});
    });
    it('writes managed keys and keeps the rest', () => {
        fs.mkdirSync(path.dirname(settingsFile()), { recursive: true });
        fs.writeFileSync(settingsFile(), '{\n  // mine\n  "editor.fontSize": 15,\n}\n');
        applyManagedSettings(dir, { 'strata.provider': 'openai', 'strata.baseUrl': 'http://127.0.0.1:1/v1' });
        assert.deepEqual(read(), { 'editor.fontSize': 15, 'strata.provider': 'openai', 'strata.baseUrl': 'http://127.0.0.1:1/v1' });
    });
    it('removes what an earlier run wrote once it is no longer managed, unless the person changed it', () => {
        applyManagedSettings(dir, { 'strata.provider': 'openai', 'strata.baseUrl': 'http://127.0.0.1:1/v1', 'strata.model': 'gpt-4o' });
        const changed = { ...read(), 'strata.model': 'gpt-4.1' };
        fs.writeFileSync(settingsFile(), JSON.stringify(changed));
        applyManagedSettings(dir, { 'strata.provider': undefined, 'strata.baseUrl': undefined, 'strata.model': undefined, 'update.mode': 'none' });
        assert.deepEqual(read(), { 'update.mode': 'none' });
        applyManagedSettings(dir, { 'strata.baseUrl': 'http://127.0.0.1:2/v1' });
        fs.writeFileSync(settingsFile(), JSON.stringify({ ...read(), 'strata.baseUrl': 'https://my.server/v1' }));
        applyManagedSettings(dir, {});
        assert.equal(read()['strata.baseUrl'], 'https://my.server/v1');
    });
    it('moves an unreadable settings file aside instead of guessing', () => {
        fs.mkdirSync(path.dirname(settingsFile()), { recursive: true });
        fs.writeFileSync(settingsFile(), '{ not json');
        const originalWrite = process.stderr.write;
        process.stderr.write = (() => true);
        try {
            applyManagedSettings(dir, { 'update.mode': 'none' });
        }
        finally {
            process.stderr.write = originalWrite;
        }
        assert.deepEqual(read(), { 'update.mode': 'none' });
        assert.equal(fs.readdirSync(path.dirname(settingsFile())).filter((f) => f.startsWith('settings.json.unreadable-')).length, 1);
    });
});
//# sourceMappingURL=profileSettings.test.js.map