/**
 * The stored form of a turn's request (what Regenerate runs again): snapshots keep their artifact
 * kind, so a definition (a `tool` range of its file) comes back as the same artifact, not as a selection.
 */
import * as assert from 'node:assert/strict';
import { makeArtifact, type NewArtifactInput } from '../../../../src/engine/artifacts';
import type { ChatState } from '../../../../src/engine/state';
import { sha256HexNode } from '../../../../src/services/nodeHasher';
import type { TurnMeta } from '../../../../src/services/store/chatStore';
import { turnMetaProblem } from '../../../../src/services/store/turnMetaCheck';
import { storedRequest, turnRequestFromStored, type TurnRequest } from '../../../../src/services/turn/turnRequest';

const hasher = { sha256Hex: sha256HexNode };

function stateWith(inputs: NewArtifactInput[]): ChatState {
  const entries = new Map(inputs.map((i, n) => [`k${n}`, { artifact: makeArtifact(i, 1, hasher) }]));
  return { turns: [{ userText: 'why', items: [] }], entries } as unknown as ChatState;
}

describe('turnRequest: the stored form Regenerate runs again', () => {
  const definition: NewArtifactInput = {
    kind: 'tool',
    tool: 'get_definition',
    uri: 'src/a.ts',
    range: { startLine: 3, endLine: 9 },
    content: 'function f() {}\n',
  };
  const selection: NewArtifactInput = { kind: 'selection', uri: 'src/b.ts', range: { startLine: 1, endLine: 2 }, content: 'f();\n' };

  it("keeps a snapshot's kind and tool: the regenerated artifact has the same id", () => {
    const req: TurnRequest = {
      userText: 'why',
      attachments: [
        { kind: 'snapshot', input: selection },
        { kind: 'snapshot', input: definition },
      ],
    };
    const stored = storedRequest(req, hasher);
    const back = turnRequestFromStored(stateWith([selection, definition]), 1, { request: stored } as unknown as TurnMeta, () => {});
    const inputs = back.attachments!.map((a) => (a.kind === 'snapshot' ? a.input : undefined));
    assert.deepEqual(
      inputs.map((i) => i && makeArtifact(i, 1, hasher).id),
      [makeArtifact(selection, 1, hasher).id, makeArtifact(definition, 1, hasher).id],
    );
    assert.equal(inputs[1]!.kind, 'tool');
    assert.equal(inputs[1]!.tool, 'get_definition');
    assert.equal(inputs[0]!.kind, 'selection');
    assert.equal('artifactKind' in stored.attachments[0], false, 'a selection is stored as before');
  });

  it('a stored snapshot of an unknown artifact kind makes the turn metadata invalid', () => {
    const meta = (artifactKind: string): unknown => ({
      turn: 1,
      attachments: [],
      pinned: [],
      detached: [],
      pruned: [],
      compacted: [],
      missing: [],
      request: { attachments: [{ kind: 'snapshot', uri: 'a.ts', contentHash: 'h', artifactKind, tool: 'get_definition' }] },
    });
    assert.equal(turnMetaProblem(meta('tool'), 1), undefined);
    assert.match(turnMetaProblem(meta('file'), 1) ?? '', /request/);
  });
});
