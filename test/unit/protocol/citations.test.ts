/** Citations in a reply (src/protocol/citations.ts) and the requests that carry them. */
import * as assert from 'node:assert/strict';
import { codeSpanCitation, findCitations, parseCitationPaths } from '../../../src/protocol/citations';
import { ProtocolError } from '../../../src/protocol/messages';
import { parseResponseValue, parseWebviewRequest } from '../../../src/protocol/requests';

describe('citations', () => {
  it('finds path:line, path:start-end and path#Lx-Ly in prose', () => {
    const text = 'See src/a.ts:12, ./lib/b.py:3-9 and docs/c.md#L4-L8; not http://x.io/d.ts:5 or v1.2:3.';
    const found = findCitations(text).map(({ path, startLine, endLine, start, end }) => ({
      path,
      startLine,
      endLine,
      text: text.slice(start, end),
    }));
    assert.deepEqual(found, [
      { path: 'src/a.ts', startLine: 12, endLine: 12, text: 'src/a.ts:12' },
      { path: 'lib/b.py', startLine: 3, endLine: 9, text: './lib/b.py:3-9' },
      { path: 'docs/c.md', startLine: 4, endLine: 8, text: 'docs/c.md#L4-L8' },
    ]);
  });

  it('leaves bare paths in prose and backwards ranges alone', () => {
    assert.deepEqual(findCitations('setup.py and src/a.ts are files'), []);
    assert.deepEqual(findCitations('src/a.ts:9-3'), []);
    assert.deepEqual(findCitations('src/a.ts:0'), []);
  });

  it('reads a whole code span as a path, with or without lines', () => {
    assert.deepEqual(codeSpanCitation('src/a.ts'), { path: 'src/a.ts' });
    assert.deepEqual(codeSpanCitation('src/a.ts:3-4'), { path: 'src/a.ts', startLine: 3, endLine: 4 });
    assert.deepEqual(codeSpanCitation('src/a.ts#L7'), { path: 'src/a.ts', startLine: 7, endLine: 7 });
    assert.deepEqual(codeSpanCitation('.env'), { path: '.env' });
    assert.deepEqual(codeSpanCitation('app/.env.local'), { path: 'app/.env.local' });
    assert.equal(codeSpanCitation('npm test'), undefined);
    assert.equal(codeSpanCitation('...'), undefined);
    assert.equal(codeSpanCitation('a.b()'), undefined);
  });

  it('checks the citation requests and answers', () => {
    assert.deepEqual(parseWebviewRequest({ kind: 'openCitation', path: 'src/a.ts', startLine: 2, endLine: 3 }), {
      kind: 'openCitation',
      path: 'src/a.ts',
      startLine: 2,
      endLine: 3,
    });
    assert.deepEqual(parseWebviewRequest({ kind: 'openCitation', path: 'src/a.ts' }), { kind: 'openCitation', path: 'src/a.ts' });
    assert.ok(parseWebviewRequest({ kind: 'openCitation', path: 'src/a.ts', startLine: 3, endLine: 2 }) instanceof ProtocolError);
    assert.ok(parseWebviewRequest({ kind: 'openCitation', path: 'src/a.ts', command: 'x' }) instanceof ProtocolError);
    assert.ok(parseWebviewRequest({ kind: 'resolveCitations', paths: ['a.ts', 3] }) instanceof ProtocolError);
    assert.ok(parseWebviewRequest({ kind: 'resolveCitations', paths: new Array(65).fill('a.ts') }) instanceof ProtocolError);
    assert.deepEqual(parseWebviewRequest({ kind: 'applyCode', code: 'x', info: 'ts', lineAbove: '' }), {
      kind: 'applyCode',
      code: 'x',
      info: 'ts',
      lineAbove: '',
    });
    assert.ok(parseWebviewRequest({ kind: 'applyCode', code: 'x' }) instanceof ProtocolError);
    assert.deepEqual(parseCitationPaths(['a.ts']), ['a.ts']);
    assert.equal(parseCitationPaths([1]), undefined);
    assert.ok(parseResponseValue('resolveCitations', 'src/a.ts') instanceof ProtocolError);
  });

  it('a run like +a+a+a… costs linear time (it froze the panel on every render)', () => {
    const cpuMs = (fn: () => void): number => {
      const before = process.cpuUsage();
      fn();
      const used = process.cpuUsage(before);
      return (used.user + used.system) / 1000;
    };
    const text = '+a'.repeat(32_768);
    let found: unknown[] = ['unset'];
    const ms = cpuMs(() => (found = findCitations(text)));
    assert.deepEqual(found, []);
    assert.ok(ms < 300, `${ms.toFixed(1)} ms for 65,536 characters`);
    // A citation after such a run is still found.
    assert.deepEqual(
      findCitations(`${'+a'.repeat(1000)} see src/a.ts:3`).map((c) => c.path),
      ['src/a.ts'],
    );
    assert.deepEqual(
      findCitations('x+src/a.ts:3').map((c) => c.path),
      ['x+src/a.ts'],
    );
  });
});
