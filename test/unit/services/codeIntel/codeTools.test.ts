/**
 * The four code-intelligence tools through the executor over the in-memory TypeScript port: exact
 * results, refusals for excluded files (a symbol, reference or definition in one is never shown),
 * bad arguments, a port without code intelligence; and which tools are offered over which port.
 */
import * as assert from 'node:assert/strict';
import { DEFAULT_EXCLUDES, IsolationPolicy } from '../../../../src/engine/isolation';
import { runStepsSync } from '../../../../src/common/steps';
import { ToolExecutor, type ToolResult } from '../../../../src/services/tools/executor';
import { ALL_TOOL_DEFINITIONS, TOOL_DEFINITIONS, toolDefinitionsFor, callLabel } from '../../../../src/services/tools/definitions';
import { MemoryWorkspace } from '../../../../src/services/memoryWorkspace';
import { CodeIntelWorkspace } from '../../../../bench/codeIntelWorkspace';
import { PROJECT } from './fakeIntel';

const counter = { count: (t: string) => Math.ceil(t.length / 4) };

describe('codeIntel / the code tools through the executor', function () {
  this.timeout(60_000);
  const ws = new CodeIntelWorkspace(PROJECT, { isolation: new IsolationPolicy([...DEFAULT_EXCLUDES, '**/secret/**']) });
  const executor = new ToolExecutor(ws, counter);
  const run = (name: string, args: Record<string, unknown>): ToolResult => runStepsSync(executor.execute({ id: 'c1', name, args }));

  it('get_outline: the rendered outline as a tool artifact', () => {
    const r = run('get_outline', { path: 'src/geo.ts' });
    assert.deepEqual(r.output, {
      kind: 'artifact',
      input: {
        kind: 'tool',
        uri: 'src/geo.ts',
        content: [
          'interface Point  L2-L5',
          '  property x: number  L3-L3',
          '  property y: number  L4-L4',
          'function add(a: number, b: number): number  L10-L12',
          '[Outline of src/geo.ts: call read_file with path "src/geo.ts", startLine and endLine to read a symbol\'s lines.]',
        ].join('\n'),
      },
    });
    assert.equal(r.summary, 'src/geo.ts, 4 symbols');
    assert.equal(run('get_outline', { path: 'tsconfig.json' }).output.kind, 'text');
  });

  it('get_definition: the enclosing declaration as a range of its file, with the whole file for dedup; an alias resolves', () => {
    const r = run('get_definition', { path: 'src/main.ts', line: 13, symbol: 'add' });
    assert.deepEqual(r.output, {
      kind: 'artifact',
      input: {
        kind: 'tool',
        uri: 'src/geo.ts',
        range: { startLine: 10, endLine: 12 },
        content: 'export function add(a: number, b: number): number {\n  return a + b;\n}',
      },
      whole: { id: 'file:src/geo.ts', content: PROJECT['src/geo.ts'] },
      note: '[add is defined at src/geo.ts:10, in function add (lines 10-12).]',
    });
    const alias = run('get_definition', { path: 'src/main.ts', line: 15, symbol: 'fmt' });
    assert.equal(alias.output.kind === 'artifact' && alias.output.input.uri, 'src/util/fmt.ts');
    assert.equal(callLabel(r.call), 'get_definition add at src/main.ts:13');
  });

  it('get_definition refuses a definition in an excluded file, and says when the symbol is not on the line', () => {
    const r = run('get_definition', { path: 'src/main.ts', line: 15, symbol: 'LIMIT' });
    assert.equal(r.output.kind, 'text');
    assert.equal(r.output.kind === 'text' && r.output.refused, 'excluded');
    assert.ok(r.output.kind === 'text' && !r.output.text.includes('= 7'));
    const missing = run('get_definition', { path: 'src/main.ts', line: 13, symbol: 'nothing' });
    assert.equal(
      missing.output.kind === 'text' && missing.output.text,
      'get_definition: "nothing" is not on line 13 of src/main.ts: "const s = add(p.x, p.y);".',
    );
    const excludedSource = run('get_definition', { path: 'src/secret/limits.ts', line: 1, symbol: 'LIMIT' });
    assert.equal(excludedSource.output.kind === 'text' && excludedSource.output.refused, 'excluded');
  });

  it('get_definition names other definitions only in files that pass isolation: "Also defined at" lists no excluded file', () => {
    // The editor answers with several definitions (overloads, merged declarations): one in an
    // excluded file, one through a path outside the workspace, two readable.
    const more = Object.create(ws) as CodeIntelWorkspace;
    more.definitions = (path: string, line: number, column: number) => [
      ...ws.definitions(path, line, column),
      { path: 'src/secret/limits.ts', line: 1, column: 14 },
      { path: 'src/util/fmt.ts', line: 1, column: 14 },
      { path: '.env', line: 3, column: 1 },
      { path: 'src/main.ts', line: 2, column: 1 },
    ];
    const r = runStepsSync(
      new ToolExecutor(more, counter).execute({ id: 'c2', name: 'get_definition', args: { path: 'src/main.ts', line: 13, symbol: 'add' } }),
    );
    assert.equal(r.output.kind, 'artifact');
    assert.equal(
      r.output.kind === 'artifact' && r.output.note,
      '[add is defined at src/geo.ts:10, in function add (lines 10-12).]\n[Also defined at src/util/fmt.ts:1, src/main.ts:2.]',
    );
    // Only excluded ones: no line at all.
    more.definitions = (path: string, line: number, column: number) => [
      ...ws.definitions(path, line, column),
      { path: 'src/secret/limits.ts', line: 1, column: 14 },
    ];
    const hidden = runStepsSync(
      new ToolExecutor(more, counter).execute({ id: 'c3', name: 'get_definition', args: { path: 'src/main.ts', line: 13, symbol: 'add' } }),
    );
    assert.equal(
      hidden.output.kind === 'artifact' && hidden.output.note,
      '[add is defined at src/geo.ts:10, in function add (lines 10-12).]',
    );
  });

  it('find_references: each with its line of text, the declaration included; excluded files left out', () => {
    const r = run('find_references', { path: 'src/geo.ts', line: 10, symbol: 'add' });
    assert.deepEqual(r.output, {
      kind: 'artifact',
      input: {
        kind: 'tool',
        uri: 'find_references add at src/geo.ts:10',
        content: [
          'src/geo.ts:10: export function add(a: number, b: number): number {',
          "src/main.ts:1: import { add, Point } from './geo';",
          'src/main.ts:13: const s = add(p.x, p.y);',
        ].join('\n'),
      },
    });
    const limit = run('find_references', { path: 'src/main.ts', line: 3, symbol: 'LIMIT' });
    assert.ok(limit.output.kind === 'artifact');
    const text = limit.output.kind === 'artifact' ? limit.output.input.content : '';
    assert.deepEqual(text.split('\n'), [
      "src/main.ts:3: import { LIMIT } from './secret/limits';",
      "src/main.ts:15: return fmt(clamp(t) + LIMIT) + 'add';",
    ]);
    assert.equal(limit.output.kind === 'artifact' && limit.output.note, '[1 reference in files that cannot be read left out.]');
  });

  it('find_symbol: workspace symbols, excluded files left out', () => {
    const r = run('find_symbol', { query: 'add' });
    assert.deepEqual(r.output, {
      kind: 'artifact',
      input: { kind: 'tool', uri: 'find_symbol "add"', content: 'src/geo.ts:10: function add' },
    });
    const hidden = run('find_symbol', { query: 'LIMIT' });
    assert.deepEqual(hidden.output, {
      kind: 'text',
      text: 'find_symbol: no workspace symbol matches "LIMIT" (1 in excluded files left out).',
    });
  });

  it('bad arguments are refused before anything runs', () => {
    const r = run('get_definition', { path: 'src/main.ts', line: 0, symbol: 'add' });
    assert.deepEqual(r.output, { kind: 'text', text: 'get_definition: line must be an integer ≥ 1.', refused: 'invalid-arguments' });
    assert.equal(run('find_references', { path: 'src/main.ts', symbol: 'add' }).summary, 'invalid arguments');
  });

  it('over a port without code intelligence the tools say so; they are offered only over one that has it', () => {
    const plain = new MemoryWorkspace({ 'a.ts': 'export const a = 1;\n' });
    const r = runStepsSync(new ToolExecutor(plain, counter).execute({ id: 'x', name: 'get_outline', args: { path: 'a.ts' } }));
    assert.deepEqual(r.output, {
      kind: 'text',
      text: 'get_outline: no code intelligence in this workspace; use search_text and read_file.',
    });
    assert.equal(toolDefinitionsFor(plain), TOOL_DEFINITIONS);
    assert.equal(toolDefinitionsFor(ws), ALL_TOOL_DEFINITIONS);
    assert.deepEqual(
      ALL_TOOL_DEFINITIONS.map((d) => d.name),
      [
        'read_file',
        'list_files',
        'search_text',
        'get_diagnostics',
        'get_selection',
        'get_outline',
        'find_symbol',
        'get_definition',
        'find_references',
      ],
    );
  });
});
