/** `get_outline`: a file's symbols from the editor's language support, nested, with line ranges. */
import { wait, type Step } from '../../common/steps';
import { renderOutline } from '../codeIntel/outline';
import { codeIntelOf } from './codeToolParts';
import { nonWorkspacePath, plural, refusal, stringArg, type ToolContext, type ToolOutput, type ToolSpec } from './toolSpec';

export interface GetOutlineArgs {
  name: 'get_outline';
  path: string;
}

function* run(ctx: ToolContext, { path }: GetOutlineArgs, signal?: AbortSignal): Step<ToolOutput> {
  const port = codeIntelOf(ctx, 'get_outline');
  if ('kind' in port) return port;
  const bad = nonWorkspacePath('get_outline', path);
  if (bad) return bad;
  const r = yield* wait(port.resolve({ kind: 'file', path }, signal));
  if (!r.ok) return refusal('get_outline', r.rejection);
  const uri = r.input.uri;
  const symbols = yield* wait(port.outline(uri, signal));
  if (!symbols)
    return {
      kind: 'text',
      text: `get_outline: no outline for ${uri}: no language support in the editor knows its language; read_file reads it.`,
    };
  if (symbols.length === 0) return { kind: 'text', text: `get_outline: ${uri} has no symbols.` };
  const text = renderOutline(uri, symbols);
  const lines = text.split('\n');
  const fitted = ctx.fitLines(lines.slice(0, -1), String(lines.length - 1));
  const out: ToolOutput = {
    kind: 'artifact',
    input: { kind: 'tool', uri, content: fitted.note ? `${fitted.text}\n${lines[lines.length - 1]}` : text },
  };
  if (fitted.note) out.note = fitted.note;
  return out;
}

export const getOutlineTool: ToolSpec<GetOutlineArgs> = {
  name: 'get_outline',
  definition: {
    name: 'get_outline',
    description:
      "The outline of a workspace file from the editor's language support: its symbols with kinds, signatures and line ranges, nested. " +
      'Structure for a fraction of the tokens of the file; read a symbol with read_file and its lines.',
    parameters: {
      type: 'object',
      properties: { path: { type: 'string', description: 'Workspace-relative path, e.g. src/index.ts' } },
      required: ['path'],
      additionalProperties: false,
    },
  },
  icon: 'symbol-class',
  parse: (args) => ({ name: 'get_outline', path: args.path as string }),
  label: (a) => `get_outline ${stringArg(a, 'path') ?? '?'}`,
  run,
  summary: ({ input, lines, cut }) => `${input.uri}, ${plural(lines - 1, 'symbol')}${cut}`,
};
