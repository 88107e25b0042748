/**
 * The workspace tools the model may call: read-only, no approval needed, each through the
 * same workspace isolation as attachments. Names, descriptions and JSON schemas are sent
 * to the provider once per request, in this order and byte for byte the same in every request of a
 * chat (they are part of the cached prefix).
 */

export const TOOL_NAMES = ['read_file', 'list_files', 'search_text', 'get_diagnostics', 'get_selection'] as const;
/** The code-intelligence tools, offered only when the workspace answers code-intelligence calls (`toolDefinitionsFor`). */
export const CODE_TOOL_NAMES = ['get_outline', 'find_symbol', 'get_definition', 'find_references'] as const;
export type ToolName = (typeof TOOL_NAMES)[number] | (typeof CODE_TOOL_NAMES)[number];

import type { ToolCall } from '../../engine/types';
import { isCodeIntelPort } from '../codeIntel/codeIntelPort';

export type { ToolCall };

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

export const TOOL_DEFINITIONS: readonly ToolDefinition[] = [
  {
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
  {
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
  {
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
  {
    name: 'get_diagnostics',
    description:
      'Errors and warnings the editor reports (compiler, linter) for one workspace file, or for every file when no path is given.',
    parameters: {
      type: 'object',
      properties: { path: { type: 'string', description: 'Workspace-relative path; omit for all files' } },
      additionalProperties: false,
    },
  },
  {
    name: 'get_selection',
    description: 'The text the user has selected in the active editor right now, with its path and line numbers.',
    parameters: { type: 'object', properties: {}, additionalProperties: false },
  },
];

const SYMBOL_AT: Record<string, JsonSchema> = {
  path: { type: 'string', description: 'Workspace-relative path of the file where the symbol is used' },
  line: { type: 'integer', minimum: 1, description: 'The 1-based line the symbol is on' },
  symbol: { type: 'string', description: 'The name as written on that line' },
};

export const CODE_TOOL_DEFINITIONS: readonly ToolDefinition[] = [
  {
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
  {
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
  {
    name: 'get_definition',
    description:
      'Where the symbol used at a line is defined, with its declaration (the enclosing function, type or class) as the editor resolves it, path aliases included.',
    parameters: { type: 'object', properties: SYMBOL_AT, required: ['path', 'line', 'symbol'], additionalProperties: false },
  },
  {
    name: 'find_references',
    description:
      'Where the symbol used at a line is referenced across the workspace (its declaration included), each with its line of text; at most 50.',
    parameters: { type: 'object', properties: SYMBOL_AT, required: ['path', 'line', 'symbol'], additionalProperties: false },
  },
];

/** Every tool the executor knows: the workspace tools, then the code-intelligence tools. */
export const ALL_TOOL_DEFINITIONS: readonly ToolDefinition[] = [...TOOL_DEFINITIONS, ...CODE_TOOL_DEFINITIONS];

/**
 * The tools offered over a workspace: the code-intelligence tools only when it answers
 * code-intelligence calls (the editor's port, the replay's code-intelligence workspace). A chat's
 * tools stay the same from request to request (they are part of the cached prefix) because a
 * window's port does not change.
 */
export function toolDefinitionsFor(port: object): readonly ToolDefinition[] {
  return isCodeIntelPort(port) ? ALL_TOOL_DEFINITIONS : TOOL_DEFINITIONS;
}

export function isToolName(name: string): name is ToolName {
  return (TOOL_NAMES as readonly string[]).includes(name) || (CODE_TOOL_NAMES as readonly string[]).includes(name);
}

export type ParsedToolArgs =
  | { name: 'read_file'; path: string; startLine?: number; endLine?: number }
  | { name: 'list_files'; glob: string }
  | { name: 'search_text'; query: string; glob?: string }
  | { name: 'get_diagnostics'; path?: string }
  | { name: 'get_selection' }
  | { name: 'get_outline'; path: string }
  | { name: 'find_symbol'; query: string }
  | { name: 'get_definition' | 'find_references'; path: string; line: number; symbol: string };

/**
 * Checks a call's arguments against its tool's schema. Returns the parsed arguments, or a sentence
 * for the model saying what is wrong (unknown tool, missing or mistyped argument, unknown argument).
 */
export function parseToolArgs(call: Pick<ToolCall, 'name' | 'args'>): ParsedToolArgs | string {
  const def = ALL_TOOL_DEFINITIONS.find((d) => d.name === call.name);
  if (!def) return `There is no tool named ${JSON.stringify(call.name)}; the tools are ${TOOL_NAMES.join(', ')}.`;
  const args = call.args;
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return `${call.name}: the arguments must be a JSON object.`;
  if (typeof args.__invalid_json__ === 'string')
    return `${call.name}: the arguments are not a JSON object: ${JSON.stringify(args.__invalid_json__.slice(0, 200))}.`;
  const props = def.parameters.properties ?? {};
  // Own properties only: `constructor` or `__proto__` are not arguments of any tool.
  for (const k of Object.keys(args))
    if (!Object.hasOwn(props, k))
      return `${call.name}: unknown argument ${JSON.stringify(k)} (it takes ${Object.keys(props).join(', ') || 'no arguments'}).`;
  for (const k of def.parameters.required ?? [])
    if (args[k] === undefined || args[k] === null) return `${call.name}: the argument ${JSON.stringify(k)} is required.`;
  for (const [k, schema] of Object.entries(props)) {
    const v = args[k];
    if (v === undefined || v === null) continue;
    if (schema.type === 'string' && (typeof v !== 'string' || v.length === 0)) return `${call.name}: ${k} must be a non-empty string.`;
    if (schema.type === 'integer' && (typeof v !== 'number' || !Number.isInteger(v) || v < (schema.minimum ?? Number.MIN_SAFE_INTEGER))) {
      return `${call.name}: ${k} must be an integer${schema.minimum !== undefined ? ` ≥ ${schema.minimum}` : ''}.`;
    }
  }
  const opt = <T>(k: string): T | undefined => (args[k] === null ? undefined : (args[k] as T | undefined));
  switch (def.name) {
    case 'read_file': {
      const out: ParsedToolArgs = { name: 'read_file', path: args.path as string };
      const s = opt<number>('startLine');
      const e = opt<number>('endLine');
      if (s !== undefined) out.startLine = s;
      if (e !== undefined) out.endLine = e;
      if (s !== undefined && e !== undefined && e < s) return 'read_file: endLine must not be before startLine.';
      return out;
    }
    case 'list_files':
      return { name: 'list_files', glob: args.glob as string };
    case 'search_text': {
      const g = opt<string>('glob');
      return g !== undefined
        ? { name: 'search_text', query: args.query as string, glob: g }
        : { name: 'search_text', query: args.query as string };
    }
    case 'get_diagnostics': {
      const p = opt<string>('path');
      return p !== undefined ? { name: 'get_diagnostics', path: p } : { name: 'get_diagnostics' };
    }
    case 'get_selection':
      return { name: 'get_selection' };
    case 'get_outline':
      return { name: 'get_outline', path: args.path as string };
    case 'find_symbol':
      return { name: 'find_symbol', query: args.query as string };
    case 'get_definition':
    case 'find_references':
      return { name: def.name, path: args.path as string, line: args.line as number, symbol: args.symbol as string };
  }
}

/** A short label of a call for the panel and the log: `read_file src/a.ts:1-40`. */
export function callLabel(call: Pick<ToolCall, 'name' | 'args'>): string {
  const a = call.args ?? {};
  const s = (k: string) => (typeof a[k] === 'string' ? (a[k] as string) : undefined);
  switch (call.name) {
    case 'read_file': {
      const range = a.startLine !== undefined || a.endLine !== undefined ? `:${a.startLine ?? 1}-${a.endLine ?? ''}` : '';
      return `read_file ${s('path') ?? '?'}${range}`;
    }
    case 'list_files':
      return `list_files ${s('glob') ?? '?'}`;
    case 'search_text':
      return `search_text ${JSON.stringify(s('query') ?? '')}${s('glob') ? ` in ${s('glob')}` : ''}`;
    case 'get_diagnostics':
      return `get_diagnostics ${s('path') ?? '(all files)'}`;
    case 'get_outline':
      return `get_outline ${s('path') ?? '?'}`;
    case 'find_symbol':
      return `find_symbol ${JSON.stringify(s('query') ?? '')}`;
    case 'get_definition':
    case 'find_references':
      return `${call.name} ${s('symbol') ?? '?'} at ${s('path') ?? '?'}:${typeof a.line === 'number' ? a.line : '?'}`;
    default:
      return call.name;
  }
}
