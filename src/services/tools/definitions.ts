/**
 * The registry of the workspace tools the model may call: read-only, no approval needed, each
 * through the same workspace isolation as attachments. Each tool is one file of this folder (its
 * definition, argument parsing, label, run, summary and icon, see `toolSpec.ts`); the registry is
 * typed so that a name in `TOOL_NAMES` or `CODE_TOOL_NAMES` without its file does not compile.
 * Names, descriptions and JSON schemas are sent to the provider once per request, in this order and
 * byte for byte the same in every request of a chat (they are part of the cached prefix).
 */
import type { ToolCall } from '../../engine/types';
import { isCodeIntelPort } from '../codeIntel/codeIntelPort';
import { findReferencesTool } from './findReferences';
import { findSymbolTool } from './findSymbol';
import { getDefinitionTool } from './getDefinition';
import { getDiagnosticsTool } from './getDiagnostics';
import { getOutlineTool } from './getOutline';
import { getSelectionTool } from './getSelection';
import { listFilesTool } from './listFiles';
import { readFileTool } from './readFile';
import { searchTextTool } from './searchText';
import { CODE_TOOL_NAMES, TOOL_NAMES, type ToolDefinition, type ToolName, type ToolSpec } from './toolSpec';

export { CODE_TOOL_NAMES, TOOL_NAMES };
export type { JsonSchema, ToolDefinition, ToolName } from './toolSpec';
export type { ToolCall };

/** Every tool by name: a missing tool, or one filed under another's name, is a compile error. */
export const TOOLS = {
  read_file: readFileTool,
  list_files: listFilesTool,
  search_text: searchTextTool,
  get_diagnostics: getDiagnosticsTool,
  get_selection: getSelectionTool,
  get_outline: getOutlineTool,
  find_symbol: findSymbolTool,
  get_definition: getDefinitionTool,
  find_references: findReferencesTool,
} satisfies { [K in ToolName]: ToolSpec<{ name: K }> };

type ArgsOf<S> = S extends ToolSpec<infer A> ? A : never;
/** A tool's arguments once checked, by tool. */
export type ToolArgsMap = { [K in ToolName]: ArgsOf<(typeof TOOLS)[K]> };
/** A call's arguments once checked against its tool's schema. */
export type ParsedToolArgs = ToolArgsMap[ToolName];
/** The registry with each entry typed by its own arguments, for calls through a name. */
export const TOOL_SPECS: { readonly [K in ToolName]: ToolSpec<ToolArgsMap[K]> } = TOOLS;

export const TOOL_DEFINITIONS: readonly ToolDefinition[] = TOOL_NAMES.map((n) => TOOLS[n].definition);
export const CODE_TOOL_DEFINITIONS: readonly ToolDefinition[] = CODE_TOOL_NAMES.map((n) => TOOLS[n].definition);
/** Every tool the executor knows: the workspace tools, then the code-intelligence tools. */
export const ALL_TOOL_DEFINITIONS: readonly ToolDefinition[] = [...TOOL_DEFINITIONS, ...CODE_TOOL_DEFINITIONS];

/** The panel's codicon of each tool, sent to the panel when it opens. */
export function toolIcons(): Record<ToolName, string> {
  const out = {} as Record<ToolName, string>;
  for (const n of [...TOOL_NAMES, ...CODE_TOOL_NAMES]) out[n] = TOOLS[n].icon;
  return out;
}

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

/**
 * Checks a call's arguments against its tool's schema. Returns the parsed arguments, or a sentence
 * for the model saying what is wrong (unknown tool, missing or mistyped argument, unknown argument).
 */
export function parseToolArgs(call: Pick<ToolCall, 'name' | 'args'>): ParsedToolArgs | string {
  if (!isToolName(call.name)) return `There is no tool named ${JSON.stringify(call.name)}; the tools are ${TOOL_NAMES.join(', ')}.`;
  const def = TOOLS[call.name].definition;
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
  return TOOLS[call.name].parse(args);
}

/** A short label of a call for the panel and the log: `read_file src/a.ts:1-40`. */
export function callLabel(call: Pick<ToolCall, 'name' | 'args'>): string {
  return isToolName(call.name) ? TOOLS[call.name].label(call.args ?? {}) : call.name;
}
