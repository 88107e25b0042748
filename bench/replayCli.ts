/**
 * `npm run replay -- <trajectory.json> [flags]`: the replay's command line. Parses the flags, runs
 * the replay (with the chat store's `--reload-at` hook, or against a real provider with `--provider`)
 * and prints a per-turn layer / cache table, or with --json one report object. Exit: 0 ok, 1 invariant
 * violations, 2 bad arguments or an invalid trajectory.
 */
import { LAYER_IDS } from '../src/engine/types';
import { reloadHook } from './reload';
import {
  ALL_STRATEGIES,
  ArgError,
  DEFAULT_LAYOUT,
  loadTrajectory,
  runReplay,
  type ReplayArgs,
  type ReplayReport,
  type Strategy,
} from './replay';
import { TrajectoryError, type Trajectory } from './trajectory';

export function parseArgs(argv: string[]): ReplayArgs {
  const args: Partial<ReplayArgs> & { strategies?: Strategy[] } = { policy: 'append-version', cache: 'both', json: false };
  let layoutGiven = false;
  let strategyGiven = false;
  let providerName: string | undefined;
  let baseUrl: string | undefined;
  let model: string | undefined;
  const need = (i: number, flag: string): string => {
    const v = argv[i + 1];
    if (v === undefined || v.startsWith('--')) throw new ArgError(`${flag} needs a value`);
    return v;
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const eq = a.indexOf('=');
    const [flag, inline] = a.startsWith('--') && eq > 0 ? [a.slice(0, eq), a.slice(eq + 1)] : [a, undefined];
    const value = (): string => {
      if (inline !== undefined) return inline;
      const v = need(i, flag);
      i++;
      return v;
    };
    switch (flag) {
      case '--strategy': {
        const list = value()
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean);
        for (const s of list)
          if (!ALL_STRATEGIES.includes(s)) throw new ArgError(`unknown strategy "${s}" (expected ${ALL_STRATEGIES.join(', ')})`);
        if (list.length === 0) throw new ArgError('--strategy needs at least one strategy');
        args.strategies = [...new Set(list)] as Strategy[];
        strategyGiven = true;
        break;
      }
      case '--layout': {
        const v = value();
        if (v !== 'library' && v !== 'transcript') throw new ArgError(`--layout must be library or transcript (got "${v}")`);
        args.strategies = [v];
        layoutGiven = true;
        break;
      }
      case '--policy': {
        const v = value();
        if (v !== 'append-version' && v !== 'append-diff' && v !== 'refresh-in-place')
          throw new ArgError(`--policy must be append-version, append-diff or refresh-in-place (got "${v}")`);
        args.policy = v;
        break;
      }
      case '--cache': {
        const v = value();
        if (v !== 'openai' && v !== 'anthropic' && v !== 'both')
          throw new ArgError(`--cache must be openai, anthropic or both (got "${v}")`);
        args.cache = v;
        break;
      }
      case '--requests':
        args.requestsDir = value();
        break;
      case '--json':
        args.json = true;
        break;
      case '--reload-at': {
        const v = value();
        const n = Number(v);
        if (!Number.isInteger(n) || n < 1) throw new ArgError(`--reload-at needs a turn number ≥ 1 (got "${v}")`);
        args.reloadAt = n;
        break;
      }
      case '--provider': {
        providerName = value();
        if (providerName !== 'openai' && providerName !== 'anthropic')
          throw new ArgError(`--provider must be openai or anthropic (got "${providerName}")`);
        break;
      }
      case '--base-url':
        baseUrl = value();
        break;
      case '--model':
        model = value();
        break;
      default:
        if (a.startsWith('--')) throw new ArgError(`unknown flag ${a}`);
        if (args.file) throw new ArgError(`only one trajectory file, got "${args.file}" and "${a}"`);
        args.file = a;
    }
  }
  if (!args.file)
    throw new ArgError(
      'usage: npm run replay -- <trajectory.json> [--strategy a,b] [--layout library|transcript] [--policy p] [--cache openai|anthropic|both] [--requests DIR] [--json] [--reload-at N] [--provider openai|anthropic --base-url URL --model M]',
    );
  if (layoutGiven && strategyGiven) throw new ArgError('use either --layout or --strategy, not both');
  if (providerName) {
    if (!baseUrl || !model) throw new ArgError('--provider needs --base-url and --model');
    args.provider = { name: providerName as 'openai' | 'anthropic', baseUrl, model };
  } else if (baseUrl || model) throw new ArgError('--base-url and --model go with --provider');
  return { strategies: [DEFAULT_LAYOUT], ...args } as ReplayArgs;
}

/** The replay as the command line runs it: `runReplay` with the chat store's `--reload-at` hook. */
export function runReplayWithReload(traj: Trajectory, args: ReplayArgs): ReplayReport {
  return runReplay(traj, args, reloadHook);
}

function pad(s: string | number, n: number): string {
  return String(s).padStart(n);
}

export function formatReport(r: ReplayReport): string {
  const out: string[] = [`trajectory ${r.trajectory}`];
  for (const s of r.strategies) {
    out.push('', `strategy ${s.name} (budget ${s.turns[0]?.budget ?? 0} tokens)`);
    out.push(
      `${pad('turn', 4)} ${LAYER_IDS.map((l) => pad(l, 7)).join(' ')} ${pad('prompt', 7)} ${pad('oa.cached', 9)} ${pad('oa.limit', 8)} ${pad('an.read', 7)} ${pad('an.write', 8)} ${pad('an.limit', 8)}  notes`,
    );
    for (const t of s.turns) {
      const notes: string[] = [];
      if (t.skipped) notes.push(`SKIPPED: ${t.skipped}`);
      if (t.prefixBreak) notes.push(t.prefixBreakReason ? `prefix break (${t.prefixBreakReason})` : 'prefix break');
      for (const p of t.pruned) notes.push(`${p.reason} ${p.item} ${p.preTokens}→${p.postTokens}`);
      for (const j of t.rejections) notes.push(`rejected ${j.attachment} (${j.reason})`);
      for (const v of t.violations) notes.push(`VIOLATION ${v}`);
      out.push(
        `${pad(t.turn, 4)} ${LAYER_IDS.map((l) => pad(t.layers[l], 7)).join(' ')} ${pad(t.promptTokens, 7)} ${pad(t.cached.openai, 9)} ${pad(t.limit.openai, 8)} ${pad(t.cached.anthropic.read, 7)} ${pad(t.cached.anthropic.write, 8)} ${pad(t.limit.anthropic, 8)}  ${notes.join('; ')}`,
      );
    }
    const x = s.totals;
    out.push(
      `total prompt ${x.promptTokens}, openai cached ${x.cached.openai} (efficiency ${s.efficiency.openai}, cost units ${s.costUnits.openai}), anthropic read ${x.cached.anthropic.read} write ${x.cached.anthropic.write} (efficiency ${s.efficiency.anthropic}, cost units ${s.costUnits.anthropic}); prefix breaks ${x.prefixBreaks}, cuts ${x.pruned}, violations ${x.violations}${x.overBudgetTurns ? `, over budget in ${x.overBudgetTurns} turns` : ''}`,
    );
  }
  return out.join('\n');
}

export async function main(argv: string[]): Promise<number> {
  let args: ReplayArgs;
  let traj: Trajectory;
  try {
    args = parseArgs(argv);
    traj = loadTrajectory(args.file);
  } catch (e) {
    if (e instanceof ArgError || e instanceof TrajectoryError) {
      process.stderr.write(`replay: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
  let report: ReplayReport;
  try {
    if (args.provider) {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { runAgainstProvider } = require('./providerRun') as typeof import('./providerRun');
      report = await runAgainstProvider(traj, args);
    } else report = runReplayWithReload(traj, args);
  } catch (e) {
    if (e instanceof ArgError) {
      process.stderr.write(`replay: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
  process.stdout.write(args.json ? JSON.stringify(report) + '\n' : formatReport(report) + '\n');
  return report.strategies.some((s) => s.totals.violations > 0) ? 1 : 0;
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (e) => {
      process.stderr.write(`replay: ${(e as Error).stack ?? e}\n`);
      process.exit(2);
    },
  );
}
