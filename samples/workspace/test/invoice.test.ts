import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { addLine, createInvoice, removeLine, totals } from '../src/invoice';
import { roundHalfEven } from '../src/money';

test('tax is computed per line after the discount', () => {
  let invoice = createInvoice('INV-1', 'EU-DE');
  invoice = addLine(invoice, { sku: 'BOOK', description: 'Field guide', unitCents: 2450, quantity: 2, category: 'books' });
  invoice = addLine(invoice, { sku: 'LAMP', description: 'Desk lamp', unitCents: 3999, quantity: 1, discountPercent: 10 });
  assert.deepEqual(totals(invoice), { net: 8899, discount: 400, tax: 343 + 684, gross: 8899 - 400 + 343 + 684 });
});

test('removeLine returns a new invoice', () => {
  const one = addLine(createInvoice('INV-2', 'NONE'), { sku: 'A', description: 'a', unitCents: 100, quantity: 1 });
  const none = removeLine(one, 'A');
  assert.equal(one.lines.length, 1);
  assert.equal(none.lines.length, 0);
});

test('rounds half to even', () => {
  assert.equal(roundHalfEven(2.5), 2);
  assert.equal(roundHalfEven(3.5), 4);
  assert.equal(roundHalfEven(3.49), 3);
});
