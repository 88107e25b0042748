/**
 * The workspace tools' executor (src/services/tools/executor.ts) over the in-memory workspace port:
 * every path through the isolation rules (refusals for excluded, outside-workspace, binary, too
 * large and missing files, never content), the per-call token budget with an honest
 * "truncated at line N of M" note, listings, search, diagnostics, the selection, bad arguments.
 */
import * as assert from 'node:assert/strict';
import { IsolationPolicy, DEFAULT_EXCLUDES } from '../../../../src/engine/isolation';
import { MemoryWorkspace } from '../../../../src/services/memoryWorkspace';
import { DEFAULT_TOOL_LIMITS, ToolExecutor, type ToolLimits, type ToolResult } from '../../../../src/services/tools/executor';
import { runSteps, runStepsSync } from '../../../../src/common/steps';
import { parseToolArgs, type ToolCall } from '../../../../src/services/tools/definitions';

/** One token per 4 characters (rounded up): exact, so truncation points can be asserted. */
const counter = { count: (text: string) => Math.ceil(text.length / 4) };
const SECRET = 'API_KEY=sk-live-0123456789-SECRET';
const LINES = Array.from({ length: 1000 }, (_, i) => `line ${String(i + 1).padStart(4, '0')} of the long file`).join('\n');

function workspace(maxFileBytes = 1_000_000): MemoryWorkspace {
  return new MemoryWorkspace(
    {
      'src/a.ts': 'export const a = 1;\nexport function add(x: number, y: number) {\n  return x + y;\n}\n',
      'src/b.ts': 'import { a } from "./a";\nconsole.log(A_CONSTANT, a);\n',
      'src/long.txt': LINES,
      '.env': SECRET,
      'config/.env.local': SECRET,
      'keys/server.pem': SECRET,
      'img/logo.png': 'PNG\u0000\u0001binary',
      'docs/readme.md': '# Readme\nSee src/a.ts for add().\n',
    },
    { isolation: new IsolationPolicy(DEFAULT_EXCLUDES, maxFileBytes) },
  );
}

let seq = 0;
function run(ws: MemoryWorkspace, name: string, args: Record<string, unknown>, limits: Partial<ToolLimits> = {}): ToolResult {
  const ex = new ToolExecutor(ws, counter, { ...DEFAULT_TOOL_LIMITS, ...limits });
  return runStepsSync(ex.execute({ id: `call_${++seq}`, name, args }));
}

function text(r: ToolResult): string {
  assert.equal(r.output.kind, 'text', `expected a note, got ${JSON.stringify(r.output).slice(0, 200)}`);
  return (r.output as { text: string }).text;
}

describe('tool executor', () => {
  it('read_file: a whole file is an artifact input with the content verbatim', () => {
    const r = run(workspace(), 'read_file', { path: 'src/a.ts' });
    assert.equal(r.output.kind, 'artifact');
    if (r.output.kind !== 'artifact') return;
    assert.deepEqual(r.output.input, { kind: 'file', uri: 'src/a.ts', content: workspace().read('src/a.ts') });
    assert.equal(r.output.note, undefined);
    assert.equal(r.summary, 'src/a.ts, 5 lines');
  });

  it('read_file refuses .env, other excluded files, ../ and absolute paths, binary, too large and missing files, without content', () => {
    const cases: [string, string][] = [
      ['.env', 'excluded'],
      ['config/.env.local', 'excluded'],
      ['keys/server.pem', 'excluded'],
      ['src/../.env', 'excluded'],
      ['../outside.txt', 'outside-workspace'],
      ['../../etc/passwd', 'outside-workspace'],
      ['/etc/passwd', 'outside-workspace'],
      ['img/logo.png', 'binary'],
      ['src/nope.ts', 'not-found'],
    ];
    for (const [path, reason] of cases) {
      const r = run(workspace(), 'read_file', { path });
      const t = text(r);
      assert.equal((r.output as { refused?: string }).refused, reason, `${path}: ${t}`);
      assert.ok(t.startsWith(`read_file refused (${reason}): `), t);
      assert.ok(!t.includes('sk-live'), `${path}: no content in the refusal`);
      assert.equal(r.summary, `refused: ${reason}`);
    }
    const big = run(workspace(100), 'read_file', { path: 'src/long.txt' });
    assert.equal((big.output as { refused?: string }).refused, 'too-large');
    assert.ok(!text(big).includes('line 0001'), 'nothing of a too-large file');
  });

  it('read_file cuts a result over the per-call budget at a line with "truncated at line N of M"', () => {
    const r = run(workspace(), 'read_file', { path: 'src/long.txt' }, { maxResultTokens: 500 });
    assert.equal(r.output.kind, 'artifact');
    if (r.output.kind !== 'artifact') return;
    const lines = LINES.split('\n');
    const { input, note } = r.output;
    assert.equal(input.kind, 'tool');
    assert.equal(input.uri, 'src/long.txt');
    const n = input.range!.endLine;
    assert.deepEqual(input.range, { startLine: 1, endLine: n });
    assert.equal(input.content, lines.slice(0, n).join('\n'), 'exactly the first N lines, verbatim');
    assert.ok(counter.count(input.content) <= 500, 'within the budget');
    assert.ok(counter.count(lines.slice(0, n + 1).join('\n')) > 500, 'and as much as fits');
    assert.equal(
      note,
      `[truncated at line ${n} of 1000: a tool result may take 500 tokens. Call read_file with startLine ${n + 1} to read on.]`,
    );
    assert.deepEqual(r.output.whole, { id: 'file:src/long.txt', content: LINES });
    assert.equal(r.summary, `src/long.txt, lines 1-${n} (truncated)`);

    // Reading on from there continues the count from that line.
    const next = run(workspace(), 'read_file', { path: 'src/long.txt', startLine: n + 1 }, { maxResultTokens: 500 });
    if (next.output.kind !== 'artifact') return assert.fail('expected an artifact');
    assert.equal(next.output.input.range!.startLine, n + 1);
    assert.match(next.output.note!, new RegExp(`^\\[truncated at line ${next.output.input.range!.endLine} of 1000:`));
  });

  it('read_file with a range: the lines verbatim, the whole file alongside, a note past the end', () => {
    const r = run(workspace(), 'read_file', { path: 'src/a.ts', startLine: 2, endLine: 3 });
    if (r.output.kind !== 'artifact') return assert.fail('expected an artifact');
    assert.deepEqual(r.output.input, {
      kind: 'tool',
      uri: 'src/a.ts',
      range: { startLine: 2, endLine: 3 },
      content: 'export function add(x: number, y: number) {\n  return x + y;',
    });
    assert.equal(r.output.whole?.id, 'file:src/a.ts');
    const past = run(workspace(), 'read_file', { path: 'src/a.ts', startLine: 4, endLine: 99 });
    if (past.output.kind !== 'artifact') return assert.fail('expected an artifact');
    assert.deepEqual(past.output.input.range, { startLine: 4, endLine: 5 });
    assert.equal(past.output.note, '[src/a.ts ends at line 5.]');
    assert.match(text(run(workspace(), 'read_file', { path: 'src/a.ts', startLine: 50 })), /has 5 lines; startLine 50 is past its end/);
  });

  it('list_files: sorted, excluded files never listed, long lists cut with the count', () => {
    const r = run(workspace(), 'list_files', { glob: '**/*' });
    if (r.output.kind !== 'artifact') return assert.fail('expected an artifact');
    assert.equal(r.output.input.content, ['docs/readme.md', 'img/logo.png', 'src/a.ts', 'src/b.ts', 'src/long.txt'].join('\n'));
    assert.ok(!r.output.input.content.includes('.env') && !r.output.input.content.includes('.pem'));
    assert.equal(r.summary, '5 files');
    const cut = run(workspace(), 'list_files', { glob: './**' }, { maxListEntries: 2 });
    if (cut.output.kind !== 'artifact') return assert.fail('expected an artifact');
    assert.equal(cut.output.input.content, 'docs/readme.md\nimg/logo.png');
    assert.equal(cut.output.note, '[truncated at line 2 of more than 2: narrow the glob to see the rest.]');
    assert.match(text(run(workspace(), 'list_files', { glob: '**/*.rs' })), /no workspace file matches "\*\*\/\*\.rs"/);
    assert.match(text(run(workspace(), 'list_files', { glob: '**/.env' })), /no workspace file matches/);
  });

  it('search_text: smart case, glob, path:line: text, excluded files never searched, binary skipped and counted', () => {
    const r = run(workspace(), 'search_text', { query: 'a_constant' });
    if (r.output.kind !== 'artifact') return assert.fail('expected an artifact');
    assert.equal(r.output.input.content, 'src/b.ts:2: console.log(A_CONSTANT, a);');
    assert.match(r.output.note!, /\[4 files searched; 1 file skipped \(excluded, binary, too large or unreadable\)\.\]/);
    assert.match(
      text(run(workspace(), 'search_text', { query: 'A_constant' })),
      /no match for "A_constant"/,
      'an upper-case letter makes it case-sensitive',
    );
    assert.match(text(run(workspace(), 'search_text', { query: 'sk-live' })), /no match/, 'secrets in excluded files are not found');
    const scoped = run(workspace(), 'search_text', { query: 'add', glob: 'docs/**' });
    if (scoped.output.kind !== 'artifact') return assert.fail('expected an artifact');
    assert.equal(scoped.output.input.content, 'docs/readme.md:2: See src/a.ts for add().');
    const many = run(workspace(), 'search_text', { query: 'line' }, { maxSearchMatches: 3 });
    if (many.output.kind !== 'artifact') return assert.fail('expected an artifact');
    assert.equal(many.output.input.content.split('\n').length, 3);
    assert.match(many.output.note!, /^\[truncated at line 3 of more than 3 matches/);
  });

  it('get_diagnostics: one file or all, excluded paths refused or left out, sorted', () => {
    const ws = workspace();
    ws.setDiagnostics([
      { path: 'src/b.ts', line: 2, column: 13, severity: 'error', message: "Cannot find name 'A_CONSTANT'.", source: 'ts', code: '2304' },
      { path: 'src/a.ts', line: 1, column: 14, severity: 'warning', message: 'unused', source: 'eslint' },
      { path: '.env', line: 1, column: 1, severity: 'error', message: `leak ${SECRET}` },
    ]);
    const all = run(ws, 'get_diagnostics', {});
    if (all.output.kind !== 'artifact') return assert.fail('expected an artifact');
    assert.equal(all.output.input.kind, 'diagnostics');
    assert.equal(
      all.output.input.content,
      "src/a.ts:1:14: warning: unused (eslint)\nsrc/b.ts:2:13: error: Cannot find name 'A_CONSTANT'. (ts 2304)",
    );
    const one = run(ws, 'get_diagnostics', { path: 'src/b.ts' });
    if (one.output.kind !== 'artifact') return assert.fail('expected an artifact');
    assert.equal(one.output.input.uri, 'src/b.ts');
    assert.equal(one.summary, '1 problem');
    const env = run(ws, 'get_diagnostics', { path: '.env' });
    assert.equal((env.output as { refused?: string }).refused, 'excluded');
    assert.ok(!text(env).includes('sk-live'));
    assert.match(text(run(ws, 'get_diagnostics', { path: 'docs/readme.md' })), /no errors or warnings in docs\/readme\.md/);
  });

  it('get_selection: nothing selected, a selection, a selection in an excluded file', () => {
    const ws = workspace();
    assert.match(text(run(ws, 'get_selection', {})), /nothing is selected/);
    ws.setSelection({ path: 'src/a.ts', startLine: 2, endLine: 4 });
    const r = run(ws, 'get_selection', {});
    if (r.output.kind !== 'artifact') return assert.fail('expected an artifact');
    assert.deepEqual(r.output.input, {
      kind: 'tool',
      uri: 'src/a.ts',
      range: { startLine: 2, endLine: 4 },
      content: 'export function add(x: number, y: number) {\n  return x + y;\n}',
    });
    ws.setSelection({ path: '.env', startLine: 1, endLine: 1 });
    assert.equal((run(ws, 'get_selection', {}).output as { refused?: string }).refused, 'excluded');
  });

  it('bad arguments and unknown tools get a sentence saying what is wrong', () => {
    assert.match(text(run(workspace(), 'read_file', {})), /the argument "path" is required/);
    assert.match(text(run(workspace(), 'read_file', { path: 'src/a.ts', line: 3 })), /unknown argument "line"/);
    assert.match(text(run(workspace(), 'read_file', { path: 'src/a.ts', startLine: 0 })), /startLine must be an integer ≥ 1/);
    assert.match(
      text(run(workspace(), 'read_file', { path: 'src/a.ts', startLine: 5, endLine: 2 })),
      /endLine must not be before startLine/,
    );
    assert.match(text(run(workspace(), 'write_file', { path: 'x' })), /There is no tool named "write_file"/);
    assert.match(text(run(workspace(), 'read_file', { __invalid_json__: '{"path": ' })), /the arguments are not a JSON object/);
    const call: ToolCall = { id: 'c', name: 'search_text', args: { query: 'x', glob: null } };
    assert.deepEqual(parseToolArgs(call), { name: 'search_text', query: 'x' }, 'null stands for absent');
  });

  it('is driven asynchronously by the same steps (an editor port answers with promises)', async () => {
    const ws = workspace();
    const asyncPort = new Proxy(ws, {
      get(target, prop, receiver) {
        const v = Reflect.get(target, prop, receiver);
        return typeof v === 'function' ? (...a: unknown[]) => Promise.resolve((v as (...x: unknown[]) => unknown).apply(target, a)) : v;
      },
    });
    const ex = new ToolExecutor(asyncPort, counter);
    const r = await runSteps(ex.execute({ id: 'c1', name: 'search_text', args: { query: 'add' } }));
    if (r.output.kind !== 'artifact') return assert.fail('expected an artifact');
    assert.equal(
      r.output.input.content,
      'docs/readme.md:2: See src/a.ts for add().\nsrc/a.ts:2: export function add(x: number, y: number) {',
      'files in sorted order',
    );
    assert.throws(() => runStepsSync(ex.execute({ id: 'c2', name: 'read_file', args: { path: 'src/a.ts' } })), /answered with a promise/);
  });
});
