/** `find_symbol`: workspace symbols by name, as "Go to Symbol in Workspace" finds them. */
import { wait, type Step } from '../../common/steps';
import { codeIntelOf, MAX_CODE_RESULTS } from './codeToolParts';
import { plural, stringArg, type ToolContext, type ToolOutput, type ToolSpec } from './toolSpec';

export interface FindSymbolArgs {
  name: 'find_symbol';
  query: string;
}

function* run(ctx: ToolContext, { query }: FindSymbolArgs, signal?: AbortSignal): Step<ToolOutput> {
  const port = codeIntelOf(ctx, 'find_symbol');
  if ('kind' in port) return port;
  const found = yield* wait(port.workspaceSymbols(query, MAX_CODE_RESULTS + 1, signal));
  const lines: string[] = [];
  let hidden = 0;
  for (const s of found.slice(0, MAX_CODE_RESULTS)) {
    const bad = yield* wait(port.recheck(s.path, s.path));
    if (bad) {
      hidden++;
      continue;
    }
    lines.push(`${s.path}:${s.line}: ${s.kind} ${s.container ? `${s.container}.` : ''}${s.name}`);
  }
  const facts = hidden > 0 ? ` (${hidden} in excluded files left out)` : '';
  if (lines.length === 0) return { kind: 'text', text: `find_symbol: no workspace symbol matches ${JSON.stringify(query)}${facts}.` };
  const more = found.length > MAX_CODE_RESULTS;
  const fitted = ctx.fitLines(lines, more ? `more than ${MAX_CODE_RESULTS}` : String(lines.length));
  const notes: string[] = [];
  if (fitted.note) notes.push(fitted.note);
  else if (more) notes.push(`[the first ${MAX_CODE_RESULTS} symbols: a longer query narrows the list.]`);
  if (hidden > 0) notes.push(`[${hidden} in excluded files left out.]`);
  const out: ToolOutput = {
    kind: 'artifact',
    input: { kind: 'tool', uri: `find_symbol ${JSON.stringify(query)}`, content: fitted.text },
  };
  if (notes.length > 0) out.note = notes.join('\n');
  return out;
}

export const findSymbolTool: ToolSpec<FindSymbolArgs> = {
  name: 'find_symbol',
  definition: {
    name: 'find_symbol',
    description:
      'Find symbols (functions, classes, types, …) by name across the workspace, as "Go to Symbol in Workspace" does; at most 50.',
    parameters: {
      type: 'object',
      properties: { query: { type: 'string', description: 'The name or part of it' } },
      required: ['query'],
      additionalProperties: false,
    },
  },
  icon: 'symbol-method',
  parse: (args) => ({ name: 'find_symbol', query: args.query as string }),
  label: (a) => `find_symbol ${JSON.stringify(stringArg(a, 'query') ?? '')}`,
  run,
  summary: ({ lines, cut }) => `${plural(lines, 'symbol')}${cut}`,
};
