/** `search_text`: a literal string in the workspace's files, optionally those matching a glob. */
import { lineSpans } from '../../engine/artifacts';
import { globProblem } from '../../common/glob';
import { wait, type Step } from '../../common/steps';
import { normalizeGlob, optional, plural, stringArg, type ToolContext, type ToolOutput, type ToolSpec } from './toolSpec';

export interface SearchTextArgs {
  name: 'search_text';
  query: string;
  glob?: string;
}

function* run(ctx: ToolContext, { query, glob }: SearchTextArgs, signal?: AbortSignal): Step<ToolOutput> {
  const pattern = glob ? normalizeGlob(glob) : '**/*';
  const problem = globProblem(pattern);
  if (problem) return { kind: 'text', text: `search_text: ${problem}`, refused: 'invalid-arguments' };
  const lim = ctx.limits;
  const listing = yield* wait(ctx.port.listFiles(pattern, lim.maxSearchFiles, signal));
  const smartCase = query === query.toLowerCase();
  const needle = smartCase ? query.toLowerCase() : query;
  const matches: string[] = [];
  let skipped = 0;
  let searched = 0;
  let moreMatches = false;
  for (const path of listing.paths) {
    if (signal?.aborted) break;
    const r = yield* wait(ctx.port.resolve({ kind: 'file', path }, signal));
    if (!r.ok) {
      skipped++;
      continue;
    }
    const text = r.input.content;
    if (text.length > lim.maxSearchFileChars) {
      skipped++;
      continue;
    }
    searched++;
    const hay = smartCase ? text.toLowerCase() : text;
    if (!hay.includes(needle)) continue;
    const spans = lineSpans(text);
    for (let i = 0; i < spans.length; i++) {
      const [s, e] = spans[i];
      if (!hay.slice(s, e).includes(needle)) continue;
      if (matches.length >= lim.maxSearchMatches) {
        moreMatches = true;
        break;
      }
      let line = text.slice(s, e);
      if (line.length > lim.maxMatchLineChars) line = `${line.slice(0, lim.maxMatchLineChars)}…`;
      matches.push(`${r.input.uri}:${i + 1}: ${line}`);
    }
    if (moreMatches) break;
  }
  const scope = glob ? ` in ${pattern}` : '';
  const facts = [`${plural(searched, 'file')} searched`];
  if (skipped > 0) facts.push(`${plural(skipped, 'file')} skipped (excluded, binary, too large or unreadable)`);
  if (listing.more) facts.push(`only the first ${plural(lim.maxSearchFiles, 'file')} matching the glob were searched`);
  if (matches.length === 0)
    return { kind: 'text', text: `search_text: no match for ${JSON.stringify(query)}${scope} (${facts.join('; ')}).` };
  const total = moreMatches ? `more than ${lim.maxSearchMatches}` : String(matches.length);
  const fitted = ctx.fitLines(matches, total);
  const notes: string[] = [];
  if (fitted.note) notes.push(fitted.note);
  else if (moreMatches)
    notes.push(`[truncated at line ${lim.maxSearchMatches} of ${total} matches: narrow the query or the glob to see the rest.]`);
  notes.push(`[${facts.join('; ')}.]`);
  return {
    kind: 'artifact',
    input: { kind: 'tool', uri: `search_text ${JSON.stringify(query)}${scope}`, content: fitted.text },
    note: notes.join('\n'),
  };
}

export const searchTextTool: ToolSpec<SearchTextArgs> = {
  name: 'search_text',
  definition: {
    name: 'search_text',
    description:
      'Search the text of workspace files for a literal string (case-insensitive unless the query has an upper-case letter), optionally only in files matching a glob. ' +
      'Returns path:line: text lines, at most 50 matches.',
    parameters: {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'Literal text to find' },
        glob: { type: 'string', description: 'Only search files matching this glob' },
      },
      required: ['query'],
      additionalProperties: false,
    },
  },
  icon: 'search',
  parse(args) {
    const g = optional<string>(args, 'glob');
    return g !== undefined
      ? { name: 'search_text', query: args.query as string, glob: g }
      : { name: 'search_text', query: args.query as string };
  },
  label: (a) => `search_text ${JSON.stringify(stringArg(a, 'query') ?? '')}${stringArg(a, 'glob') ? ` in ${stringArg(a, 'glob')}` : ''}`,
  run,
  summary: ({ lines, cut }) => `${plural(lines, 'match', 'matches')}${cut}`,
};
