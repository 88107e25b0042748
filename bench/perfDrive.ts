/**
 * Drives the engine through a trajectory exactly as bench/replayCore.ts does (edits, re-read of
 * recoverable artifacts, isolation, build, commit), but times `engine.buildTurn` alone: no invariant
 * check, no cache simulation. Used by the build-time and memory cases.
 */
import type { ChangedFilesPolicy, IHasher, ITokenizer, Layout } from '../src/engine/types';
import { PromptContextEngine, type TurnEnvelope, type TurnInput } from '../src/engine/engine';
import { IsolationPolicy } from '../src/engine/isolation';
import type { ModelLimits } from '../src/engine/budget';
import { VirtualWorkspace, type Trajectory } from './trajectory';
import { engineFor, turnInput } from './replayCore';

export interface DriveOptions {
  layout: Layout;
  policy: ChangedFilesPolicy;
  tokenizer: ITokenizer;
  /**
   * `all` (what replayCore does): every recoverable artifact is re-read and passed in `fresh` before
   * every turn. `changed`: only files whose content changed since the previous turn, as a host with a
   * file watcher can do. Diagnostic only; `all` is the measured default.
   */
  fresh?: 'all' | 'changed';
  /** Stop after this many turns (default: all). */
  turns?: number;
  /** Limits for the last built turn (the prompt-tsx comparison rebuilds a turn under a smaller budget). */
  lastTurnLimits?: ModelLimits;
  /** Called after each build with its time and envelope (before the turn is committed). */
  onBuilt?: (turn: number, ms: number, env: TurnEnvelope) => void;
  /** Commit the last turn too (default true). */
  commitLast?: boolean;
  /** Called with each turn's input before it is built. */
  onInput?: (turn: number, input: TurnInput) => void;
  /** The engine's hashing port (default: its pure-JS sha256, as the replay). */
  hasher?: IHasher;
  /** Called after each turn is committed (not after a blocked one). */
  afterCommit?: (turn: number, engine: PromptContextEngine) => void;
}

export interface DriveResult {
  engine: PromptContextEngine;
  /** buildTurn milliseconds, one per turn. */
  buildMs: number[];
  /** Turns that cut for the budget (pruned, compacted, summarized) or were blocked. */
  cutTurns: number[];
}

/** Runs the trajectory through a fresh engine; times each buildTurn call. */
export function driveEngine(traj: Trajectory, opts: DriveOptions): DriveResult {
  const ws = new VirtualWorkspace(traj.files);
  const isolation = new IsolationPolicy();
  const engine = opts.hasher ? new PromptContextEngine({ ...engineFor(traj, opts).options, hasher: opts.hasher }) : engineFor(traj, opts);
  const n = Math.min(traj.turns.length, opts.turns ?? traj.turns.length);
  const buildMs: number[] = [];
  const cutTurns: number[] = [];
  // Files whose content the engine last saw (for `fresh: 'changed'`), by artifact id.
  const lastSeen = new Map<string, string | null>();
  for (let i = 0; i < n; i++) {
    const input = turnInput(traj, i, ws, isolation, engine, opts.fresh ?? 'all', lastSeen);
    const last = i === n - 1;
    opts.onInput?.(i + 1, input);
    if (last && opts.lastTurnLimits) engine.updateOptions({ limits: opts.lastTurnLimits });
    const t0 = performance.now();
    const env = engine.buildTurn(input);
    const ms = performance.now() - t0;
    buildMs.push(ms);
    if (env.blocked || env.pruned.some((p) => p.reason !== 'detached')) cutTurns.push(i + 1);
    opts.onBuilt?.(i + 1, ms, env);
    if (env.blocked) {
      engine.abandonTurn();
      continue;
    }
    if (!last || opts.commitLast !== false) {
      engine.completeTurn(traj.turns[i].reply);
      opts.afterCommit?.(i + 1, engine);
    }
  }
  return { engine, buildMs, cutTurns };
}
