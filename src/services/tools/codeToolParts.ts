/**
 * What the code-intelligence tools (`get_outline`, `find_symbol`, `get_definition`,
 * `find_references`) share. Read-only, over the same port and isolation as the workspace tools:
 * every file they show anything of passes `resolve` or `recheck` first (a symbol, a reference or a
 * definition in an excluded file is left out or refused, never shown), and what they return is an
 * artifact like `read_file`'s. The answers come from the port's `CodeIntelPort` (the editor's
 * language features, or the replay's TypeScript service); these tools are offered only when the
 * port has it.
 */
import { sliceLines } from '../../engine/artifacts';
import { wait, type Step } from '../../common/steps';
import { isCodeIntelPort, type CodeIntelPort } from '../codeIntel/codeIntelPort';
import { columnOf } from '../codeIntel/identifiers';
import type { ToolWorkspacePort } from './toolPort';
import { nonWorkspacePath, refusal, stringArg, type JsonSchema, type ToolContext, type ToolName, type ToolOutput } from './toolSpec';

/** Symbols and references listed at most. */
export const MAX_CODE_RESULTS = 50;

/** The parameters of the tools that take a symbol where it is used. */
export const SYMBOL_AT: Record<string, JsonSchema> = {
  path: { type: 'string', description: 'Workspace-relative path of the file where the symbol is used' },
  line: { type: 'integer', minimum: 1, description: 'The 1-based line the symbol is on' },
  symbol: { type: 'string', description: 'The name as written on that line' },
};

export interface SymbolAtArgs<N extends ToolName> {
  name: N;
  path: string;
  line: number;
  symbol: string;
}

export function parseSymbolAt<N extends ToolName>(name: N, args: Record<string, unknown>): SymbolAtArgs<N> {
  return { name, path: args.path as string, line: args.line as number, symbol: args.symbol as string };
}

export function symbolAtLabel(name: ToolName, a: Record<string, unknown>): string {
  return `${name} ${stringArg(a, 'symbol') ?? '?'} at ${stringArg(a, 'path') ?? '?'}:${typeof a.line === 'number' ? a.line : '?'}`;
}

/** The port with code intelligence, or the answer of a workspace without it. */
export function codeIntelOf(ctx: ToolContext, tool: ToolName): (ToolWorkspacePort & CodeIntelPort) | ToolOutput {
  const port = ctx.port;
  if (!isCodeIntelPort(port))
    return { kind: 'text', text: `${tool}: no code intelligence in this workspace; use search_text and read_file.` };
  return port;
}

/** The column of `symbol` on `line` of `path` once the file passed isolation, or the output that says why not. */
export function* locate(
  port: ToolWorkspacePort,
  tool: string,
  { path, line, symbol }: { path: string; line: number; symbol: string },
  signal?: AbortSignal,
): Step<{ uri: string; column: number } | ToolOutput> {
  const bad = nonWorkspacePath(tool, path);
  if (bad) return bad;
  const r = yield* wait(port.resolve({ kind: 'file', path }, signal));
  if (!r.ok) return refusal(tool, r.rejection);
  const text = sliceLines(r.input.content, { startLine: line, endLine: line });
  if (!text || text.range.endLine !== line) return { kind: 'text', text: `${tool}: ${r.input.uri} has no line ${line}.` };
  const column = columnOf(text.content, symbol);
  if (column === undefined)
    return {
      kind: 'text',
      text: `${tool}: ${JSON.stringify(symbol)} is not on line ${line} of ${r.input.uri}: ${JSON.stringify(text.content.trim().slice(0, 120))}.`,
    };
  return { uri: r.input.uri, column };
}
