/**
 * The imitation servers scripted to call tools: OpenAI `tool_calls` deltas and Anthropic
 * `tool_use` / `input_json_delta` events as the real APIs stream them, tool calls and results in
 * requests recorded as provider-neutral messages and counted with the request token rule; and the
 * LangChain providers reading those streams back into whole calls.
 */
import * as assert from 'node:assert/strict';
import { AnthropicProvider } from '../../../../src/services/providers/anthropic';
import { OpenAIProvider } from '../../../../src/services/providers/openai';
import type { ChatProvider, StreamEvent } from '../../../../src/services/providers/types';
import { requestTokens } from '../../../../src/services/cacheModel';
import { getTokenizer } from '../../../../src/services/tokenizer';
import { TOOL_DEFINITIONS } from '../../../../src/services/tools/definitions';
import type { ChatMessage as WireMessage } from '../../../../src/engine/types';
import { startAnthropicImitation, startOpenAIImitation } from '../../../support/imitationServers';
import { installNetworkGuard, type NetworkGuard } from '../../../support/networkGuard';

async function sse(res: Response): Promise<{ event?: string; data: unknown }[]> {
  const text = await res.text();
  return text
    .split('\n\n')
    .filter((e) => e.trim().length > 0)
    .map((e) => {
      const event = /^event: (.*)$/m.exec(e)?.[1];
      const data = /^data: (.*)$/m.exec(e)?.[1] ?? '';
      return { event, data: data === '[DONE]' ? data : JSON.parse(data) };
    });
}

const tok = getTokenizer('o200k_base');
const system: WireMessage = { role: 'system', content: [{ type: 'text', text: 'You are a test.' }] };
const user: WireMessage = { role: 'user', content: [{ type: 'text', text: 'Read two files.' }] };

async function collect(p: ChatProvider, messages: WireMessage[]): Promise<StreamEvent[]> {
  const out: StreamEvent[] = [];
  for await (const e of p.stream({ messages, model: 'm', conversationId: 'c', maxOutputTokens: 100, tools: TOOL_DEFINITIONS })) out.push(e);
  return out;
}

describe('imitation servers: scripted tool calls', () => {
  let guard: NetworkGuard;
  beforeEach(() => (guard = installNetworkGuard()));
  afterEach(() => {
    assert.deepEqual(guard.foreign, []);
    guard.uninstall();
  });

  it('OpenAI: streams tool_calls deltas (id and name first, then argument pieces), finish reason tool_calls', async () => {
    const server = await startOpenAIImitation({ deltaChars: 5 });
    try {
      server.queueReply({
        text: 'Reading.',
        toolCalls: [
          { name: 'read_file', args: { path: 'src/a.ts' } },
          { id: 'call_x', name: 'list_files', args: { glob: '**/*.md' } },
        ],
      });
      const res = await fetch(`${server.url}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'm',
          stream: true,
          messages: [{ role: 'user', content: 'hi' }],
          tools: [{ type: 'function', function: { name: 'read_file', parameters: {} } }],
        }),
      });
      const events = await sse(res);
      type Delta = { content?: string; tool_calls?: { index: number; id?: string; function: { name?: string; arguments: string } }[] };
      const chunks = events
        .filter((e) => e.data !== '[DONE]')
        .map((e) => (e.data as { choices: { delta: Delta; finish_reason: string | null }[] }).choices[0]);
      const text = chunks.map((c) => c.delta.content ?? '').join('');
      assert.equal(text, 'Reading.');
      const calls = new Map<number, { id?: string; name?: string; args: string; pieces: number }>();
      for (const c of chunks) {
        for (const t of c.delta.tool_calls ?? []) {
          const cur = calls.get(t.index) ?? { args: '', pieces: 0 };
          if (t.id) cur.id = t.id;
          if (t.function.name) cur.name = t.function.name;
          cur.args += t.function.arguments;
          cur.pieces++;
          calls.set(t.index, cur);
        }
      }
      assert.deepEqual(
        [...calls.values()].map((c) => ({ id: c.id, name: c.name, args: JSON.parse(c.args) })),
        [
          { id: 'call_1', name: 'read_file', args: { path: 'src/a.ts' } },
          { id: 'call_x', name: 'list_files', args: { glob: '**/*.md' } },
        ],
      );
      assert.ok(
        [...calls.values()].every((c) => c.pieces > 2),
        'arguments arrive in several pieces',
      );
      assert.equal(chunks[chunks.length - 1].finish_reason, 'tool_calls');
      assert.deepEqual(server.chatRequests[0].tools, ['read_file']);
      assert.deepEqual(
        server.chatRequests[0].toolCalls?.map((c) => c.id),
        ['call_1', 'call_x'],
      );
    } finally {
      await server.close();
    }
  });

  it('Anthropic: streams tool_use blocks with input_json_delta pieces, stop reason tool_use', async () => {
    const server = await startAnthropicImitation({ deltaChars: 4 });
    try {
      server.queueReply({ toolCalls: [{ name: 'search_text', args: { query: 'add', glob: 'src/**' } }] });
      const res = await fetch(`${server.url}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'm',
          max_tokens: 10,
          stream: true,
          messages: [{ role: 'user', content: 'hi' }],
          tools: [{ name: 'search_text', input_schema: { type: 'object' } }],
        }),
      });
      const events = await sse(res);
      const start = events.find((e) => e.event === 'content_block_start')!.data as {
        index: number;
        content_block: { type: string; id: string; name: string };
      };
      assert.deepEqual(
        { index: start.index, type: start.content_block.type, id: start.content_block.id, name: start.content_block.name },
        { index: 0, type: 'tool_use', id: 'toolu_1', name: 'search_text' },
      );
      const pieces = events
        .filter((e) => e.event === 'content_block_delta')
        .map((e) => (e.data as { delta: { type: string; partial_json: string } }).delta);
      assert.ok(pieces.length > 3 && pieces.every((p) => p.type === 'input_json_delta'));
      assert.deepEqual(JSON.parse(pieces.map((p) => p.partial_json).join('')), { query: 'add', glob: 'src/**' });
      const stop = events.find((e) => e.event === 'message_delta')!.data as { delta: { stop_reason: string } };
      assert.equal(stop.delta.stop_reason, 'tool_use');
    } finally {
      await server.close();
    }
  });

  for (const api of ['openai', 'anthropic'] as const) {
    it(`${api}: the provider reads the streamed calls whole; the next request's calls and results are recorded as provider-neutral messages and counted by the request token rule`, async () => {
      const server = api === 'openai' ? await startOpenAIImitation({ deltaChars: 3 }) : await startAnthropicImitation({ deltaChars: 3 });
      try {
        const provider: ChatProvider =
          api === 'openai' ? new OpenAIProvider({ baseURL: server.url }) : new AnthropicProvider({ baseURL: server.url });
        server.queueReply(
          {
            text: 'Let me look.',
            toolCalls: [
              { id: 'c1', name: 'read_file', args: { path: 'src/a.ts', startLine: 1, endLine: 9 } },
              { id: 'c2', name: 'get_selection', args: {} },
            ],
          },
          'Done.',
        );
        const first = await collect(provider, [system, user]);
        assert.deepEqual(
          first.filter((e) => e.type === 'toolCall'),
          [
            { type: 'toolCall', index: api === 'openai' ? 0 : 1, id: 'c1', name: 'read_file' },
            { type: 'toolCall', index: api === 'openai' ? 1 : 2, id: 'c2', name: 'get_selection' },
          ],
        );
        const done = first[first.length - 1];
        assert.equal(done.type, 'done');
        if (done.type !== 'done') return;
        assert.equal(done.text, 'Let me look.');
        assert.deepEqual(done.toolCalls, [
          { id: 'c1', name: 'read_file', args: { path: 'src/a.ts', startLine: 1, endLine: 9 } },
          { id: 'c2', name: 'get_selection', args: {} },
        ]);
        const step2: WireMessage[] = [
          system,
          user,
          { role: 'assistant', content: [{ type: 'text', text: 'Let me look.' }], toolCalls: done.toolCalls },
          { role: 'tool', toolCallId: 'c1', content: [{ type: 'text', text: 'export const a = 1;' }] },
          { role: 'tool', toolCallId: 'c2', content: [{ type: 'text', text: 'get_selection: nothing is selected in the active editor.' }] },
        ];
        const second = await collect(provider, step2);
        assert.deepEqual(second[second.length - 1], {
          type: 'done',
          text: 'Done.',
          usage: (second[second.length - 1] as { usage: unknown }).usage,
          finishReason: api === 'openai' ? 'stop' : 'end_turn',
          attempts: 1,
        });
        const rec = server.chatRequests[1];
        assert.deepEqual(rec.messages, step2, 'recorded exactly as sent');
        assert.deepEqual(
          rec.tools,
          TOOL_DEFINITIONS.map((d) => d.name),
        );
        assert.equal(
          rec.usage?.input,
          requestTokens(step2, tok).tokens.length,
          'usage counts <|assistant|> + text + calls JSON and <|tool|> + text',
        );
      } finally {
        await server.close();
      }
    });
  }

  it('a server scripted to call a tool refuses a request that offers none', async () => {
    const server = await startOpenAIImitation();
    try {
      server.queueReply({ toolCalls: [{ name: 'read_file', args: { path: 'x' } }] });
      const res = await fetch(`${server.url}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }),
      });
      assert.equal(res.status, 400);
    } finally {
      await server.close();
    }
  });
});
