/** `list_files`: workspace paths matching a glob, excluded files left out. */
import { globProblem } from '../../common/glob';
import { wait, type Step } from '../../common/steps';
import { normalizeGlob, plural, stringArg, type ToolContext, type ToolOutput, type ToolSpec } from './toolSpec';

export interface ListFilesArgs {
  name: 'list_files';
  glob: string;
}

function* run(ctx: ToolContext, { glob }: ListFilesArgs, signal?: AbortSignal): Step<ToolOutput> {
  const pattern = normalizeGlob(glob);
  const problem = globProblem(pattern);
  if (problem) return { kind: 'text', text: `list_files: ${problem}`, refused: 'invalid-arguments' };
  const cap = ctx.limits.maxListEntries;
  const listing = yield* wait(ctx.port.listFiles(pattern, cap + 1, signal));
  const paths = listing.paths.slice(0, cap);
  if (paths.length === 0)
    return { kind: 'text', text: `list_files: no workspace file matches ${JSON.stringify(pattern)} (excluded files are never listed).` };
  const more = listing.more || listing.paths.length > cap;
  const total = more ? `more than ${cap}` : String(paths.length);
  const fitted = ctx.fitLines(paths, total);
  const note = fitted.note ?? (more ? `[truncated at line ${cap} of ${total}: narrow the glob to see the rest.]` : undefined);
  const out: ToolOutput = { kind: 'artifact', input: { kind: 'tool', uri: `list_files ${pattern}`, content: fitted.text } };
  if (note) out.note = note;
  return out;
}

export const listFilesTool: ToolSpec<ListFilesArgs> = {
  name: 'list_files',
  definition: {
    name: 'list_files',
    description:
      'List workspace files whose workspace-relative path matches a glob ("**" spans folders, "*" stays in one folder, {a,b} alternatives). Excluded files are not listed; long lists are cut.',
    parameters: {
      type: 'object',
      properties: { glob: { type: 'string', description: 'Glob such as src/**/*.ts or **/package.json' } },
      required: ['glob'],
      additionalProperties: false,
    },
  },
  icon: 'list-tree',
  parse: (args) => ({ name: 'list_files', glob: args.glob as string }),
  label: (a) => `list_files ${stringArg(a, 'glob') ?? '?'}`,
  run,
  summary: ({ lines, cut }) => `${plural(lines, 'file')}${cut}`,
};
