/**
 * Writes the code-intelligence trajectory (test/fixtures/trajectories-codeintel/codeintel-orders.json)
 * from the sample project: its `files` are the project's files, its turns attach selections with
 * their definitions, a file with its imports, and script the code tools.
 *
 *   node out/bench/writeCodeIntelTrajectory.js
 */
import * as fs from 'fs';
import * as path from 'path';
import { CodeIntelWorkspace } from './codeIntelWorkspace';
import { CODEINTEL_SYSTEM, lineOf, loadProject, QUESTIONS, REPO_ROOT, selectionFor } from './codeIntelFixture';
import type { Trajectory } from './trajectory';

export const CODEINTEL_TRAJECTORY = path.join(REPO_ROOT, 'test/fixtures/trajectories-codeintel/codeintel-orders.json');

export function codeIntelTrajectory(): Trajectory {
  const files = loadProject();
  const ws = new CodeIntelWorkspace(files);
  const sel = (i: number) => {
    const s = selectionFor(ws, QUESTIONS[i]);
    return { file: s.file, startLine: s.startLine, endLine: s.endLine };
  };
  const pricing = files['src/services/pricing.ts'];
  const discounts = files['src/services/discounts.ts'];
  const tax = files['src/services/tax.ts'];
  return {
    name: 'codeintel-orders',
    model: { id: 'gpt-4o', contextWindow: 128000, maxOutputTokens: 4096, encoding: 'o200k_base' },
    system: CODEINTEL_SYSTEM,
    files,
    turns: [
      {
        user: QUESTIONS[0].question,
        attach: [{ selection: sel(0), withDefinitions: true }],
        reply:
          'priceOrder only prices; the stock check happens after, in InventoryService.reserve, which refuses when available() is short.',
      },
      {
        user: 'How does the cart relate to placing an order?',
        attach: [{ file: 'src/services/cart.ts', withImports: true, depth: 1, budget: 6000 }],
        reply: 'Cart.preview calls the same priceOrder as OrderService.place, and toRequest builds the PlaceOrderRequest.',
      },
      {
        user: 'Where else are loyalty discounts applied?',
        tools: [
          { name: 'get_outline', args: { path: 'src/services/discounts.ts' } },
          {
            name: 'get_definition',
            args: { path: 'src/services/pricing.ts', line: lineOf(pricing, 'lineDiscount(gross[i]'), symbol: 'lineDiscount' },
          },
          {
            name: 'find_references',
            args: { path: 'src/services/discounts.ts', line: lineOf(discounts, 'export function lineDiscount'), symbol: 'lineDiscount' },
          },
          { name: 'find_symbol', args: { query: 'LOYALTY' } },
          { name: 'read_file', args: { path: 'src/services/discounts.ts', startLine: 1, endLine: 12 } },
        ],
        reply: 'Only in lineDiscount, called once from priceOrder; LOYALTY_DISCOUNT holds the rates.',
      },
      {
        user: QUESTIONS[1].question,
        edits: {
          'src/services/tax.ts': tax.replace(
            'if (reverseCharge(customer, config)) return zero(netAmount.currency);',
            'if (reverseCharge(customer, config) || netAmount.amount <= 0) return zero(netAmount.currency);',
          ),
        },
        attach: [{ selection: sel(1), withDefinitions: true }],
        reply: 'spreadDiscount shares the coupon by net amount; lineTax then applies per line, now zero for non-positive amounts.',
      },
      {
        user: QUESTIONS[3].question,
        attach: [{ selection: sel(3), withDefinitions: true, budget: 300 }],
        reply:
          'The fee is subtracted per line first; the shipping refund is added to the total afterwards, only when the seller is at fault.',
      },
    ],
  };
}

if (require.main === module) {
  fs.mkdirSync(path.dirname(CODEINTEL_TRAJECTORY), { recursive: true });
  fs.writeFileSync(CODEINTEL_TRAJECTORY, JSON.stringify(codeIntelTrajectory(), null, 2) + '\n');
  process.stdout.write(`wrote ${path.relative(process.cwd(), CODEINTEL_TRAJECTORY)}\n`);
}
