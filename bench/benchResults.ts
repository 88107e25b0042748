/** What `npm run bench` measures and writes to latest.json: the shapes of its results. */
import type { ReplayReport } from './replay';
import type { MachineFacts, Stats } from './perf/stats';
import type { BuildTimeResult, InterleavedResult, ProbeResult, ScalingResult } from './perf/build';
import type { GeneratedInfo } from './perf/generate';
import type { GrowthRow } from './perf/profile';
import type { ThroughputResult } from './perf/tokenizer';
import type { HeapResult, RssResult } from './perf/memory';
import type { PromptTsxComparison } from './promptTsxCompare';
import type { OpenTimeResult } from './perf/open';
import type { SessionTurnsResult } from './perf/session';
import type { CodeIntelBenchResult } from './codeIntelBench';

import type { Target } from './target';

export type { Target };

export interface TrajectoryResult {
  name: string;
  turns: number;
  budget: number;
  /** The default layout had to prune or compact (detaches by the user do not count). */
  needsPruning: boolean;
  report: ReplayReport;
}

export interface PerfResults {
  buildLongSession?: BuildTimeResult;
  scaling?: { generated: GeneratedInfo; main: ScalingResult; allFresh: ScalingResult; growth: GrowthRow[] };
  /**
   * The same measurements on more cases — the 200-turn chat with the engine given a native
   * sha256 through its IHasher port (as a host can), and a 1,000-turn chat with 5 MB of files — and the
   * same turn built at different lengths of one chat (the probe). `scaling.main` stays the main row.
   */
  longChats?: {
    cases: { label: string; uncut?: boolean; inProcess?: boolean; generated: GeneratedInfo; result: ScalingResult }[];
    probes: ProbeResult[];
    interleaved: InterleavedResult[];
  };
  tokenizer?: ThroughputResult;
  memory?: { replay: RssResult; engineOnly: RssResult; heap: HeapResult[] };
  promptTsx?: PromptTsxComparison;
  /** Opening a 1,000-turn chat from disk. */
  openChat?: OpenTimeResult;
  /** The 1,000-turn chat sent turn by turn through `ChatSession`: what a user waits for per turn. */
  sessionTurns?: SessionTurnsResult;
}

/** A tool-heavy trajectory: Strata's layouts against the plain agent transcript. */
export interface ToolTrajectoryResult {
  name: string;
  /** The trajectory as written, or replayed with a smaller context window. */
  variant: string;
  contextWindow: number;
  turns: number;
  toolCalls: number;
  report: ReplayReport;
  /** Per tool step in the replay (in-memory workspace): running the tools, and appending their results (ms). */
  stepMs: { tools: Stats; append: Stats };
}

export interface BenchResults {
  generatedAt: string;
  machine: MachineFacts;
  settings: { quick: boolean; defaultLayout: string; strategies: string[]; runs: Record<string, number | number[]> };
  economics: TrajectoryResult[];
  /** Tool-heavy sessions: cost against a plain agent transcript that re-sends tool results without dedup. */
  tools: ToolTrajectoryResult[];
  /** Code intelligence as context: a selection with its definitions against attaching files, and the model navigating. */
  codeIntel?: CodeIntelBenchResult;
  performance: PerfResults;
  targets: Target[];
  durationsMs: Record<string, number>;
}
