/**
 * The open-time benchmark case (bench/perfOpen.ts): its directly built chat states are states the
 * engine accepts and continues (so the figure is about a real chat file), both writers give chats of
 * the same shape, and the case reports its figures and target.
 */
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { evaluateTargets, performanceMarkdown } from '../../bench/bench';
import { measureOpenTime, writeGeneratedChat, writeSyntheticChat } from '../../bench/perfOpen';
import { PromptContextEngine } from '../../src/engine/engine';
import { checkEnvelope } from '../../src/engine/invariants';
import { sha256Hex } from '../../src/common/hash';
import { ChatStore } from '../../src/services/chatStore';
import { getTokenizer } from '../../src/services/tokenizer';

const tmpDirs: string[] = [];
function tmp(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-perf-open-'));
  tmpDirs.push(d);
  return d;
}
after(() => {
  for (const d of tmpDirs) fs.rmSync(d, { recursive: true, force: true });
});

describe('bench: opening a long chat from disk', () => {
  it('the directly built chat is one the engine continues, shaped like the pipeline\'s', () => {
    const gen = { turns: 40, fileBytes: 150_000 };
    const synthetic = tmp();
    const pipeline = tmp();
    const a = writeSyntheticChat(synthetic, gen);
    const b = writeGeneratedChat(pipeline, gen);
    const la = ChatStore.open(synthetic).loadChat(a.chatId);
    const lb = ChatStore.open(pipeline).loadChat(b.chatId);
    assert.deepStrictEqual(la.warnings, []);
    assert.strictEqual(la.state.completedTurns, 40);
    assert.deepStrictEqual(la.state.turns.map((t) => t.userText), lb.state.turns.map((t) => t.userText));
    assert.strictEqual(la.state.latest.size, lb.state.latest.size, 'the same files and selections');
    assert.strictEqual(la.state.entries.size, lb.state.entries.size, 'the same versions');
    const size = (root: string, id: string) => fs.statSync(path.join(root, 'chats', `${id}.jsonl`)).size;
    const ratio = size(synthetic, a.chatId) / size(pipeline, b.chatId);
    assert.ok(ratio > 0.7 && ratio < 1.3, `chat file sizes comparable (${ratio.toFixed(2)})`);
    const engine = new PromptContextEngine({ conversationId: a.chatId, layout: 'transcript', policy: 'append-version', tokenizer: getTokenizer('o200k_base'), system: 'You are a careful coding assistant. Answer precisely and cite file paths and line numbers.', limits: { contextWindow: 2_000_000, maxOutputTokens: 8192 } }, la.state);
    const env = engine.buildTurn({ userText: 'one more' });
    assert.deepStrictEqual(checkEnvelope(env, env.budget, { hasher: { sha256Hex }, ...engine.checkContext(), blocked: !!env.blocked }), []);
    engine.completeTurn('ok');
    assert.strictEqual(engine.state.completedTurns, 41);
  });

  it('reports the open times and the ≤ 150 ms target', () => {
    const r = measureOpenTime(1, { turns: 30, fileBytes: 100_000 }, 'synthetic', 1);
    assert.strictEqual(r.turns, 30);
    assert.deepStrictEqual([r.loadChat.n, r.openChat.n, r.sessionOpen.n, r.cold.n], [1, 1, 1, 1]);
    assert.ok(r.blobs > 0 && r.chatFileBytes > 0);
    assert.match(performanceMarkdown({ openChat: r }), /### Opening a 30-turn chat from disk[\s\S]*`ChatSession\.openChat` \+ the last 50 messages/);
    const t = evaluateTargets([], { openChat: r }).find((x) => x.id === 'open:1000-turn-chat')!;
    assert.match(t.description, /opening a 30-turn chat from disk .* ≤ 150 ms/);
    assert.ok(t.status === 'met' || t.status === 'missed');
  });
});
