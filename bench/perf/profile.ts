/**
 * Where build time goes, from V8's sampling profiler (node:inspector, in process): for a window of
 * turns, the inclusive time per turn of each function called under `buildTurn`. Comparing an early and
 * a late window names what grows with the length of the conversation.
 */
import * as inspector from 'inspector';
import * as path from 'path';
import type { ITokenizer } from '../../src/engine/types';
import type { Trajectory } from '../trajectory';
import { driveEngine } from './drive';
import { round } from './stats';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

function post<T>(session: inspector.Session, method: string, params?: object): T {
  let result: T | undefined;
  let error: Error | null = null;
  // Same-thread sessions dispatch synchronously: the callback has run when post returns.
  session.post(method, params ?? {}, (err, res) => {
    error = err;
    result = res as T;
  });
  if (error) throw error;
  if (result === undefined) throw new Error(`inspector ${method} did not answer synchronously`);
  return result;
}

/** `name src/engine/engine.js:68` for the project's compiled files, `name file.js:12` for others. */
function label(n: ProfileNode): string {
  const f = n.callFrame;
  const url = f.url.replace(/^file:\/\//, '');
  const i = url.lastIndexOf('/out/');
  const file = i >= 0 ? url.slice(i + 5) : url ? path.basename(url) : '';
  return `${f.functionName || '(anonymous)'}${file ? ` ${file}:${f.lineNumber + 1}` : ''}`;
}

/** Functions of the project itself (compiled into out/src), not of libraries or Node. */
export function isProjectFunction(fn: string): boolean {
  return / src\/\S+\.js:\d+$/.test(fn);
}

/** Inclusive microseconds per function, counting only samples under a `buildTurn` frame. */
function underBuildTurn(p: Profile): Map<string, number> {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const perSample = new Map<number, number>();
  p.samples.forEach((id, i) => perSample.set(id, (perSample.get(id) ?? 0) + (p.timeDeltas[i] ?? 0)));
  const out = new Map<string, number>();
  for (const [id, us] of perSample) {
    const chain: ProfileNode[] = [];
    let inBuild = false;
    for (let c: number | undefined = id; c !== undefined; c = parent.get(c)) {
      const n = byId.get(c)!;
      chain.push(n);
      if (n.callFrame.functionName === 'buildTurn') {
        inBuild = true;
        break;
      }
    }
    if (!inBuild) continue;
    const seen = new Set<string>();
    for (const n of chain) {
      const l = label(n);
      if (seen.has(l)) continue;
      seen.add(l);
      out.set(l, (out.get(l) ?? 0) + us);
    }
  }
  return out;
}

export interface GrowthRow {
  fn: string;
  /** Inclusive ms per turn in the early window, the late window, and the difference. */
  earlyMsPerTurn: number;
  lateMsPerTurn: number;
  growthMsPerTurn: number;
}

/**
 * Profiles a warm pass (the tokenizer memo is warmed by a first pass) and returns the functions whose
 * inclusive time per turn grows the most between turns [early] and turns [late] (1-based, inclusive).
 */
export function profileGrowth(
  traj: Trajectory,
  tokenizer: ITokenizer,
  early: [number, number],
  late: [number, number],
  top = 10,
): GrowthRow[] {
  driveEngine(traj, { layout: 'transcript', policy: 'append-version', tokenizer });
  const session = new inspector.Session();
  session.connect();
  try {
    post(session, 'Profiler.enable');
    post(session, 'Profiler.setSamplingInterval', { interval: 100 });
    const profiles: Profile[] = [];
    const windows = [early, late];
    let active = -1;
    const startIf = (turn: number) => {
      const w = windows.findIndex((x) => x[0] === turn);
      if (w >= 0) {
        active = w;
        post(session, 'Profiler.start');
      }
    };
    startIf(1);
    driveEngine(traj, {
      layout: 'transcript',
      policy: 'append-version',
      tokenizer,
      onBuilt: (turn) => {
        if (active >= 0 && windows[active][1] === turn) {
          profiles[active] = post<{ profile: Profile }>(session, 'Profiler.stop').profile;
          active = -1;
        }
        startIf(turn + 1);
      },
    });
    if (active >= 0) profiles[active] = post<{ profile: Profile }>(session, 'Profiler.stop').profile;
    const [a, b] = profiles.map(underBuildTurn);
    const turnsA = early[1] - early[0] + 1;
    const turnsB = late[1] - late[0] + 1;
    const rows: GrowthRow[] = [];
    for (const fn of new Set([...a.keys(), ...b.keys()])) {
      const e = (a.get(fn) ?? 0) / 1000 / turnsA;
      const l = (b.get(fn) ?? 0) / 1000 / turnsB;
      rows.push({ fn, earlyMsPerTurn: round(e, 2), lateMsPerTurn: round(l, 2), growthMsPerTurn: round(l - e, 2) });
    }
    return rows.sort((x, y) => y.growthMsPerTurn - x.growthMsPerTurn).slice(0, top);
  } finally {
    session.disconnect();
  }
}
