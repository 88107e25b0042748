/**
 * The `npm start -- --imitate` demo model (scripts/lib/imitation.js): it reads a file the message
 * names with `read_file` when tools are offered, then answers saying what it called; without tools,
 * or when no file is named, it answers at once.
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import type { ChatMessage } from '../../../../src/engine/types';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const demo = require(path.join(__dirname, '..', '..', '..', '..', '..', 'scripts', 'lib', 'imitation.js')) as {
  describeRequest(c: {
    model: string;
    messages: ChatMessage[];
    tools?: string[];
    promptTokens: number;
    cachedTokens: number;
  }): string | { text?: string; toolCalls?: { name: string; args: Record<string, unknown> }[] };
  namedPath(text: string): string | undefined;
};

const user = (text: string): ChatMessage => ({ role: 'user', content: [{ type: 'text', text }] });

describe('imitation demo model (npm start -- --imitate)', () => {
  it('finds the file a message names, and nothing in a message without one', () => {
    assert.equal(demo.namedPath('What does src/tax.ts export?'), 'src/tax.ts');
    assert.equal(demo.namedPath('Summarize `README.md`.'), 'README.md');
    assert.equal(demo.namedPath('see (test/invoice.test.ts)'), 'test/invoice.test.ts');
    assert.equal(demo.namedPath('Why is version 1.2 slower?'), undefined);
  });

  it('calls read_file first when tools are offered, then answers naming the call', () => {
    const first = demo.describeRequest({
      model: 'gpt-4o',
      messages: [user('What is in src/tax.ts?')],
      tools: ['read_file', 'list_files'],
      promptTokens: 100,
      cachedTokens: 0,
    });
    assert.equal(typeof first, 'object');
    assert.deepEqual((first as { toolCalls: unknown }).toolCalls, [{ name: 'read_file', args: { path: 'src/tax.ts' } }]);
    const after = demo.describeRequest({
      model: 'gpt-4o',
      messages: [
        user('What is in src/tax.ts?'),
        { role: 'assistant', content: [], toolCalls: [{ id: 'c1', name: 'read_file', args: { path: 'src/tax.ts' } }] },
        { role: 'tool', toolCallId: 'c1', content: [{ type: 'text', text: 'export const RATE = 1;' }] },
      ],
      tools: ['read_file'],
      promptTokens: 140,
      cachedTokens: 100,
    });
    assert.equal(typeof after, 'string');
    assert.match(after as string, /read_file \{"path":"src\/tax\.ts"\}/);
    assert.match(after as string, /140 prompt tokens/);
  });

  it('answers at once without tools or without a named file', () => {
    assert.equal(
      typeof demo.describeRequest({ model: 'm', messages: [user('What is in src/tax.ts?')], promptTokens: 1, cachedTokens: 0 }),
      'string',
    );
    assert.equal(
      typeof demo.describeRequest({
        model: 'm',
        messages: [user('Explain the invoice totals.')],
        tools: ['read_file'],
        promptTokens: 1,
        cachedTokens: 0,
      }),
      'string',
    );
  });
});
