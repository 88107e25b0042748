/**
 * Memory cases on the generated long conversation, each in its own child process so nothing else of
 * the benchmark is counted:
 * - `rss`: the whole replay (engine, invariant checks, both cache simulations) of the default layout;
 *   peak resident set size from `process.resourceUsage().maxRSS`.
 * - `rss-engine`: the same conversation through the engine alone (no cache simulation, no checks).
 * - `heap` (needs --expose-gc): the heap the engine keeps after all turns ÷ the bytes of distinct
 *   content it has to keep (artifact versions, messages, replies, system prompt). Baseline: the heap
 *   after the tokenizer is loaded, before anything is generated. After the run, the trajectory and the
 *   workspace are dropped and the tokenizer memo and gpt-tokenizer's merge cache are cleared, so what
 *   is left is what the engine holds (content shared with the dropped workspace is counted as the
 *   engine's, since the engine is what keeps it alive).
 */
import { execFileSync } from 'child_process';
import * as v8 from 'v8';
import { GuardedTokenizer } from '../../src/services/tokenizer';
import type { PromptContextEngine } from '../../src/engine/engine';
import { DEFAULT_LAYOUT, runReplay } from '../replay';
import { generateConversation, type GenerateOptions } from './generate';
import { driveEngine } from './drive';
import { round } from './stats';

export interface RssResult {
  mode: 'rss' | 'rss-engine';
  turns: number;
  /** Peak resident set size of the child, MB. */
  maxRssMB: number;
  replayMs: number;
  heapUsedMB: number;
  promptTokensLastTurn: number;
}

export interface HeapResult {
  mode: 'heap';
  turns: number;
  /** Heap the engine keeps (bytes). */
  engineHeapBytes: number;
  /** Part of it freed by clearing the engine's rendered-block and text-hash memos. */
  blockMemoBytes: number;
  /** Distinct content the engine has to keep (bytes; the generated text is ASCII, 1 byte per character). */
  distinctContentBytes: number;
  artifactContentBytes: number;
  artifactVersions: number;
  messageBytes: number;
  /** engineHeapBytes ÷ distinctContentBytes. */
  ratio: number;
}

function gc(): void {
  const g = (globalThis as { gc?: () => void }).gc;
  if (!g) throw new Error('the heap case needs node --expose-gc');
  for (let i = 0; i < 3; i++) g();
}

function clearMergeCache(): void {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const mod = require('gpt-tokenizer/encoding/o200k_base') as { clearMergeCache?: () => void };
  mod.clearMergeCache?.();
}

function distinctContent(
  engine: PromptContextEngine,
): Pick<HeapResult, 'distinctContentBytes' | 'artifactContentBytes' | 'artifactVersions' | 'messageBytes'> {
  const s = engine.state;
  const contents = new Set<string>();
  for (const e of s.entries.values()) contents.add(e.artifact.content);
  let artifactContentBytes = 0;
  for (const c of contents) artifactContentBytes += Buffer.byteLength(c, 'utf8');
  let messageBytes = Buffer.byteLength(engine.options.system, 'utf8');
  for (const t of s.turns) messageBytes += Buffer.byteLength(t.userText, 'utf8') + Buffer.byteLength(t.reply, 'utf8');
  return {
    distinctContentBytes: artifactContentBytes + messageBytes,
    artifactContentBytes,
    artifactVersions: s.entries.size,
    messageBytes,
  };
}

function heapCase(turns: number, gen: GenerateOptions): HeapResult {
  const tokenizer = new GuardedTokenizer('o200k_base');
  tokenizer.encode('load the ranks'); // the encoding tables are loaded once per process: not engine state
  // A short warm-up chat (another seed), dropped: V8 compiles the engine's code during the first
  // turns, and that code (~0.6 MB) is the process's, not the chat's state.
  driveEngine(generateConversation({ ...gen, seed: (gen.seed ?? 1) + 7, turns: 30, fileBytes: 60_000 }).trajectory, {
    layout: DEFAULT_LAYOUT,
    policy: 'append-version',
    tokenizer,
  });
  tokenizer.clearMemo();
  clearMergeCache();
  gc();
  const before = v8.getHeapStatistics().used_heap_size;
  let engine: PromptContextEngine | undefined = (() => {
    // The first `turns` turns of the same conversation (so 100 and 200 turns can be compared).
    const { trajectory } = generateConversation(gen);
    return driveEngine(trajectory, { layout: DEFAULT_LAYOUT, policy: 'append-version', tokenizer, turns }).engine;
  })();
  tokenizer.clearMemo();
  clearMergeCache();
  gc();
  const after = v8.getHeapStatistics().used_heap_size;
  const content = distinctContent(engine);
  const engineHeapBytes = after - before;
  // Diagnostic: the engine's private memos (rendered blocks, text → hash), reached by name because
  // they are no API; the column reads 0 if they are renamed.
  const internals = engine as unknown as {
    segments?: { derivedBlocks?: Map<string, string> };
    hashes?: { hashes?: Map<string, string> };
  };
  const blocks = internals.segments?.derivedBlocks;
  const hashes = internals.hashes?.hashes;
  blocks?.clear();
  hashes?.clear();
  gc();
  const blockMemoBytes = blocks && hashes ? after - v8.getHeapStatistics().used_heap_size : 0;
  const result: HeapResult = {
    mode: 'heap',
    turns,
    engineHeapBytes,
    blockMemoBytes,
    ...content,
    ratio: round(engineHeapBytes / content.distinctContentBytes),
  };
  engine = undefined;
  return result;
}

function rssCase(mode: 'rss' | 'rss-engine', turns: number, gen: GenerateOptions): RssResult {
  const { trajectory } = generateConversation(gen);
  trajectory.turns = trajectory.turns.slice(0, turns);
  const t0 = performance.now();
  let promptTokensLastTurn: number;
  if (mode === 'rss') {
    const report = runReplay(trajectory, {
      file: trajectory.name,
      strategies: [DEFAULT_LAYOUT],
      policy: 'append-version',
      cache: 'both',
      json: true,
    });
    promptTokensLastTurn = report.strategies[0].turns[report.strategies[0].turns.length - 1].promptTokens;
  } else {
    let total = 0;
    driveEngine(trajectory, {
      layout: DEFAULT_LAYOUT,
      policy: 'append-version',
      tokenizer: new GuardedTokenizer('o200k_base'),
      onBuilt: (_t, _ms, env) => (total = env.totalTokens),
    });
    promptTokensLastTurn = total;
  }
  const replayMs = performance.now() - t0;
  return {
    mode,
    turns,
    maxRssMB: round(process.resourceUsage().maxRSS / 1024, 1),
    replayMs: round(replayMs, 1),
    heapUsedMB: round(process.memoryUsage().heapUsed / (1024 * 1024), 1),
    promptTokensLastTurn,
  };
}

/** Runs one memory case in a child process and returns its result. */
export function runMemoryCase(mode: 'rss' | 'rss-engine', turns: number, gen?: GenerateOptions): RssResult;
export function runMemoryCase(mode: 'heap', turns: number, gen?: GenerateOptions): HeapResult;
export function runMemoryCase(mode: 'rss' | 'rss-engine' | 'heap', turns: number, gen: GenerateOptions = {}): RssResult | HeapResult {
  const flags = mode === 'heap' ? ['--expose-gc'] : [];
  const out = execFileSync(process.execPath, [...flags, __filename, mode, String(turns), JSON.stringify(gen)], {
    encoding: 'utf8',
    maxBuffer: 1 << 20,
  });
  return JSON.parse(out.trim().split('\n').pop()!) as RssResult | HeapResult;
}

if (require.main === module) {
  const [mode, turnsArg, genArg] = process.argv.slice(2);
  const turns = Number(turnsArg);
  const gen = (genArg ? JSON.parse(genArg) : {}) as GenerateOptions;
  if ((mode !== 'rss' && mode !== 'rss-engine' && mode !== 'heap') || !Number.isInteger(turns) || turns < 1) {
    process.stderr.write('usage: node [--expose-gc] out/bench/perf/memory.js rss|rss-engine|heap TURNS [generator options JSON]\n');
    process.exit(2);
  }
  const result = mode === 'heap' ? heapCase(turns, gen) : rssCase(mode, turns, gen);
  process.stdout.write(JSON.stringify(result) + '\n');
}
