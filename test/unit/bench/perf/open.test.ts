/**
 * The open-time benchmark case (bench/perfOpen.ts): its directly built chat states are states the
 * engine accepts and continues (so the figure is about a real chat file), both writers give chats of
 * the same shape, and the case reports its figures and target.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { performanceMarkdown } from '../../../../bench/benchMarkdown';
import { evaluateTargets } from '../../../../bench/targets';
import { measureOpenTime, writeGeneratedChat, writeSyntheticChat } from '../../../../bench/perf/open';
import { PromptContextEngine } from '../../../../src/engine/engine';
import { checkEnvelope } from '../../../../src/engine/invariants';
import { sha256Hex } from '../../../../src/common/hash';
import { ChatSession } from '../../../../src/services/chatSession';
import { METER_DEFERRED_TURNS } from '../../../../src/services/session/contextMeter';
import { ChatStore } from '../../../../src/services/store/chatStore';
import { MemoryWorkspace } from '../../../../src/services/memoryWorkspace';
import { modelInfo } from '../../../../src/services/modelInfo';
import { getTokenizer } from '../../../../src/services/tokenizer';
import { tempDir } from '../../../support/tempDir';

const tmp = (): string => tempDir('strata-perf-open-');

describe('bench: opening a long chat from disk', () => {
  it("the directly built chat is one the engine continues, shaped like the pipeline's", () => {
    const gen = { turns: 40, fileBytes: 150_000 };
    const synthetic = tmp();
    const pipeline = tmp();
    const a = writeSyntheticChat(synthetic, gen);
    const b = writeGeneratedChat(pipeline, gen);
    const la = ChatStore.open(synthetic).loadChat(a.chatId);
    const lb = ChatStore.open(pipeline).loadChat(b.chatId);
    assert.deepStrictEqual(la.warnings, []);
    assert.strictEqual(la.state.completedTurns, 40);
    assert.deepStrictEqual(
      la.state.turns.map((t) => t.userText),
      lb.state.turns.map((t) => t.userText),
    );
    assert.strictEqual(la.state.latest.size, lb.state.latest.size, 'the same files and selections');
    assert.strictEqual(la.state.entries.size, lb.state.entries.size, 'the same versions');
    const size = (root: string, id: string) => fs.statSync(path.join(root, 'chats', `${id}.jsonl`)).size;
    const ratio = size(synthetic, a.chatId) / size(pipeline, b.chatId);
    assert.ok(ratio > 0.7 && ratio < 1.3, `chat file sizes comparable (${ratio.toFixed(2)})`);
    const engine = new PromptContextEngine(
      {
        conversationId: a.chatId,
        layout: 'transcript',
        policy: 'append-version',
        tokenizer: getTokenizer('o200k_base'),
        system: 'You are a careful coding assistant. Answer precisely and cite file paths and line numbers.',
        limits: { contextWindow: 2_000_000, maxOutputTokens: 8192 },
      },
      la.state,
    );
    const env = engine.buildTurn({ userText: 'one more' });
    assert.deepStrictEqual(checkEnvelope(env, env.budget, { hasher: { sha256Hex }, ...engine.checkContext(), blocked: !!env.blocked }), []);
    engine.completeTurn('ok');
    assert.strictEqual(engine.state.completedTurns, 41);
  });

  it('reports the open times and the ≤ 150 ms target', () => {
    const r = measureOpenTime(1, { turns: 30, fileBytes: 100_000 }, 'synthetic', 1);
    assert.strictEqual(r.turns, 30);
    assert.deepStrictEqual([r.loadChat.n, r.openChat.n, r.sessionOpen.n, r.cold.n], [1, 1, 1, 1]);
    assert.equal(r.blobs, 14);
    assert.ok(r.chatFileBytes > 100_000, 'the chat file holds the attached file');
    assert.match(
      performanceMarkdown({ openChat: r }),
      /### Opening a 30-turn chat from disk[\s\S]*`ChatSession\.openChat` \+ the last 50 messages/,
    );
    const t = evaluateTargets([], { openChat: r }).find((x) => x.id === 'open:1000-turn-chat')!;
    assert.match(t.description, /opening a 30-turn chat from disk .* ≤ 150 ms/);
    assert.ok(t.status === 'met' || t.status === 'missed');
  });
  it(`a chat of ${METER_DEFERRED_TURNS} turns or more opened in a session has no meter at hand until it is counted; a shorter one has`, () => {
    const root = tmp();
    const long = writeSyntheticChat(root, { turns: METER_DEFERRED_TURNS, fileBytes: 120_000 }).chatId;
    // Another chat, one turn short of the threshold.
    const shortRoot = tmp();
    const short = writeSyntheticChat(shortRoot, { turns: METER_DEFERRED_TURNS - 1, fileBytes: 120_000 }).chatId;
    const open = (storeRoot: string, id: string) =>
      ChatSession.open(
        {
          storeRoot,
          port: new MemoryWorkspace({}),
          tokenizer: getTokenizer,
          settings: () => ({ layout: 'transcript', policy: 'append-version' }),
          model: modelInfo('openai', 'gpt-4o'),
          store: { durable: false },
        },
        id,
      );
    const s = open(root, long);
    assert.strictEqual(s.engine.state.completedTurns, METER_DEFERRED_TURNS);
    assert.strictEqual(s.meterIfReady(), undefined, 'the panel state leaves it out');
    const m = s.meter();
    assert.equal(m.used, 66351);
    assert.deepStrictEqual(s.meterIfReady(), m, 'counted once, then at hand');
    // A change to the next request: counted at once now (this engine has built the chat before).
    const item = s.chatItems().find((i) => i.status === 'present')!;
    s.removeItem(item.id);
    const after = s.meterIfReady();
    assert.ok(after);
    assert.notEqual(after.used, m.used, 'the removed item is no longer counted');
    // Reopened (a new engine on the chat): left out again.
    s.openChat(long);
    assert.strictEqual(s.meterIfReady(), undefined);
    const t = open(shortRoot, short);
    assert.ok(t.meterIfReady(), 'a shorter chat is counted with its state');
  });
});
