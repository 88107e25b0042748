/**
 * "Selection with definitions" on a real project no one here wrote: `@tanstack/query-core`'s
 * sources (test/fixtures/tanstack-query-core, MIT, see its README). For each question, a selection of
 * one method or function of 16–45 lines, and
 *
 * - the declarations it uses, as the TypeScript compiler resolves them (`declarationsUsed.ts`,
 *   independent of the code measured);
 * - those the definitions cover at the default budget: a declaration is covered when an attached
 *   excerpt of its file holds its name's line, or an attached outline's verbatim header does
 *   (a class or interface used by name, its type parameters);
 * - the tokens of the definitions against the tokens of attaching every file that holds one of
 *   those declarations whole.
 *
 * Recall and the token ratio are printed side by side by `npm run bench:codeintel`; the unit test
 * over the same questions holds the bar (recall ≥ 99% at ≤ 0.2× the files' tokens).
 */
import * as path from 'path';
import { CodeIntelWorkspace } from './codeIntelWorkspace';
import { loadProject, REPO_ROOT, selectionFor, type CodeQuestion, type QuestionSelection } from './codeIntelFixture';
import { DeclarationOracle, type UsedDeclaration } from './declarationsUsed';
import { getTokenizer } from '../src/services/tokenizer';
import { filesWithImports, LARGE_MODULE_TOKENS, type ImportClosure } from '../src/services/codeIntel/importGraph';
import {
  DEFAULT_DEFINITIONS_BUDGET,
  definitionsForSelection,
  type SelectionDefinition,
  type SelectionDefinitions,
} from '../src/services/codeIntel/selectionDefinitions';

export const REAL_PROJECT = path.join(REPO_ROOT, 'test/fixtures/tanstack-query-core');

/** Selections of 16–45 lines: the whole method or function. */
export const REAL_SELECTION_LINES = 45;

export const REAL_QUESTIONS: readonly CodeQuestion[] = [
  { question: 'When does setQueryData leave the cache untouched?', file: 'src/queryClient.ts', symbol: 'QueryClient.setQueryData' },
  { question: 'Does fetchQuery fetch when the data is fresh?', file: 'src/queryClient.ts', symbol: 'QueryClient.fetchQuery' },
  { question: 'What does ensureQueryData return for stale data?', file: 'src/queryClient.ts', symbol: 'QueryClient.ensureQueryData' },
  { question: 'Which defaults does setOptions apply to a query?', file: 'src/query.ts', symbol: 'Query.setOptions' },
  { question: 'What is cancelled when the last observer goes?', file: 'src/query.ts', symbol: 'Query.removeObserver' },
  { question: 'How does the cache decide whether to create a query?', file: 'src/queryCache.ts', symbol: 'QueryCache.build' },
  { question: 'What does an optimistic result track?', file: 'src/queryObserver.ts', symbol: 'QueryObserver.getOptimisticResult' },
  { question: 'When is the stale timeout not set?', file: 'src/queryObserver.ts', symbol: 'QueryObserver.#updateStaleTimeout' },
  {
    question: 'What happens to the mutation when its options change?',
    file: 'src/mutationObserver.ts',
    symbol: 'MutationObserver.setOptions',
  },
  { question: 'Is a scoped mutation removed from its scope?', file: 'src/mutationCache.ts', symbol: 'MutationCache.remove' },
  {
    question: 'How are observers matched to the new queries?',
    file: 'src/queriesObserver.ts',
    symbol: 'QueriesObserver.#findMatchingObservers',
  },
  {
    question: 'How are hasNextPage and isFetchingNextPage derived?',
    file: 'src/infiniteQueryObserver.ts',
    symbol: 'InfiniteQueryObserver.createResult',
  },
  { question: 'What of a query goes into a dehydrated state?', file: 'src/hydration.ts', symbol: 'dehydrateQuery' },
  { question: 'Which filters does a mutation have to match?', file: 'src/utils.ts', symbol: 'matchMutation' },
];

export interface RealQuestionResult {
  question: string;
  selection: QuestionSelection;
  used: UsedDeclaration[];
  /** The used declarations no definition covers. */
  missed: UsedDeclaration[];
  definitions: number;
  /** Left out for the budget. */
  skipped: number;
  definitionTokens: number;
  /** The files that hold a used declaration, whole. */
  files: string[];
  fileTokens: number;
}

export interface RealCodeIntelResult {
  budget: number;
  questions: RealQuestionResult[];
  used: number;
  covered: number;
  recall: number;
  definitionTokens: number;
  fileTokens: number;
  ratio: number;
}

/** Whether `d` covers the declaration: an excerpt holds its line, or an outline's verbatim header does. */
function covers(d: SelectionDefinition, u: UsedDeclaration): boolean {
  if (d.path !== u.path) return false;
  const end = d.as === 'outline' ? d.headerEndLine : d.endLine;
  return d.startLine <= u.line && u.line <= end;
}

export function runRealCodeIntel(budget: number = DEFAULT_DEFINITIONS_BUDGET): RealCodeIntelResult {
  const files = loadProject(REAL_PROJECT);
  const ws = new CodeIntelWorkspace(files);
  const oracle = new DeclarationOracle(files);
  const tok = getTokenizer('o200k_base');
  const countTokens = (t: string) => tok.count(t);
  const questions: RealQuestionResult[] = [];
  for (const q of REAL_QUESTIONS) {
    const sel = selectionFor(ws, q, REAL_SELECTION_LINES);
    const used = oracle.used(sel.file, sel.startLine, sel.endLine);
    const defs = definitionsForSelection(
      ws,
      { path: sel.file, startLine: sel.startLine, endLine: sel.endLine },
      { budgetTokens: budget, countTokens },
    ) as SelectionDefinitions;
    const missed = used.filter((u) => !defs.definitions.some((d) => covers(d, u)));
    const holding = [...new Set(used.map((u) => u.path))].sort();
    questions.push({
      question: q.question,
      selection: sel,
      used,
      missed,
      definitions: defs.definitions.length,
      skipped: defs.skippedForBudget.length,
      definitionTokens: defs.definitions.reduce((n, d) => n + d.tokens, 0),
      files: holding,
      fileTokens: holding.reduce((n, f) => n + countTokens(files[f]), 0),
    });
  }
  const used = questions.reduce((n, q) => n + q.used.length, 0);
  const covered = used - questions.reduce((n, q) => n + q.missed.length, 0);
  const definitionTokens = questions.reduce((n, q) => n + q.definitionTokens, 0);
  const fileTokens = questions.reduce((n, q) => n + q.fileTokens, 0);
  return {
    budget,
    questions,
    used,
    covered,
    recall: used === 0 ? 1 : covered / used,
    definitionTokens,
    fileTokens,
    ratio: fileTokens === 0 ? 0 : definitionTokens / fileTokens,
  };
}

/** "Attach File with Imports" of these files, one level of imports: large modules as the names imported, against every module whole. */
export const REAL_IMPORT_FILES: readonly string[] = [
  'src/queryObserver.ts',
  'src/queryCache.ts',
  'src/mutationObserver.ts',
  'src/hydration.ts',
  'src/infiniteQueryObserver.ts',
];
/** A budget every module fits whole, so the comparison is of the two forms, not of a cut. */
export const REAL_IMPORT_BUDGET = 200_000;

export interface RealImportResult {
  file: string;
  /** Modules it imports, and of them the large ones sent as names. */
  modules: number;
  large: number;
  /** The declarations its import statements name in the large modules (the compiler's), and those an item covers. */
  named: UsedDeclaration[];
  missed: UsedDeclaration[];
  items: number;
  /** The file with its imports: large modules as the names imported; every module whole. */
  tokens: number;
  wholeTokens: number;
}

export function runRealImports(files = loadProject(REAL_PROJECT)): RealImportResult[] {
  const ws = new CodeIntelWorkspace(files);
  const oracle = new DeclarationOracle(files);
  const tok = getTokenizer('o200k_base');
  const countTokens = (t: string) => tok.count(t);
  return REAL_IMPORT_FILES.map((file) => {
    const c = filesWithImports(ws, [file], { depth: 1, budgetTokens: REAL_IMPORT_BUDGET, countTokens }) as ImportClosure;
    const large = new Set(c.names.map((n) => n.path));
    const defs = c.names.flatMap((n) => n.definitions);
    const named = oracle.imported(file).filter((u) => large.has(u.path));
    const modules = [...c.files.map((f) => f.path), ...c.names.map((n) => n.path)];
    return {
      file,
      modules: modules.length - 1,
      large: large.size,
      named,
      missed: named.filter((u) => !defs.some((d) => covers(d, u))),
      items: defs.length,
      tokens: c.files.reduce((n, f) => n + f.tokens, 0) + c.names.reduce((n, m) => n + m.tokens, 0),
      wholeTokens: modules.reduce((n, p) => n + countTokens(files[p]), 0),
    };
  });
}

export function realImportsMarkdown(rows: readonly RealImportResult[]): string {
  const out = [
    `### Attach File with Imports on a real project (@tanstack/query-core, depth 1, modules over ${LARGE_MODULE_TOKENS} tokens as the names imported)`,
    '',
    '| file | modules (large) | names imported from large | covered | recall | items | tokens | whole modules’ tokens | ratio |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  let named = 0;
  let missed = 0;
  let tokens = 0;
  let whole = 0;
  for (const r of rows) {
    named += r.named.length;
    missed += r.missed.length;
    tokens += r.tokens;
    whole += r.wholeTokens;
    const covered = r.named.length - r.missed.length;
    out.push(
      `| ${r.file} | ${r.modules} (${r.large}) | ${r.named.length} | ${covered} | ${pct(r.named.length ? covered / r.named.length : 1)} | ${r.items} | ${r.tokens} | ${r.wholeTokens} | ${(r.tokens / r.wholeTokens).toFixed(3)} |`,
    );
  }
  out.push(
    `| **all** | | ${named} | ${named - missed} | **${pct(named ? (named - missed) / named : 1)}** | | ${tokens} | ${whole} | **${(tokens / whole).toFixed(3)}** |`,
    '',
  );
  const list = rows.flatMap((r) => r.missed.map((m) => `${m.name} (${m.path}:${m.line}, imported by ${r.file})`));
  if (list.length > 0) out.push(`Not covered: ${list.join('; ')}.`, '');
  return out.join('\n') + '\n';
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

export function realCodeIntelMarkdown(r: RealCodeIntelResult): string {
  const out: string[] = [];
  out.push(
    `### Definitions on a real project (@tanstack/query-core, ${r.questions.length} questions, budget ${r.budget} tokens)`,
    '',
    '| question | selection | used | covered | recall | definitions | tokens | files’ tokens | ratio |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  );
  for (const q of r.questions) {
    const s = q.selection;
    const covered = q.used.length - q.missed.length;
    out.push(
      `| ${q.question} | ${s.file}:${s.startLine}-${s.endLine} | ${q.used.length} | ${covered} | ${pct(q.used.length ? covered / q.used.length : 1)} | ` +
        `${q.definitions}${q.skipped ? ` (+${q.skipped} left out)` : ''} | ${q.definitionTokens} | ${q.fileTokens} | ${(q.definitionTokens / q.fileTokens).toFixed(3)} |`,
    );
  }
  out.push(
    `| **all** | | ${r.used} | ${r.covered} | **${pct(r.recall)}** | | ${r.definitionTokens} | ${r.fileTokens} | **${r.ratio.toFixed(3)}** |`,
    '',
  );
  const missed = r.questions.flatMap((q) =>
    q.missed.map((m) => `${m.name} (${m.kind}, ${m.path}:${m.line}, used at ${q.selection.file}:${m.usedAt})`),
  );
  if (missed.length > 0) out.push(`Not covered: ${missed.join('; ')}.`, '');
  return out.join('\n') + '\n';
}

if (require.main === module) {
  const budgetArg = process.argv.indexOf('--budget');
  const budget = budgetArg > 0 ? Number(process.argv[budgetArg + 1]) : DEFAULT_DEFINITIONS_BUDGET;
  process.stdout.write(realCodeIntelMarkdown(runRealCodeIntel(budget)));
  process.stdout.write('\n' + realImportsMarkdown(runRealImports()));
}
