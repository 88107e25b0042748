/**
 * The tools' registry (src/services/tools/definitions.ts): every tool has each part, the definitions
 * are offered in the registry's order, and the user-facing lists of tools (README, the setting's
 * description, the replay's README) name exactly the registry's tools, in its order.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  ALL_TOOL_DEFINITIONS,
  CODE_TOOL_DEFINITIONS,
  CODE_TOOL_NAMES,
  TOOL_DEFINITIONS,
  TOOL_NAMES,
  TOOLS,
  callLabel,
  parseToolArgs,
  toolIcons,
} from '../../../../src/services/tools/definitions';

const root = path.resolve(__dirname, '../../../../..');
const ALL = [...TOOL_NAMES, ...CODE_TOOL_NAMES];

/** The backticked snake_case names in `text` between `from` and the first `to` after it. */
function namesIn(text: string, from: string, to: string): string[] {
  const start = text.indexOf(from);
  assert.notEqual(start, -1, `the passage starting ${JSON.stringify(from)} is there`);
  const end = text.indexOf(to, start + from.length);
  assert.notEqual(end, -1, `the passage ends with ${JSON.stringify(to)}`);
  return [...text.slice(start, end).matchAll(/`([a-z]+(?:_[a-z]+)+)`/g)].map((m) => m[1]);
}

describe('tools / the registry', () => {
  it('files every tool under its own name, each with a definition, an icon and its parts', () => {
    assert.deepEqual(Object.keys(TOOLS), ALL);
    for (const name of ALL) {
      const spec = TOOLS[name];
      assert.equal(spec.name, name);
      assert.equal(spec.definition.name, name);
      assert.equal(typeof spec.parse, 'function');
      assert.equal(typeof spec.label, 'function');
      assert.equal(typeof spec.run, 'function');
      assert.equal(typeof spec.summary, 'function');
    }
  });

  it('offers the definitions in the registry order, the code tools last', () => {
    assert.deepEqual(
      TOOL_DEFINITIONS.map((d) => d.name),
      ['read_file', 'list_files', 'search_text', 'get_diagnostics', 'get_selection'],
    );
    assert.deepEqual(
      CODE_TOOL_DEFINITIONS.map((d) => d.name),
      ['get_outline', 'find_symbol', 'get_definition', 'find_references'],
    );
    assert.deepEqual(
      ALL_TOOL_DEFINITIONS.map((d) => d.name),
      ALL,
    );
  });

  it('gives every tool its icon', () => {
    assert.deepEqual(toolIcons(), {
      read_file: 'file-code',
      list_files: 'list-tree',
      search_text: 'search',
      get_diagnostics: 'warning',
      get_selection: 'selection',
      get_outline: 'symbol-class',
      find_symbol: 'symbol-method',
      get_definition: 'go-to-file',
      find_references: 'references',
    });
  });

  it('labels and parses each tool through its own file', () => {
    assert.equal(callLabel({ name: 'get_selection', args: {} }), 'get_selection');
    assert.equal(
      callLabel({ name: 'get_definition', args: { path: 'src/a.ts', line: 3, symbol: 'add' } }),
      'get_definition add at src/a.ts:3',
    );
    assert.equal(callLabel({ name: 'find_references', args: {} }), 'find_references ? at ?:?');
    assert.equal(callLabel({ name: 'no_such_tool', args: { path: 'x' } }), 'no_such_tool');
    assert.deepEqual(parseToolArgs({ name: 'find_references', args: { path: 'src/a.ts', line: 3, symbol: 'add' } }), {
      name: 'find_references',
      path: 'src/a.ts',
      line: 3,
      symbol: 'add',
    });
    assert.equal(
      parseToolArgs({ name: 'toString', args: {} }),
      'There is no tool named "toString"; the tools are read_file, list_files, search_text, get_diagnostics, get_selection.',
    );
  });

  it('README.md lists every tool, in the registry order', () => {
    const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
    assert.deepEqual(namesIn(readme, '## Workspace tools', '\n## '), ALL);
  });

  it("the tools setting's description lists every tool, in the registry order", () => {
    const nls = JSON.parse(fs.readFileSync(path.join(root, 'package.nls.json'), 'utf8')) as Record<string, string>;
    assert.deepEqual(namesIn(nls['config.tools.enabled.description'], 'read-only tools', ')'), ALL);
  });

  it("the replay's README lists every tool a trajectory may call, in the registry order", () => {
    const readme = fs.readFileSync(path.join(root, 'bench/README.md'), 'utf8');
    assert.deepEqual(namesIn(readme, 'A turn may script the tool calls', '), and what'), ALL);
  });
});
