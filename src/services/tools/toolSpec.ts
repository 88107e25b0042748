/**
 * What one workspace tool is: the shape every file of this folder fills (`readFile.ts`,
 * `listFiles.ts`, …) and the registry (`definitions.ts`) types against, so adding a tool means one
 * new file and one registry entry, and the compiler asks for each part. The helpers here are the
 * ones every tool's run shares: refusals, paths that are not the workspace's, globs, counts.
 */
import type { NewArtifactInput } from '../../engine/artifacts';
import type { Rejection } from '../../engine/isolation';
import type { Step } from '../../common/steps';
import type { ToolWorkspacePort } from './toolPort';

/** The workspace tools, in the order they are offered (part of the cached prefix). */
export const TOOL_NAMES = ['read_file', 'list_files', 'search_text', 'get_diagnostics', 'get_selection'] as const;
/** The code-intelligence tools, offered only when the workspace answers code-intelligence calls (`toolDefinitionsFor`). */
export const CODE_TOOL_NAMES = ['get_outline', 'find_symbol', 'get_definition', 'find_references'] as const;
export type ToolName = (typeof TOOL_NAMES)[number] | (typeof CODE_TOOL_NAMES)[number];

/** JSON schema subset used by the tool parameters. */
export interface JsonSchema {
  type: 'object' | 'string' | 'integer';
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean;
  minimum?: number;
}

export interface ToolDefinition {
  name: ToolName;
  description: string;
  parameters: JsonSchema;
}

/** What the model gets back for one call. */
export type ToolOutput =
  /** Content of the workspace: the engine turns it into a block or a reference. `note` follows it. */
  | {
      kind: 'artifact';
      input: NewArtifactInput;
      /**
       * A range of a file: the whole file's id and current content, so the engine can answer with a
       * reference when that exact version is already in the request.
       */
      whole?: { id: string; content: string };
      note?: string;
    }
  /** A refusal, an error in the arguments, or a result with nothing to show. */
  | { kind: 'text'; text: string; refused?: Rejection['reason'] | 'invalid-arguments' };

export interface ToolLimits {
  /** Tokens one result may take (`strata.tools.maxResultTokens`). */
  maxResultTokens: number;
  /** list_files: paths listed at most. */
  maxListEntries: number;
  /** search_text: matches returned at most. */
  maxSearchMatches: number;
  /** search_text: files read at most. */
  maxSearchFiles: number;
  /** search_text: files larger than this (characters) are not searched. */
  maxSearchFileChars: number;
  /** search_text: a matching line is cut to this many characters. */
  maxMatchLineChars: number;
}

/** Content cut to the per-call token budget at a line boundary. */
export interface FittedText {
  content: string;
  range: { startLine: number; endLine: number };
  note: string;
}

/** What a tool's run gets from the executor: the port, the limits and the budget cuts. */
export interface ToolContext {
  readonly port: ToolWorkspacePort;
  readonly limits: ToolLimits;
  /**
   * Cuts `text` (whose first line is line `first` of a file of `total` lines) to the per-call token
   * budget at a line boundary; undefined when it fits whole.
   */
  fit(text: string, first: number, total?: number): FittedText | undefined;
  /** Cuts a listing (one entry per line) to the token budget; the note counts entries. */
  fitLines(lines: string[], total: string): { text: string; note?: string };
}

/** An artifact result as its summary sees it: the input, its line count, and " (truncated)" or "". */
export interface SummaryFacts {
  input: NewArtifactInput;
  lines: number;
  cut: string;
}

/**
 * One tool, whole: what is sent to the provider, how a call's arguments become `A`, its short label,
 * how it runs, the panel's one-line summary of what it returned and the panel's codicon.
 */
export interface ToolSpec<A extends { name: ToolName }> {
  readonly name: A['name'];
  readonly definition: ToolDefinition & { name: A['name'] };
  /** A codicon name for the step in the panel. */
  readonly icon: string;
  /** The typed arguments of a call whose arguments passed the schema check, or a sentence saying what is wrong. */
  parse(args: Record<string, unknown>): A | string;
  /** A short label of a call, from its arguments as the model sent them (unchecked). */
  label(args: Record<string, unknown>): string;
  run(ctx: ToolContext, args: A, signal?: AbortSignal): Step<ToolOutput>;
  /** One line for the panel about an artifact result (text results are summarized by the executor). */
  summary(facts: SummaryFacts): string;
}

/** The argument `k` as the model sent it, a JSON null read as absent. */
export function optional<T>(args: Record<string, unknown>, k: string): T | undefined {
  return args[k] === null ? undefined : (args[k] as T | undefined);
}

/** The argument `k` when it is a string (labels read unchecked arguments). */
export function stringArg(args: Record<string, unknown>, k: string): string | undefined {
  return typeof args[k] === 'string' ? (args[k] as string) : undefined;
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
}

/** `uri, lines a-b` for a ranged result, `uri, N lines` for a whole file. */
export function rangeSummary({ input, lines, cut }: SummaryFacts): string {
  return `${input.uri}${input.range ? `, lines ${input.range.startLine}-${input.range.endLine}` : `, ${plural(lines, 'line')}`}${cut}`;
}

export function refusal(tool: string, r: Rejection): ToolOutput {
  return {
    kind: 'text',
    text: `${tool} refused (${r.reason}): ${r.message.replace(/ and was not attached\.$/, '; it was not read.').replace(/ was not attached\.$/, ' was not read.')}`,
    refused: r.reason,
  };
}

/**
 * Why a path a tool was given is not a workspace path, or undefined: `untitled:1` and any other
 * `scheme:` name an editor buffer or a resource outside the workspace folders. The user attaches
 * those (and `get_selection` reads the user's own selection); a tool never reads them.
 */
export function nonWorkspacePath(tool: string, path: string): ToolOutput | undefined {
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]+):/.exec(path);
  if (!scheme) return undefined;
  return {
    kind: 'text',
    text: `${tool} refused (outside-workspace): ${path} is not a file of the workspace (a ${scheme[1]}: resource); tools read only files inside this window's workspace folders.`,
    refused: 'outside-workspace',
  };
}

/** `glob` as a workspace-relative pattern ('/' separators, no leading `./` or `/`). */
export function normalizeGlob(glob: string): string {
  let g = glob.trim().replace(/\\/g, '/');
  while (g.startsWith('./')) g = g.slice(2);
  while (g.startsWith('/')) g = g.slice(1);
  return g.length === 0 ? '**/*' : g;
}
