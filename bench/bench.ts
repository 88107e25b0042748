/**
 * `npm run bench`: cache economics of every shared trajectory × strategy × cache model,
 * plus the performance cases, side by side in one run. Writes bench/results/latest.json (everything,
 * with the machine's facts), latest.md (the tables) and an SVG chart per trajectory, and prints the
 * tables, the performance figures and the targets.
 *
 *   npm run bench [-- --quick] [--out DIR] [--trajectories DIR] [--no-perf]
 *
 * Exit code: 0, also when a target is missed (the numbers are the result; what stands in the way is
 * printed); 1 when an invariant was violated; 2 for bad arguments.
 */
import * as fs from 'fs';

import * as path from 'path';

import { DEFAULT_LAYOUT, STRATEGIES, loadTrajectory, runReplay, type ReplayReport } from './replay';
import type { Trajectory } from './trajectory';
import { markdownTable, svgChart } from './charts';
import { formatInt, machineFacts, round, stats } from './perf/stats';
import { replay, usesTools } from './replayCore';
import { getTokenizer } from '../src/services/tokenizer';
import { measureBuildTime, pooledProcesses, type HasherChoice, type ScalingResult } from './perf/build';
import { runIsolated, runJob, type IsolatedJob, type ScalingChat } from './perf/isolated';
import { generateConversation, LONG_CHAT, LONG_CHAT_UNCUT, type GeneratedInfo } from './perf/generate';
import { isProjectFunction, profileGrowth } from './perf/profile';
import { measureTokenizerThroughput, trajectoryCorpus } from './perf/tokenizer';
import { runMemoryCase } from './perf/memory';
import { comparePromptTsx } from './promptTsxCompare';
import { measureOpenTime } from './perf/open';
import { measureSessionTurns } from './perf/session';
import { GuardedTokenizer } from '../src/services/tokenizer';
import type { BenchResults, PerfResults, ToolTrajectoryResult, TrajectoryResult } from './benchResults';
import { performanceMarkdown, resultsMarkdown, targetsMarkdown, toolMarkdown } from './benchMarkdown';
import { evaluateTargets } from './targets';
import { codeIntelMarkdown, codeIntelTargets, runCodeIntelBench } from './codeIntelBench';

const ROOT = path.resolve(__dirname, '../..');

export interface BenchArgs {
  quick: boolean;
  perf: boolean;
  outDir: string;
  trajectoriesDir: string;
  /** Where the tool-heavy trajectories are (those that script `tools`). */
  toolTrajectoriesDir: string;
}

export function parseBenchArgs(argv: string[]): BenchArgs {
  const a: BenchArgs = {
    quick: false,
    perf: true,
    outDir: path.join(ROOT, 'bench/results'),
    trajectoriesDir: path.join(ROOT, 'test/fixtures/trajectories'),
    toolTrajectoriesDir: path.join(ROOT, 'test/fixtures/trajectories-extra'),
  };
  for (let i = 0; i < argv.length; i++) {
    const f = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined || v.startsWith('--')) throw new Error(`${f} needs a value`);
      return path.resolve(v);
    };
    if (f === '--quick') a.quick = true;
    else if (f === '--no-perf') a.perf = false;
    else if (f === '--out') a.outDir = value();
    else if (f === '--trajectories') a.trajectoriesDir = value();
    else if (f === '--tool-trajectories') a.toolTrajectoriesDir = value();
    else throw new Error(`unknown argument ${f} (expected --quick, --no-perf, --out DIR, --trajectories DIR, --tool-trajectories DIR)`);
  }
  return a;
}

// ---------------------------------------------------------------------------------------------
// Economics

export function needsPruning(r: ReplayReport, layout: string): boolean {
  const s = r.strategies.find((x) => x.name === layout);
  return !!s && s.turns.some((t) => !!t.skipped || t.pruned.some((p) => p.reason !== 'detached'));
}

function economics(files: string[]): TrajectoryResult[] {
  return files.map((file) => {
    const traj = loadTrajectory(file);
    const report = runReplay(traj, { file, strategies: [...STRATEGIES], policy: 'append-version', cache: 'both', json: true });
    return {
      name: traj.name,
      turns: traj.turns.length,
      budget: report.strategies[0]?.turns[0]?.budget ?? 0,
      needsPruning: needsPruning(report, DEFAULT_LAYOUT),
      report,
    };
  });
}

/** The strategies a tool-heavy trajectory is measured with. */
export const TOOL_STRATEGIES = ['transcript', 'library', 'tools-plain'] as const;
/** A smaller window for the same session: the budget binds, so cuts (tool results first) show. */
export const TOOL_PRESSURE_WINDOW = 16_000;

function toolEconomics(files: string[]): ToolTrajectoryResult[] {
  const out: ToolTrajectoryResult[] = [];
  for (const file of files) {
    const traj = loadTrajectory(file);
    if (!usesTools(traj)) continue;
    const variants: [string, Trajectory][] = [
      ['as written', traj],
      [
        `${TOOL_PRESSURE_WINDOW.toLocaleString('en-US')}-token window`,
        { ...traj, model: { ...traj.model, contextWindow: TOOL_PRESSURE_WINDOW } },
      ],
    ];
    for (const [variant, t] of variants) {
      const report = runReplay(t, { file, strategies: [...TOOL_STRATEGIES], policy: 'append-version', cache: 'both', json: true });
      const tools: number[] = [];
      const append: number[] = [];
      for (const turn of replay(t, { layout: DEFAULT_LAYOUT, policy: 'append-version', tokenizer: getTokenizer(t.model.encoding) })) {
        for (const st of turn.outcome.report.stepMs ?? []) {
          tools.push(st.toolsMs);
          append.push(st.appendMs);
        }
      }
      out.push({
        name: traj.name,
        variant,
        contextWindow: t.model.contextWindow,
        turns: t.turns.length,
        toolCalls: t.turns.reduce((n, x) => n + (x.tools?.length ?? 0), 0),
        report,
        stepMs: { tools: stats(tools), append: stats(append) },
      });
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------

function step<T>(label: string, durations: Record<string, number>, fn: () => T): T {
  process.stderr.write(`bench: ${label}…\n`);
  const t0 = performance.now();
  const v = fn();
  durations[label] = Math.round(performance.now() - t0);
  return v;
}

async function stepAsync<T>(label: string, durations: Record<string, number>, fn: () => Promise<T>): Promise<T> {
  process.stderr.write(`bench: ${label}…\n`);
  const t0 = performance.now();
  const v = await fn();
  durations[label] = Math.round(performance.now() - t0);
  return v;
}

export async function runBench(args: BenchArgs): Promise<BenchResults> {
  const durations: Record<string, number> = {};
  const files = fs
    .readdirSync(args.trajectoriesDir)
    .filter((n) => n.endsWith('.json'))
    .sort()
    .map((n) => path.join(args.trajectoriesDir, n));
  if (files.length === 0) throw new Error(`no trajectories in ${args.trajectoriesDir}`);
  const runs = args.quick
    ? { buildWarm: 5, scalingWarm: 1, scalingProcesses: 1, tokenizer: 2, promptTsx: 2, probe: 50, interleaved: [5, 2] }
    : { buildWarm: 20, scalingWarm: 9, scalingProcesses: 3, tokenizer: 5, promptTsx: 5, probe: 200, interleaved: [100, 20] };
  // The scaling cases with a target run in several processes: their samples pooled, each process's ratios shown.
  const repeated = (job: Extract<IsolatedJob, { kind: 'scaling' }>): ScalingResult =>
    pooledProcesses(Array.from({ length: runs.scalingProcesses }, () => runIsolated(job)));
  // A case measured once: its raw samples are not kept in the results.
  const once = (r: ScalingResult): ScalingResult => pooledProcesses([r]);
  const econ = step('cache economics (trajectories × strategies × cache models)', durations, () => economics(files));
  const toolFiles = fs.existsSync(args.toolTrajectoriesDir)
    ? fs
        .readdirSync(args.toolTrajectoriesDir)
        .filter((n) => n.endsWith('.json'))
        .sort()
        .map((n) => path.join(args.toolTrajectoriesDir, n))
    : [];
  const toolResults = step('tool-heavy sessions', durations, () => toolEconomics(toolFiles));
  const codeIntel = step('code intelligence as context', durations, () => runCodeIntelBench({ quick: args.quick }));
  const perf: PerfResults = {};
  if (args.perf) {
    const ls = files.find((f) => path.basename(f) === 'long-session-20.json');
    if (ls) {
      const traj = loadTrajectory(ls);
      perf.buildLongSession = step('build time, long-session-20', durations, () => measureBuildTime(traj, DEFAULT_LAYOUT, runs.buildWarm));
    }
    const { trajectory: generated, info } = generateConversation();
    perf.scaling = step(`scaling, generated ${generated.turns.length} turns`, durations, () => {
      // Each in a child process of its own (perf/isolated.ts): a chat's figure does not depend on what ran before it.
      const main = repeated({
        kind: 'scaling',
        chat: 'generated',
        layout: DEFAULT_LAYOUT,
        warmRuns: runs.scalingWarm,
        fresh: 'changed',
        hasher: 'native',
      });
      const allFresh = once(
        runIsolated({
          kind: 'scaling',
          chat: 'generated',
          layout: DEFAULT_LAYOUT,
          warmRuns: runs.scalingWarm,
          fresh: 'all',
          hasher: 'native',
        }),
      );
      const n = generated.turns.length;
      const growth = profileGrowth(generated, new GuardedTokenizer(generated.model.encoding), [1, 20], [n - 19, n], 40)
        .filter((g) => isProjectFunction(g.fn))
        .slice(0, 12);
      return { generated: info, main, allFresh, growth };
    });
    perf.longChats = step(`long chats (native sha256, ${LONG_CHAT.turns} turns, same-turn probes)`, durations, () => {
      const n = generated.turns.length;
      const long = generateConversation(LONG_CHAT);
      const uncut = generateConversation(LONG_CHAT_UNCUT);
      const m = long.trajectory.turns.length;
      const scaling = (chat: ScalingChat, hasher: HasherChoice) => ({
        kind: 'scaling' as const,
        chat,
        layout: DEFAULT_LAYOUT,
        warmRuns: runs.scalingWarm,
        fresh: 'changed' as const,
        hasher,
      });
      const cases: { label: string; uncut?: boolean; inProcess?: boolean; generated: GeneratedInfo; result: ScalingResult }[] = [
        { label: `${n} turns, pure-JS sha256`, generated: info, result: once(runIsolated(scaling('generated', 'pure-js'))) },
        { label: `${m} turns`, generated: long.info, result: repeated(scaling('long', 'native')) },
        {
          label: `${m} turns, ${formatInt(LONG_CHAT_UNCUT.contextWindow)}-token window (nothing cut)`,
          uncut: true,
          generated: uncut.info,
          result: repeated(scaling('uncut', 'native')),
        },
        { label: `${m} turns, pure-JS sha256`, generated: long.info, result: once(runIsolated(scaling('long', 'pure-js'))) },
        // For comparison: in the benchmark's own process, which holds the other sections'
        // conversations, results and garbage.
        {
          label: `${m} turns, in the benchmark's own process`,
          inProcess: true,
          generated: long.info,
          result: once(runJob(scaling('long', 'native'))),
        },
      ];
      const probe = (chat: ScalingChat, afterTurns: number[], hasher: HasherChoice) =>
        runIsolated({ kind: 'probe', chat, layout: DEFAULT_LAYOUT, afterTurns, runs: runs.probe, hasher });
      const probes = [
        probe('generated', [20, n], 'native'),
        probe('generated', [20, n], 'pure-js'),
        probe('uncut', [20, n, m], 'native'),
        probe('uncut', [20, n, m], 'pure-js'),
      ];
      const interleaved = [
        runIsolated({ kind: 'interleaved', chat: 'generated', layout: DEFAULT_LAYOUT, runs: runs.interleaved[0] }),
        runIsolated({ kind: 'interleaved', chat: 'long', layout: DEFAULT_LAYOUT, runs: runs.interleaved[1] }),
        runIsolated({ kind: 'interleaved', chat: 'uncut', layout: DEFAULT_LAYOUT, runs: runs.interleaved[1] }),
      ];
      return { cases, probes, interleaved };
    });
    perf.tokenizer = step('token counting throughput', durations, () =>
      measureTokenizerThroughput(trajectoryCorpus(args.trajectoriesDir), runs.tokenizer),
    );
    perf.memory = step('memory (child processes)', durations, () => {
      const n = generated.turns.length;
      return {
        replay: runMemoryCase('rss', n),
        engineOnly: runMemoryCase('rss-engine', n),
        heap: [runMemoryCase('heap', Math.floor(n / 2)), runMemoryCase('heap', n)],
      };
    });
    if (ls) {
      const traj: Trajectory = loadTrajectory(ls);
      perf.promptTsx = await stepAsync('prompt-tsx comparison', durations, () => comparePromptTsx(traj, runs.promptTsx));
    }
    perf.openChat = step('opening a 1,000-turn chat from disk', durations, () =>
      measureOpenTime(args.quick ? 3 : 7, {}, 'synthetic', args.quick ? 1 : 3),
    );
    perf.sessionTurns = await stepAsync(`a ${LONG_CHAT.turns}-turn chat sent through ChatSession`, durations, () =>
      measureSessionTurns(LONG_CHAT),
    );
  }
  return {
    generatedAt: new Date().toISOString(),
    machine: machineFacts(),
    settings: { quick: args.quick, defaultLayout: DEFAULT_LAYOUT, strategies: [...STRATEGIES], runs },
    economics: econ,
    tools: toolResults,
    codeIntel,
    performance: perf,
    targets: [...evaluateTargets(econ, perf, toolResults), ...codeIntelTargets(codeIntel)],
    durationsMs: durations,
  };
}

export function writeResults(r: BenchResults, outDir: string): string[] {
  fs.mkdirSync(outDir, { recursive: true });
  const written: string[] = [];
  const write = (name: string, text: string) => {
    const p = path.join(outDir, name);
    fs.writeFileSync(p, text);
    written.push(p);
  };
  write('latest.json', JSON.stringify(r, null, 2) + '\n');
  write('latest.md', resultsMarkdown(r));
  for (const t of r.economics) write(`${t.name}.svg`, svgChart(t.report));
  for (const t of r.tools) if (t.variant === 'as written') write(`${t.name}.svg`, svgChart(t.report));
  return written;
}

export async function main(argv: string[]): Promise<number> {
  let args: BenchArgs;
  try {
    args = parseBenchArgs(argv);
  } catch (e) {
    process.stderr.write(`bench: ${(e as Error).message}\n`);
    return 2;
  }
  const t0 = performance.now();
  const results = await runBench(args);
  const written = writeResults(results, args.outDir);
  const out: string[] = [];
  out.push(`Strata benchmark — ${results.machine.cpuModel} (${results.machine.cpus} cores), Node ${results.machine.node}`, '');
  for (const t of results.economics) out.push(markdownTable(t.report, DEFAULT_LAYOUT));
  out.push(toolMarkdown(results.tools));
  if (results.codeIntel) out.push(codeIntelMarkdown(results.codeIntel));
  if (args.perf) out.push(performanceMarkdown(results.performance));
  out.push(targetsMarkdown(results.targets));
  out.push(`wrote ${written.map((p) => path.relative(process.cwd(), p)).join(', ')} in ${round((performance.now() - t0) / 1000, 1)} s`);
  process.stdout.write(out.join('\n') + '\n');
  return results.economics.some((t) => t.report.strategies.some((s) => s.totals.violations > 0)) ? 1 : 0;
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (e) => {
      process.stderr.write(`bench: ${(e as Error).stack ?? e}\n`);
      process.exit(2);
    },
  );
}
