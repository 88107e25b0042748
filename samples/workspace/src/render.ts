import { formatCents } from './money';
import { totals, type Invoice } from './invoice';

const WIDTH = 56;

function row(left: string, right: string): string {
  const space = Math.max(1, WIDTH - left.length - right.length);
  return `${left}${' '.repeat(space)}${right}`;
}

/** The invoice as plain text, one line item per row, totals at the bottom. */
export function renderInvoice(invoice: Invoice): string {
  const out = [`Invoice ${invoice.number} (${invoice.region})`, '-'.repeat(WIDTH)];
  for (const line of invoice.lines) {
    const label = `${line.quantity} × ${line.description}`;
    out.push(row(label, formatCents(line.unitCents * line.quantity)));
    if (line.discountPercent) {
      out.push(row(`    discount ${line.discountPercent} %`, ''));
    }
  }
  const t = totals(invoice);
  out.push('-'.repeat(WIDTH));
  out.push(row('Net', formatCents(t.net)));
  out.push(row('Discount', formatCents(-t.discount)));
  out.push(row('Tax', formatCents(t.tax)));
  out.push(row('Total', formatCents(t.gross)));
  return out.join('\n');
}
