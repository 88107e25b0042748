/**
 * Drives a trajectory through the turn pipeline exactly as bench/replayCore.ts does (edits, isolation,
 * re-read of recoverable files, build, scripted reply, commit) and reports the time of
 * `engine.buildTurn` alone, as measured by the pipeline around that call: no invariant check, no cache
 * simulation, no pipeline plumbing in the figure. Used by the build-time and memory cases.
 */
import type { ChangedFilesPolicy, IHasher, ITokenizer, Layout } from '../../src/engine/types';
import { PromptContextEngine, type TurnEnvelope, type TurnInput } from '../../src/engine/engine';
import type { ModelLimits } from '../../src/engine/budget';
import type { Trajectory } from '../trajectory';
import { ReplayRun } from '../replayCore';

export interface DriveOptions {
  layout: Layout;
  policy: ChangedFilesPolicy;
  tokenizer: ITokenizer;
  /**
   * `changed` (default, as the replay and the extension): only files whose content changed since the
   * previous turn are passed in `fresh`, as a file watcher reports them. `all`: every recoverable
   * artifact is passed before every turn (diagnostic: the engine then compares every one).
   */
  fresh?: 'all' | 'changed';
  /** Stop after this many turns (default: all). */
  turns?: number;
  /** Limits for the last built turn (the prompt-tsx comparison rebuilds a turn under a smaller budget). */
  lastTurnLimits?: ModelLimits;
  /** Called after each build with its time and envelope (before the turn is committed). */
  onBuilt?: (turn: number, ms: number, env: TurnEnvelope) => void;
  /** Commit the last turn too (default true); false builds it as a preview. */
  commitLast?: boolean;
  /** Called with each turn's input (as the pipeline assembled it). */
  onInput?: (turn: number, input: TurnInput) => void;
  /** The engine's hashing port (default: Node's native sha256, as the replay and the extension). */
  hasher?: IHasher;
}

export interface DriveResult {
  engine: PromptContextEngine;
  /** buildTurn milliseconds, one per turn. */
  buildMs: number[];
  /** Turns that cut for the budget (pruned, compacted, summarized) or were blocked. */
  cutTurns: number[];
}

/**
 * One chat driven a turn at a time (the loop of `driveEngine`), so that two chats can alternate:
 * the interleaved scaling case times an early turn of one chat, then a late turn of another, so that
 * whatever drifts on the machine during a run (frequency, neighbours, the JIT) falls on both windows.
 */
export class TurnStepper {
  readonly run: ReplayRun;
  constructor(traj: Trajectory, opts: Pick<DriveOptions, 'layout' | 'policy' | 'tokenizer' | 'fresh' | 'hasher'>) {
    this.run = new ReplayRun(traj, {
      layout: opts.layout,
      policy: opts.policy,
      tokenizer: opts.tokenizer,
      fresh: opts.fresh ?? 'changed',
      ...(opts.hasher ? { hasher: opts.hasher } : {}),
      check: false,
    });
  }

  /** Runs turn `i` (0-based; turns run in order); returns its buildTurn milliseconds. */
  step(i: number): number {
    const { request, send, preview } = this.run.prepare(i);
    const outcome = this.run.pipeline.runSync(request, preview ? undefined : this.run.scripted, send);
    const t = this.run.result(i, outcome);
    this.run.after(i, outcome);
    return t.buildMs;
  }
}

/** Runs the trajectory through a fresh engine; times each buildTurn call. */
export function driveEngine(traj: Trajectory, opts: DriveOptions): DriveResult {
  const n = Math.min(traj.turns.length, opts.turns ?? traj.turns.length);
  const limited: Trajectory = n === traj.turns.length ? traj : { ...traj, turns: traj.turns.slice(0, n) };
  const run = new ReplayRun(limited, {
    layout: opts.layout,
    policy: opts.policy,
    tokenizer: opts.tokenizer,
    fresh: opts.fresh ?? 'changed',
    ...(opts.hasher ? { hasher: opts.hasher } : {}),
    check: false,
    previewLast: opts.commitLast === false,
    beforeTurn: (turn, engine) => {
      if (turn === n && opts.lastTurnLimits) engine.updateOptions({ limits: opts.lastTurnLimits });
    },
  });
  const buildMs: number[] = [];
  const cutTurns: number[] = [];
  for (let i = 0; i < n; i++) {
    const { request, send, preview } = run.prepare(i);
    const outcome = run.pipeline.runSync(request, preview ? undefined : run.scripted, {
      ...send,
      onEvent: (ev) => {
        if (ev.type !== 'built') return;
        if (ev.envelope.blocked || ev.envelope.pruned.some((p) => p.reason !== 'detached')) cutTurns.push(i + 1);
        opts.onBuilt?.(i + 1, ev.buildMs, ev.envelope);
      },
    });
    const t = run.result(i, outcome);
    opts.onInput?.(i + 1, t.input);
    buildMs.push(t.buildMs);
    run.after(i, outcome);
  }
  return { engine: run.engine, buildMs, cutTurns };
}
