/** `read_file`: a text file of the workspace, or some of its lines, through the attachments' isolation. */
import { lineSpans, sliceLines, type NewArtifactInput } from '../../engine/artifacts';
import { wait, type Step } from '../../common/steps';
import {
  nonWorkspacePath,
  optional,
  plural,
  rangeSummary,
  refusal,
  stringArg,
  type ToolContext,
  type ToolOutput,
  type ToolSpec,
} from './toolSpec';

export interface ReadFileArgs {
  name: 'read_file';
  path: string;
  startLine?: number;
  endLine?: number;
}

function* run(ctx: ToolContext, { path, startLine, endLine }: ReadFileArgs, signal?: AbortSignal): Step<ToolOutput> {
  const scheme = nonWorkspacePath('read_file', path);
  if (scheme) return scheme;
  const r = yield* wait(ctx.port.resolve({ kind: 'file', path }, signal));
  if (!r.ok) return refusal('read_file', r.rejection);
  const file = r.input;
  const content = file.content;
  const whole = { id: `file:${file.uri}`, content };
  const ranged = startLine !== undefined || endLine !== undefined;
  if (!ranged) {
    const cut = ctx.fit(content, 1);
    if (!cut) return { kind: 'artifact', input: file };
    return { kind: 'artifact', input: { kind: 'tool', uri: file.uri, range: cut.range, content: cut.content }, whole, note: cut.note };
  }
  const total = lineSpans(content).length;
  const from = startLine ?? 1;
  if (from > total)
    return { kind: 'text', text: `read_file: ${file.uri} has ${plural(total, 'line')}; startLine ${from} is past its end.` };
  const slice = sliceLines(content, { startLine: from, endLine: endLine ?? total })!;
  const cut = ctx.fit(slice.content, from, total);
  const range = cut ? cut.range : slice.range;
  const input: NewArtifactInput = { kind: 'tool', uri: file.uri, range, content: cut ? cut.content : slice.content };
  const out: ToolOutput = { kind: 'artifact', input, whole };
  if (cut) out.note = cut.note;
  else if (endLine !== undefined && slice.range.endLine < endLine) out.note = `[${file.uri} ends at line ${total}.]`;
  return out;
}

export const readFileTool: ToolSpec<ReadFileArgs> = {
  name: 'read_file',
  definition: {
    name: 'read_file',
    description:
      'Read a text file of the workspace (the editor\'s unsaved text when it is open). Paths are workspace-relative with "/" separators. ' +
      'Optionally only lines startLine..endLine (1-based, inclusive). Large results are cut with a note saying where; excluded, binary, too large and outside-workspace paths are refused. ' +
      'A file already in this conversation unchanged comes back as a reference to its block.',
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'Workspace-relative path, e.g. src/index.ts' },
        startLine: { type: 'integer', minimum: 1, description: 'First line to read (1-based)' },
        endLine: { type: 'integer', minimum: 1, description: 'Last line to read (inclusive)' },
      },
      required: ['path'],
      additionalProperties: false,
    },
  },
  icon: 'file-code',
  parse(args) {
    const out: ReadFileArgs = { name: 'read_file', path: args.path as string };
    const s = optional<number>(args, 'startLine');
    const e = optional<number>(args, 'endLine');
    if (s !== undefined) out.startLine = s;
    if (e !== undefined) out.endLine = e;
    if (s !== undefined && e !== undefined && e < s) return 'read_file: endLine must not be before startLine.';
    return out;
  },
  label(a) {
    const range = a.startLine !== undefined || a.endLine !== undefined ? `:${a.startLine ?? 1}-${a.endLine ?? ''}` : '';
    return `read_file ${stringArg(a, 'path') ?? '?'}${range}`;
  },
  run,
  summary: rangeSummary,
};
