/**
 * The uses a first-occurrence scan of names missed, each resolved where it is (the in-memory
 * TypeScript port, so the answers are the language service's): a method's own name that hides a
 * later call of an imported function of the same name, a local that hides a member of the same
 * name, members whose names are keywords, `this.options` beside a parameter `options`,
 * `super.load()`; and the cut: a member used stays its own item when its class does not fit, and a
 * class used only by name goes as its outline, not its body.
 */
import * as assert from 'node:assert/strict';
import { definitionsForSelection, type SelectionDefinitions } from '../../../../src/services/codeIntel/selectionDefinitions';
import { identifierOccurrences } from '../../../../src/services/codeIntel/identifiers';
import { CodeIntelWorkspace } from '../../../../bench/codeIntelWorkspace';

const storeMembers = Array.from({ length: 12 }, (_, i) =>
  [`  part${i}(n: number): number {`, `    return n * ${i + 1};`, '  }'].join('\n'),
);

export const MISSES: Record<string, string> = {
  'src/base.ts': ['export class Base {', '  load(id: string): string {', '    return `base ${id}`;', '  }', '}', ''].join('\n'),
  'src/options.ts': ['export interface Options {', '  staleTime: number;', "  type: 'all' | 'active';", '}', ''].join('\n'),
  'src/paging.ts': ['export function hasNext(after: number): boolean {', '  return after > 0;', '}', ''].join('\n'),
  'src/store.ts': ['export class Store {', ...storeMembers, '  get(key: string): string {', '    return key;', '  }', '}', ''].join('\n'),
  'src/cache.ts': [
    "import { Base } from './base';",
    "import type { Options } from './options';",
    "import { Store } from './store';",
    "import { hasNext } from './paging';",
    '',
    'export class Cache extends Base {',
    '  options: Options;',
    '  store = new Store();',
    '  constructor(options: Options) {',
    '    super();',
    '    this.options = options;',
    '  }',
    '',
    '  hasNext(options: Options, other: Store): boolean {',
    '    const staleTime = options.staleTime;',
    '    const kind = this.options.type;',
    "    const item = this.store.get('a');",
    '    const loaded = super.load(kind);',
    '    return hasNext(staleTime) && item !== loaded && other !== undefined;',
    '  }',
    '}',
    '',
  ].join('\n'),
};

const SELECTION = { path: 'src/cache.ts', startLine: 14, endLine: 20 };
const count = (t: string) => t.length;
const rows = (r: SelectionDefinitions) =>
  r.definitions.map((d) => `${d.path}:${d.startLine}-${d.endLine} ${d.as} ${d.symbol} <- ${d.usedBy}`);

describe('codeIntel / definitions: every use resolved where it is', function () {
  this.timeout(60_000);
  const ws = new CodeIntelWorkspace(MISSES);
  const all = definitionsForSelection(ws, SELECTION, { budgetTokens: 100_000, countTokens: count }) as SelectionDefinitions;
  const has = (row: string) => assert.ok(rows(all).includes(row), `${row} not in\n${rows(all).join('\n')}`);

  it('finds every occurrence with what it is a member of: keywords as members, not bare; declared names and keys left out only bare', () => {
    const occ = identifierOccurrences(MISSES['src/cache.ts'].split('\n').slice(13, 20).join('\n'), 14).map(
      (o) => `${o.receiver ? `${o.receiver}.` : ''}${o.name}${o.called ? '()' : ''}@${o.line}:${o.column}`,
    );
    assert.deepEqual(occ, [
      'hasNext()@14:3',
      'options@14:11',
      'Options@14:20',
      'Store@14:36',
      'options@15:23',
      'options.staleTime@15:31',
      'this.options@16:23',
      'this.options.type@16:31',
      'this.store@17:23',
      'this.store.get()@17:29',
      'super.load()@18:26',
      'hasNext()@19:12',
      'other@19:53',
    ]);
  });

  it('a method’s own name does not hide the imported function of the same name it calls', () => {
    has('src/paging.ts:1-3 excerpt hasNext <- hasNext');
  });

  it('a local of the selection does not hide a member of the same name (`const staleTime` and `options.staleTime`)', () => {
    has('src/options.ts:2-3 excerpt staleTime, type <- staleTime');
  });

  it('names on the keyword list are followed when they are members (`this.options.type`, `this.store.get`)', () => {
    assert.ok(rows(all).some((r) => r.startsWith('src/options.ts:2-3 ') && r.includes('type')));
    has('src/store.ts:38-40 excerpt get <- get');
  });

  it('`this.options` is the class’s property, not the parameter `options`', () => {
    has('src/cache.ts:7-8 excerpt options, store <- options');
  });

  it('`super.load()` is followed to the base class’s method', () => {
    has('src/base.ts:2-4 excerpt load <- load');
  });

  it('a class used only by name is its outline: the header and each member’s first line, not the body', () => {
    has('src/store.ts:1-41 outline Store <- Store');
    const store = all.definitions.find((d) => d.symbol === 'Store')!;
    assert.equal(store.headerEndLine, 1);
    assert.equal(store.input.kind === 'tool' && store.input.tool, 'get_outline');
    assert.equal(
      store.input.content,
      [
        'export class Store {',
        ...Array.from({ length: 12 }, (_, i) => `  L${2 + 3 * i}-L${4 + 3 * i}: part${i}(n: number): number {`),
        '  L38-L40: get(key: string): string {',
        '[Outline of class Store, src/store.ts L1-L41: call read_file with path "src/store.ts", startLine and endLine to read a member\'s lines.]',
      ].join('\n'),
    );
  });

  it('a member used stays its own item when its class does not fit the budget; what did not fit is listed with why', () => {
    const members = all.definitions.filter((d) => d.as !== 'outline');
    const budget = members.reduce((n, d) => n + d.tokens, 0);
    const r = definitionsForSelection(ws, SELECTION, { budgetTokens: budget, countTokens: count }) as SelectionDefinitions;
    assert.deepEqual(
      rows(r),
      rows(all).filter((x) => !x.includes(' outline ')),
    );
    assert.ok(rows(r).includes('src/store.ts:38-40 excerpt get <- get'));
    const outlines = all.definitions.filter((d) => d.as === 'outline');
    assert.deepEqual(
      r.skippedForBudget.map((s) => `${s.path}:${s.startLine}-${s.endLine} ${s.symbol} ${s.tokens}: ${s.reason}`),
      outlines.map(
        (d) => `${d.path}:${d.startLine}-${d.endLine} ${d.symbol} ${d.tokens}: ${d.tokens} tokens, 0 left of the ${budget}-token budget`,
      ),
    );
  });
});
