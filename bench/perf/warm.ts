/**
 * Attaching a 5 MB file without blocking the extension host: measured in a fresh process.
 *
 *   node out/bench/perf/warm.js [MB]
 *
 * - `warm`: the tokenizer counts the text in slices that yield to the event loop — total time, number
 *   of slices, the longest slice (wall and CPU), and the longest gap seen by an event-loop ticker.
 * - `count after warm`: a synchronous count of the text wrapped as the engine's block (memo hits).
 * - `attach + send`: a ChatSession over an in-memory workspace attaches the file (resolve, warm,
 *   count) and sends (re-read, recheck, build; no provider, so a preview): the build time alone and
 *   the longest event-loop gap over the whole sequence.
 * - `buildTurn, not warmed`: `buildTurn` with the file as the attachment and an empty tokenizer memo
 *   (what every turn would cost without chunked, memoized counting).
 */
import { NODE_HASHER } from '../../src/services/nodeHasher';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { PromptContextEngine } from '../../src/engine/engine';
import { ChatSession } from '../../src/services/chatSession';
import { MemoryWorkspace } from '../../src/services/memoryWorkspace';
import { modelInfo } from '../../src/services/modelInfo';
import { GuardedTokenizer } from '../../src/services/tokenizer';
import type { TurnEvent } from '../../src/services/turnPipeline';
import { prng } from './generate';
import { round } from './stats';

/** Code-like text, different everywhere (no repeated blocks the memo could shortcut). */
export function codeLikeText(length: number, seed: number): string {
  const rnd = prng(seed);
  const words = [
    'const',
    'return',
    'function',
    'value',
    'index',
    'item',
    'result',
    'await',
    'export',
    'if',
    'else',
    'for',
    'of',
    'new',
    'Map',
    'push',
  ];
  const punct = ['(', ')', ';', '{', '}', '.', ',', ' = ', ' + ', '[', ']', ': ', ' => ', '//', '"', "'"];
  const lines: string[] = [];
  let n = 0;
  while (n < length) {
    let line = '  '.repeat(Math.floor(rnd() * 4));
    const k = 3 + Math.floor(rnd() * 10);
    for (let i = 0; i < k; i++) {
      line += words[Math.floor(rnd() * words.length)];
      if (rnd() < 0.3) line += String(Math.floor(rnd() * 100000));
      line += punct[Math.floor(rnd() * punct.length)];
    }
    lines.push(line);
    n += line.length + 1;
  }
  return lines.join('\n').slice(0, length);
}

/** Longest gap between event-loop turns while `work` runs. */
export async function withTicker<T>(work: () => Promise<T>): Promise<{ value: T; maxGapMs: number; ticks: number }> {
  let last = performance.now();
  let maxGapMs = 0;
  let ticks = 0;
  let running = true;
  const tick = () => {
    const now = performance.now();
    maxGapMs = Math.max(maxGapMs, now - last);
    last = now;
    ticks++;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  const value = await work();
  // The tick already queued measures the last stretch (which may hold the longest synchronous part).
  await new Promise<void>((resolve) => setImmediate(resolve));
  running = false;
  return { value, maxGapMs, ticks };
}

export interface WarmResult {
  megabytes: number;
  warm: { totalMs: number; slices: number; maxSliceMs: number; maxSliceCpuMs: number; maxEventLoopGapMs: number };
  countAfterWarmMs: number;
  attachAndSend: { buildMs: number; maxEventLoopGapMs: number; promptTokens: number };
  buildNotWarmedMs: number;
}

export async function measureWarm(megabytes = 5): Promise<WarmResult> {
  const text = codeLikeText(Math.round(megabytes * 1_000_000), 11);
  const tok = new GuardedTokenizer('o200k_base');
  tok.count('load the encoding');
  const w = await withTicker(() => tok.warm(text));
  const stats = tok.lastWarmStats();
  const block = `<file id="file:src/big.ts" version="1" path="src/big.ts" sha="0123abcd">\n${text}\n</file:0123abcd>\n`;
  const t0 = performance.now();
  tok.count(block);
  const countAfterWarmMs = performance.now() - t0;

  const session = async (tokenizer: GuardedTokenizer) => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-perf-warm-'));
    try {
      const ws = new MemoryWorkspace({ 'src/big.ts': text });
      const s = ChatSession.open({
        storeRoot: root,
        port: ws,
        tokenizer: () => tokenizer,
        settings: () => ({ layout: 'transcript', policy: 'append-version' }),
        model: modelInfo('openai', 'gpt-4.1'),
        store: { durable: false },
        newChatId: () => 'perf',
      });
      let buildMs = 0;
      let promptTokens = 0;
      const r = await withTicker(async () => {
        await s.attach({ kind: 'file', path: 'src/big.ts' });
        await s.send('What does this file do?', undefined, undefined, undefined, (e: TurnEvent) => {
          if (e.type === 'built') {
            buildMs = e.buildMs;
            promptTokens = e.envelope.totalTokens;
          }
        });
      });
      return { buildMs, promptTokens, maxEventLoopGapMs: r.maxGapMs };
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  };
  const warmed = await session(new GuardedTokenizer('o200k_base'));
  const coldEngine = new PromptContextEngine({
    conversationId: 'cold',
    layout: 'transcript',
    policy: 'append-version',
    tokenizer: new GuardedTokenizer('o200k_base'),
    hasher: NODE_HASHER,
    system: 'sys',
    limits: { contextWindow: 1_047_576, maxOutputTokens: 32_768 },
  });
  const t1 = performance.now();
  coldEngine.buildTurn({ userText: 'What does this file do?', attachments: [{ kind: 'file', uri: 'src/big.ts', content: text }] });
  const cold = { buildMs: performance.now() - t1 };
  return {
    megabytes,
    warm: {
      totalMs: round(stats.totalMs),
      slices: stats.slices,
      maxSliceMs: round(stats.maxSliceMs),
      maxSliceCpuMs: round(stats.maxSliceCpuMs),
      maxEventLoopGapMs: round(w.maxGapMs),
    },
    countAfterWarmMs: round(countAfterWarmMs),
    attachAndSend: {
      buildMs: round(warmed.buildMs),
      maxEventLoopGapMs: round(warmed.maxEventLoopGapMs),
      promptTokens: warmed.promptTokens,
    },
    buildNotWarmedMs: round(cold.buildMs),
  };
}

if (require.main === module) {
  const mb = Number(process.argv[2] ?? 5);
  measureWarm(Number.isFinite(mb) && mb > 0 ? mb : 5).then(
    (r) => process.stdout.write(JSON.stringify(r, null, 2) + '\n'),
    (e) => {
      process.stderr.write(`perf/warm: ${(e as Error).stack ?? e}\n`);
      process.exit(2);
    },
  );
}
