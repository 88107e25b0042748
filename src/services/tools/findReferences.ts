/** `find_references`: where the symbol used at a line is referenced, each with its line of text. */
import { sliceLines } from '../../engine/artifacts';
import { wait, type Step } from '../../common/steps';
import { codeIntelOf, locate, MAX_CODE_RESULTS, parseSymbolAt, SYMBOL_AT, symbolAtLabel, type SymbolAtArgs } from './codeToolParts';
import { plural, type ToolContext, type ToolOutput, type ToolSpec } from './toolSpec';

/** A reference's line of text is cut to this many characters. */
const MAX_REFERENCE_LINE_CHARS = 200;

export type FindReferencesArgs = SymbolAtArgs<'find_references'>;

function* run(ctx: ToolContext, args: FindReferencesArgs, signal?: AbortSignal): Step<ToolOutput> {
  const port = codeIntelOf(ctx, 'find_references');
  if ('kind' in port) return port;
  const { line, symbol } = args;
  const at = yield* locate(port, 'find_references', args, signal);
  if ('kind' in at) return at;
  const locs = yield* wait(port.references(at.uri, line, at.column, signal));
  const texts = new Map<string, string | null>();
  const lines: string[] = [];
  let hidden = 0;
  let more = false;
  for (const loc of locs) {
    if (signal?.aborted) break;
    if (!texts.has(loc.path)) {
      const r = yield* wait(port.resolve({ kind: 'file', path: loc.path }, signal));
      texts.set(loc.path, r.ok ? r.input.content : null);
    }
    const content = texts.get(loc.path);
    if (content === null || content === undefined) {
      hidden++;
      continue;
    }
    if (lines.length >= MAX_CODE_RESULTS) {
      more = true;
      continue;
    }
    let text = sliceLines(content, { startLine: loc.line, endLine: loc.line })?.content.trim() ?? '';
    if (text.length > MAX_REFERENCE_LINE_CHARS) text = `${text.slice(0, MAX_REFERENCE_LINE_CHARS)}…`;
    lines.push(`${loc.path}:${loc.line}: ${text}`);
  }
  const left = hidden > 0 ? `; ${hidden} in files that cannot be read (excluded, binary, too large) left out` : '';
  if (lines.length === 0) return { kind: 'text', text: `find_references: no reference to ${symbol} found in the workspace${left}.` };
  const fitted = ctx.fitLines(lines, more ? `more than ${MAX_CODE_RESULTS}` : String(lines.length));
  const notes: string[] = [];
  if (fitted.note) notes.push(fitted.note);
  else if (more) notes.push(`[the first ${MAX_CODE_RESULTS} references; search_text finds the rest.]`);
  if (hidden > 0) notes.push(`[${hidden} ${hidden === 1 ? 'reference' : 'references'} in files that cannot be read left out.]`);
  const out: ToolOutput = {
    kind: 'artifact',
    input: { kind: 'tool', uri: `find_references ${symbol} at ${at.uri}:${line}`, content: fitted.text },
  };
  if (notes.length > 0) out.note = notes.join('\n');
  return out;
}

export const findReferencesTool: ToolSpec<FindReferencesArgs> = {
  name: 'find_references',
  definition: {
    name: 'find_references',
    description:
      'Where the symbol used at a line is referenced across the workspace (its declaration included), each with its line of text; at most 50.',
    parameters: { type: 'object', properties: SYMBOL_AT, required: ['path', 'line', 'symbol'], additionalProperties: false },
  },
  icon: 'references',
  parse: (args) => parseSymbolAt('find_references', args),
  label: (a) => symbolAtLabel('find_references', a),
  run,
  summary: ({ lines, cut }) => `${plural(lines, 'reference')}${cut}`,
};
