/**
 * A long chat opened with a model whose window is much smaller (or a chat that grew far past the
 * threshold at once): pruning must summarize hundreds of turns in one build. It searches for the
 * fewest turns to summarize instead of adding one turn at a time (which re-summarized and re-counted
 * the whole history per turn: 19 s for a 1,000-turn chat). The request must be the one the
 * one-at-a-time scan gives, and the cut is reported once.
 */
import * as assert from 'node:assert/strict';
import { PromptContextEngine, type EngineOptions } from '../../../src/engine/engine';
import { getTokenizer } from '../../../src/services/tokenizer';

function words(seed: number, n: number): string {
  const vocab = [
    'cache',
    'prefix',
    'token',
    'budget',
    'engine',
    'layer',
    'request',
    'file',
    'turn',
    'history',
    'summary',
    'reply',
    'model',
    'window',
  ];
  const out: string[] = [];
  let x = seed;
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    out.push(vocab[x % vocab.length]);
    if (x % 11 === 0) out.push('.\n');
  }
  return out.join(' ');
}

describe('pruning: summarizing many turns at once', () => {
  const tokenizer = getTokenizer('o200k_base');
  const base: Omit<EngineOptions, 'limits'> = {
    conversationId: 'long',
    layout: 'transcript',
    policy: 'append-version',
    tokenizer,
    system: 'You are a helpful assistant.',
  };

  // 240 turns written with a window that never needed pruning.
  const writer = new PromptContextEngine({ ...base, limits: { contextWindow: 2_000_000, maxOutputTokens: 4096 } });
  for (let t = 1; t <= 240; t++) {
    const env = writer.buildTurn({ userText: `Question ${t}: ${words(t, 100)}` });
    assert.equal(env.pruned.length, 0);
    writer.completeTurn(`Answer ${t}: ${words(1000 + t, 250)}`);
  }

  it('gives the same request as summarizing one turn at a time, reported as one cut', () => {
    const small = { contextWindow: 64_000, maxOutputTokens: 2000 };
    const searched = new PromptContextEngine({ ...base, limits: small }, writer.state);
    const scanned = new PromptContextEngine({ ...base, limits: small, summaryLinearSteps: Number.POSITIVE_INFINITY }, writer.state);
    const input = { userText: 'And now?' };
    const t0 = performance.now();
    const a = searched.buildTurn(input);
    const searchMs = performance.now() - t0;
    const t1 = performance.now();
    const b = scanned.buildTurn(input);
    const scanMs = performance.now() - t1;
    assert.deepEqual(a.messages, b.messages);
    assert.equal(a.totalTokens, b.totalTokens);
    assert.ok(a.totalTokens <= a.budget, `${a.totalTokens} > ${a.budget}`);
    const summaries = a.pruned.filter((p) => p.layer === 'L4');
    // The first few turns one at a time, then the rest in one report.
    assert.ok(summaries.length <= 9, `${summaries.length} summary reports`);
    const lastReport = summaries[summaries.length - 1];
    assert.match(lastReport.item, /^turns \d+-\d+$/);
    assert.ok(b.pruned.filter((p) => p.layer === 'L4').length > 100, 'the one-at-a-time scan reports each turn');
    process.stdout.write(
      `      240 turns into a 64k window: search ${searchMs.toFixed(0)} ms, one turn at a time ${scanMs.toFixed(0)} ms\n`,
    );
  });

  it('far over (even the longest summary does not fit): the same request as the scan', () => {
    const tiny = { contextWindow: 16_000, maxOutputTokens: 2000 };
    const searched = new PromptContextEngine({ ...base, limits: tiny }, writer.state);
    const scanned = new PromptContextEngine({ ...base, limits: tiny, summaryLinearSteps: Number.POSITIVE_INFINITY }, writer.state);
    const input = { userText: 'And now?' };
    const a = searched.buildTurn(input);
    const b = scanned.buildTurn(input);
    assert.deepEqual(a.messages, b.messages);
    assert.equal(a.totalTokens, b.totalTokens);
    assert.deepEqual(a.blocked, b.blocked);
    assert.ok(a.blocked, 'too small even for a summary of the whole history');
    // Every turn the summary may take (the last four stay verbatim until they are cut for the budget).
    const searchedTo = a.pruned.filter((p) => p.reason === 'summarized').pop()!;
    assert.match(searchedTo.item, /^turns \d+-236$/);
  });
});
