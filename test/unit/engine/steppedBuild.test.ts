/**
 * A long chat opened with a model of a much smaller window is cut many times in its first build; the
 * editor builds it in steps (`warmSteps`, then `buildTurnSteps`) with the event loop given a turn
 * between them. The request must be byte-identical to the one `buildTurn` gives in one piece, with or
 * without the warm-up, and a paused build that another build overtook must stop, not finish on
 * memos that moved under it.
 */
import * as assert from 'node:assert/strict';
import { PromptContextEngine, type EngineOptions, type TurnEnvelope } from '../../../src/engine/engine';
import { getTokenizer } from '../../../src/services/tokenizer';

function words(seed: number, n: number): string {
  const vocab = ['cache', 'prefix', 'token', 'budget', 'engine', 'layer', 'request', 'file', 'turn', 'history', 'summary', 'reply'];
  const out: string[] = [];
  let x = seed;
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    out.push(vocab[x % vocab.length]);
    if (x % 11 === 0) out.push('.\n');
  }
  return out.join(' ');
}

function fileText(name: string, version: number, lines: number): string {
  return (
    Array.from({ length: lines }, (_, i) => `export const ${name}${i} = ${version * 1000 + i}; // ${words(i + version, 6)}`).join('\n') +
    '\n'
  );
}

/** Everything the envelope says: the request, its layers, ledger, cuts and cache facts. */
function shape(env: TurnEnvelope): unknown {
  return JSON.parse(JSON.stringify(env));
}

/** Drives steps one at a time, as the editor's driver does when every slice is due. */
function drive<T>(steps: Generator<unknown, T, unknown>): { value: T; steps: number } {
  let n = 0;
  for (;;) {
    const r = steps.next();
    if (r.done) return { value: r.value, steps: n };
    n++;
  }
}

describe('building a request in steps', function () {
  this.timeout(120_000);
  const tokenizer = getTokenizer('o200k_base');
  const base: Omit<EngineOptions, 'limits'> = {
    conversationId: 'stepped',
    layout: 'transcript',
    policy: 'append-version',
    tokenizer,
    system: 'You are a helpful assistant.',
  };

  // 400 turns written with a window that never needed pruning: files attached, edited (superseded
  // versions), selections, long replies.
  const writer = new PromptContextEngine({ ...base, limits: { contextWindow: 2_000_000, maxOutputTokens: 4096 } });
  for (let t = 1; t <= 400; t++) {
    const attachments =
      t % 25 === 1
        ? [{ kind: 'file' as const, uri: `src/mod${t % 4}.ts`, content: fileText(`mod${t % 4}_`, t, 60) }]
        : t % 40 === 7
          ? [{ kind: 'selection' as const, uri: 'src/sel.ts', range: { startLine: 1, endLine: 3 }, content: fileText('sel', t, 3) }]
          : [];
    const env = writer.buildTurn({ userText: `Question ${t}: ${words(t, 60)}`, attachments });
    assert.equal(env.blocked, undefined);
    writer.completeTurn(`Answer ${t}: ${words(1000 + t, 160)}`);
  }
  const small = { contextWindow: 16_000, maxOutputTokens: 1024 };
  const input = { userText: 'And now?' };

  for (const window of [16_000, 100_000])
    it(`gives the request buildTurn gives, byte for byte, with and without the warm-up (${window / 1000}K window)`, () => {
      const limits = { contextWindow: window, maxOutputTokens: 1024 };
      const whole = new PromptContextEngine({ ...base, limits }, writer.state).buildTurn(input);
      assert.ok(whole.pruned.length > 1, 'the first build cuts the chat');
      // 16K: even the longest summary does not fit, and the turn is blocked; 100K: it fits once cut.
      assert.equal(whole.blocked !== undefined, window === 16_000);

      const stepped = new PromptContextEngine({ ...base, limits }, writer.state);
      const built = drive(stepped.buildTurnSteps(input));
      assert.ok(built.steps > 1, `${built.steps} steps`);
      assert.deepEqual(shape(built.value), shape(whole));

      const warmed = new PromptContextEngine({ ...base, limits }, writer.state);
      const warm = drive(warmed.warmSteps());
      assert.equal(warm.steps, 401, 'a step per turn and one for the longest summary');
      const after = drive(warmed.buildTurnSteps(input));
      assert.deepEqual(shape(after.value), shape(whole));
      assert.equal(JSON.stringify(after.value.messages), JSON.stringify(whole.messages));
      if (whole.blocked) return;

      // The pending turn is the stepped build's: completing it records the same state.
      warmed.completeTurn('Done.');
      const reference = new PromptContextEngine({ ...base, limits }, writer.state);
      reference.buildTurn(input);
      reference.completeTurn('Done.');
      assert.deepEqual(warmed.state.turns.at(-1), reference.state.turns.at(-1));
      assert.deepEqual(warmed.state.summary, reference.state.summary);
    });

  it('warms nothing but memos: a chat within its window yields no summary to count', () => {
    const roomy = new PromptContextEngine({ ...base, limits: { contextWindow: 2_000_000, maxOutputTokens: 4096 } }, writer.state);
    const texts: unknown[] = [];
    for (const step of roomy.warmSteps()) if (step) texts.push(step);
    assert.deepEqual(texts, []);
    const tight = new PromptContextEngine({ ...base, limits: small }, writer.state);
    const asked = [...tight.warmSteps()].filter((s) => s !== undefined);
    assert.equal(asked.length, 1);
    assert.match(asked[0]!.countText, /^\n- Turn 1\. User: Question 1: /);
  });

  it('a paused build overtaken by another build stops; the other build is the one buildTurn gives', () => {
    const engine = new PromptContextEngine({ ...base, limits: small }, writer.state);
    const paused = engine.buildTurnSteps(input);
    assert.equal(paused.next().done, false);
    const overtaking = engine.buildTurn({ userText: 'Something else' });
    const fresh = new PromptContextEngine({ ...base, limits: small }, writer.state).buildTurn({ userText: 'Something else' });
    assert.deepEqual(shape(overtaking), shape(fresh));
    assert.throws(() => drive(paused), /another build started on this engine/);
  });
});
