/**
 * Chat files of older line versions (src/services/store/chatFormat.ts): each upgrade step runs
 * before the checks, on a chat stored by that version (test/fixtures/chats/v<N>/), and the chat
 * opens, resumes with the same requests and continues in the current version.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { PromptContextEngine, type EngineOptions } from '../../../../src/engine/engine';
import { CHAT_FORMAT, LINE_UPGRADES, LINE_VERSION, readLine, upgradeLine } from '../../../../src/services/store/chatFormat';
import { ChatStore } from '../../../../src/services/store/chatStore';
import { getTokenizer } from '../../../../src/services/tokenizer';
import { tempDir } from '../../../support/tempDir';

const FIXTURES = path.resolve(__dirname, '../../../../../test/fixtures/chats');

function options(): EngineOptions {
  return {
    conversationId: 'v1-chat',
    layout: 'transcript',
    policy: 'append-version',
    tokenizer: getTokenizer('o200k_base'),
    system: 'sys',
    limits: { contextWindow: 128000, maxOutputTokens: 4096 },
  };
}

/** A copy of a stored chat folder, so a test may write to it. */
function copyOf(version: string): string {
  const root = tempDir('strata-chat-format-');
  fs.cpSync(path.join(FIXTURES, version), root, { recursive: true });
  return root;
}

function storedLines(version: string): Record<string, unknown>[] {
  const text = fs.readFileSync(path.join(FIXTURES, version, 'chats', 'v1-chat.jsonl'), 'utf8');
  return text
    .split('\n')
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('store / chat line versions and their upgrade steps', () => {
  it('has an upgrade step from every older version, each raising the version by one', () => {
    assert.deepEqual(Object.keys(LINE_UPGRADES), ['1']);
    for (let v = 1; v < LINE_VERSION; v++) {
      const out = LINE_UPGRADES[v]({ format: CHAT_FORMAT, v });
      assert.equal(out.v, v + 1);
    }
  });

  it('1 → 2: a stored version-1 line keeps its fields and becomes version 2; its digest is read as version 1', () => {
    const [first] = storedLines('v1');
    assert.equal(first.v, 1);
    const upgraded = upgradeLine(first) as Record<string, unknown>;
    assert.deepEqual(upgraded, { ...first, v: 2 });
    assert.equal(first.v, 1, 'the parsed line is not changed in place');
    const read = readLine(first);
    assert.equal(read.written, 1);
    assert.equal(read.line.v, 2);
    assert.equal(read.line.stateHash, first.stateHash);
    assert.equal(readLine({ ...first, v: 2 }).written, 2);
  });

  it('leaves a version with no step to the checks: an unknown version is still refused', () => {
    const [first] = storedLines('v1');
    assert.deepEqual(upgradeLine({ ...first, v: 0 }), { ...first, v: 0 });
    assert.deepEqual(upgradeLine({ ...first, v: 'constructor' }), { ...first, v: 'constructor' });
    assert.throws(() => readLine({ ...first, v: 0 }), /^Error: version 0 is not supported$/);
    assert.throws(() => readLine({ ...first, v: 'constructor' }), /^Error: version constructor is not supported$/);
  });

  it('opens the stored version-1 chat without changing its file, and resumes with the same requests', () => {
    const root = copyOf('v1');
    const file = path.join(root, 'chats', 'v1-chat.jsonl');
    const before = fs.readFileSync(file, 'utf8');
    const loaded = ChatStore.open(root, { durable: false }).loadChat('v1-chat');
    assert.deepEqual(loaded.warnings, []);
    assert.deepEqual(
      loaded.state.turns.map((t) => [t.userText, t.reply]),
      [
        ['What does add do?', 'It adds two numbers.'],
        ['And sub?', 'It subtracts b from a.'],
        ['Thanks', 'You are welcome.'],
      ],
    );
    assert.deepEqual([...loaded.state.entries.keys()], ['file:src/add.ts', 'file:src/sub.ts']);
    assert.equal(fs.readFileSync(file, 'utf8'), before);

    // The same chat built live gives the same next request as the one resumed from the old file.
    const live = new PromptContextEngine(options());
    live.buildTurn({
      userText: 'What does add do?',
      attachments: [
        { kind: 'file', uri: 'src/add.ts', content: 'export function add(a: number, b: number): number {\n  return a + b;\n}\n' },
      ],
    });
    live.completeTurn('It adds two numbers.');
    live.buildTurn({
      userText: 'And sub?',
      attachments: [{ kind: 'file', uri: 'src/sub.ts', content: 'export const sub = (a: number, b: number) => a - b;\n' }],
    });
    live.completeTurn('It subtracts b from a.');
    live.buildTurn({ userText: 'Thanks' });
    live.completeTurn('You are welcome.');
    const resumed = new PromptContextEngine(options(), loaded.state);
    assert.equal(JSON.stringify(resumed.buildTurn({ userText: 'next' })), JSON.stringify(live.buildTurn({ userText: 'next' })));
  });

  it('continues the stored version-1 chat in the current version', () => {
    const root = copyOf('v1');
    const store = ChatStore.open(root, { durable: false });
    const loaded = store.loadChat('v1-chat');
    const engine = new PromptContextEngine(options(), loaded.state);
    engine.buildTurn({ userText: 'One more' });
    engine.completeTurn('Sure.');
    store.appendTurn('v1-chat', { state: engine.state, engine: engine.options, base: loaded.base });
    const lines = fs
      .readFileSync(path.join(root, 'chats', 'v1-chat.jsonl'), 'utf8')
      .split('\n')
      .filter((l) => l.length > 0);
    assert.deepEqual(
      lines.map((l) => (JSON.parse(l) as { v: number }).v),
      [1, 1, 1, LINE_VERSION],
    );
    const again = ChatStore.open(root, { durable: false }).loadChat('v1-chat');
    assert.deepEqual(
      again.state.turns.map((t) => t.userText),
      ['What does add do?', 'And sub?', 'Thanks', 'One more'],
    );
  });
});
