/**
 * Chat store additions for the panel: turn metadata (model, stopped, layer tokens, the turn's
 * request), renameChat, dropLastTurn (Regenerate; crash-safe truncation), loadChat up to a turn, and
 * files written before these fields existed still load.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { PromptContextEngine, type EngineOptions } from '../../../../src/engine/engine';
import { ChatStore, ChatStoreError } from '../../../../src/services/store/chatStore';
import { getTokenizer } from '../../../../src/services/tokenizer';
import { tempDir } from '../../../support/tempDir';

const tmp = (): string => tempDir('strata-store-turns-');

function options(id = 'c1'): EngineOptions {
  return {
    conversationId: id,
    layout: 'transcript',
    policy: 'append-version',
    tokenizer: getTokenizer('o200k_base'),
    system: 'sys',
    limits: { contextWindow: 128000, maxOutputTokens: 4096 },
  };
}

function turns(store: ChatStore, n: number, id = 'c1'): PromptContextEngine {
  const engine = new PromptContextEngine(options(id));
  for (let i = 1; i <= n; i++) {
    const env = engine.buildTurn({
      userText: `message ${i}`,
      attachments: [{ kind: 'file', uri: `f${i}.ts`, content: `export const v${i} = ${i};\n` }],
    });
    engine.completeTurn(`reply ${i}`);
    store.appendTurn(id, {
      state: engine.state,
      engine: engine.options,
      envelope: env,
      model: 'openai · gpt-4o',
      stopped: i === 2,
      request: { attachments: [{ kind: 'file', path: `f${i}.ts` }] },
    });
  }
  return engine;
}

const code = (c: string) => (e: unknown) => e instanceof ChatStoreError && e.code === c;

describe('chat store: panel additions', () => {
  it('keeps model, stopped, layer tokens and the request per turn', () => {
    const root = tmp();
    const store = ChatStore.open(root, { durable: false });
    const engine = turns(store, 3);
    const loaded = ChatStore.open(root).loadChat('c1');
    assert.deepStrictEqual(
      loaded.turns.map((t) => [t.model, t.stopped]),
      [
        ['openai · gpt-4o', undefined],
        ['openai · gpt-4o', true],
        ['openai · gpt-4o', undefined],
      ],
    );
    assert.deepStrictEqual(Object.keys(loaded.turns[0].layerTokens!), ['L1', 'L2', 'L3', 'L4', 'L5']);
    assert.strictEqual(
      Object.values(loaded.turns[2].layerTokens!).reduce((a, b) => a + b, 0),
      loaded.turns[2].predicted!.promptTokens,
    );
    assert.deepStrictEqual(loaded.turns[1].request, { attachments: [{ kind: 'file', path: 'f2.ts' }] });
    assert.strictEqual(loaded.state.completedTurns, engine.state.completedTurns);
  });

  it('renameChat sets the title in the list; an empty title or unknown chat is refused', () => {
    const root = tmp();
    const store = ChatStore.open(root, { durable: false });
    turns(store, 1);
    store.renameChat('c1', '  A   better\ntitle ');
    assert.strictEqual(ChatStore.open(root).listChats()[0].title, 'A better title');
    assert.strictEqual(ChatStore.open(root).loadChat('c1').title, 'A better title');
    assert.throws(() => store.renameChat('c1', '   '), code('invalid-title'));
    assert.throws(() => store.renameChat('nope', 'x'), code('not-found'));
    // Later turns keep the title.
    const engine = new PromptContextEngine(options(), ChatStore.open(root).loadChat('c1').state);
    engine.buildTurn({ userText: 'more' });
    engine.completeTurn('ok');
    store.appendTurn('c1', { state: engine.state, engine: engine.options });
    assert.strictEqual(ChatStore.open(root).listChats()[0].title, 'A better title');
  });

  it('dropLastTurn cuts the last line: the chat loads at the turn before, the index follows, appending continues', () => {
    const root = tmp();
    const store = ChatStore.open(root, { durable: false });
    const engine = turns(store, 3);
    const file = path.join(root, 'chats', 'c1.jsonl');
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    const twoLines = lines.slice(0, 2).join('\n') + '\n';
    const before = ChatStore.open(root).loadChat('c1', { throughTurn: 2 });
    assert.strictEqual(before.state.completedTurns, 2);
    assert.strictEqual(fs.readFileSync(file, 'utf8').split('\n').length, 4, 'loading up to a turn changes nothing on disk');
    assert.deepStrictEqual(store.dropLastTurn('c1'), { turns: 2 });
    assert.strictEqual(fs.readFileSync(file, 'utf8'), twoLines, 'the file is the first two lines, byte for byte');
    const loaded = ChatStore.open(root).loadChat('c1');
    assert.deepStrictEqual(loaded.warnings, []);
    assert.strictEqual(loaded.state.completedTurns, 2);
    assert.strictEqual(JSON.stringify([...loaded.state.entries.keys()]), JSON.stringify([...before.state.entries.keys()]));
    assert.strictEqual(store.listChats()[0].turns, 2);
    // Continue from turn 2 with the same engine options: turn 3 again.
    const e2 = new PromptContextEngine(engine.options, loaded.state);
    e2.buildTurn({ userText: 'message 3 again' });
    e2.completeTurn('reply 3 again');
    store.appendTurn('c1', { state: e2.state, engine: e2.options });
    assert.strictEqual(ChatStore.open(root).loadChat('c1').state.turns[2].reply, 'reply 3 again');
    // Down to nothing, then an error.
    store.dropLastTurn('c1');
    store.dropLastTurn('c1');
    store.dropLastTurn('c1');
    assert.strictEqual(ChatStore.open(root).loadChat('c1').state.completedTurns, 0);
    assert.throws(() => store.dropLastTurn('c1'), code('not-found'));
  });

  it('dropLastTurn also removes a torn tail, and reads the file afresh (another store instance appended)', () => {
    const root = tmp();
    const a = ChatStore.open(root, { durable: false });
    turns(a, 2);
    const file = path.join(root, 'chats', 'c1.jsonl');
    const good = fs.readFileSync(file, 'utf8');
    fs.appendFileSync(file, '{"format":"strata-chat","v":1,"turn":3,"del');
    const b = ChatStore.open(root, { durable: false });
    assert.deepStrictEqual(b.dropLastTurn('c1'), { turns: 1 });
    assert.strictEqual(fs.readFileSync(file, 'utf8'), good.split('\n')[0] + '\n');
  });

  it('refuses to cut into turns that were imported together, and loading up to such a turn', () => {
    const root = tmp();
    const store = ChatStore.open(root, { durable: false });
    turns(store, 3);
    const md = store.exportMarkdown('c1');
    const imported = store.importMarkdown(md, { isAllowedPath: () => true, chatId: 'imp' });
    assert.strictEqual(imported.turns, 3);
    assert.throws(() => store.loadChat('imp', { throughTurn: 2 }), code('conflict'));
    assert.throws(() => store.dropLastTurn('imp'), code('conflict'));
    assert.strictEqual(store.loadChat('imp').state.completedTurns, 3, 'the chat is intact (not moved aside as corrupt)');
  });

  it('loads chat files written before these fields existed', () => {
    const root = tmp();
    const store = ChatStore.open(root, { durable: false });
    const engine = new PromptContextEngine(options('old'));
    const env = engine.buildTurn({ userText: 'old turn' });
    engine.completeTurn('old reply');
    // The envelope facts an older build recorded: layer hashes without tokens, no model / stopped / request.
    store.appendTurn('old', {
      state: engine.state,
      engine: engine.options,
      envelope: { layers: env.layers.map((l) => ({ id: l.id, hash: l.hash })), prefixHash: env.prefixHash },
    });
    const loaded = ChatStore.open(root).loadChat('old');
    assert.strictEqual(loaded.turns[0].layerTokens, undefined);
    assert.strictEqual(loaded.turns[0].model, undefined);
    assert.strictEqual(loaded.turns[0].request, undefined);
    assert.strictEqual(loaded.state.turns[0].reply, 'old reply');
  });
});
