/**
 * The state of a reply's code blocks kept with its chat (src/services/store/appliedMarks.ts,
 * docs/design.md#storage): written after the turn was saved, read back exactly by a new store over
 * the same folder, never in the chat file, gone with a replaced turn or a deleted chat, left out of
 * exports and imports, and absent from chats stored before it existed.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { PromptContextEngine, type EngineOptions } from '../../../../src/engine/engine';
import { ChatStore, ChatStoreError, type TurnMeta } from '../../../../src/services/store/chatStore';
import type { AppliedBlock } from '../../../../src/services/store/chatTypes';
import { getTokenizer } from '../../../../src/services/tokenizer';
import { tempDir } from '../../../support/tempDir';

const FIXTURES = path.resolve(__dirname, '../../../../../test/fixtures/chats');

function options(id: string): EngineOptions {
  return {
    conversationId: id,
    layout: 'transcript',
    policy: 'append-version',
    tokenizer: getTokenizer('o200k_base'),
    system: 'sys',
    limits: { contextWindow: 128000, maxOutputTokens: 4096 },
  };
}

function open(root: string): ChatStore {
  return ChatStore.open(root, { durable: false, scrubEnvSecrets: false, now: () => new Date('2030-01-02T03:04:05.000Z') });
}

/** A chat of one turn per reply, saved turn by turn. */
function saveChat(store: ChatStore, id: string, replies: readonly string[]): PromptContextEngine {
  const engine = new PromptContextEngine(options(id));
  for (const reply of replies) {
    engine.buildTurn({ userText: `ask for ${reply}`, fresh: new Map() });
    engine.completeTurn(reply);
    store.appendTurn(id, { state: engine.state, engine: engine.options });
  }
  return engine;
}

const applied = (block: number, accepted: number, total: number, p = 'src/pricing.ts'): AppliedBlock => ({
  block,
  state: 'applied',
  accepted,
  total,
  path: p,
});

const appliedOf = (turns: readonly TurnMeta[]) => turns.map((t) => t.applied);

const code = (c: string) => (e: unknown) => e instanceof ChatStoreError && e.code === c;

describe('store / code blocks applied, kept with the chat', () => {
  it('round trip: a new store over the same folder reads each block exactly, the last state of a block winning', () => {
    const root = tempDir('strata-applied-');
    const store = open(root);
    saveChat(store, 'chat-1', ['one', 'two', 'three']);
    const chatFile = path.join(root, 'chats', 'chat-1.jsonl');
    const before = fs.readFileSync(chatFile, 'utf8');

    const t2 = store.setApplied('chat-1', 2, applied(1, 2, 2));
    assert.deepEqual(t2.applied, [{ block: 1, state: 'applied', accepted: 2, total: 2, path: 'src/pricing.ts' }]);
    store.setApplied('chat-1', 2, { block: 0, state: 'rejected', accepted: 0, total: 1, path: 'src/a.ts' });
    store.setApplied('chat-1', 3, applied(0, 1, 3, 'lib/b.py'));
    store.setApplied('chat-1', 3, applied(2, 1, 1, 'lib/c.py'));
    // Undo of block 2 of turn 3: its last state is what stays.
    const t3 = store.setApplied('chat-1', 3, { block: 2, state: 'undone', accepted: 0, total: 0, path: 'lib/c.py' });
    assert.deepEqual(t3.applied, [
      { block: 0, state: 'applied', accepted: 1, total: 3, path: 'lib/b.py' },
      { block: 2, state: 'undone', accepted: 0, total: 0, path: 'lib/c.py' },
    ]);

    assert.equal(fs.readFileSync(chatFile, 'utf8'), before, 'the chat file is not touched');
    const expected = [
      undefined,
      [
        { block: 0, state: 'rejected', accepted: 0, total: 1, path: 'src/a.ts' },
        { block: 1, state: 'applied', accepted: 2, total: 2, path: 'src/pricing.ts' },
      ],
      [
        { block: 0, state: 'applied', accepted: 1, total: 3, path: 'lib/b.py' },
        { block: 2, state: 'undone', accepted: 0, total: 0, path: 'lib/c.py' },
      ],
    ];
    const again = open(root);
    assert.deepEqual(appliedOf(again.loadChat('chat-1').turns), expected);
    assert.deepEqual(appliedOf(again.turnMetas('chat-1')), expected);
    assert.deepEqual(appliedOf(store.loadChat('chat-1').turns), expected, 'the writing store reads the same');
    assert.equal('applied' in again.loadChat('chat-1').turns[0], false, 'a turn with no block decided has no field');
    // A line torn by a crash at the end of the marks file is skipped; the others stand.
    fs.appendFileSync(path.join(root, 'applied', 'chat-1.jsonl'), '{"turn":1,"line":"ab');
    assert.deepEqual(appliedOf(open(root).loadChat('chat-1').turns), expected);
    store.setApplied('chat-1', 1, applied(0, 1, 1));
    assert.deepEqual(open(root).loadChat('chat-1').turns[0].applied, [
      { block: 0, state: 'applied', accepted: 1, total: 1, path: 'src/pricing.ts' },
    ]);
  });

  it('refuses a turn the chat has not saved and a state that is not well-formed, writing nothing', () => {
    const root = tempDir('strata-applied-');
    const store = open(root);
    saveChat(store, 'chat-1', ['one']);
    assert.throws(() => store.setApplied('chat-1', 0, applied(0, 1, 1)), code('not-found'));
    assert.throws(() => store.setApplied('chat-1', 2, applied(0, 1, 1)), code('not-found'));
    assert.throws(() => store.setApplied('nope', 1, applied(0, 1, 1)), code('not-found'));
    assert.throws(() => store.setApplied('../x', 1, applied(0, 1, 1)), code('invalid-id'));
    assert.throws(() => store.setApplied('chat-1', 1, applied(0, 2, 1)), /^Error: the state of block 0 of turn 1 is not well-formed$/);
    assert.throws(() => store.setApplied('chat-1', 1, { ...applied(0, 1, 1), state: 'maybe' as 'applied' }), /not well-formed/);
    assert.equal(fs.existsSync(path.join(root, 'applied', 'chat-1.jsonl')), false);
  });

  it('a replaced turn (Regenerate) loses its blocks’ states; the earlier turns keep theirs', () => {
    const root = tempDir('strata-applied-');
    const store = open(root);
    saveChat(store, 'chat-1', ['one', 'two']);
    store.setApplied('chat-1', 1, applied(0, 1, 1));
    store.setApplied('chat-1', 2, applied(0, 1, 1));
    const current = store.loadChat('chat-1');
    const before = store.loadChat('chat-1', { throughTurn: 1 });
    const engine = new PromptContextEngine(options('chat-1'), before.state);
    engine.buildTurn({ userText: 'ask for two', fresh: new Map() });
    engine.completeTurn('two, written again');
    store.appendTurn('chat-1', { state: engine.state, engine: engine.options, base: current.base, replaceLast: true });
    assert.deepEqual(appliedOf(open(root).loadChat('chat-1').turns), [
      [{ block: 0, state: 'applied', accepted: 1, total: 1, path: 'src/pricing.ts' }],
      undefined,
    ]);
  });

  it('another workspace’s chat of the same id is unaffected; a deleted chat takes its states with it', () => {
    const rootA = tempDir('strata-applied-a-');
    const rootB = tempDir('strata-applied-b-');
    const a = open(rootA);
    const b = open(rootB);
    saveChat(a, 'chat-1', ['one']);
    saveChat(b, 'chat-1', ['one']);
    a.setApplied('chat-1', 1, applied(0, 1, 1));
    assert.deepEqual(appliedOf(open(rootB).loadChat('chat-1').turns), [undefined]);
    a.deleteChat('chat-1');
    assert.equal(fs.existsSync(path.join(rootA, 'applied', 'chat-1.jsonl')), false);
    saveChat(a, 'chat-1', ['one']);
    assert.deepEqual(appliedOf(open(rootA).loadChat('chat-1').turns), [undefined], 'a new chat of the same id starts with none');
  });

  it('an export leaves the states out and an import drops any it carries; an imported chat keeps its own', () => {
    const root = tempDir('strata-applied-');
    const store = open(root);
    saveChat(store, 'chat-1', ['one', 'two', 'three']);
    store.setApplied('chat-1', 2, applied(0, 1, 1));
    const md = store.exportMarkdown('chat-1');
    const payload = (md: string) =>
      JSON.parse(Buffer.from(/<!-- strata-chat: ([A-Za-z0-9+/=]+) -->/.exec(md)![1], 'base64').toString('utf8')) as { turns: TurnMeta[] };
    assert.deepEqual(
      payload(md).turns.map((t) => 'applied' in t),
      [false, false, false],
    );
    assert.equal(md.includes('src/pricing.ts'), false);
    // An export that carries states (written by hand, or by another build) is imported without them.
    const p = payload(md);
    p.turns[1].applied = [applied(0, 1, 1)];
    const crafted = md.replace(
      /<!-- strata-chat: [A-Za-z0-9+/=]+ -->/,
      `<!-- strata-chat: ${Buffer.from(JSON.stringify(p)).toString('base64')} -->`,
    );
    const other = open(tempDir('strata-applied-import-'));
    const r = other.importMarkdown(crafted, { isAllowedPath: () => true });
    assert.deepEqual(appliedOf(other.loadChat(r.chatId).turns), [undefined, undefined, undefined]);
    // The imported chat is one line of three turns: a block of its second turn is kept like any other.
    other.setApplied(r.chatId, 2, applied(1, 2, 3, 'src/x.ts'));
    other.setApplied(r.chatId, 3, { block: 0, state: 'rejected', accepted: 0, total: 2, path: 'src/y.ts' });
    assert.deepEqual(appliedOf(other.turnMetas(r.chatId)), [
      undefined,
      [{ block: 1, state: 'applied', accepted: 2, total: 3, path: 'src/x.ts' }],
      [{ block: 0, state: 'rejected', accepted: 0, total: 2, path: 'src/y.ts' }],
    ]);
  });

  it('a chat stored before the field existed loads unchanged and takes a state without its file being rewritten', () => {
    const root = tempDir('strata-applied-v1-');
    fs.cpSync(path.join(FIXTURES, 'v1'), root, { recursive: true });
    const file = path.join(root, 'chats', 'v1-chat.jsonl');
    const stored = fs.readFileSync(file, 'utf8');
    const store = open(root);
    const loaded = store.loadChat('v1-chat');
    assert.deepEqual(loaded.warnings, []);
    assert.equal(loaded.turns.length, 3);
    assert.deepEqual(
      loaded.turns.map((t) => Object.hasOwn(t, 'applied')),
      [false, false, false],
    );
    store.setApplied('v1-chat', 2, applied(0, 1, 1, 'src/a.ts'));
    assert.equal(fs.readFileSync(file, 'utf8'), stored, 'the stored chat file is not rewritten');
    const again = open(root).loadChat('v1-chat');
    assert.deepEqual(appliedOf(again.turns), [
      undefined,
      [{ block: 0, state: 'applied', accepted: 1, total: 1, path: 'src/a.ts' }],
      undefined,
    ]);
    assert.deepEqual(again.state, loaded.state);
  });
});
