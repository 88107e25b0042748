import * as assert from 'node:assert/strict';
import { binaryKind, binaryKindOfName } from '../../../src/common/binaryKind';
import { binaryRejection, IsolationPolicy, sizeOverLimit, tooLargeRejection } from '../../../src/engine/isolation';
import { headOfBytes, headOfText } from '../../../src/services/fileHead';
import {
  mayHaveOutline,
  REFUSAL_ACTION_TITLES,
  refusalActions,
  refusalsText,
  refusedFilePath,
  shortReason,
} from '../../../src/services/refusalAdvice';

const MB = 1024 * 1024;

describe('Refusals: the words and what can be done', () => {
  it('a file over the limit reads in human units, exact bytes only where the rounded figures would read the same', () => {
    assert.equal(tooLargeRejection('app.log', 20 * MB, 8 * MB).message, 'app.log is 20 MB (limit 8 MB); nothing of it was sent.');
    assert.equal(sizeOverLimit(8.5 * MB, 8 * MB), '8.5 MB (limit 8 MB)');
    assert.equal(sizeOverLimit(8 * MB + 1, 8 * MB), '8,388,609 bytes (limit 8,388,608 bytes)');
    assert.equal(sizeOverLimit(300 * 1024, 100 * 1024), '300 KB (limit 100 KB)');
    const r = new IsolationPolicy(undefined, 8 * MB).checkContent('x'.repeat(20 * MB), 'app.log')!;
    assert.deepEqual(r, {
      attachment: 'app.log',
      reason: 'too-large',
      message: 'app.log is 20 MB (limit 8 MB); nothing of it was sent.',
      bytes: 20 * MB,
      limit: 8 * MB,
    });
  });

  it('a binary file says what it is, by its first bytes before its name', () => {
    const png = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0]);
    assert.equal(binaryRejection('logo.dat', 'logo.dat', png).message, 'logo.dat is binary (PNG image); only text files can be attached.');
    assert.equal(binaryRejection('logo.png').message, 'logo.png is binary (PNG image); only text files can be attached.');
    assert.equal(binaryRejection('blob.dat').message, 'blob.dat is binary; only text files can be attached.');
    assert.equal(binaryKind('a.bin', Uint8Array.from([0x50, 0x4b, 0x03, 0x04])), 'ZIP archive');
    assert.equal(binaryKindOfName('dir\\App.EXE'), 'Windows executable');
    assert.equal(binaryKindOfName('src/app.ts'), undefined);
    assert.equal(binaryKindOfName('.png'), undefined, 'a dot file named like an extension is not that format');
  });

  it('offers outline (languages with symbols), first lines and Raise Limit… for a file over the limit; nothing for the rest', () => {
    assert.deepEqual(refusalActions(tooLargeRejection('app.log', 20 * MB, 8 * MB)), ['attachHead', 'raiseLimit']);
    assert.deepEqual(refusalActions(tooLargeRejection('src/big.ts', 20 * MB, 8 * MB)), ['attachOutline', 'attachHead', 'raiseLimit']);
    assert.deepEqual(
      refusalActions(tooLargeRejection('src/big.ts#L3-L9', 20 * MB, 8 * MB)),
      ['raiseLimit'],
      'a selection: the limit alone',
    );
    assert.deepEqual(refusalActions(binaryRejection('logo.png')), []);
    assert.deepEqual(refusalActions({ attachment: '.env', reason: 'excluded', message: '.env matches…' }), []);
    assert.deepEqual(
      refusalActions({ attachment: 'one.log', reason: 'too-large', message: 'one.log: its first line alone is over the 8 MB limit' }),
      ['raiseLimit'],
      'without its size (a head that cannot be cut) only the limit can help',
    );
    assert.deepEqual(
      ['attachOutline', 'attachHead', 'raiseLimit'].map((a) => REFUSAL_ACTION_TITLES[a as keyof typeof REFUSAL_ACTION_TITLES]),
      ['Attach Outline', 'Attach First Lines', 'Raise Limit…'],
    );
    assert.equal(refusedFilePath(tooLargeRejection('a/b.ts#L1-L2', 2, 1)), undefined);
    assert.equal(refusedFilePath(tooLargeRejection('a/b.ts', 2, 1)), 'a/b.ts');
    assert.deepEqual(['a.TS', 'notes.md', 'app.log', 'data.csv', 'Makefile', '.ts'].map(mayHaveOutline), [
      true,
      true,
      false,
      false,
      false,
      false,
    ]);
  });

  it('several refusals in one sentence, each with its short reason', () => {
    const text = refusalsText([
      tooLargeRejection('app.log', 20 * MB, 8 * MB),
      binaryRejection('logo.png'),
      { attachment: '.env', reason: 'excluded', message: '' },
      { attachment: 'x', reason: 'outside-workspace', message: '' },
    ]);
    assert.equal(
      text,
      '4 attachments were refused: app.log (20 MB (limit 8 MB)); logo.png (binary (PNG image)); .env (excluded); x (outside workspace).',
    );
    assert.equal(shortReason({ attachment: 'a', reason: 'too-large', message: '' }), 'too large');
  });
});

describe('The first lines of a file over the limit', () => {
  const enc = (s: string) => new TextEncoder().encode(s);

  it('cuts after the last whole line the bytes hold, and counts the whole file', () => {
    const file = 'one\ntwo\nthree\nfour\n';
    const head = enc(file).subarray(0, 10); // "one\ntwo\nth"
    const r = headOfBytes('app.log', { head, size: file.length, lineFeeds: 4, endsWithLineFeed: true }, 10);
    assert.ok(r.ok);
    assert.deepEqual([r.lines, r.of], [2, 4]);
    assert.deepEqual(r.input, { kind: 'selection', uri: 'app.log', range: { startLine: 1, endLine: 2 }, content: 'one\ntwo' });
  });

  it('a last line without a line feed is a line; CRLF lines are cut without their CR', () => {
    const file = 'a\r\nb\r\nc';
    const r = headOfText('w.txt', file, 6); // "a\r\nb\r\n"
    assert.ok(r.ok);
    assert.deepEqual([r.lines, r.of, r.input.content], [2, 3, 'a\r\nb']);
  });

  it('multi-byte text is never cut inside a character (the cut is at a line feed)', () => {
    const file = 'äöü\n€€€\n';
    const r = headOfText('u.txt', file, 10); // "äöü\n" is 7 bytes; "€€€" would end at 16
    assert.ok(r.ok);
    assert.deepEqual([r.lines, r.of, r.input.content], [1, 2, 'äöü']);
  });

  it('refuses binary content and a first line alone over the limit', () => {
    const bin = headOfBytes('x.log', { head: Uint8Array.from([0x41, 0, 0x0a]), size: 100, lineFeeds: 3, endsWithLineFeed: true }, 3);
    assert.ok(!bin.ok);
    assert.equal(bin.rejection.reason, 'binary');
    const long = headOfText('one.log', 'x'.repeat(50), 10);
    assert.ok(!long.ok);
    assert.equal(long.rejection.message, 'one.log: its first line alone is over the 10 bytes limit; nothing of it was sent.');
  });
});
