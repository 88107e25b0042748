import * as assert from 'node:assert/strict';
import {
  budgetShortText,
  budgetText,
  chatCostText,
  costText,
  countText,
  formatBytes,
  formatInt,
  formatPercent,
  formatTokens,
  formatUsd,
  layerTitle,
  promptText,
} from '../../../src/common/numberFormat';

describe('numberFormat: one way to write the figures the panel, the tree and the status bar show', () => {
  it('groups integers', () => {
    assert.deepEqual([0, 7, 999, 1000, 12_345, 1_234_567, -4_096, 12.6].map(formatInt), [
      '0',
      '7',
      '999',
      '1,000',
      '12,345',
      '1,234,567',
      '-4,096',
      '13',
    ]);
  });

  it('writes token counts compactly, the same everywhere (the status bar once wrote 46k where the panel wrote 45.6k)', () => {
    assert.deepEqual([0, 950, 999, 1000, 1234, 9_612, 12_345, 45_600, 99_949, 111_000, 123_456, 999_499, 1_234_567, -5].map(formatTokens), [
      '0',
      '950',
      '999',
      '1k',
      '1.2k',
      '9.6k',
      '12.3k',
      '45.6k',
      '99.9k',
      '111k',
      '123k',
      '999k',
      '1.23M',
      '0',
    ]);
  });

  it('writes shares with one decimal below 10%, never 100% for a share that is not whole', () => {
    assert.equal(formatPercent(0.054), '5.4%');
    assert.equal(formatPercent(5_400, 100_000), '5.4%');
    assert.equal(formatPercent(0.05), '5%');
    assert.equal(formatPercent(0.64), '64%');
    assert.equal(formatPercent(0.995), '99%');
    assert.equal(formatPercent(9_570, 9_612), '99%');
    assert.equal(formatPercent(1), '100%');
    assert.equal(formatPercent(1.2), '120%');
    assert.equal(formatPercent(0.0004), '<0.1%');
    assert.equal(formatPercent(0), '0%');
    assert.equal(formatPercent(5, 0), '0%');
    assert.equal(formatPercent(Number.NaN), '0%');
  });

  it('writes dollars: cents from a dollar, three decimals from a cent, four below, dust as <$0.0001', () => {
    assert.deepEqual([0, 0.00004, 0.0004, 0.00456, 0.01234, 0.052, 0.9996, 1, 12.345, -0.0075].map(formatUsd), [
      '$0.00',
      '<$0.0001',
      '$0.0004',
      '$0.0046',
      '$0.012',
      '$0.052',
      '$1.00',
      '$1.00',
      '$12.35',
      '−$0.0075',
    ]);
  });

  it('writes sizes as a user compares them', () => {
    assert.deepEqual([0, 1, 950, 2048, 12_800, 8 * 1024 * 1024, 20_971_520, 3_500_000].map(formatBytes), [
      '0 bytes',
      '1 byte',
      '950 bytes',
      '2 KB',
      '13 KB',
      '8 MB',
      '20 MB',
      '3.3 MB',
    ]);
  });

  it('says what the meter’s denominator is: the budget, with the window beside it', () => {
    assert.equal(budgetText(9_612, 111_000, 128_000), '9.6k of 111k budget (128k window)');
    assert.equal(budgetShortText(9_612, 111_000), '9.6k/111k');
  });

  it('writes a reply’s line and the chat’s total', () => {
    assert.equal(`${promptText(9_612, 9_570)} · ${costText(0.0123, 0.0121)}`, '9.6k in, 99% cached · $0.012, saved $0.012');
    assert.equal(promptText(9_612), '9.6k in');
    assert.equal(promptText(0, 0), '0 in');
    assert.equal(costText(0.0123, 0.00001), '$0.012');
    assert.equal(costText(0.039, -0.0075), '$0.039, cache writes added $0.0075');
    assert.equal(chatCostText(0.052, 0.024), 'Chat $0.052 · saved $0.024');
    assert.equal(chatCostText(0.052, 0.024, true), 'Chat $0.052+ · saved $0.024');
    assert.equal(chatCostText(0.052, 0), 'Chat $0.052');
    assert.equal(chatCostText(0.05, -0.01), 'Chat $0.050 · cache writes added $0.010');
  });

  it('counts and names layers', () => {
    assert.equal(countText(1, 'file'), '1 file');
    assert.equal(countText(3, 'file'), '3 files');
    assert.equal(countText(1_200, 'item'), '1,200 items');
    assert.equal(layerTitle('L2'), 'Attachments (L2)');
    assert.equal(layerTitle('L5'), 'Your message (L5)');
  });
});
