import { cents, percentOf, type Cents } from './money';
import { taxFor, type Region } from './tax';

export interface LineItem {
  sku: string;
  description: string;
  unitCents: Cents;
  quantity: number;
  /** Discount on this line in percent (0–100). */
  discountPercent?: number;
  /** Tax category, e.g. "books"; decides reduced rates. */
  category?: string;
}

export interface Invoice {
  readonly number: string;
  readonly region: Region;
  readonly lines: readonly LineItem[];
}

export interface Totals {
  net: Cents;
  discount: Cents;
  tax: Cents;
  gross: Cents;
}

export function createInvoice(number: string, region: Region): Invoice {
  return { number, region, lines: [] };
}

export function addLine(invoice: Invoice, line: LineItem): Invoice {
  if (!Number.isInteger(line.quantity) || line.quantity <= 0) {
    throw new RangeError(`quantity must be a positive integer, got ${line.quantity}`);
  }
  cents(line.unitCents);
  const discount = line.discountPercent ?? 0;
  if (discount < 0 || discount > 100) {
    throw new RangeError(`discountPercent must be within 0–100, got ${discount}`);
  }
  return { ...invoice, lines: [...invoice.lines, line] };
}

export function removeLine(invoice: Invoice, sku: string): Invoice {
  return { ...invoice, lines: invoice.lines.filter((l) => l.sku !== sku) };
}

/** Tax is computed per line after its discount, then summed (see AGENTS.md). */
export function totals(invoice: Invoice): Totals {
  let net = 0;
  let discount = 0;
  let tax = 0;
  for (const line of invoice.lines) {
    const lineNet = line.unitCents * line.quantity;
    const lineDiscount = percentOf(lineNet, line.discountPercent ?? 0);
    net += lineNet;
    discount += lineDiscount;
    tax += taxFor(lineNet - lineDiscount, invoice.region, line.category);
  }
  return { net, discount, tax, gross: net - discount + tax };
}
