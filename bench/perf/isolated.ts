/**
 * The scaling measurements, each in a child process of its own (as the memory cases are): a chat's
 * per-turn cost is measured in a process that holds that chat only. In the benchmark's own process,
 * late turns would pay for the heap of the cases that ran before (their trajectories, tokenizer memos
 * and garbage), and a figure would depend on the order the cases run in. The child regenerates the conversation from the same generator options (it is
 * deterministic), so it measures the same turns. One case also runs in the benchmark's own process,
 * for the comparison (bench.ts).
 */
import { execFileSync } from 'child_process';
import type { Layout } from '../../src/engine/types';
import { generateConversation, GENERATED_DEFAULTS, LONG_CHAT, LONG_CHAT_UNCUT, type GenerateOptions } from './generate';
import {
  measureInterleaved,
  measureProbe,
  measureScaling,
  type HasherChoice,
  type InterleavedResult,
  type ProbeResult,
  type ScalingResult,
} from './build';

/** The generated conversations the scaling cases use. */
export type ScalingChat = 'generated' | 'long' | 'uncut';

const CHATS: Record<ScalingChat, GenerateOptions> = { generated: GENERATED_DEFAULTS, long: LONG_CHAT, uncut: LONG_CHAT_UNCUT };

export type IsolatedJob =
  | { kind: 'scaling'; chat: ScalingChat; layout: Layout; warmRuns: number; fresh: 'all' | 'changed'; hasher: HasherChoice }
  | { kind: 'probe'; chat: ScalingChat; layout: Layout; afterTurns: number[]; runs: number; hasher: HasherChoice }
  | { kind: 'interleaved'; chat: ScalingChat; layout: Layout; runs: number };

type ResultOf<J extends IsolatedJob> = J extends { kind: 'scaling' }
  ? ScalingResult
  : J extends { kind: 'probe' }
    ? ProbeResult
    : InterleavedResult;

/** Runs one measurement in the benchmark's own process. */
export function runJob<J extends IsolatedJob>(job: J): ResultOf<J> {
  const traj = generateConversation(CHATS[job.chat]).trajectory;
  switch (job.kind) {
    case 'scaling':
      return measureScaling(traj, job.layout, job.warmRuns, job.fresh, job.hasher) as ResultOf<J>;
    case 'probe':
      return measureProbe(traj, job.layout, job.afterTurns, job.runs, job.hasher) as ResultOf<J>;
    case 'interleaved':
      return measureInterleaved(traj, job.layout, job.runs) as ResultOf<J>;
  }
  throw new Error(`unknown job ${JSON.stringify(job)}`);
}

/** Runs one measurement in a child process of its own and returns its result. */
export function runIsolated<J extends IsolatedJob>(job: J): ResultOf<J> {
  const out = execFileSync(process.execPath, [__filename, JSON.stringify(job)], { encoding: 'utf8', maxBuffer: 64 << 20 });
  return JSON.parse(out.trim().split('\n').pop()!) as ResultOf<J>;
}

if (require.main === module) {
  const arg = process.argv[2];
  let job: IsolatedJob;
  try {
    job = JSON.parse(arg ?? '') as IsolatedJob;
    if (!job || !['scaling', 'probe', 'interleaved'].includes(job.kind) || !(job.chat in CHATS)) throw new Error('not a job');
  } catch {
    process.stderr.write(
      'usage: node out/bench/perf/isolated.js \'{"kind":"scaling"|"probe"|"interleaved","chat":"generated"|"long"|"uncut",…}\'\n',
    );
    process.exit(2);
  }
  process.stdout.write(JSON.stringify(runJob(job)) + '\n');
}
