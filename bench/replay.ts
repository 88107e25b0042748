/**
 * The replay runner: runs a trajectory through the real engine (and the baselines), simulates both
 * providers' prompt caches, and reports per turn the tokens of each layer and what each cache would
 * serve. The command line around it is `replayCli.ts`; the chat store's `--reload-at` hook comes in as
 * a parameter (`reload.ts`), so the runner does not depend on the store.
 */
import * as fs from 'fs';
import * as path from 'path';
import type { ChangedFilesPolicy, ChatMessage, Layout, PruneReport } from '../src/engine/types';
import { LAYER_IDS } from '../src/engine/types';
import type { Rejection } from '../src/engine/isolation';
import { getTokenizer, type Tokenizer } from '../src/services/tokenizer';
import {
  AnthropicCacheModel,
  OpenAICacheModel,
  RequestTokenBuffer,
  anthropicCostUnits,
  framedCount,
  openaiCacheable,
  openaiCostUnits,
  MIN_CACHEABLE_TOKENS,
} from '../src/services/cacheModel';
import { TrajectoryError, validateTrajectory, type Trajectory } from './trajectory';
import { replay, replayAsync, type ReplayOptions, type ReplayTurn } from './replayCore';
import type { ChatProvider } from '../src/services/providers/types';
import type { SendOptions } from '../src/services/turnPipeline';
import { replayBaseline, type BaselineName } from './baselines';

export const STRATEGIES = ['library', 'transcript', 'inline-every-turn', 'latest-copy'] as const;
/** Strategies `--strategy` also accepts: `tools-plain`, the plain agent-loop baseline for trajectories with tool calls. */
export const EXTRA_STRATEGIES = ['tools-plain'] as const;
export type Strategy = (typeof STRATEGIES)[number] | (typeof EXTRA_STRATEGIES)[number];
export const ALL_STRATEGIES: readonly string[] = [...STRATEGIES, ...EXTRA_STRATEGIES];
export const DEFAULT_LAYOUT: Layout = 'transcript';

export interface ReplayArgs {
  file: string;
  strategies: Strategy[];
  policy: ChangedFilesPolicy;
  cache: 'openai' | 'anthropic' | 'both';
  requestsDir?: string;
  json: boolean;
  reloadAt?: number;
  provider?: { name: 'openai' | 'anthropic'; baseUrl: string; model: string };
}

export class ArgError extends Error {}

export function loadTrajectory(file: string): Trajectory {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new TrajectoryError(`cannot read ${file}: ${(e as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new TrajectoryError(`${file} is not valid JSON: ${(e as Error).message}`);
  }
  return validateTrajectory(raw);
}

/** One model call of a turn with tool calls, before its last request (dumped as a step). */
export interface StepReport {
  step: number;
  promptTokens: number;
  cached: { openai: number; anthropic: { read: number; write: number } };
  limit: { openai: number; anthropic: number };
}

export interface TurnReport {
  turn: number;
  layers: Record<string, number>;
  promptTokens: number;
  cached: { openai: number; anthropic: { read: number; write: number } };
  limit: { openai: number; anthropic: number };
  rejections: { attachment: string; reason: string }[];
  pruned: PruneReport[];
  prefixBreak: boolean;
  /** Where the previous request's prefix stopped matching (present only on a break). */
  prefixBreakReason?: string;
  violations: string[];
  /** The budget in force (context window − reserved output − safety margin). */
  budget: number;
  skipped?: string;
  provider?: { input: number; cacheRead: number; cacheWrite: number; output: number };
  /**
   * A turn with tool calls: its earlier model calls, one per step. `promptTokens`, `cached` and
   * `limit` of the turn are then sums over all its requests (the steps and the last one); `layers`
   * are the last request's.
   */
  steps?: StepReport[];
}

export interface StrategyReport {
  name: Strategy;
  turns: TurnReport[];
  totals: {
    promptTokens: number;
    cached: { openai: number; anthropic: { read: number; write: number } };
    uncached: { openai: number; anthropic: number };
    limit: { openai: number; anthropic: number };
    prefixBreaks: number;
    pruned: number;
    violations: number;
    overBudgetTurns: number;
    skippedTurns: number;
  };
  efficiency: { openai: number; anthropic: number };
  costUnits: { openai: number; anthropic: number };
}

export interface ReplayReport {
  trajectory: string;
  strategies: StrategyReport[];
  timings: Record<string, unknown>;
}

interface RawTurn {
  turn: number;
  messages: ChatMessage[];
  /** The turn's earlier requests (tool steps), in order. */
  steps?: ChatMessage[][];
  /** Engine layer tokens and which layer each message's framing belongs to (engine strategies). */
  engineLayers?: Record<string, number>;
  rejections: Rejection[];
  pruned: PruneReport[];
  prefixBreak: boolean;
  prefixBreakReason?: string;
  violations: string[];
  skipped?: string;
  budget: number;
  buildMs: number;
}

function sameMessage(a: ChatMessage, b: ChatMessage): boolean {
  if (a.role !== b.role || a.content.length !== b.content.length || a.toolCallId !== b.toolCallId) return false;
  for (let i = 0; i < a.content.length; i++) if (a.content[i].text !== b.content[i].text) return false;
  return JSON.stringify(a.toolCalls ?? null) === JSON.stringify(b.toolCalls ?? null);
}

function framingLayerOf(i: number, n: number, role: string): string {
  if (role === 'system') return 'L1';
  return i === n - 1 ? 'L5' : 'L4';
}

/** Per-layer tokens for a request, adding up exactly to the request's prompt count. */
function exactLayers(raw: RawTurn, tok: Tokenizer): { layers: Record<string, number>; prompt: number } {
  const layers: Record<string, number> = { L1: 0, L2: 0, L3: 0, L4: 0, L5: 0 };
  let prompt = 0;
  raw.messages.forEach((m, i) => {
    const exact = framedCount(m, tok);
    prompt += exact;
    const fl = framingLayerOf(i, raw.messages.length, m.role);
    if (!raw.engineLayers) {
      // Baselines: system → L1, attachments inlined in messages count as L3 (current) / L4 (past).
      layers[fl] += exact;
    }
  });
  if (raw.engineLayers) {
    let sum = 0;
    for (const id of LAYER_IDS) {
      layers[id] = raw.engineLayers[id];
      sum += layers[id];
    }
    // Token merges across block boundaries differ slightly from the sum of parts; the difference
    // is framing, counted in L5 (the current message) so the layers add up to the prompt.
    layers.L5 += prompt - sum;
  }
  return { layers, prompt };
}

/** An engine strategy's turn as the report needs it; `buildMs` is `buildTurn` alone (measured by the pipeline). */
function engineRawTurn(t: ReplayTurn): RawTurn {
  const env = t.envelope;
  return {
    turn: t.turn,
    messages: env.messages,
    ...(t.requests.length > 0 ? { steps: t.requests.map((r) => r.messages) } : {}),
    engineLayers: Object.fromEntries(env.layers.map((l) => [l.id, l.tokens])),
    rejections: t.rejections,
    pruned: t.pruned,
    prefixBreak: env.prefixBreak,
    prefixBreakReason: env.prefixBreakReason,
    violations: t.violations.map((v) => `${v.rule}: ${v.detail}`),
    skipped: env.blocked?.message,
    budget: env.budget,
    buildMs: t.buildMs,
  };
}

function isEngineStrategy(s: Strategy): s is 'library' | 'transcript' {
  return s === 'library' || s === 'transcript';
}

function* rawTurns(
  traj: Trajectory,
  strategy: Strategy,
  args: ReplayArgs,
  tok: Tokenizer,
  afterTurn?: ReplayOptions['afterTurn'],
): Generator<RawTurn> {
  if (isEngineStrategy(strategy)) {
    for (const t of replay(traj, { layout: strategy, policy: args.policy, tokenizer: tok, afterTurn })) yield engineRawTurn(t);
    return;
  }
  const budget = traj.model.contextWindow - traj.model.maxOutputTokens - Math.min(1000, Math.floor(traj.model.contextWindow * 0.02));
  for (const t of replayBaseline(traj, strategy as BaselineName, tok)) {
    yield {
      turn: t.turn,
      messages: t.messages,
      ...(t.steps ? { steps: t.steps } : {}),
      rejections: t.rejections,
      pruned: [],
      prefixBreak: false,
      violations: [],
      budget,
      buildMs: 0,
    };
  }
}

/** The report of one strategy, built turn by turn: the cache simulations, the physical limit, the totals. */
export class StrategyAccumulator {
  private readonly openai = new OpenAICacheModel();
  private readonly anthropic = new AnthropicCacheModel();
  /** One buffer for every request's token ids (a long chat's request is hundreds of thousands). */
  private readonly requestTokens = new RequestTokenBuffer();
  private readonly seenBlocks = new Set<string>();
  private prevReply: string | undefined;
  private prevStable: string[] | undefined;
  private readonly turns: TurnReport[] = [];
  readonly buildMs: number[] = [];
  private overBudgetTurns = 0;

  constructor(
    private readonly traj: Trajectory,
    private readonly strategy: Strategy,
    private readonly args: ReplayArgs,
    private readonly tok: Tokenizer,
    private readonly onRequest?: (turn: number, messages: ChatMessage[], skipped?: string, step?: number) => void,
  ) {}

  add(raw: RawTurn): TurnReport {
    const { traj, args, tok } = this;
    this.buildMs.push(raw.buildMs);
    (raw.steps ?? []).forEach((m, k) => this.onRequest?.(raw.turn, m, undefined, k + 1));
    this.onRequest?.(raw.turn, raw.messages, raw.skipped);
    if (raw.skipped) {
      const t: TurnReport = {
        turn: raw.turn,
        layers: { L1: 0, L2: 0, L3: 0, L4: 0, L5: 0 },
        promptTokens: 0,
        cached: { openai: 0, anthropic: { read: 0, write: 0 } },
        limit: { openai: 0, anthropic: 0 },
        rejections: raw.rejections.map((r) => ({ attachment: r.attachment, reason: r.reason })),
        pruned: raw.pruned,
        prefixBreak: false,
        violations: raw.violations,
        budget: raw.budget,
        skipped: raw.skipped,
      };
      this.turns.push(t);
      return t;
    }
    const { layers, prompt } = exactLayers(raw, tok);
    const requests = [...(raw.steps ?? []), raw.messages];
    const steps: StepReport[] = [];
    const sum: StepReport = {
      step: 0,
      promptTokens: 0,
      cached: { openai: 0, anthropic: { read: 0, write: 0 } },
      limit: { openai: 0, anthropic: 0 },
    };
    let previous: ChatMessage[] | undefined;
    requests.forEach((messages, j) => {
      const r = this.observe(messages, previous);
      previous = messages;
      sum.promptTokens += r.promptTokens;
      sum.cached.openai += r.cached.openai;
      sum.cached.anthropic.read += r.cached.anthropic.read;
      sum.cached.anthropic.write += r.cached.anthropic.write;
      sum.limit.openai += r.limit.openai;
      sum.limit.anthropic += r.limit.anthropic;
      if (j < requests.length - 1) steps.push({ ...r, step: j + 1 });
    });
    if (prompt > raw.budget) this.overBudgetTurns++;
    let prefixBreak = raw.prefixBreak;
    const n = raw.messages.length;
    if (!raw.engineLayers) {
      const stable = raw.messages
        .slice(0, n - 1)
        .map((m) => m.role + '\u0000' + m.content.map((b) => b.text).join('') + (m.toolCalls ? JSON.stringify(m.toolCalls) : ''));
      prefixBreak = this.prevStable !== undefined && this.prevStable.some((s, i) => stable[i] !== s);
      this.prevStable = stable;
    }
    this.prevReply = traj.turns[raw.turn - 1]?.reply;
    const oaOn = args.cache !== 'anthropic';
    const anOn = args.cache !== 'openai';
    const t: TurnReport = {
      turn: raw.turn,
      layers,
      promptTokens: sum.promptTokens,
      cached: { openai: oaOn ? sum.cached.openai : 0, anthropic: anOn ? sum.cached.anthropic : { read: 0, write: 0 } },
      limit: { openai: oaOn ? sum.limit.openai : 0, anthropic: anOn ? sum.limit.anthropic : 0 },
      rejections: raw.rejections.map((r) => ({ attachment: r.attachment, reason: r.reason })),
      pruned: raw.pruned,
      prefixBreak,
      ...(prefixBreak && raw.prefixBreakReason ? { prefixBreakReason: raw.prefixBreakReason } : {}),
      violations: raw.violations,
      budget: raw.budget,
    };
    if (steps.length > 0) {
      t.steps = steps.map((x) => ({
        step: x.step,
        promptTokens: x.promptTokens,
        cached: { openai: oaOn ? x.cached.openai : 0, anthropic: anOn ? x.cached.anthropic : { read: 0, write: 0 } },
        limit: { openai: oaOn ? x.limit.openai : 0, anthropic: anOn ? x.limit.anthropic : 0 },
      }));
    }
    this.turns.push(t);
    return t;
  }

  /**
   * One request: both cache simulations and its physical limit. The first request of a turn: what is
   * new is its last message, the previous reply and any block sent for the first time. A later
   * request of the same turn (after a tool step) extends the one before it: what is new is the
   * messages appended to it.
   */
  private observe(messages: ChatMessage[], previousInTurn: ChatMessage[] | undefined): Omit<StepReport, 'step'> {
    const tok = this.tok;
    const { tokens, breakpointOffsets } = this.requestTokens.tokens(messages, tok);
    let prompt = 0;
    for (const m of messages) prompt += framedCount(m, tok);
    const oa = this.openai.observe(tokens).cached;
    const an = this.anthropic.observe(tokens, breakpointOffsets);
    const n = messages.length;
    let fresh = 0;
    const skip = new Set<number>();
    if (previousInTurn && previousInTurn.length < n && previousInTurn.every((m, i) => sameMessage(m, messages[i]))) {
      for (let i = previousInTurn.length; i < n; i++) {
        fresh += framedCount(messages[i], tok);
        skip.add(i);
      }
    } else {
      fresh += framedCount(messages[n - 1], tok);
      skip.add(n - 1);
      const prev = n >= 2 ? messages[n - 2] : undefined;
      const prevIsReply =
        prev?.role === 'assistant' &&
        !prev.toolCalls &&
        this.prevReply !== undefined &&
        prev.content.map((b) => b.text).join('') === this.prevReply;
      if (prevIsReply) {
        fresh += framedCount(prev!, tok);
        skip.add(n - 2);
      }
    }
    for (let i = 0; i < n; i++) {
      if (skip.has(i)) continue;
      for (const b of messages[i].content) if (!this.seenBlocks.has(b.text)) fresh += tok.count(b.text);
    }
    for (const m of messages) for (const b of m.content) this.seenBlocks.add(b.text);
    const base = Math.max(0, prompt - fresh);
    return {
      promptTokens: prompt,
      cached: { openai: oa, anthropic: { read: an.read, write: an.write } },
      limit: { openai: openaiCacheable(base), anthropic: base >= MIN_CACHEABLE_TOKENS ? base : 0 },
    };
  }

  report(): StrategyReport {
    return summarize(this.strategy, this.turns, this.overBudgetTurns);
  }
}

export function runStrategy(
  traj: Trajectory,
  strategy: Strategy,
  args: ReplayArgs,
  tok: Tokenizer,
  afterTurn?: ReplayOptions['afterTurn'],
  onRequest?: (turn: number, messages: ChatMessage[], skipped?: string, step?: number) => void,
): { report: StrategyReport; buildMs: number[] } {
  const acc = new StrategyAccumulator(traj, strategy, args, tok, onRequest);
  for (const raw of rawTurns(traj, strategy, args, tok, afterTurn)) acc.add(raw);
  return { report: acc.report(), buildMs: acc.buildMs };
}

/**
 * An engine strategy sent through `provider` by the turn pipeline, turn after turn (`--provider`):
 * `onTurn` sees each turn's report (with the simulation's prediction) and the pipeline's outcome.
 */
export async function runEngineStrategyWithProvider(
  traj: Trajectory,
  strategy: 'library' | 'transcript',
  args: ReplayArgs,
  tok: Tokenizer,
  provider: ChatProvider,
  send: Partial<SendOptions>,
  onTurn: (report: TurnReport, turn: ReplayTurn) => void,
): Promise<{ report: StrategyReport; buildMs: number[] }> {
  const acc = new StrategyAccumulator(traj, strategy, args, tok);
  for await (const t of replayAsync(traj, { layout: strategy, policy: args.policy, tokenizer: tok }, provider, send))
    onTurn(acc.add(engineRawTurn(t)), t);
  return { report: acc.report(), buildMs: acc.buildMs };
}

export { isEngineStrategy };

function summarize(name: Strategy, turns: TurnReport[], overBudgetTurns: number): StrategyReport {
  const sum = (f: (t: TurnReport) => number) => turns.reduce((n, t) => n + f(t), 0);
  const promptTokens = sum((t) => t.promptTokens);
  const cachedOA = sum((t) => t.cached.openai);
  const read = sum((t) => t.cached.anthropic.read);
  const write = sum((t) => t.cached.anthropic.write);
  const limOA = sum((t) => (t.limit.openai > 0 ? t.limit.openai : 0));
  const limAN = sum((t) => (t.limit.anthropic > 0 ? t.limit.anthropic : 0));
  const cachedOAInLimitTurns = sum((t) => (t.limit.openai > 0 ? t.cached.openai : 0));
  const readInLimitTurns = sum((t) => (t.limit.anthropic > 0 ? t.cached.anthropic.read : 0));
  const round = (x: number) => Math.round(x * 10000) / 10000;
  return {
    name,
    turns,
    totals: {
      promptTokens,
      cached: { openai: cachedOA, anthropic: { read, write } },
      uncached: { openai: promptTokens - cachedOA, anthropic: promptTokens - read },
      limit: { openai: limOA, anthropic: limAN },
      prefixBreaks: turns.filter((t) => t.prefixBreak).length,
      pruned: sum((t) => t.pruned.length),
      violations: sum((t) => t.violations.length),
      overBudgetTurns,
      skippedTurns: turns.filter((t) => t.skipped).length,
    },
    efficiency: { openai: limOA > 0 ? round(cachedOAInLimitTurns / limOA) : 1, anthropic: limAN > 0 ? round(readInLimitTurns / limAN) : 1 },
    costUnits: {
      openai: round(sum((t) => openaiCostUnits(t.promptTokens, t.cached.openai))),
      anthropic: round(
        sum((t) =>
          anthropicCostUnits({
            read: t.cached.anthropic.read,
            write: t.cached.anthropic.write,
            plain: t.promptTokens - t.cached.anthropic.read - t.cached.anthropic.write,
          }),
        ),
      ),
    },
  };
}

/** One message as the request dump writes it: blocks, then tool calls or the call a result answers. */
function dumpMessage(m: ChatMessage): Record<string, unknown> {
  const out: Record<string, unknown> = { role: m.role };
  if (m.toolCallId !== undefined) out.toolCallId = m.toolCallId;
  out.content = m.content.map((b) =>
    b.cacheBreakpoint ? { type: 'text', text: b.text, cacheBreakpoint: true } : { type: 'text', text: b.text },
  );
  if (m.toolCalls && m.toolCalls.length > 0) out.toolCalls = m.toolCalls.map((c) => ({ id: c.id, name: c.name, args: c.args }));
  return out;
}

/** Writes `turn-NNN.json`, or `turn-NNN.step-K.json` for a turn's earlier (tool) steps. */
export function dumpRequest(dir: string, turn: number, messages: ChatMessage[], skipped?: string, step?: number): void {
  fs.mkdirSync(dir, { recursive: true });
  const obj: Record<string, unknown> =
    step !== undefined ? { turn, step, messages: messages.map(dumpMessage) } : { turn, messages: messages.map(dumpMessage) };
  if (skipped !== undefined) obj.skipped = skipped;
  const name = `turn-${String(turn).padStart(3, '0')}${step !== undefined ? `.step-${step}` : ''}.json`;
  fs.writeFileSync(path.join(dir, name), JSON.stringify(obj, null, 2) + '\n');
}

function stats(xs: number[]): { min: number; median: number; p95: number } {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * (s.length - 1) + 0.5))] ?? 0;
  const r = (x: number) => Math.round(x * 1000) / 1000;
  return { min: r(s[0] ?? 0), median: r(at(0.5)), p95: r(at(0.95)) };
}

/** How `--reload-at` saves a strategy's chat and resumes it: the `afterTurn` hook of one strategy's replay. */
export type ReloadHook = (traj: Trajectory, strategy: Strategy, args: ReplayArgs, tok: Tokenizer) => ReplayOptions['afterTurn'];

/** Runs every strategy of `args`; `reloadHook` is needed only with `--reload-at`. */
export function runReplay(traj: Trajectory, args: ReplayArgs, reloadHook?: ReloadHook): ReplayReport {
  const t0 = performance.now();
  const tok = getTokenizer(traj.model.encoding);
  const loadMs = performance.now() - t0;
  const strategies: StrategyReport[] = [];
  const timings: Record<string, unknown> = { tokenizerLoadMs: Math.round(loadMs * 1000) / 1000 };
  for (const s of args.strategies) {
    const dir = args.requestsDir ? (args.strategies.length > 1 ? path.join(args.requestsDir, s) : args.requestsDir) : undefined;
    let afterTurn: ReplayOptions['afterTurn'];
    if (args.reloadAt !== undefined && (s === 'library' || s === 'transcript')) {
      if (!reloadHook) throw new ArgError('--reload-at needs the chat store, which is not available in this build');
      afterTurn = reloadHook(traj, s, args, tok);
    }
    const t1 = performance.now();
    const { report, buildMs } = runStrategy(
      traj,
      s,
      args,
      tok,
      afterTurn,
      dir ? (turn, messages, skipped, step) => dumpRequest(dir, turn, messages, skipped, step) : undefined,
    );
    strategies.push(report);
    timings[s] = { totalMs: Math.round((performance.now() - t1) * 1000) / 1000, buildMsPerTurn: stats(buildMs) };
  }
  return { trajectory: traj.name, strategies, timings };
}
