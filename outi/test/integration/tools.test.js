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
const vscode = __importStar(require("vscode"));
const imitationServers_1 = require("../support/imitationServers");
const panel_1 = require("./support/panel");
/**
 * Workspace tools in the real editor (issue 11): a turn in which the model reads the workspace
 * itself, through the panel against the OpenAI imitation server (real HTTP, LangChain with
 * bindTools, streamed tool calls), with the host's tool port (findFiles, the editor's buffers,
 * isolation on real paths); the panel's tool steps; the Context Layers tree after the turn; Stop
 * in the middle of the loop.
 */
const MATH_TS = 'export function add(a: number, b: number): number {\n  return a + b;\n}\n\nexport function mul(a: number, b: number): number {\n  return a * b;\n}\n';
function plain(m) {
    return { role: m.role, texts: m.content.map((b) => b.text), toolCalls: m.toolCalls, toolCallId: m.toolCallId };
}
function flatten(nodes, api, depth = 0) {
    const out = [];
    for (const n of nodes) {
        out.push(n);
        if (depth < 4)
            out.push(...flatten(api.testing.tree.getChildren(n), api, depth + 1));
    }
    return out;
}
describe('Workspace tools in the real editor', function () {
    this.timeout(120_000);
    let api;
    let panel;
    let openai;
    before(async () => {
        api = await (0, panel_1.strataApi)();
        await vscode.commands.executeCommand('strata.chat.focus');
        await (0, panel_1.withTimeout)(api.whenChatReady(), 30_000, 'the chat webview saying ready');
        panel = new panel_1.PanelDriver(api);
        openai = await (0, imitationServers_1.startOpenAIImitation)({ deltaChars: 5 });
        await (0, panel_1.configure)(api, { provider: 'openai', baseUrl: openai.url, model: 'gpt-4o', 'tools.enabled': true });
    });
    after(async () => {
        panel?.dispose();
        await openai?.close();
        await (0, panel_1.configure)(api, { provider: undefined, baseUrl: undefined, model: undefined, 'tools.enabled': undefined });
    });
    beforeEach(async () => {
        await api.testing.controller.newChat();
        panel.clear();
    });
    it('a tool turn through the panel: the model reads a file and is refused .env and ../; each request a pure append; the steps in the panel and the tree', async () => {
        const before = openai.chatRequests.length;
        openai.queueReply({ text: 'Let me read it.', toolCalls: [{ name: 'read_file', args: { path: 'app/src/math.ts' } }, { name: 'read_file', args: { path: 'app/.env' } }] }, { toolCalls: [{ name: 'read_file', args: { path: '../outside.txt' } }, { name: 'list_files', args: { glob: 'app/src/**' } }] }, 'add returns a + b.');
        const { started, ended } = await panel.sendAndWait('What does add do?');
        const reqs = openai.chatRequests.slice(before);
        assert.equal(reqs.length, 3, 'three model requests');
        for (let i = 1; i < reqs.length; i++) {
            const prev = reqs[i - 1].messages;
            assert.deepEqual(reqs[i].messages.slice(0, prev.length).map(plain), prev.map(plain), `request ${i + 1} extends request ${i}`);
        }
        assert.ok(reqs.every((r) => r.tools?.includes('read_file')), 'tools offered in every request');
        const last = reqs[2].messages;
        const text = last.map((m) => m.content.map((b) => b.text).join('')).join('\n');
        assert.equal(text.split(MATH_TS).length - 1, 1, 'math.ts once, verbatim');
        assert.ok(!text.includes('FAKE_TOKEN'), 'nothing of .env');
        const results = last.filter((m) => m.role === 'tool').map((m) => m.content.map((b) => b.text).join(''));
        assert.match(results[1], /^read_file refused \(excluded\)/);
        assert.match(results[2], /^read_file refused \(outside-workspace\)/);
        assert.match(results[3], /app\/src\/math\.ts/, 'list_files found it');
        // The panel: each call as a step, running then done or refused, and the final message with them.
        const steps = panel.posted.filter((m) => m.type === 'toolStep' && m.turnId === started.turnId);
        const byId = new Map();
        for (const s of steps)
            byId.set(s.step.id, [...(byId.get(s.step.id) ?? []), s.step.status]);
        assert.equal(byId.size, 4);
        for (const statuses of byId.values())
            assert.equal(statuses[0], 'running');
        assert.deepEqual(ended.assistant.toolSteps?.map((s) => `${s.name}:${s.status}`), ['read_file:done', 'read_file:refused', 'read_file:refused', 'list_files:done']);
        assert.ok(ended.assistant.toolSteps.every((s) => s.resultTokens !== undefined && s.cachedTokens !== undefined));
        assert.equal(ended.assistant.text, 'Let me read it.\n\nadd returns a + b.');
        assert.equal(ended.kept, true);
        // The tree after the turn: the last request's L3 holds what the tools read, recoverable, with the tool.
        await (0, panel_1.until)('the tree shows the request', () => flatten(api.testing.tree.getChildren(), api).some((n) => n.label.startsWith('L3')));
        const nodes = flatten(api.testing.tree.getChildren(), api);
        const l3 = nodes.find((n) => n.label.startsWith('L3'));
        assert.ok(l3, 'an L3 node');
        const l3Items = api.testing.tree.getChildren(l3);
        const read = l3Items.find((n) => n.label === 'app/src/math.ts');
        assert.ok(read, `the file read is an L3 item: ${l3Items.map((n) => n.label).join(' | ')}`);
        assert.equal(read.recoverable, true);
        assert.match(read.description ?? '', /read_file · recoverable/);
        assert.ok(l3Items.some((n) => n.icon === 'tool' && /tool call/i.test(n.label)), 'the calls are listed');
        // Reload: the chat shows the steps again.
        const { messages } = api.testing.session.messages({ last: 1 });
        assert.deepEqual(messages.find((m) => m.role === 'assistant')?.toolSteps?.map((s) => s.name), ['read_file', 'read_file', 'read_file', 'list_files']);
    });
    it('Stop in the middle of the tool loop ends it at once and keeps the steps done', async () => {
        const slow = await (0, imitationServers_1.startOpenAIImitation)({ deltaChars: 2, chunkDelayMs: 40 });
        try {
            await (0, panel_1.configure)(api, { baseUrl: slow.url });
            slow.queueReply({ toolCalls: [{ name: 'read_file', args: { path: 'lib/index.ts' } }] }, 'A long answer that streams slowly enough to be stopped in the middle of it.', 'never');
            const from = panel.posted.length;
            await panel.requestOk({ kind: 'send', text: 'Read lib' });
            await (0, panel_1.until)('the answer streams after the tool step', () => panel.posted.slice(from).filter((m) => m.type === 'chunk').length >= 4);
            const stoppedAt = Date.now();
            await panel.requestOk({ kind: 'stop' });
            await (0, panel_1.withTimeout)(api.testing.controller.whenTurnDone(), 5000, 'the stopped turn to end');
            assert.ok(Date.now() - stoppedAt < 2000, 'ended at once');
            assert.equal(slow.chatRequests.length, 2, 'no request after the Stop');
            const ended = panel.posted.slice(from).find((m) => m.type === 'turnEnded');
            assert.ok(ended);
            assert.equal(ended.kept, true);
            assert.equal(ended.assistant.status, 'stopped');
            assert.deepEqual(ended.assistant.toolSteps?.map((s) => `${s.name}:${s.status}`), ['read_file:done']);
            const saved = api.testing.session.store.loadChat(api.testing.session.activeChatId);
            assert.equal(saved.state.turns[0].steps?.length, 1);
            assert.equal(saved.turns[0].stopped, true);
        }
        finally {
            await slow.close();
            await (0, panel_1.configure)(api, { baseUrl: openai.url });
        }
    });
});
//# sourceMappingURL=tools.test.js.map