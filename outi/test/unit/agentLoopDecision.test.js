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
 * Issue 11, "the loop with LangChain": can `langchain`'s `createAgent`, with a middleware that hands
 * the model the envelope's messages, keep every model request byte for byte what Strata's own loop
 * (LangChain clients with `bindTools`) sends? This test runs the same two-step tool turn both ways
 * against the imitation servers and compares the HTTP request bodies as they arrived.
 *
 * Result (see the README, "The tool loop"): yes, for both APIs, the bodies are identical, so request
 * exactness does not decide between the two. What decides is the rest of the loop's job: the replay
 * and the benchmark drive turns synchronously through the same pipeline (a `createAgent` run is
 * Promise-based), the `vscode.lm` models are not LangChain chat models, and the agent adds ~430 KB
 * to the lazily loaded providers bundle. Strata therefore runs its own loop in `TurnPipeline` and uses
 * LangChain's clients (with `bindTools`) for the OpenAI and Anthropic requests. `langchain` is a
 * dev dependency for this test only.
 */
const assert = __importStar(require("node:assert/strict"));
const anthropic_1 = require("@langchain/anthropic");
const openai_1 = require("@langchain/openai");
const langchain_1 = require("langchain");
const anthropic_2 = require("../../src/services/providers/anthropic");
const langchain_2 = require("../../src/services/providers/langchain");
const openai_2 = require("../../src/services/providers/openai");
const definitions_1 = require("../../src/services/tools/definitions");
const imitationServers_1 = require("../support/imitationServers");
const networkGuard_1 = require("../support/networkGuard");
const call = { id: 'call_strata_1', name: 'read_file', args: { path: 'src/a.ts' } };
const step1 = [
    { role: 'system', content: [{ type: 'text', text: 'You are Strata, a coding assistant.', cacheBreakpoint: true }] },
    { role: 'user', content: [{ type: 'text', text: 'What does src/a.ts export?', cacheBreakpoint: true }] },
];
const step2 = [
    ...step1,
    { role: 'assistant', content: [{ type: 'text', text: 'Let me read it.' }], toolCalls: [call] },
    { role: 'tool', toolCallId: call.id, content: [{ type: 'text', text: '<file id="file:src/a.ts" version="1" path="src/a.ts" sha="0123abcd">\nexport const a = 1;\n</file:0123abcd>\n', cacheBreakpoint: true }] },
];
describe('the tool loop: createAgent middleware versus bindTools (the decision test)', () => {
    let guard;
    beforeEach(() => (guard = (0, networkGuard_1.installNetworkGuard)()));
    afterEach(() => guard.uninstall());
    for (const api of ['openai', 'anthropic']) {
        it(`${api}: the agent's requests equal the Strata loop's, byte for byte`, async () => {
            const server = api === 'openai' ? await (0, imitationServers_1.startOpenAIImitation)() : await (0, imitationServers_1.startAnthropicImitation)();
            try {
                // Strata's loop: the provider (LangChain client + bindTools) sends each step's envelope.
                server.queueReply({ text: 'Let me read it.', toolCalls: [call] }, 'It exports a.');
                const provider = api === 'openai' ? new openai_2.OpenAIProvider({ baseURL: server.url, promptCacheKey: true }) : new anthropic_2.AnthropicProvider({ baseURL: server.url });
                const calls = [];
                for (const messages of [step1, step2]) {
                    for await (const e of provider.stream({ messages, model: 'imitation-model', conversationId: 'chat-1', maxOutputTokens: 256, tools: definitions_1.TOOL_DEFINITIONS })) {
                        if (e.type === 'done' && e.toolCalls)
                            calls.push(...e.toolCalls);
                    }
                }
                assert.deepEqual(calls, [call], 'the streamed tool call came back whole');
                const strata = server.chatRequests.map((r) => r.rawBody);
                // createAgent: the same client settings; a middleware replaces the agent's messages with the envelope's.
                server.queueReply({ text: 'Let me read it.', toolCalls: [call] }, 'It exports a.');
                const model = api === 'openai'
                    ? new openai_1.ChatOpenAI({ model: 'imitation-model', apiKey: 'strata-local-no-key', configuration: { baseURL: server.url }, maxRetries: 0, streamUsage: true, maxTokens: 256, promptCacheKey: 'chat-1', timeout: 240_000 })
                    : new anthropic_1.ChatAnthropic({ model: 'imitation-model', apiKey: 'strata-local-no-key', anthropicApiUrl: server.url, maxRetries: 0, maxTokens: 256, streamUsage: true, clientOptions: { timeout: 240_000 } });
                const tools = definitions_1.TOOL_DEFINITIONS.map((d) => (0, langchain_1.tool)(async () => 'unused: the envelope carries the result', { name: d.name, description: d.description, schema: d.parameters }));
                const envelopes = [step1, step2];
                let modelCalls = 0;
                const envelope = (0, langchain_1.createMiddleware)({
                    name: 'StrataEnvelope',
                    wrapModelCall: async (request, handler) => {
                        const messages = envelopes[modelCalls++];
                        return handler({ ...request, messages: (api === 'openai' ? (0, langchain_2.toOpenAIMessages)(messages) : (0, langchain_2.toAnthropicMessages)(messages)) });
                    },
                });
                const agent = (0, langchain_1.createAgent)({ model, tools, middleware: [envelope] });
                for await (const chunk of await agent.stream({ messages: [{ role: 'user', content: 'ignored' }] }, { streamMode: 'messages' }))
                    void chunk;
                const viaAgent = server.chatRequests.slice(strata.length).map((r) => r.rawBody);
                assert.equal(modelCalls, 2);
                assert.equal(viaAgent.length, 2);
                assert.equal(viaAgent[0], strata[0], 'step 1 is byte-identical');
                assert.equal(viaAgent[1], strata[1], 'step 2 (tool call + result appended) is byte-identical');
                assert.deepEqual(guard.foreign, [], 'neither loop reached beyond the imitation server');
            }
            finally {
                await server.close();
            }
        });
    }
    it('createAgent runs only asynchronously, so it cannot be the replay\'s synchronous loop', async () => {
        const server = await (0, imitationServers_1.startOpenAIImitation)();
        try {
            server.queueReply('ok');
            const model = new openai_1.ChatOpenAI({ model: 'imitation-model', apiKey: 'strata-local-no-key', configuration: { baseURL: server.url }, maxRetries: 0, streamUsage: true, maxTokens: 16 });
            const agent = (0, langchain_1.createAgent)({ model, tools: [] });
            const run = agent.invoke({ messages: [{ role: 'user', content: 'hi' }] });
            assert.ok(run instanceof Promise, 'an agent run is a Promise: TurnPipeline.runSync (replay, benchmark) cannot drive it');
            await run;
        }
        finally {
            await server.close();
        }
    });
});
//# sourceMappingURL=agentLoopDecision.test.js.map