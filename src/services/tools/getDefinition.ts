/** `get_definition`: where the symbol used at a line is defined, with its declaration's lines. */
import { lineSpans, sliceLines, type NewArtifactInput } from '../../engine/artifacts';
import { wait, type Step } from '../../common/steps';
import type { CodeLocation } from '../codeIntel/codeIntelPort';
import { enclosingSymbol } from '../codeIntel/outline';
import { codeIntelOf, locate, parseSymbolAt, SYMBOL_AT, symbolAtLabel, type SymbolAtArgs } from './codeToolParts';
import { refusal, type ToolContext, type ToolOutput, type ToolSpec } from './toolSpec';

export type GetDefinitionArgs = SymbolAtArgs<'get_definition'>;

function* run(ctx: ToolContext, args: GetDefinitionArgs, signal?: AbortSignal): Step<ToolOutput> {
  const port = codeIntelOf(ctx, 'get_definition');
  if ('kind' in port) return port;
  const { line, symbol } = args;
  const at = yield* locate(port, 'get_definition', args, signal);
  if ('kind' in at) return at;
  const locs = yield* wait(port.definitions(at.uri, line, at.column, signal));
  if (locs.length === 0)
    return {
      kind: 'text',
      text: `get_definition: no definition of ${symbol} in the workspace (it may come from a package or the standard library, or be unknown to the editor).`,
    };
  const loc = locs[0];
  const file = yield* wait(port.resolve({ kind: 'file', path: loc.path }, signal));
  if (!file.ok) return refusal('get_definition', file.rejection);
  const content = file.input.content;
  const symbols = yield* wait(port.outline(file.input.uri, signal));
  const decl = symbols ? enclosingSymbol(symbols, loc.line) : undefined;
  const range = decl
    ? { startLine: decl.startLine, endLine: decl.endLine }
    : { startLine: loc.line, endLine: Math.max(loc.line, loc.endLine ?? loc.line) };
  const slice = sliceLines(content, range);
  if (!slice) return { kind: 'text', text: `get_definition: ${file.input.uri} has no line ${range.startLine}.` };
  const total = lineSpans(content).length;
  const cut = ctx.fit(slice.content, slice.range.startLine, total);
  const input: NewArtifactInput = {
    kind: 'tool',
    uri: file.input.uri,
    range: cut ? cut.range : slice.range,
    content: cut ? cut.content : slice.content,
  };
  const notes = [
    `[${symbol} is defined at ${loc.path}:${loc.line}${decl ? `, in ${decl.kind} ${decl.name} (lines ${decl.startLine}-${decl.endLine})` : ''}.]`,
  ];
  if (cut) notes.push(cut.note);
  // The other definitions are named only when their files pass isolation: an excluded file's
  // path and line are not the model's to know.
  const others: CodeLocation[] = [];
  for (const l of locs.slice(1, 10)) {
    if (signal?.aborted) break;
    if (!(yield* wait(port.recheck(l.path, l.path)))) others.push(l);
  }
  if (others.length > 0) notes.push(`[Also defined at ${others.map((l) => `${l.path}:${l.line}`).join(', ')}.]`);
  return { kind: 'artifact', input, whole: { id: `file:${file.input.uri}`, content }, note: notes.join('\n') };
}

export const getDefinitionTool: ToolSpec<GetDefinitionArgs> = {
  name: 'get_definition',
  definition: {
    name: 'get_definition',
    description:
      'Where the symbol used at a line is defined, with its declaration (the enclosing function, type or class) as the editor resolves it, path aliases included.',
    parameters: { type: 'object', properties: SYMBOL_AT, required: ['path', 'line', 'symbol'], additionalProperties: false },
  },
  icon: 'go-to-file',
  parse: (args) => parseSymbolAt('get_definition', args),
  label: (a) => symbolAtLabel('get_definition', a),
  run,
  summary: ({ input, cut }) => `${input.uri}${input.range ? `, lines ${input.range.startLine}-${input.range.endLine}` : ''}${cut}`,
};
