/**
 * Code intelligence as context, measured on the sample project's question set: for each question
 * (a selection of at most 30 lines), the tokens sent and the cost units of
 *
 *   (a)  the selection and every file that holds one of its definitions, attached by hand;
 *   (b)  the selection with its definitions (`withDefinitions`, the default 4,000-token budget);
 *   (c)  the selection, the model navigating: `get_outline` of each of those files, then `read_file`
 *        of each definition's lines;
 *   (c') the selection, the model reading each of those files whole.
 *
 * Each is a one-turn chat replayed through the turn pipeline in the default layout (the same code
 * as the editor; the tools' steps each send the request again). "Context tokens" are the prompt
 * tokens minus those of the same question with nothing attached: what the choice of context costs.
 * Also times `definitionsForSelection` on the 30-line selection with the in-memory port, warm.
 *
 *   node out/bench/codeIntelBench.js [--quick]      (part of `npm run bench`)
 */
import { DEFAULT_LAYOUT, runReplay } from './replay';
import { CodeIntelWorkspace } from './codeIntelWorkspace';
import { CODEINTEL_SYSTEM, loadProject, QUESTIONS, selectionFor, type QuestionSelection } from './codeIntelFixture';
import type { Trajectory, TrajectoryTurn } from './trajectory';
import type { Target } from './target';
import { getTokenizer } from '../src/services/tokenizer';
import {
  DEFAULT_DEFINITIONS_BUDGET,
  definitionsForSelection,
  type SelectionDefinitions,
} from '../src/services/codeIntel/selectionDefinitions';
import { stats, type Stats } from './perf/stats';
import { realCodeIntelMarkdown, realImportsMarkdown, runRealCodeIntel, runRealImports } from './realCodeIntel';

export const VARIANTS = ['bare', 'files', 'definitions', 'navigate', 'wholeReads'] as const;
export type Variant = (typeof VARIANTS)[number];

export const VARIANT_LABELS: Record<Exclude<Variant, 'bare'>, string> = {
  files: '(a) attach the definitions’ files',
  definitions: '(b) selection with definitions',
  navigate: '(c) get_outline + ranged read_file',
  wholeReads: '(c′) whole-file read_file',
};

export interface VariantFigures {
  /** Every request of the turn (each tool step sends the request again). */
  promptTokens: number;
  /** Prompt tokens minus the bare question's. */
  contextTokens: number;
  /** The turn's last request minus the bare question's: the context the model answers from (and the next turn starts with). */
  finalContextTokens: number;
  costUnits: { openai: number; anthropic: number };
}

export interface QuestionResult {
  question: string;
  selection: QuestionSelection;
  definitions: number;
  files: string[];
  skippedForBudget: number;
  variants: Record<Variant, VariantFigures>;
}

export interface CodeIntelBenchResult {
  questions: QuestionResult[];
  totals: Record<Variant, VariantFigures>;
  /** definitionsForSelection on the first question's 30-line selection, warm (ms). */
  speed: { selectionLines: number; identifiers: number; definitions: number; coldMs: number; warm: Stats };
}

const MODEL = { id: 'gpt-4o', contextWindow: 128000, maxOutputTokens: 4096, encoding: 'o200k_base' } as const;

function oneTurn(name: string, files: Record<string, string>, turn: TrajectoryTurn): Trajectory {
  return { name, model: { ...MODEL }, system: CODEINTEL_SYSTEM, files, turns: [turn] };
}

type RawFigures = Omit<VariantFigures, 'contextTokens' | 'finalContextTokens'> & { finalTokens: number };

function figures(traj: Trajectory): RawFigures {
  const r = runReplay(traj, { file: traj.name, strategies: [DEFAULT_LAYOUT], policy: 'append-version', cache: 'both', json: true });
  const s = r.strategies[0];
  if (s.totals.violations > 0) throw new Error(`${traj.name}: ${s.totals.violations} invariant violations`);
  const turn = s.turns[0];
  const finalTokens = turn.promptTokens - (turn.steps ?? []).reduce((n, x) => n + x.promptTokens, 0);
  return { promptTokens: s.totals.promptTokens, finalTokens, costUnits: { ...s.costUnits } };
}

/** The turns of one question, one per variant. */
export function questionTurns(question: string, sel: QuestionSelection, defs: SelectionDefinitions): Record<Variant, TrajectoryTurn> {
  const selection = { file: sel.file, startLine: sel.startLine, endLine: sel.endLine };
  const files = [...new Set(defs.definitions.map((d) => d.path))];
  const reply = 'See the definitions above.';
  return {
    bare: { user: question, reply },
    files: { user: question, attach: [{ selection }, ...files.map((file) => ({ file }))], reply },
    definitions: { user: question, attach: [{ selection, withDefinitions: true }], reply },
    navigate: {
      user: question,
      attach: [{ selection }],
      tools: [
        ...files.map((path) => ({ name: 'get_outline', args: { path } })),
        ...defs.definitions.map((d) => ({ name: 'read_file', args: { path: d.path, startLine: d.startLine, endLine: d.endLine } })),
      ],
      reply,
    },
    wholeReads: { user: question, attach: [{ selection }], tools: files.map((path) => ({ name: 'read_file', args: { path } })), reply },
  };
}

function sumFigures(list: readonly VariantFigures[]): VariantFigures {
  const r = (x: number) => Math.round(x * 10) / 10;
  return {
    promptTokens: list.reduce((n, f) => n + f.promptTokens, 0),
    contextTokens: list.reduce((n, f) => n + f.contextTokens, 0),
    finalContextTokens: list.reduce((n, f) => n + f.finalContextTokens, 0),
    costUnits: {
      openai: r(list.reduce((n, f) => n + f.costUnits.openai, 0)),
      anthropic: r(list.reduce((n, f) => n + f.costUnits.anthropic, 0)),
    },
  };
}

export function runCodeIntelBench(opts: { quick: boolean }): CodeIntelBenchResult {
  const files = loadProject();
  const tok = getTokenizer(MODEL.encoding);
  const ws = new CodeIntelWorkspace(files);
  const countTokens = (t: string) => tok.count(t);
  const defsOf = (sel: QuestionSelection) =>
    definitionsForSelection(
      ws,
      { path: sel.file, startLine: sel.startLine, endLine: sel.endLine },
      {
        budgetTokens: DEFAULT_DEFINITIONS_BUDGET,
        countTokens,
      },
    ) as SelectionDefinitions;

  // The speed check first: the first call builds the language service's program (cold).
  const first = selectionFor(ws, QUESTIONS[0]);
  let t0 = performance.now();
  const firstDefs = defsOf(first);
  const coldMs = performance.now() - t0;
  const warm: number[] = [];
  for (let i = 0; i < (opts.quick ? 3 : 15); i++) {
    t0 = performance.now();
    defsOf(first);
    warm.push(performance.now() - t0);
  }

  const questions: QuestionResult[] = [];
  for (const [i, q] of QUESTIONS.entries()) {
    const sel = selectionFor(ws, q);
    const defs = defsOf(sel);
    const turns = questionTurns(q.question, sel, defs);
    const raw = {} as Record<Variant, RawFigures>;
    for (const v of VARIANTS) raw[v] = figures(oneTurn(`codeintel-q${i + 1}-${v}`, files, turns[v]));
    const variants = {} as Record<Variant, VariantFigures>;
    for (const v of VARIANTS)
      variants[v] = {
        promptTokens: raw[v].promptTokens,
        contextTokens: raw[v].promptTokens - raw.bare.promptTokens,
        finalContextTokens: raw[v].finalTokens - raw.bare.finalTokens,
        costUnits: raw[v].costUnits,
      };
    questions.push({
      question: q.question,
      selection: sel,
      definitions: defs.definitions.length,
      files: [...new Set(defs.definitions.map((d) => d.path))],
      skippedForBudget: defs.skippedForBudget.length,
      variants,
    });
  }
  const totals = {} as Record<Variant, VariantFigures>;
  for (const v of VARIANTS) totals[v] = sumFigures(questions.map((q) => q.variants[v]));
  return {
    questions,
    totals,
    speed: {
      selectionLines: first.endLine - first.startLine + 1,
      identifiers: 0,
      definitions: firstDefs.definitions.length,
      coldMs: Math.round(coldMs),
      warm: stats(warm, 1),
    },
  };
}

const ratio = (a: number, b: number) => (b === 0 ? 0 : a / b);

/** The target: (b) ≤ 0.4 × (a) in context tokens. */
export function codeIntelTargets(r: CodeIntelBenchResult | undefined): Target[] {
  if (!r) return [];
  const t = r.totals;
  const ctx = ratio(t.definitions.contextTokens, t.files.contextTokens);
  const prompt = ratio(t.definitions.promptTokens, t.files.promptTokens);
  const met = ctx <= 0.4;
  return [
    {
      id: 'codeintel:definitions-vs-files',
      description: `selection with definitions ≤ 0.4× attaching the files that hold them, in context tokens (${r.questions.length} questions over selections of the sample project)`,
      measured: `${ctx.toFixed(3)}× context tokens (${t.definitions.contextTokens} vs ${t.files.contextTokens}); prompt tokens ${prompt.toFixed(3)}×; cost units OA ${ratio(t.definitions.costUnits.openai, t.files.costUnits.openai).toFixed(3)}×, AN ${ratio(t.definitions.costUnits.anthropic, t.files.costUnits.anthropic).toFixed(3)}×`,
      status: met ? 'met' : 'missed',
      ...(met ? {} : { note: 'large declarations (whole classes) fill the budget; see the per-question table' }),
    },
  ];
}

export function codeIntelMarkdown(r: CodeIntelBenchResult): string {
  const t = r.totals;
  const out: string[] = [];
  out.push(`### Code intelligence as context (${r.questions.length} questions, ${DEFAULT_LAYOUT} layout)`, '');
  out.push(
    '| variant | context tokens (all requests) | context of the last request | prompt tokens | cost units OA | cost units AN | context × (a) |',
  );
  out.push('| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const v of ['files', 'definitions', 'navigate', 'wholeReads'] as const) {
    const f = t[v];
    out.push(
      `| ${VARIANT_LABELS[v]} | ${f.contextTokens} | ${f.finalContextTokens} | ${f.promptTokens} | ${f.costUnits.openai} | ${f.costUnits.anthropic} | ${ratio(f.contextTokens, t.files.contextTokens).toFixed(3)} |`,
    );
  }
  out.push('');
  out.push(
    `Ratios: (b)/(a) ${ratio(t.definitions.contextTokens, t.files.contextTokens).toFixed(3)} in context tokens, ${ratio(t.definitions.promptTokens, t.files.promptTokens).toFixed(3)} in prompt tokens, ` +
      `${ratio(t.definitions.costUnits.openai, t.files.costUnits.openai).toFixed(3)} / ${ratio(t.definitions.costUnits.anthropic, t.files.costUnits.anthropic).toFixed(3)} in cost units (OA / AN); ` +
      `(c)/(c′) ${ratio(t.navigate.finalContextTokens, t.wholeReads.finalContextTokens).toFixed(3)} in the last request's context, ${ratio(t.navigate.contextTokens, t.wholeReads.contextTokens).toFixed(3)} over all requests, ${ratio(t.navigate.costUnits.openai, t.wholeReads.costUnits.openai).toFixed(3)} / ${ratio(t.navigate.costUnits.anthropic, t.wholeReads.costUnits.anthropic).toFixed(3)} in cost units ` +
      `(the replay's model makes one call per step, each step sending the request again: navigation's many small calls cost more steps than a few whole reads).`,
  );
  out.push('');
  out.push('| question | selection | definitions | files | (a) | (b) | (c) | (c′) |');
  out.push('| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const q of r.questions) {
    const v = q.variants;
    out.push(
      `| ${q.question} | ${q.selection.file}:${q.selection.startLine}-${q.selection.endLine} | ${q.definitions}${q.skippedForBudget ? ` (+${q.skippedForBudget} over budget)` : ''} | ${q.files.length} | ${v.files.contextTokens} | ${v.definitions.contextTokens} | ${v.navigate.contextTokens} | ${v.wholeReads.contextTokens} |`,
    );
  }
  out.push('');
  const s = r.speed;
  out.push(
    `definitionsForSelection on a ${s.selectionLines}-line selection (${s.definitions} definitions), in-memory TypeScript port: first call ${s.coldMs} ms (builds the program), then median ${s.warm.median} ms, p95 ${s.warm.p95} ms.`,
  );
  return out.join('\n') + '\n';
}

if (require.main === module) {
  const quick = process.argv.includes('--quick');
  const t0 = performance.now();
  const r = runCodeIntelBench({ quick });
  process.stdout.write(codeIntelMarkdown(r));
  // The real project: recall and tokens side by side (a table of numbers, not a timed case).
  process.stdout.write(`\n${realCodeIntelMarkdown(runRealCodeIntel())}`);
  process.stdout.write(`\n${realImportsMarkdown(runRealImports())}`);
  for (const t of codeIntelTargets(r))
    process.stdout.write(`\n${t.status === 'met' ? '✓' : '✗'} ${t.id}: ${t.description}\n  ${t.measured}\n`);
  process.stdout.write(`\n(${Math.round((performance.now() - t0) / 100) / 10} s)\n`);
}
