import * as assert from 'node:assert/strict';
import type { ChatMessage } from '../../../../src/engine/types';
import {
  editorModelLabel,
  lmFeatures,
  readLmResponse,
  toLanguageModelMessages,
  toLanguageModelTools,
  type LmApiSurface,
} from '../../../../src/host/providers/lmCompat';
import type { RawPiece } from '../../../../src/services/providers/runner';

/**
 * The Language Model API feature checks with structural fakes of the `vscode` namespace: VS Code
 * 1.90 (the floor: text-only messages, `response.text`) and 1.95+ (tool-calling parts, `response.stream`).
 */

interface FakeMessage {
  role: 'user' | 'assistant';
  content: string | object[];
}

const Message = {
  User: (content: string | object[]): FakeMessage => ({ role: 'user', content }),
  Assistant: (content: string | object[]): FakeMessage => ({ role: 'assistant', content }),
};

class TextPart {
  constructor(readonly value: string) {}
}
class ToolCallPart {
  constructor(
    readonly callId: string,
    readonly name: string,
    readonly input: object,
  ) {}
}
class ToolResultPart {
  constructor(
    readonly callId: string,
    readonly content: object[],
  ) {}
}

/** VS Code 1.90: no part classes. */
const floorApi: LmApiSurface<FakeMessage> = { LanguageModelChatMessage: Message };
/** VS Code 1.95 and newer. */
const toolApi: LmApiSurface<FakeMessage> = {
  LanguageModelChatMessage: Message,
  LanguageModelTextPart: TextPart,
  LanguageModelToolCallPart: ToolCallPart,
  LanguageModelToolResultPart: ToolResultPart,
};

const text = (role: ChatMessage['role'], t: string): ChatMessage => ({ role, content: [{ type: 'text', text: t }] });

const history: ChatMessage[] = [
  text('system', 'SYS'),
  text('user', 'read a.ts'),
  {
    role: 'assistant',
    content: [{ type: 'text', text: 'Reading.' }],
    toolCalls: [{ id: 'c1', name: 'read_file', args: { path: 'a.ts' } }],
  },
  { role: 'tool', toolCallId: 'c1', content: [{ type: 'text', text: 'export {}' }] },
  { role: 'tool', toolCallId: 'c2', content: [{ type: 'text', text: 'second' }] },
  text('assistant', 'Done.'),
];

async function collect(gen: AsyncGenerator<RawPiece>): Promise<RawPiece[]> {
  const out: RawPiece[] = [];
  for await (const p of gen) out.push(p);
  return out;
}

async function* iterate<T>(items: T[]): AsyncGenerator<T> {
  for (const i of items) yield i;
}

describe('lmCompat: Language Model API feature checks', () => {
  it('finds no tool calling when the part classes are missing (VS Code 1.90)', () => {
    assert.deepEqual(lmFeatures(floorApi), { toolCalling: false });
  });

  it('finds tool calling when all three part classes are there (VS Code 1.95+)', () => {
    assert.deepEqual(lmFeatures(toolApi), { toolCalling: true });
  });

  it('needs all three part classes: one missing means no tool calling', () => {
    const partial: LmApiSurface<FakeMessage> = {
      LanguageModelChatMessage: Message,
      LanguageModelTextPart: TextPart,
      LanguageModelToolCallPart: ToolCallPart,
    };
    assert.deepEqual(lmFeatures(partial), { toolCalling: false });
  });

  it('labels an editor model with "tools off" only when the editor has no tool calling', () => {
    assert.equal(editorModelLabel('GPT-4o', { toolCalling: true }), 'GPT-4o (VS Code)');
    assert.equal(editorModelLabel('GPT-4o', { toolCalling: false }), 'GPT-4o (VS Code, tools off)');
  });

  it('without tool calling, sends tool traffic in the history as plain text messages', () => {
    assert.deepEqual(toLanguageModelMessages(history, floorApi), [
      { role: 'user', content: 'SYS' },
      { role: 'user', content: 'read a.ts' },
      { role: 'assistant', content: 'Reading.\nCalled tool read_file (c1) with {"path":"a.ts"}' },
      { role: 'user', content: 'Result of tool call c1:\nexport {}' },
      { role: 'user', content: 'Result of tool call c2:\nsecond' },
      { role: 'assistant', content: 'Done.' },
    ]);
  });

  it('without tool calling, an assistant message that only calls a tool has no empty leading line', () => {
    const only: ChatMessage = { role: 'assistant', content: [], toolCalls: [{ id: 'c9', name: 'list_files', args: {} }] };
    assert.deepEqual(toLanguageModelMessages([only], floorApi), [{ role: 'assistant', content: 'Called tool list_files (c9) with {}' }]);
  });

  it('with tool calling, sends calls and results as parts; consecutive results share one user message', () => {
    assert.deepEqual(toLanguageModelMessages(history, toolApi), [
      { role: 'user', content: 'SYS' },
      { role: 'user', content: 'read a.ts' },
      { role: 'assistant', content: [new TextPart('Reading.'), new ToolCallPart('c1', 'read_file', { path: 'a.ts' })] },
      {
        role: 'user',
        content: [new ToolResultPart('c1', [new TextPart('export {}')]), new ToolResultPart('c2', [new TextPart('second')])],
      },
      { role: 'assistant', content: 'Done.' },
    ]);
  });

  it('describes tools with their JSON schema as inputSchema', () => {
    const schema = { type: 'object' as const, properties: { path: { type: 'string' as const } }, required: ['path'] };
    assert.deepEqual(toLanguageModelTools([{ name: 'read_file', description: 'Reads a file', parameters: schema }]), [
      { name: 'read_file', description: 'Reads a file', inputSchema: schema },
    ]);
  });

  it('reads response.text when the response has no stream (VS Code 1.90), skipping empty pieces', async () => {
    const response = { text: iterate(['Hel', '', 'lo']) };
    assert.deepEqual(await collect(readLmResponse(response, floorApi)), [{ text: 'Hel' }, { text: 'lo' }]);
  });

  it('reads response.text when the editor has a stream but no part classes to tell parts apart', async () => {
    const response = { text: iterate(['only text']), stream: iterate<unknown>([{ value: 'ignored' }]) };
    assert.deepEqual(await collect(readLmResponse(response, floorApi)), [{ text: 'only text' }]);
  });

  it('reads text and tool calls from response.stream when the editor has tool calling', async () => {
    const response = {
      text: iterate(['never read']),
      stream: iterate<unknown>([
        new TextPart('Reading '),
        new TextPart(''),
        new ToolCallPart('c1', 'read_file', { path: 'a.ts' }),
        { unknown: true },
        new ToolCallPart('c2', 'list_files', {}),
      ]),
    };
    assert.deepEqual(await collect(readLmResponse(response, toolApi)), [
      { text: 'Reading ' },
      { toolCallChunks: [{ index: 0, id: 'c1', name: 'read_file', args: '{"path":"a.ts"}' }] },
      { toolCallChunks: [{ index: 1, id: 'c2', name: 'list_files', args: '{}' }] },
    ]);
  });
});
