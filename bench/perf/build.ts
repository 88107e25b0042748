/**
 * Envelope build time per turn: `engine.buildTurn` only, driven like the replay.
 * Pass 1 runs with an empty tokenizer memo (cold); the following passes build the same turns with a
 * fresh engine and the memo warm (warm), which is the steady state of a chat: every text but the new
 * one has been counted before.
 */
import { sha256Hex } from '../../src/common/hash';
import { NODE_HASHER } from '../../src/services/nodeHasher';
import { GuardedTokenizer } from '../../src/services/tokenizer';
import type { IHasher, Layout } from '../../src/engine/types';
import type { TurnInput } from '../../src/engine/engine';
import type { Trajectory } from '../trajectory';
import { driveEngine, TurnStepper } from './drive';
import { round, stats, type Stats } from './stats';

export interface BuildTimeResult {
  trajectory: string;
  layout: Layout;
  turns: number;
  warmRuns: number;
  /** Pass 1, memo empty: one sample per turn. */
  cold: Stats;
  /** All warm passes: one sample per turn per pass. */
  warm: Stats;
  /** Median over the warm passes, per turn (ms). */
  warmMedianPerTurn: number[];
}

/** Which sha256 the engine gets through its IHasher port. */
export type HasherChoice = 'pure-js' | 'native';

/** The engine's own pure-JS sha256 (its default when no port is given), for the side-by-side rows. */
const PURE_JS_HASHER: IHasher = { sha256Hex };

function hasherOf(h: HasherChoice | undefined): IHasher {
  return h === 'pure-js' ? PURE_JS_HASHER : NODE_HASHER;
}

/**
 * The tokenizer of the warm passes: its memo holds every text of the chat. A warm pass stands for a
 * chat whose engine has counted its texts before (the extension's engine keeps each segment's count
 * for the chat's life); the default memo (4 M characters of keys) is smaller than the 1,000-turn
 * chat's texts, and a pass over them in order then misses on almost every one (an LRU read
 * cyclically), so the "warm" passes would measure tokenization, not the engine.
 */
export function warmTokenizer(traj: Trajectory): GuardedTokenizer {
  return new GuardedTokenizer(traj.model.encoding, { maxEntries: 500_000, maxKeyChars: 256_000_000 });
}

/** A block's file: its artifact key without the version suffix (`file:a.ts@v2` → `file:a.ts`). */
function fileOfKey(key: string): string {
  return key.replace(/@v\d+$/, '');
}

function buildTimes(
  traj: Trajectory,
  layout: Layout,
  warmRuns: number,
  fresh: 'all' | 'changed' = 'changed',
  hasher?: HasherChoice,
): {
  cold: number[];
  warm: number[][];
  cutTurns: number[];
  newContentTurns: number[];
  newBlocks: number[];
  newChars: number[];
  resentTurns: number[];
} {
  const tokenizer = warmTokenizer(traj);
  const h = hasherOf(hasher);
  const newContentTurns: number[] = [];
  const newBlocks: number[] = [];
  const newChars: number[] = [];
  // Files a cut took out (pruned or compacted, any version), and the turns that send one of them in
  // full again without the user having changed it that turn: work the cut deferred, not the chat's length.
  const cutFiles = new Set<string>();
  const resentTurns: number[] = [];
  const first = driveEngine(traj, {
    layout,
    policy: 'append-version',
    tokenizer,
    fresh,
    hasher: h,
    onBuilt: (turn, _ms, env) => {
      newBlocks[turn] = env.newBlocks.length;
      if (env.newBlocks.length > 0) newContentTurns.push(turn);
      const edited = new Set(Object.keys(traj.turns[turn - 1]?.edits ?? {}).map((p) => `file:${p}`));
      if (env.newBlocks.some((k) => cutFiles.has(fileOfKey(k)) && !edited.has(fileOfKey(k)))) resentTurns.push(turn);
      for (const p of env.pruned) if (p.reason !== 'detached') cutFiles.add(fileOfKey(p.item));
      const added = new Set(env.newBlocks);
      let chars = 0;
      for (const l of env.layers)
        for (const g of l.segments)
          if ((g.kind === 'artifact' || g.kind === 'compacted') && g.artifactKey && added.has(g.artifactKey)) chars += g.text.length;
      newChars[turn] = chars;
    },
  });
  const warm: number[][] = [];
  for (let r = 0; r < warmRuns; r++)
    warm.push(driveEngine(traj, { layout, policy: 'append-version', tokenizer, fresh, hasher: h }).buildMs);
  return {
    cold: first.buildMs,
    warm,
    cutTurns: first.cutTurns,
    newContentTurns,
    newBlocks,
    newChars,
    resentTurns: resentTurns.filter((t) => !first.cutTurns.includes(t)),
  };
}

/** Blocks first sent in turns `from`..`to` (1-based), turns that cut left out. */
function blocksIn(perTurn: readonly number[], from: number, to: number, cut: ReadonlySet<number>): number {
  let n = 0;
  for (let t = from; t <= to; t++) if (!cut.has(t)) n += perTurn[t] ?? 0;
  return n;
}

/** Two windows' statistics and last ÷ first, of their medians and of their p95 (0 when the first is 0). */
function windowRatios(
  first: readonly number[],
  last: readonly number[],
): { first20: Stats; last20: Stats; ratio: number; ratioP95: number } {
  const first20 = stats(first);
  const last20 = stats(last);
  return {
    first20,
    last20,
    ratio: first20.median > 0 ? round(last20.median / first20.median) : 0,
    ratioP95: first20.p95 > 0 ? round(last20.p95 / first20.p95) : 0,
  };
}

function perTurnMedian(runs: number[][]): number[] {
  return runs[0].map((_, i) => stats(runs.map((r) => r[i])).median);
}

export function measureBuildTime(traj: Trajectory, layout: Layout, warmRuns: number): BuildTimeResult {
  const { cold, warm } = buildTimes(traj, layout, warmRuns);
  return {
    trajectory: traj.name,
    layout,
    turns: cold.length,
    warmRuns,
    cold: stats(cold),
    warm: stats(warm.flat()),
    warmMedianPerTurn: perTurnMedian(warm),
  };
}

export interface ScalingResult {
  trajectory: string;
  layout: Layout;
  turns: number;
  warmRuns: number;
  /** Which recoverable files are passed in `fresh` before each turn. */
  fresh: 'all' | 'changed';
  hasher: HasherChoice;
  /** Warm build time of turns 1–20 and of the last 20 turns (all warm passes), turns that cut left out. */
  first20: Stats;
  last20: Stats;
  /** Turns that cut for the budget (they touch more, legitimately): turn and median warm ms. */
  cutTurns: { turn: number; ms: number }[];
  /** Turns of each window that send a block for the first time (new files, versions, selections: content to hash and count). */
  newContent: { first20: number; last20: number };
  /** Blocks sent for the first time in each window (a file pruned earlier and attached again is one). */
  newBlocks: { first20: number; last20: number };
  /** The windows' other turns (nothing new to hash or count: the history's work alone), and last ÷ first medians. */
  noNewContent: { first20: Stats; last20: Stats; ratio: number };
  /**
   * The new-content turns per KB of new blocks: characters of the blocks each window sends for the
   * first time, and µs per KB those turns take beyond the window's other turns (Σ their per-turn
   * medians − their count × the other turns' median, ÷ KB): the cost of new content, apart from how
   * much of it each window has.
   */
  perNewKB: { first20: { kb: number; us: number }; last20: { kb: number; us: number }; ratio: number };
  /**
   * Turns (not cutting) that send in full again a file an earlier cut took out, not changed in that
   * turn: in a window no cut reaches the same turns send a reference or nothing. The cut's deferred
   * work, as the cut turns are its immediate work.
   */
  resentTurns: number[];
  /**
   * The windows without those turns (and without the cut turns): what the chat's length costs a
   * turn when the turns compared do the same kind of work. The target of the cut cases.
   */
  sameWork: { first20: Stats; last20: Stats; ratio: number; ratioP95: number; blocks: { first20: number; last20: number } };
  /** median(last 20) ÷ median(first 20). */
  ratio: number;
  /** p95(last 20) ÷ p95(first 20). */
  ratioP95: number;
  warmMedianPerTurn: number[];
  /**
   * When the case ran in several processes: every process's ratios. The windows' statistics and
   * ratios are then those of all processes' samples together; the other figures are the process's
   * with the median ratio (of `sameWork`).
   */
  processes?: ProcessRatios[];
  /** The windows' samples (ms), for pooling processes; dropped once pooled. */
  samples?: { first20: number[]; last20: number[]; sameFirst20: number[]; sameLast20: number[] };
}

export interface ProcessRatios {
  ratio: number;
  ratioP95: number;
  sameRatio: number;
  sameRatioP95: number;
}

/**
 * One scaling case measured in several processes: the windows' medians, p95 and ratios over all
 * their samples together, every process's ratios beside them. A process's figure moves by a tenth or
 * more between runs on a 2-core machine (its heap, the JIT's choices, when a collection lands in a
 * window: a p95 of 20 turns × 9 passes is the 9th slowest sample); pooled, three processes give a
 * steadier figure than any one, and all three are shown.
 */
export function pooledProcesses(results: ScalingResult[]): ScalingResult {
  if (results.length === 0) throw new Error('no results');
  const sorted = [...results].sort((a, b) => a.sameWork.ratio - b.sameWork.ratio);
  const mid = sorted[(sorted.length - 1) >> 1];
  const processes = results.map((r) => ({
    ratio: r.ratio,
    ratioP95: r.ratioP95,
    sameRatio: r.sameWork.ratio,
    sameRatioP95: r.sameWork.ratioP95,
  }));
  const all = (f: (x: NonNullable<ScalingResult['samples']>) => number[]) => results.flatMap((r) => (r.samples ? f(r.samples) : []));
  const out: ScalingResult = {
    ...mid,
    ...windowRatios(
      all((x) => x.first20),
      all((x) => x.last20),
    ),
    sameWork: {
      ...mid.sameWork,
      ...windowRatios(
        all((x) => x.sameFirst20),
        all((x) => x.sameLast20),
      ),
    },
    ...(results.length > 1 ? { processes } : {}),
  };
  delete out.samples;
  return out;
}

export function measureScaling(
  traj: Trajectory,
  layout: Layout,
  warmRuns: number,
  fresh: 'all' | 'changed' = 'changed',
  hasher: HasherChoice = 'native',
): ScalingResult {
  const { warm, cutTurns, newContentTurns, newBlocks, newChars, resentTurns } = buildTimes(traj, layout, warmRuns, fresh, hasher);
  const n = warm[0].length;
  const cut = new Set(cutTurns);
  const window = (from: number, to: number) => warm.flatMap((r) => r.slice(from, to).filter((_, j) => !cut.has(from + j + 1)));
  const firstSamples = window(0, 20);
  const lastSamples = window(Math.max(0, n - 20), n);
  const windows = windowRatios(firstSamples, lastSamples);
  const perTurn = perTurnMedian(warm);
  const fresh0 = new Set(newContentTurns);
  const plain = (from: number, to: number) =>
    warm.flatMap((r) => r.slice(from, to).filter((_, j) => !cut.has(from + j + 1) && !fresh0.has(from + j + 1)));
  const plainFirst = stats(plain(0, 20));
  const plainLast = stats(plain(Math.max(0, n - 20), n));
  const perKB = (from: number, to: number, other: Stats): { kb: number; us: number } => {
    let chars = 0;
    let extra = 0;
    for (let t = from + 1; t <= to; t++) {
      if (cut.has(t) || !fresh0.has(t)) continue;
      chars += newChars[t] ?? 0;
      extra += perTurn[t - 1] - other.median;
    }
    return { kb: round(chars / 1000, 1), us: chars > 0 ? round((extra * 1000) / (chars / 1000), 2) : 0 };
  };
  const apart = new Set([...cutTurns, ...resentTurns]);
  const same = (from: number, to: number) => warm.flatMap((r) => r.slice(from, to).filter((_, j) => !apart.has(from + j + 1)));
  const sameFirstSamples = same(0, 20);
  const sameLastSamples = same(Math.max(0, n - 20), n);
  const kbFirst = perKB(0, Math.min(20, n), plainFirst);
  const kbLast = perKB(Math.max(0, n - 20), n, plainLast);
  return {
    trajectory: traj.name,
    layout,
    turns: n,
    warmRuns,
    fresh,
    hasher,
    first20: windows.first20,
    last20: windows.last20,
    cutTurns: cutTurns.map((t) => ({ turn: t, ms: perTurn[t - 1] })),
    newContent: {
      first20: newContentTurns.filter((t) => t <= 20 && !cut.has(t)).length,
      last20: newContentTurns.filter((t) => t > n - 20 && !cut.has(t)).length,
    },
    newBlocks: { first20: blocksIn(newBlocks, 1, Math.min(20, n), cut), last20: blocksIn(newBlocks, Math.max(1, n - 19), n, cut) },
    noNewContent: {
      first20: plainFirst,
      last20: plainLast,
      ratio: plainFirst.median > 0 ? round(plainLast.median / plainFirst.median) : 0,
    },
    perNewKB: { first20: kbFirst, last20: kbLast, ratio: kbFirst.us > 0 ? round(kbLast.us / kbFirst.us) : 0 },
    resentTurns,
    sameWork: {
      ...windowRatios(sameFirstSamples, sameLastSamples),
      blocks: { first20: blocksIn(newBlocks, 1, Math.min(20, n), apart), last20: blocksIn(newBlocks, Math.max(1, n - 19), n, apart) },
    },
    ratio: windows.ratio,
    ratioP95: windows.ratioP95,
    warmMedianPerTurn: perTurn,
    samples: { first20: firstSamples, last20: lastSamples, sameFirst20: sameFirstSamples, sameLast20: sameLastSamples },
  };
}

export interface ProbeResult {
  trajectory: string;
  layout: Layout;
  hasher: HasherChoice;
  /** Builds of the probe turn at each point. */
  runs: number;
  /** The same probe turn built (and abandoned) after `afterTurns` completed turns. */
  points: { afterTurns: number; blocks: number; stats: Stats }[];
}

/**
 * The same turn built at different lengths of one chat (what the context meter does while the user
 * types: build, then abandon): one new 12 KB file, the chat's first two files attached again, the same
 * message. Only the history differs, so the ratio between points is what the chat's length costs per
 * turn. One chat is driven to each point; their builds then alternate (the order turned each round),
 * so that what drifts on the machine meanwhile falls on every point alike: measured one point after
 * the other, a few milliseconds of builds each, the ratio moved between 0.9× and 1.7× from run to
 * run. A tenth of the rounds, untimed, warm the code and the tokenizer memo first.
 */
export function measureProbe(
  traj: Trajectory,
  layout: Layout,
  afterTurns: number[],
  runs: number,
  hasher: HasherChoice = 'native',
): ProbeResult {
  const tokenizer = warmTokenizer(traj);
  const firstFiles = Object.keys(traj.files).slice(0, 2);
  const probeText = Object.values(traj.files)
    .map((v) => (typeof v === 'string' ? v : ''))
    .join('\n')
    .slice(0, 12_000);
  const points = afterTurns.map((turns) => {
    let lastInput: TurnInput | undefined;
    const { engine } = driveEngine(traj, {
      layout,
      policy: 'append-version',
      tokenizer,
      hasher: hasherOf(hasher),
      turns,
      onInput: (_turn, input) => (lastInput = input),
    });
    const fresh = lastInput?.fresh;
    // The files as they are by then (edited since, some of them): attaching an older text would send
    // it as a new version, work the early point does not do.
    const now = (uri: string): string => {
      const key = engine.state.latest.get(`file:${uri}`);
      return (key !== undefined ? engine.state.entries.get(key)?.artifact.content : undefined) ?? (traj.files[uri] as string);
    };
    const input: TurnInput = {
      userText: 'Probe: compare the new module with the two files attached at the start.',
      attachments: [
        { kind: 'file', uri: 'gen/probe/new-module.ts', content: probeText },
        ...firstFiles.map((uri) => ({ kind: 'file' as const, uri, content: now(uri) })),
      ],
      fresh,
    };
    return { afterTurns: turns, engine, input, blocks: 0, samples: [] as number[] };
  });
  const warmRounds = Math.max(1, Math.round(runs / 10));
  for (let r = 0; r < warmRounds + runs; r++) {
    for (let k = 0; k < points.length; k++) {
      const pt = points[r % 2 === 0 ? k : points.length - 1 - k];
      const t0 = performance.now();
      const env = pt.engine.buildTurn(pt.input);
      const ms = performance.now() - t0;
      pt.engine.abandonTurn();
      pt.blocks = env.messages.reduce((n, m) => n + m.content.length, 0);
      if (r >= warmRounds) pt.samples.push(ms);
    }
  }
  return {
    trajectory: traj.name,
    layout,
    hasher,
    runs,
    points: points.map((pt) => ({ afterTurns: pt.afterTurns, blocks: pt.blocks, stats: stats(pt.samples) })),
  };
}

export interface InterleavedResult {
  trajectory: string;
  layout: Layout;
  /** The model's context window (the long chat is measured in two). */
  contextWindow: number;
  turns: number;
  runs: number;
  /** Turns 1–20 and the last 20 (cut turns left out), all runs. */
  first20: Stats;
  last20: Stats;
  ratio: number;
  ratioP95: number;
  /** Blocks each turn adds (its user message's blocks and the reply), mean per window. */
  blocks: { first20: number; last20: number };
  /** Build time per block added (ms), and last ÷ first medians: the windows' work made comparable. */
  perBlock: { first20: Stats; last20: Stats; ratio: number };
}

/**
 * The scaling case with the two windows interleaved: per run, one chat is driven (untimed) to the
 * start of the last window, then turn k of a fresh chat and turn n−20+k of the long one alternate,
 * each timed. Both windows then see the same machine, so many runs give a steady ratio; the sequential
 * case measures turns 1–20 at the start of each pass and the last 20 a second or more later.
 */
export function measureInterleaved(traj: Trajectory, layout: Layout, runs: number, hasher: HasherChoice = 'native'): InterleavedResult {
  const tokenizer = warmTokenizer(traj);
  const h = hasherOf(hasher);
  const blocks: number[] = [];
  const first = driveEngine(traj, {
    layout,
    policy: 'append-version',
    tokenizer,
    hasher: h,
    onBuilt: (turn, _ms, env) => (blocks[turn] = (env.messages[env.messages.length - 1]?.content.length ?? 0) + 1),
  });
  const n = first.buildMs.length;
  const cut = new Set(first.cutTurns);
  const early: number[] = [];
  const late: number[] = [];
  const earlyPer: number[] = [];
  const latePer: number[] = [];
  const opts = { layout, policy: 'append-version' as const, tokenizer, fresh: 'changed' as const, hasher: h };
  for (let r = 0; r < runs; r++) {
    const a = new TurnStepper(traj, opts);
    const b = new TurnStepper(traj, opts);
    for (let i = 0; i < n - 20; i++) b.step(i);
    for (let k = 0; k < 20; k++) {
      const x = a.step(k);
      const y = b.step(n - 20 + k);
      if (!cut.has(k + 1)) {
        early.push(x);
        earlyPer.push(x / blocks[k + 1]);
      }
      if (!cut.has(n - 19 + k)) {
        late.push(y);
        latePer.push(y / blocks[n - 19 + k]);
      }
    }
  }
  const mean = (xs: number[]) => round(xs.reduce((s, x) => s + x, 0) / Math.max(1, xs.length), 2);
  const windowBlocks = (from: number) =>
    Array.from({ length: 20 }, (_, k) => from + k)
      .filter((t) => !cut.has(t))
      .map((t) => blocks[t]);
  const first20 = stats(early);
  const last20 = stats(late);
  const pf = stats(earlyPer, 4);
  const pl = stats(latePer, 4);
  return {
    trajectory: traj.name,
    layout,
    contextWindow: traj.model.contextWindow,
    turns: n,
    runs,
    first20,
    last20,
    ratio: first20.median > 0 ? round(last20.median / first20.median) : 0,
    ratioP95: first20.p95 > 0 ? round(last20.p95 / first20.p95) : 0,
    blocks: { first20: mean(windowBlocks(1)), last20: mean(windowBlocks(n - 19)) },
    perBlock: { first20: pf, last20: pl, ratio: pf.median > 0 ? round(pl.median / pf.median) : 0 },
  };
}
