/**
 * The sample TypeScript project of the code-intelligence benchmark and trajectory
 * (test/fixtures/codeintel-project), its question set, and the selections the questions are about.
 */
import * as fs from 'fs';
import * as path from 'path';
import { flattenSymbols } from '../src/services/codeIntel/outline';
import type { CodeIntelPort } from '../src/services/codeIntel/codeIntelPort';

export const REPO_ROOT = path.resolve(__dirname, '../..');
export const CODEINTEL_PROJECT = path.join(REPO_ROOT, 'test/fixtures/codeintel-project');

/** Every file of a project folder by workspace-relative path ('/' separators), sorted. */
export function loadProject(dir: string = CODEINTEL_PROJECT): Record<string, string> {
  const out: [string, string][] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, e.name);
      if (e.isDirectory()) walk(full);
      else out.push([path.relative(dir, full).split(path.sep).join('/'), fs.readFileSync(full, 'utf8')]);
    }
  };
  walk(dir);
  out.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(out);
}

/** A question about the code a selection shows: the selection is the symbol's lines (at most `MAX_SELECTION_LINES`). */
export interface CodeQuestion {
  question: string;
  file: string;
  /** `name` or `Class.method`, as the file's outline names it. */
  symbol: string;
}

export const MAX_SELECTION_LINES = 30;

export const QUESTIONS: readonly CodeQuestion[] = [
  {
    question: 'Why can place() fail with out-of-stock after pricing succeeded?',
    file: 'src/services/orderService.ts',
    symbol: 'OrderService.place',
  },
  { question: 'How is the coupon spread over the lines, and where is tax applied?', file: 'src/services/pricing.ts', symbol: 'priceOrder' },
  { question: 'Does the cart preview price exactly as checkout does?', file: 'src/services/cart.ts', symbol: 'Cart.preview' },
  { question: 'Is the restocking fee taken before or after the shipping refund?', file: 'src/services/returns.ts', symbol: 'quoteReturn' },
  {
    question: 'Which tax note ends up on a reverse-charge invoice?',
    file: 'src/services/invoiceService.ts',
    symbol: 'InvoiceService.issue',
  },
  {
    question: 'When is an SMS sent, and what does it contain?',
    file: 'src/services/notificationService.ts',
    symbol: 'NotificationService.notify',
  },
  { question: 'Which orders count towards the revenue of the report?', file: 'src/services/salesReport.ts', symbol: 'buildSalesReport' },
  { question: 'What stock figure does the product list show?', file: 'src/http/handlers/products.ts', symbol: 'registerProductRoutes' },
  { question: 'Can a customer be downgraded by reviewTiers?', file: 'src/services/loyalty.ts', symbol: 'reviewTiers' },
  { question: 'What happens to a row with a bad price during import?', file: 'src/services/catalogueImport.ts', symbol: 'importCatalogue' },
];

export interface QuestionSelection {
  file: string;
  startLine: number;
  endLine: number;
}

/** The lines of `q.symbol` in its file (its first `maxLines` when longer). */
export function selectionFor(port: CodeIntelPort, q: CodeQuestion, maxLines = MAX_SELECTION_LINES): QuestionSelection {
  const symbols = port.outline(q.file);
  if (!symbols || symbols instanceof Promise) throw new Error(`no outline for ${q.file}`);
  const dot = q.symbol.indexOf('.');
  const [outer, inner] = dot < 0 ? [q.symbol, undefined] : [q.symbol.slice(0, dot), q.symbol.slice(dot + 1)];
  let s = symbols.find((x) => x.name === outer);
  if (s && inner) s = flattenSymbols(s.children ?? []).find((x) => x.name === inner);
  if (!s) throw new Error(`${q.file} has no symbol ${q.symbol}`);
  return { file: q.file, startLine: s.startLine, endLine: Math.min(s.endLine, s.startLine + maxLines - 1) };
}

export const CODEINTEL_SYSTEM =
  'You are a senior TypeScript engineer helping with an order service. Answer from the code in the context; ' +
  'name the functions and lines you rely on. When something is missing, say what you would read.';

/** The 1-based line of the first line of `text` that contains `needle`. */
export function lineOf(text: string, needle: string): number {
  const i = text.split('\n').findIndex((l) => l.includes(needle));
  if (i < 0) throw new Error(`${JSON.stringify(needle)} not found`);
  return i + 1;
}
