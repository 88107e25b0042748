/**
 * Envelope build time per turn (issue 3): `engine.buildTurn` only, driven like the replay.
 * Pass 1 runs with an empty tokenizer memo (cold); the following passes build the same turns with a
 * fresh engine and the memo warm (warm), which is the steady state of a chat: every text but the new
 * one has been counted before.
 */
import { GuardedTokenizer } from '../src/services/tokenizer';
import type { Layout } from '../src/engine/types';
import type { Trajectory } from './trajectory';
import { driveEngine } from './perfDrive';
import { round, stats, type Stats } from './perfStats';

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

function buildTimes(traj: Trajectory, layout: Layout, warmRuns: number, fresh: 'all' | 'changed' = 'all'): { cold: number[]; warm: number[][] } {
  const tokenizer = new GuardedTokenizer(traj.model.encoding);
  const cold = driveEngine(traj, { layout, policy: 'append-version', tokenizer, fresh }).buildMs;
  const warm: number[][] = [];
  for (let r = 0; r < warmRuns; r++) warm.push(driveEngine(traj, { layout, policy: 'append-version', tokenizer, fresh }).buildMs);
  return { cold, warm };
}

function perTurnMedian(runs: number[][]): number[] {
  return runs[0].map((_, i) => stats(runs.map((r) => r[i])).median);
}

export function measureBuildTime(traj: Trajectory, layout: Layout, warmRuns: number): BuildTimeResult {
  const { cold, warm } = buildTimes(traj, layout, warmRuns);
  return { trajectory: traj.name, layout, turns: cold.length, warmRuns, cold: stats(cold), warm: stats(warm.flat()), warmMedianPerTurn: perTurnMedian(warm) };
}

export interface ScalingResult {
  trajectory: string;
  layout: Layout;
  turns: number;
  warmRuns: number;
  /** Which recoverable files are passed in `fresh` before each turn. */
  fresh: 'all' | 'changed';
  /** Warm build time of turns 1–20 and of the last 20 turns (all warm passes). */
  first20: Stats;
  last20: Stats;
  /** median(last 20) ÷ median(first 20). */
  ratio: number;
  /** p95(last 20) ÷ p95(first 20). */
  ratioP95: number;
  warmMedianPerTurn: number[];
}

export function measureScaling(traj: Trajectory, layout: Layout, warmRuns: number, fresh: 'all' | 'changed' = 'all'): ScalingResult {
  const { warm } = buildTimes(traj, layout, warmRuns, fresh);
  const n = warm[0].length;
  const first = warm.flatMap((r) => r.slice(0, 20));
  const last = warm.flatMap((r) => r.slice(Math.max(0, n - 20)));
  const first20 = stats(first);
  const last20 = stats(last);
  return {
    trajectory: traj.name,
    layout,
    turns: n,
    warmRuns,
    fresh,
    first20,
    last20,
    ratio: first20.median > 0 ? round(last20.median / first20.median) : 0,
    ratioP95: first20.p95 > 0 ? round(last20.p95 / first20.p95) : 0,
    warmMedianPerTurn: perTurnMedian(warm),
  };
}
