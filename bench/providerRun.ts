import type { Trajectory } from './trajectory';
import { ArgError, type ReplayArgs, type ReplayReport } from './replay';

/** `--provider`: sends the trajectory's requests to a real endpoint. Wired up with the providers. */
export async function runAgainstProvider(_traj: Trajectory, _args: ReplayArgs): Promise<ReplayReport> {
  throw new ArgError('--provider is not available in this build yet');
}
