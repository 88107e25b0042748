/** `get_selection`: what the user has selected in the active editor, through the attachments' isolation. */
import type { NewArtifactInput } from '../../engine/artifacts';
import { wait, type Step } from '../../common/steps';
import { rangeSummary, refusal, type ToolContext, type ToolOutput, type ToolSpec } from './toolSpec';

export interface GetSelectionArgs {
  name: 'get_selection';
}

function* run(ctx: ToolContext): Step<ToolOutput> {
  const sel = yield* wait(ctx.port.selection());
  if (!sel) return { kind: 'text', text: 'get_selection: nothing is selected in the active editor.' };
  if (sel.outsideWorkspace)
    return {
      kind: 'text',
      text: `get_selection refused (outside-workspace): the active editor shows ${sel.path}, a file outside this window's workspace folders; it was not read.`,
      refused: 'outside-workspace',
    };
  const r = yield* wait(ctx.port.resolve({ kind: 'selection', path: sel.path, startLine: sel.startLine, endLine: sel.endLine }));
  if (!r.ok) return refusal('get_selection', r.rejection);
  const s = r.input;
  const cut = ctx.fit(s.content, s.range!.startLine);
  const input: NewArtifactInput = { kind: 'tool', uri: s.uri, range: cut ? cut.range : s.range, content: cut ? cut.content : s.content };
  const out: ToolOutput = { kind: 'artifact', input };
  if (cut)
    out.note = cut.note.replace(
      / Call read_file with startLine (\d+) to read on\./,
      ` Call read_file on ${s.uri} with startLine $1 to read on.`,
    );
  return out;
}
export const getSelectionTool: ToolSpec<GetSelectionArgs> = {
  name: 'get_selection',
  definition: {
    name: 'get_selection',
    description: 'The text the user has selected in the active editor right now, with its path and line numbers.',
    parameters: { type: 'object', properties: {}, additionalProperties: false },
  },
  icon: 'selection',
  parse: () => ({ name: 'get_selection' }),
  label: () => 'get_selection',
  run,
  summary: rangeSummary,
};
