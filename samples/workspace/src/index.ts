export { cents, formatCents, percentOf, roundHalfEven, type Cents } from './money';
export { taxFor, taxRate, type Region } from './tax';
export { addLine, createInvoice, removeLine, totals, type Invoice, type LineItem, type Totals } from './invoice';
export { renderInvoice } from './render';
