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
const vscode = __importStar(require("vscode"));
const hostWorkspace_1 = require("../../src/host/hostWorkspace");
const isolation_1 = require("../../src/engine/isolation");
const nodeHasher_1 = require("../../src/services/nodeHasher");
/**
 * Workspace isolation on the real extension host (DESIGN §3) against the multi-root fixture of
 * scripts/harness/fixtureWorkspace.js: folders `app` and `lib`, a symlink out of the workspace, a
 * symlink to `.env`, excluded, binary, over-size and 5 MB files, and a file outside both folders.
 */
function folder(name) {
    const f = vscode.workspace.workspaceFolders?.find((w) => w.name === name);
    assert.ok(f, `workspace folder ${name} is not open (folders: ${vscode.workspace.workspaceFolders?.map((w) => w.name).join(', ')})`);
    return f;
}
function rejected(r) {
    assert.equal(r.ok, false, 'expected a refusal');
    return r.ok ? '' : r.rejection.reason;
}
/** Runs `fn` while sampling the event loop; returns its result and the longest stall in ms. */
async function withStallProbe(fn) {
    let last = performance.now();
    let maxStallMs = 0;
    const timer = setInterval(() => {
        const now = performance.now();
        maxStallMs = Math.max(maxStallMs, now - last);
        last = now;
    }, 1);
    try {
        const value = await fn();
        const now = performance.now();
        maxStallMs = Math.max(maxStallMs, now - last);
        return { value, maxStallMs };
    }
    finally {
        clearInterval(timer);
    }
}
describe('Workspace isolation in the extension host', () => {
    const ws = new hostWorkspace_1.HostWorkspace(() => ({ excludes: isolation_1.DEFAULT_EXCLUDES, maxFileBytes: isolation_1.DEFAULT_MAX_FILE_BYTES }));
    let appDir;
    before(() => {
        appDir = folder('app').uri.fsPath;
        folder('lib');
    });
    afterEach(async () => {
        await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
        await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    });
    it('names files by folder in a multi-root workspace and reads them', async () => {
        const uri = vscode.Uri.joinPath(folder('app').uri, 'src', 'math.ts');
        assert.equal(hostWorkspace_1.HostWorkspace.pathOf(uri), 'app/src/math.ts');
        const r = await ws.resolve({ kind: 'file', path: 'app/src/math.ts' });
        assert.ok(r.ok);
        assert.equal(r.input.uri, 'app/src/math.ts');
        assert.equal(r.input.content, fs.readFileSync(uri.fsPath, 'utf8'));
        const lib = await ws.resolve({ kind: 'file', path: 'lib/index.ts' });
        assert.ok(lib.ok);
        assert.equal(lib.input.content, 'export const version = "1.0.0";\n');
    });
    it('refuses excluded secrets files, by pattern', async () => {
        assert.equal(rejected(await ws.resolve({ kind: 'file', path: 'app/.env' })), 'excluded');
        assert.equal(rejected(await ws.resolve({ kind: 'file', path: 'app/keys/server.pem' })), 'excluded');
        const r = await ws.resolve({ kind: 'file', path: 'app/.env' });
        assert.ok(!r.ok && /strata\.context\.exclude/.test(r.rejection.message), 'the message names the setting');
    });
    it('refuses a symlink that points out of the workspace, and one that points at an excluded file', async () => {
        const out = await ws.resolve({ kind: 'file', path: 'app/link-out.txt' });
        assert.equal(rejected(out), 'outside-workspace');
        assert.ok(!out.ok && /link that points outside the workspace/.test(out.rejection.message), out.ok ? '' : out.rejection.message);
        assert.equal(rejected(await ws.resolve({ kind: 'file', path: 'app/link-env.txt' })), 'excluded');
    });
    it('refuses paths that climb out, files outside every folder, and unknown folders', async () => {
        assert.equal(rejected(await ws.resolve({ kind: 'file', path: 'app/../outside/secret.txt' })), 'outside-workspace');
        assert.equal(rejected(await ws.resolve({ kind: 'file', path: 'nope/file.ts' })), 'outside-workspace');
        const outsideUri = vscode.Uri.file(path.join(path.dirname(appDir), 'outside', 'secret.txt'));
        assert.equal(hostWorkspace_1.HostWorkspace.pathOf(outsideUri), undefined);
    });
    it('refuses binary, over-size and missing files with their reasons', async () => {
        assert.equal(rejected(await ws.resolve({ kind: 'file', path: 'app/image.bin' })), 'binary');
        const huge = await ws.resolve({ kind: 'file', path: 'app/huge.log' });
        assert.equal(rejected(huge), 'too-large');
        assert.ok(!huge.ok && /maxFileBytes/.test(huge.rejection.message));
        assert.equal(rejected(await ws.resolve({ kind: 'file', path: 'app/src/missing.ts' })), 'not-found');
    });
    it('reads a dirty buffer as the editor shows it, and slices selections verbatim (CRLF kept)', async () => {
        const uri = vscode.Uri.joinPath(folder('app').uri, 'src', 'main.ts');
        const doc = await vscode.workspace.openTextDocument(uri);
        const editor = await vscode.window.showTextDocument(doc);
        await editor.edit((e) => e.insert(new vscode.Position(0, 0), '// unsaved line\n'));
        assert.ok(doc.isDirty);
        const r = await ws.resolve({ kind: 'file', path: 'app/src/main.ts' });
        assert.ok(r.ok);
        assert.ok(r.input.content.startsWith('// unsaved line\n'), 'the dirty buffer is attached');
        const crlf = await ws.resolve({ kind: 'selection', path: 'app/src/crlf.ts', startLine: 2, endLine: 3 });
        assert.ok(crlf.ok);
        assert.equal(crlf.input.content, 'const b = 2;\r\nconst c = 3;');
        assert.deepEqual(crlf.input.range, { startLine: 2, endLine: 3 });
    });
    it('attaches untitled documents of this window', async () => {
        const doc = await vscode.workspace.openTextDocument({ content: 'scratch notes\nline two', language: 'plaintext' });
        const p = hostWorkspace_1.HostWorkspace.pathOf(doc.uri);
        assert.ok(p && p.startsWith('untitled:'), String(p));
        const r = await ws.resolve({ kind: 'file', path: p });
        assert.ok(r.ok);
        assert.equal(r.input.content, 'scratch notes\nline two');
    });
    it('re-checks the real path before sending: a file swapped for a symlink out is refused', async () => {
        const file = path.join(appDir, 'swap.txt');
        fs.writeFileSync(file, 'harmless\n');
        try {
            const r = await ws.resolve({ kind: 'file', path: 'app/swap.txt' });
            assert.ok(r.ok);
            assert.equal(await ws.recheck('app/swap.txt', 'app/swap.txt'), undefined);
            fs.rmSync(file);
            fs.symlinkSync(path.join(path.dirname(appDir), 'outside', 'secret.txt'), file);
            const again = await ws.recheck('app/swap.txt', 'app/swap.txt');
            assert.equal(again?.reason, 'outside-workspace');
            const fresh = await ws.readFresh([{ id: 'file:app/swap.txt', uri: 'app/swap.txt' }]);
            assert.notEqual(fresh.get('file:app/swap.txt'), 'this file is outside every workspace folder\n');
        }
        finally {
            fs.rmSync(file, { force: true });
        }
    });
    it('reads a 5 MB file without blocking the extension host for more than 50 ms at a time', async () => {
        const { value, maxStallMs } = await withStallProbe(() => ws.resolve({ kind: 'file', path: 'app/big.txt' }));
        assert.ok(value.ok);
        assert.ok(value.input.content.length > 5 * 1024 * 1024 - 200);
        console.log(`    5 MB attach read: longest event-loop stall ${maxStallMs.toFixed(1)} ms (limit 50 ms)`);
        assert.ok(maxStallMs <= 50, `the host was blocked for ${maxStallMs.toFixed(1)} ms`);
    });
    it('re-reads only files that changed since the chat last held them (disk and open documents)', async () => {
        const file = path.join(appDir, 'fresh.txt');
        fs.writeFileSync(file, 'one\n');
        const src = (contentHash) => [{ id: 'file:app/fresh.txt', uri: 'app/fresh.txt', contentHash, missing: false }];
        try {
            const r = await ws.resolve({ kind: 'file', path: 'app/fresh.txt' });
            assert.ok(r.ok);
            const unchanged = await ws.readFresh(src((0, nodeHasher_1.sha256HexNode)('one\n')));
            assert.equal(unchanged.has('file:app/fresh.txt'), false, 'an unchanged file the chat holds is not re-read');
            fs.writeFileSync(file, 'two, longer\n');
            const changed = await ws.readFresh(src((0, nodeHasher_1.sha256HexNode)('one\n')));
            assert.equal(changed.get('file:app/fresh.txt'), 'two, longer\n');
            // The turn that read it was never committed (a provider error): the chat still holds "one",
            // so the unchanged file is read again, not left out.
            const again = await ws.readFresh(src((0, nodeHasher_1.sha256HexNode)('one\n')));
            assert.equal(again.get('file:app/fresh.txt'), 'two, longer\n', 'a change a failed turn read is reported again');
            assert.equal((await ws.readFresh(src((0, nodeHasher_1.sha256HexNode)('two, longer\n')))).has('file:app/fresh.txt'), false);
            // Another chat that holds an older content gets the file too.
            assert.equal((await ws.readFresh(src((0, nodeHasher_1.sha256HexNode)('zero\n')))).get('file:app/fresh.txt'), 'two, longer\n');
            fs.rmSync(file);
            const gone = await ws.readFresh(src((0, nodeHasher_1.sha256HexNode)('two, longer\n')));
            assert.equal(gone.get('file:app/fresh.txt'), null);
            // An open document: left out while its version is the one the chat holds, its text once it is edited.
            fs.writeFileSync(file, 'open\n');
            const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
            const editor = await vscode.window.showTextDocument(doc);
            assert.equal((await ws.readFresh(src((0, nodeHasher_1.sha256HexNode)('open\n')))).has('file:app/fresh.txt'), false, 'an open, unedited document the chat holds');
            await editor.edit((e) => e.insert(new vscode.Position(0, 0), 'dirty '));
            assert.equal((await ws.readFresh(src((0, nodeHasher_1.sha256HexNode)('open\n')))).get('file:app/fresh.txt'), 'dirty open\n');
            assert.equal((await ws.readFresh(src((0, nodeHasher_1.sha256HexNode)('dirty open\n')))).has('file:app/fresh.txt'), false);
            await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
        }
        finally {
            fs.rmSync(file, { force: true });
        }
    });
});
//# sourceMappingURL=isolation.test.js.map