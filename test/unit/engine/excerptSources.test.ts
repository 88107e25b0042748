/**
 * The code-intelligence tools' results name the files they came from, so the check before every
 * request can withdraw them: `find_references` and `find_symbol` lines (`path:line: text`, as
 * `search_text`'s) line by line, an outline as a whole with its file.
 */
import * as assert from 'node:assert/strict';
import { makeArtifact, type NewArtifactInput } from '../../../src/engine/artifacts';
import { excerptSources } from '../../../src/engine/excerptSources';
import type { ChatState } from '../../../src/engine/state';
import { sha256HexNode } from '../../../src/services/nodeHasher';

const hasher = { sha256Hex: sha256HexNode };

function state(inputs: (NewArtifactInput & { tool: string })[]): ChatState {
  const entries = new Map(
    inputs.map((i, n) => [`k${n}`, { artifact: makeArtifact(i, 1, hasher), key: `k${n}`, presence: 'present', tool: i.tool }]),
  );
  const latest = new Map(inputs.map((_, n) => [`id${n}`, `k${n}`]));
  return { entries, latest } as unknown as ChatState;
}

describe('excerptSources: code-intelligence results', () => {
  it('find_references and find_symbol lines name their files; an outline names its file', () => {
    const s = state([
      {
        kind: 'tool',
        tool: 'find_references',
        uri: 'find_references total at src/a.ts:3',
        content: 'src/a.ts:3: total()\n.env.ts:9: total()',
      },
      { kind: 'tool', tool: 'find_symbol', uri: 'find_symbol "Total"', content: 'src/b.ts:4: class Total' },
      { kind: 'tool', tool: 'get_outline', uri: 'src/c.ts', content: 'function f  L1-L3\n' },
    ]);
    const got = excerptSources(s).map((x) => ({ kind: x.kind, path: x.path, lines: x.lines }));
    assert.deepEqual(got, [
      { kind: 'lines', path: undefined, lines: [['src/a.ts'], ['.env.ts']] },
      { kind: 'lines', path: undefined, lines: [['src/b.ts']] },
      { kind: 'whole', path: 'src/c.ts', lines: undefined },
    ]);
  });
});
