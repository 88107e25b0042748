import * as assert from 'node:assert/strict';
import { applyHunks, diffHunks, hunkLines } from '../../../../src/services/apply/hunks';
import { currentChange, reviewKeys, reviewLabel } from '../../../../src/services/apply/review';

const BASE = [
  'import { a } from "./a";',
  '',
  'export function one() {',
  '  return 1;',
  '}',
  '',
  'export function two() {',
  '  return 2;',
  '}',
  '',
].join('\n');
/** Two separate changes: line 4 changed, a line inserted after line 8. */
const PROPOSED = BASE.replace('  return 1;', '  return 1 + a;').replace('  return 2;', '  return 2;\n  // checked');

describe('apply hunks: one change at a time', () => {
  it('splits a proposal into its separate changes', () => {
    assert.deepEqual(diffHunks(BASE, PROPOSED), [
      { start: 3, end: 4, lines: ['  return 1 + a;'] },
      { start: 8, end: 8, lines: ['  // checked'] },
    ]);
  });

  it('applies any subset: none, each alone, both', () => {
    const [first, second] = diffHunks(BASE, PROPOSED);
    assert.equal(applyHunks(BASE, []), BASE);
    assert.equal(applyHunks(BASE, [first]), BASE.replace('  return 1;', '  return 1 + a;'));
    assert.equal(applyHunks(BASE, [second]), BASE.replace('  return 2;', '  return 2;\n  // checked'));
    assert.equal(applyHunks(BASE, [second, first]), PROPOSED, 'order does not matter');
  });

  it('finds deletions, changes at both ends, and keeps CRLF lines as they were', () => {
    const base = 'a\r\nb\r\nc\r\nd\r\ne';
    const proposed = 'A\r\nb\r\nd\r\ne\r\nf';
    const hunks = diffHunks(base, proposed);
    assert.deepEqual(hunks, [
      { start: 0, end: 1, lines: ['A\r'] },
      { start: 2, end: 3, lines: [] },
      { start: 4, end: 5, lines: ['e\r', 'f'] },
    ]);
    assert.equal(applyHunks(base, hunks), proposed);
    assert.equal(applyHunks(base, [hunks[1]]), 'a\r\nb\r\nd\r\ne');
  });

  it('a new file is one change; equal texts have none', () => {
    assert.deepEqual(diffHunks('', 'export const x = 1;\n'), [{ start: 0, end: 0, lines: ['export const x = 1;'] }]);
    assert.equal(applyHunks('', diffHunks('', 'export const x = 1;\n')), 'export const x = 1;\n');
    assert.deepEqual(diffHunks(BASE, BASE), []);
  });

  it('past the edit limit the differing middle is one change, and it still applies exactly', () => {
    const base = Array.from({ length: 50 }, (_, i) => `line ${i}`).join('\n');
    const proposed = Array.from({ length: 50 }, (_, i) => (i % 2 === 0 ? `line ${i}` : `LINE ${i}`)).join('\n');
    assert.equal(diffHunks(base, proposed).length, 25);
    const capped = diffHunks(base, proposed, 10);
    assert.deepEqual(
      capped.map((h) => [h.start, h.end, h.lines.length]),
      [[1, 50, 49]],
    );
    assert.equal(applyHunks(base, capped), proposed);
  });

  it('a 20,000-line file with three changes is split in under half a second of CPU', () => {
    const lines = Array.from({ length: 20_000 }, (_, i) => `const v${i} = ${i};`);
    const changed = [...lines];
    changed[10] = 'const v10 = -10;';
    changed.splice(10_000, 1);
    changed.splice(15_000, 0, '// new');
    const started = process.cpuUsage();
    const hunks = diffHunks(lines.join('\n'), changed.join('\n'));
    const cpuMs = (process.cpuUsage(started).user + process.cpuUsage(started).system) / 1000;
    assert.deepEqual(
      hunks.map((h) => [h.start, h.end, h.lines]),
      [
        [10, 11, ['const v10 = -10;']],
        [10_000, 10_001, []],
        [15_001, 15_001, ['// new']],
      ],
    );
    assert.ok(cpuMs < 500, `took ${cpuMs} ms of CPU`);
  });

  it('says where each change sits in the proposal as shown (earlier changes shift it)', () => {
    const base = 'a\nb\nc\nd';
    const proposed = 'a\nx\ny\nb\nd';
    const hunks = diffHunks(base, proposed);
    assert.deepEqual(hunks, [
      { start: 1, end: 1, lines: ['x', 'y'] },
      { start: 2, end: 3, lines: [] },
    ]);
    assert.deepEqual(hunkLines(hunks[1], hunks), { line: 4, count: 0 });
    assert.deepEqual(hunkLines(hunks[1], [hunks[1]]), { line: 2, count: 0 }, 'the first change rejected: nothing shifts it');
    assert.deepEqual(hunkLines(hunks[0], hunks), { line: 1, count: 2 });
  });
});

describe('apply review bar', () => {
  const pending = [
    { index: 0, line: 3, count: 2 },
    { index: 2, line: 10, count: 0 },
  ];

  it('the current change is the one under the cursor, else the next, else the first', () => {
    assert.equal(currentChange(pending, 4), 0);
    assert.equal(currentChange(pending, 10), 1, 'a deletion is current on the line it was removed before');
    assert.equal(currentChange(pending, 6), 1);
    assert.equal(currentChange(pending, 20), 0);
    assert.equal(currentChange(pending, undefined), 0);
  });

  it('shows the keys of the platform and the count', () => {
    assert.deepEqual(reviewKeys('linux'), { accept: 'Ctrl+Enter', reject: 'Ctrl+Backspace' });
    assert.deepEqual(reviewKeys('win32'), { accept: 'Ctrl+Enter', reject: 'Ctrl+Backspace' });
    assert.deepEqual(reviewKeys('darwin'), { accept: '⌘Enter', reject: '⌘⌫' });
    assert.equal(reviewLabel(0, 2, reviewKeys('linux')), 'Accept Ctrl+Enter · Reject Ctrl+Backspace · change 1 of 2');
  });
});
