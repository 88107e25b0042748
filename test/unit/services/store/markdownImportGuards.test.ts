/**
 * Exports and imports that a user can trust: a key in a tool step is scrubbed (the export is not
 * refused for good); an import whose per-turn metadata is malformed is refused with a clear message
 * instead of leaving the panel on its loading screen; a title is cut to 200 characters; and a chat
 * whose saved data cannot be rendered shows an error in place of the damaged turn.
 */
import * as assert from 'node:assert/strict';
import { PromptContextEngine } from '../../../../src/engine/engine';
import { isMessage } from '../../../../src/protocol/messages';
import { MemoryWorkspace } from '../../../../src/services/memoryWorkspace';
import { ScriptedProvider } from '../../../../src/services/providers/scripted';
import { messageViews } from '../../../../src/services/session/messageViews';
import { ChatStore, ChatStoreError } from '../../../../src/services/store/chatStore';
import { MAX_TITLE_CHARS } from '../../../../src/protocol/messages';
import { GuardedTokenizer } from '../../../../src/services/tokenizer';
import { TOOL_DEFINITIONS } from '../../../../src/services/tools/definitions';
import { ToolExecutor } from '../../../../src/services/tools/executor';
import { TurnPipeline } from '../../../../src/services/turnPipeline';
import { tempDir } from '../../../support/tempDir';

const tokenizer = new GuardedTokenizer('o200k_base');
const KEY = 'sk-proj-TOOLSTEPKEY0123456789abcdefXYZ';

function tmp(): string {
  return tempDir('strata-import-');
}

/** A saved chat of two turns; the first called tools with the key in a search query. */
function chatWithToolSteps(store: ChatStore, title = 'Find the key'): void {
  const ws = new MemoryWorkspace({ 'src/a.ts': 'export const a = 1;\n' });
  const engine = new PromptContextEngine({
    conversationId: 'chat-1',
    layout: 'transcript',
    policy: 'append-version',
    tokenizer,
    system: 'You are a coding assistant.',
    limits: { contextWindow: 128_000, maxOutputTokens: 1024 },
    tools: true,
  });
  const pipeline = new TurnPipeline({ engine, port: ws, persist: { store, chatId: 'chat-1', title: () => title } });
  const provider = new ScriptedProvider().push(
    { text: `Searching for ${KEY}.`, toolCalls: [{ id: 'c1', name: 'search_text', args: { query: KEY } }] },
    'Not found.',
    'Second reply.',
  );
  const send = {
    model: 'scripted',
    maxOutputTokens: 256,
    tools: { definitions: TOOL_DEFINITIONS, executor: new ToolExecutor(ws, tokenizer), maxSteps: 4, maxTurnTokens: 60_000 },
  };
  assert.equal(pipeline.runSync({ userText: 'where is it?' }, provider, send).status, 'done');
  assert.equal(pipeline.runSync({ userText: 'and then?' }, provider, send).status, 'done');
}

function payloadOf(md: string): { b64: string; payload: Record<string, unknown> & { turns: Record<string, unknown>[] } } {
  const b64 = /<!-- strata-chat: ([A-Za-z0-9+/=]+) -->/.exec(md)![1];
  return { b64, payload: JSON.parse(Buffer.from(b64, 'base64').toString('utf8')) };
}

function withPayload(md: string, edit: (p: ReturnType<typeof payloadOf>['payload']) => void): string {
  const { b64, payload } = payloadOf(md);
  edit(payload);
  return md.replace(b64, Buffer.from(JSON.stringify(payload)).toString('base64'));
}

describe('export and import guards', () => {
  it('an export scrubs a key from tool steps (text, arguments, result names) and imports again', () => {
    const store = ChatStore.open(tmp(), { secrets: [KEY], scrubEnvSecrets: false });
    chatWithToolSteps(store);
    const md = store.exportMarkdown('chat-1');
    assert.ok(!md.includes(KEY));
    assert.ok(!Buffer.from(payloadOf(md).b64, 'base64').toString('utf8').includes(KEY), 'not in the hidden metadata');
    const target = ChatStore.open(tmp(), { scrubEnvSecrets: false });
    const r = target.importMarkdown(md, { isAllowedPath: () => true });
    const loaded = target.loadChat(r.chatId);
    assert.equal(loaded.state.turns[0].steps![0].calls[0].args.query, '[REDACTED]');
  });

  it('an import whose toolSteps are not a list of steps is refused with a clear message, and nothing is written', () => {
    const store = ChatStore.open(tmp(), { scrubEnvSecrets: false });
    chatWithToolSteps(store);
    const md = store.exportMarkdown('chat-1');
    const target = ChatStore.open(tmp(), { scrubEnvSecrets: false });
    for (const broken of ['not a list', [{ id: 1 }], { 0: 'x' }]) {
      const bad = withPayload(md, (p) => (p.turns[0].toolSteps = broken));
      assert.throws(
        () => target.importMarkdown(bad, { isAllowedPath: () => true }),
        (e: Error) =>
          e instanceof ChatStoreError && e.code === 'invalid-import' && /turn 1: toolSteps must be a list of tool steps/.test(e.message),
      );
    }
    const others: [string, (p: ReturnType<typeof payloadOf>['payload']) => void, RegExp][] = [
      ['usage', (p) => (p.turns[1].usage = { input: 'many' }), /turn 2: usage must be token counts/],
      ['attachments', (p) => (p.turns[0].attachments = 'none'), /turn 1: attachments must be a list/],
      ['pinned', (p) => (p.turns[0].pinned = [3]), /turn 1: pinned must be a list of attachment keys/],
      ['turn number', (p) => (p.turns[1].turn = 7), /turn 2: its metadata names turn 7/],
      ['turn count', (p) => p.turns.pop(), /records 1 turn\(s\) for a chat of 2/],
      ['layerTokens', (p) => (p.turns[0].layerTokens = { L9: 3 }), /turn 1: layerTokens must be well-formed/],
    ];
    for (const [what, edit, message] of others)
      assert.throws(
        () => target.importMarkdown(withPayload(md, edit), { isAllowedPath: () => true }),
        (e: Error) => e instanceof ChatStoreError && message.test(e.message),
        what,
      );
    assert.deepEqual(target.listChats(), []);
  });

  it('an imported title is cut to 200 characters with an ellipsis', () => {
    const store = ChatStore.open(tmp(), { scrubEnvSecrets: false });
    chatWithToolSteps(store);
    const md = withPayload(store.exportMarkdown('chat-1'), (p) => ((p.chat as { title: string }).title = 'T'.repeat(5_000_000)));
    const target = ChatStore.open(tmp(), { scrubEnvSecrets: false });
    const r = target.importMarkdown(md, { isAllowedPath: () => true });
    const title = target.listChats().find((c) => c.id === r.chatId)!.title;
    assert.equal(title.length, MAX_TITLE_CHARS);
    assert.ok(title.endsWith('…'));
  });

  it('a turn whose saved metadata cannot be rendered shows an error in its place; the others render', () => {
    const store = ChatStore.open(tmp(), { scrubEnvSecrets: false });
    chatWithToolSteps(store);
    const loaded = store.loadChat('chat-1');
    const metas = loaded.turns.map((t) => ({ ...t }));
    (metas[0] as unknown as Record<string, unknown>).toolSteps = 'not a list';
    const { messages } = messageViews(loaded.state, metas);
    assert.ok(
      messages.every((m) => isMessage(m)),
      'every message is one the panel accepts',
    );
    assert.equal(messages[0].status, 'error');
    assert.match(messages[0].text, /This turn cannot be shown/);
    assert.deepEqual(
      messages.slice(1).map((m) => [m.turn, m.role, m.status]),
      [
        [2, 'user', 'complete'],
        [2, 'assistant', 'complete'],
      ],
    );
    (metas[0] as unknown as Record<string, unknown>).toolSteps = [{ id: 'x' }];
    assert.equal(messageViews(loaded.state, metas).messages[0].status, 'error', 'a list of non-steps too');
  });
});
