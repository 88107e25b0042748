/**
 * The tool loop decision (docs/decisions/0001-tool-loop.md): can `langchain`'s `createAgent`, with
 * a middleware that hands the model the envelope's messages, keep every model request byte for byte
 * what Strata's own loop (LangChain clients with `bindTools`) sends? This test runs the same
 * two-step tool turn both ways against the imitation servers and compares the HTTP request bodies
 * as they arrived.
 *
 * Result (see the README, "The tool loop"): yes, for both APIs, the bodies are identical, so request
 * exactness does not decide between the two. What decides is the rest of the loop's job: the replay
 * and the benchmark drive turns synchronously through the same pipeline (a `createAgent` run is
 * Promise-based), the `vscode.lm` models are not LangChain chat models, and the agent adds ~430 KB
 * to the lazily loaded providers bundle. Strata therefore runs its own loop in `TurnPipeline` and uses
 * LangChain's clients (with `bindTools`) for the OpenAI and Anthropic requests. `langchain` is a
 * dev dependency for this test only.
 */
import * as assert from 'node:assert/strict';
import { ChatAnthropic } from '@langchain/anthropic';
import { ChatOpenAI } from '@langchain/openai';
import { createAgent, createMiddleware, tool } from 'langchain';
import { AnthropicProvider } from '../../../../src/services/providers/anthropic';
import { toAnthropicMessages, toOpenAIMessages } from '../../../../src/services/providers/langchain';
import { OpenAIProvider } from '../../../../src/services/providers/openai';
import type { ChatProvider } from '../../../../src/services/providers/types';
import { TOOL_DEFINITIONS } from '../../../../src/services/tools/definitions';
import type { ChatMessage as WireMessage } from '../../../../src/engine/types';
import {
  startAnthropicImitation,
  startOpenAIImitation,
  type AnthropicImitationServer,
  type OpenAIImitationServer,
} from '../../../support/imitationServers';
import { installNetworkGuard, type NetworkGuard } from '../../../support/networkGuard';

const call = { id: 'call_strata_1', name: 'read_file', args: { path: 'src/a.ts' } };
const step1: WireMessage[] = [
  { role: 'system', content: [{ type: 'text', text: 'You are Strata, a coding assistant.', cacheBreakpoint: true }] },
  { role: 'user', content: [{ type: 'text', text: 'What does src/a.ts export?', cacheBreakpoint: true }] },
];
const step2: WireMessage[] = [
  ...step1,
  { role: 'assistant', content: [{ type: 'text', text: 'Let me read it.' }], toolCalls: [call] },
  {
    role: 'tool',
    toolCallId: call.id,
    content: [
      {
        type: 'text',
        text: '<file id="file:src/a.ts" version="1" path="src/a.ts" sha="0123abcd">\nexport const a = 1;\n</file:0123abcd>\n',
        cacheBreakpoint: true,
      },
    ],
  },
];

describe('the tool loop: createAgent middleware versus bindTools (the decision test)', () => {
  let guard: NetworkGuard;
  beforeEach(() => (guard = installNetworkGuard()));
  afterEach(() => guard.uninstall());

  for (const api of ['openai', 'anthropic'] as const) {
    it(`${api}: the agent's requests equal the Strata loop's, byte for byte`, async () => {
      const server: OpenAIImitationServer | AnthropicImitationServer =
        api === 'openai' ? await startOpenAIImitation() : await startAnthropicImitation();
      try {
        // Strata's loop: the provider (LangChain client + bindTools) sends each step's envelope.
        server.queueReply({ text: 'Let me read it.', toolCalls: [call] }, 'It exports a.');
        const provider: ChatProvider =
          api === 'openai'
            ? new OpenAIProvider({ baseURL: server.url, promptCacheKey: true })
            : new AnthropicProvider({ baseURL: server.url });
        const calls = [];
        for (const messages of [step1, step2]) {
          for await (const e of provider.stream({
            messages,
            model: 'imitation-model',
            conversationId: 'chat-1',
            maxOutputTokens: 256,
            tools: TOOL_DEFINITIONS,
          })) {
            if (e.type === 'done' && e.toolCalls) calls.push(...e.toolCalls);
          }
        }
        assert.deepEqual(calls, [call], 'the streamed tool call came back whole');
        const strata = server.chatRequests.map((r) => r.rawBody);

        // createAgent: the same client settings; a middleware replaces the agent's messages with the envelope's.
        server.queueReply({ text: 'Let me read it.', toolCalls: [call] }, 'It exports a.');
        const model =
          api === 'openai'
            ? new ChatOpenAI({
                model: 'imitation-model',
                apiKey: 'strata-local-no-key',
                configuration: { baseURL: server.url },
                maxRetries: 0,
                streamUsage: true,
                maxTokens: 256,
                promptCacheKey: 'chat-1',
                timeout: 240_000,
              })
            : new ChatAnthropic({
                model: 'imitation-model',
                apiKey: 'strata-local-no-key',
                anthropicApiUrl: server.url,
                maxRetries: 0,
                maxTokens: 256,
                streamUsage: true,
                clientOptions: { timeout: 240_000 },
              });
        const tools = TOOL_DEFINITIONS.map((d) =>
          tool(async () => 'unused: the envelope carries the result', {
            name: d.name,
            description: d.description,
            schema: d.parameters as never,
          }),
        );
        const envelopes = [step1, step2];
        let modelCalls = 0;
        const envelope = createMiddleware({
          name: 'StrataEnvelope',
          wrapModelCall: async (request, handler) => {
            const messages = envelopes[modelCalls++];
            return handler({
              ...request,
              messages: (api === 'openai' ? toOpenAIMessages(messages) : toAnthropicMessages(messages)) as never,
            });
          },
        });
        const agent = createAgent({ model, tools, middleware: [envelope] });
        for await (const chunk of await agent.stream({ messages: [{ role: 'user', content: 'ignored' }] }, { streamMode: 'messages' }))
          void chunk;
        const viaAgent = server.chatRequests.slice(strata.length).map((r) => r.rawBody);

        assert.equal(modelCalls, 2);
        assert.equal(viaAgent.length, 2);
        assert.equal(viaAgent[0], strata[0], 'step 1 is byte-identical');
        assert.equal(viaAgent[1], strata[1], 'step 2 (tool call + result appended) is byte-identical');
        assert.deepEqual(guard.foreign, [], 'neither loop reached beyond the imitation server');
      } finally {
        await server.close();
      }
    });
  }

  it("createAgent runs only asynchronously, so it cannot be the replay's synchronous loop", async () => {
    const server = await startOpenAIImitation();
    try {
      server.queueReply('ok');
      const model = new ChatOpenAI({
        model: 'imitation-model',
        apiKey: 'strata-local-no-key',
        configuration: { baseURL: server.url },
        maxRetries: 0,
        streamUsage: true,
        maxTokens: 16,
      });
      const agent = createAgent({ model, tools: [] });
      const run = agent.invoke({ messages: [{ role: 'user', content: 'hi' }] });
      assert.ok(run instanceof Promise, 'an agent run is a Promise: TurnPipeline.runSync (replay, benchmark) cannot drive it');
      await run;
    } finally {
      await server.close();
    }
  });
});
