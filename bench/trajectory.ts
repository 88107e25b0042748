/**
 * Trajectory format: loading, validation with clear messages, and the virtual workspace.
 */
import { isObj } from '../src/common/guards';
import type { LineRange } from '../src/engine/types';
import { MemoryWorkspace, type MemoryWorkspaceOptions } from '../src/services/memoryWorkspace';
import { CODE_TOOL_NAMES, parseToolArgs, TOOL_NAMES } from '../src/services/tools/definitions';
import type { DiagnosticInfo } from '../src/services/tools/toolPort';

export interface RepeatSpec {
  repeat: string;
  times: number;
}
export type FileValue = string | RepeatSpec;

export interface TrajectoryAttachment {
  file?: string;
  selection?: { file: string; startLine: number; endLine: number };
  /** `attach` only, with `file`: the file and what it imports, breadth first (code intelligence). */
  withImports?: true;
  /** `attach` only, with `selection`: the selection and the definitions of what it uses (code intelligence). */
  withDefinitions?: true;
  /** With `withImports`: import levels followed below the file (default 2). */
  depth?: number;
  /** With `withImports` or `withDefinitions`: the token budget of what is added (defaults 8,000 and 4,000). */
  budget?: number;
}

/** A tool call the model makes in a turn (a turn's `tools`). */
export interface TrajectoryToolCall {
  name: string;
  args: Record<string, unknown>;
}

/** A diagnostic the virtual editor reports (`get_diagnostics`); column defaults to 1. */
export interface TrajectoryDiagnostic {
  path: string;
  line: number;
  column?: number;
  severity: DiagnosticInfo['severity'];
  message: string;
  source?: string;
}

export interface TrajectoryTurn {
  user: string;
  attach?: TrajectoryAttachment[];
  pin?: TrajectoryAttachment[];
  unpin?: TrajectoryAttachment[];
  detach?: TrajectoryAttachment[];
  edits?: Record<string, FileValue | null>;
  /** The tool calls the model makes this turn, one model step each, before `reply`. */
  tools?: TrajectoryToolCall[];
  /** The user's selection in the editor from this turn on (`get_selection`); null: nothing selected. */
  selection?: { file: string; startLine: number; endLine: number } | null;
  /** The editor's diagnostics from this turn on (`get_diagnostics`). */
  diagnostics?: TrajectoryDiagnostic[];
  reply: string;
}

export interface TrajectoryModel {
  id: string;
  contextWindow: number;
  maxOutputTokens: number;
  encoding: 'o200k_base' | 'cl100k_base';
}

export interface Trajectory {
  name: string;
  model: TrajectoryModel;
  system: string;
  files: Record<string, FileValue>;
  turns: TrajectoryTurn[];
}

export class TrajectoryError extends Error {}

function fail(msg: string): never {
  throw new TrajectoryError(msg);
}

function checkFileValue(v: unknown, where: string, allowNull: boolean): void {
  if (typeof v === 'string') return;
  if (v === null && allowNull) return;
  if (isObj(v) && typeof v.repeat === 'string' && Number.isInteger(v.times) && (v.times as number) >= 0) {
    if ((v.repeat as string).length * (v.times as number) > 256 * 1024 * 1024) fail(`${where}: repeat expands past 256 MB`);
    return;
  }
  fail(`${where} must be a string${allowNull ? ', null' : ''} or {"repeat": "text", "times": N}`);
}

/** The code-intelligence options of an `attach` entry: `withImports` (+ depth, budget) on a file, `withDefinitions` (+ budget) on a selection. */
function checkCodeIntelForm(a: Record<string, unknown>, w: string): string[] {
  const opts = ['withImports', 'withDefinitions', 'depth', 'budget'].filter((k) => k in a);
  if (opts.length === 0) return [];
  if ('withImports' in a && a.withImports !== true) fail(`${w}.withImports must be true`);
  if ('withDefinitions' in a && a.withDefinitions !== true) fail(`${w}.withDefinitions must be true`);
  if (a.withImports && a.file === undefined) fail(`${w}: "withImports" goes with "file" ({"file": path, "withImports": true})`);
  if (a.withDefinitions && a.selection === undefined)
    fail(`${w}: "withDefinitions" goes with "selection" ({"selection": {...}, "withDefinitions": true})`);
  if (!a.withImports && !a.withDefinitions) fail(`${w}: "depth" and "budget" need "withImports" or "withDefinitions"`);
  if ('depth' in a) {
    if (!a.withImports) fail(`${w}.depth goes with "withImports"`);
    if (!Number.isInteger(a.depth) || (a.depth as number) < 0 || (a.depth as number) > 10)
      fail(`${w}.depth must be an integer from 0 to 10`);
  }
  if ('budget' in a && (!Number.isInteger(a.budget) || (a.budget as number) < 1)) fail(`${w}.budget must be a positive integer (tokens)`);
  return opts;
}

function checkAttachments(v: unknown, where: string, codeIntel = false): void {
  if (v === undefined) return;
  if (!Array.isArray(v)) fail(`${where} must be an array`);
  v.forEach((a, i) => {
    const w = `${where}[${i}]`;
    if (!isObj(a)) fail(`${w} must be an object with "file" or "selection"`);
    const forms = codeIntel ? checkCodeIntelForm(a, w) : [];
    const keys = Object.keys(a).filter((k) => !forms.includes(k));
    if (keys.length !== 1 || (keys[0] !== 'file' && keys[0] !== 'selection'))
      fail(
        `${w} must have exactly one of "file" or "selection"${codeIntel ? ' (with "withImports", "withDefinitions", "depth", "budget" as options)' : ''}`,
      );
    if (a.file !== undefined && typeof a.file !== 'string') fail(`${w}.file must be a string`);
    if (a.selection !== undefined) {
      const s = a.selection;
      if (!isObj(s) || typeof s.file !== 'string' || !Number.isInteger(s.startLine) || !Number.isInteger(s.endLine)) {
        fail(`${w}.selection must be {"file": string, "startLine": integer, "endLine": integer}`);
      }
      if ((s.startLine as number) < 1 || (s.endLine as number) < (s.startLine as number))
        fail(`${w}.selection needs 1 <= startLine <= endLine`);
    }
  });
}

function checkTools(v: unknown, where: string): void {
  if (v === undefined) return;
  if (!Array.isArray(v)) fail(`${where} must be an array of {"name", "args"}`);
  v.forEach((c, i) => {
    const w = `${where}[${i}]`;
    if (!isObj(c) || typeof c.name !== 'string' || !isObj(c.args)) fail(`${w} must be {"name": string, "args": object}`);
    const names: readonly string[] = [...TOOL_NAMES, ...CODE_TOOL_NAMES];
    if (!names.includes(c.name)) fail(`${w}.name must be one of ${names.join(', ')} (got ${JSON.stringify(c.name)})`);
    for (const k of Object.keys(c)) if (k !== 'name' && k !== 'args') fail(`${w} has an unknown field "${k}"`);
    const parsed = parseToolArgs({ name: c.name, args: c.args });
    if (typeof parsed === 'string') fail(`${w}: ${parsed}`);
  });
}

/** Validates parsed JSON as a trajectory; throws TrajectoryError saying what is wrong. */
export function validateTrajectory(raw: unknown): Trajectory {
  if (!isObj(raw)) fail('a trajectory must be a JSON object');
  if (typeof raw.name !== 'string' || raw.name.length === 0) fail('"name" must be a non-empty string');
  const m = raw.model;
  if (!isObj(m)) fail('"model" must be an object');
  if (typeof m.id !== 'string') fail('"model.id" must be a string');
  if (!Number.isInteger(m.contextWindow) || (m.contextWindow as number) <= 0) fail('"model.contextWindow" must be a positive integer');
  if (!Number.isInteger(m.maxOutputTokens) || (m.maxOutputTokens as number) < 0)
    fail('"model.maxOutputTokens" must be a non-negative integer');
  if ((m.maxOutputTokens as number) >= (m.contextWindow as number))
    fail('"model.maxOutputTokens" must be smaller than "model.contextWindow"');
  if (m.encoding !== 'o200k_base' && m.encoding !== 'cl100k_base') fail('"model.encoding" must be "o200k_base" or "cl100k_base"');
  if (typeof raw.system !== 'string') fail('"system" must be a string');
  if (!isObj(raw.files)) fail('"files" must be an object of path → content');
  for (const [p, v] of Object.entries(raw.files)) checkFileValue(v, `files[${JSON.stringify(p)}]`, false);
  if (!Array.isArray(raw.turns) || raw.turns.length === 0) fail('"turns" must be a non-empty array');
  raw.turns.forEach((t, i) => {
    const w = `turns[${i}]`;
    if (!isObj(t)) fail(`${w} must be an object`);
    if (typeof t.user !== 'string') fail(`${w}.user must be a string`);
    if (typeof t.reply !== 'string') fail(`${w}.reply must be a string`);
    for (const k of ['attach', 'pin', 'unpin', 'detach'] as const) checkAttachments(t[k], `${w}.${k}`, k === 'attach');
    if (t.edits !== undefined) {
      if (!isObj(t.edits)) fail(`${w}.edits must be an object of path → content | null`);
      for (const [p, v] of Object.entries(t.edits)) checkFileValue(v, `${w}.edits[${JSON.stringify(p)}]`, true);
    }
    checkTools(t.tools, `${w}.tools`);
    if (t.selection !== undefined && t.selection !== null) {
      const s = t.selection;
      if (
        !isObj(s) ||
        typeof s.file !== 'string' ||
        !Number.isInteger(s.startLine) ||
        !Number.isInteger(s.endLine) ||
        (s.startLine as number) < 1 ||
        (s.endLine as number) < (s.startLine as number)
      ) {
        fail(`${w}.selection must be null or {"file": string, "startLine": integer ≥ 1, "endLine": integer ≥ startLine}`);
      }
    }
    if (t.diagnostics !== undefined) {
      if (!Array.isArray(t.diagnostics)) fail(`${w}.diagnostics must be an array`);
      t.diagnostics.forEach((d, j) => {
        const dw = `${w}.diagnostics[${j}]`;
        if (!isObj(d) || typeof d.path !== 'string' || !Number.isInteger(d.line) || (d.line as number) < 1 || typeof d.message !== 'string')
          fail(`${dw} must be {"path": string, "line": integer ≥ 1, "severity", "message": string}`);
        if (!['error', 'warning', 'info', 'hint'].includes(d.severity as string))
          fail(`${dw}.severity must be error, warning, info or hint`);
        if (d.column !== undefined && (!Number.isInteger(d.column) || (d.column as number) < 1))
          fail(`${dw}.column must be an integer ≥ 1`);
        if (d.source !== undefined && typeof d.source !== 'string') fail(`${dw}.source must be a string`);
      });
    }
    const known = new Set(['user', 'reply', 'attach', 'pin', 'unpin', 'detach', 'edits', 'tools', 'selection', 'diagnostics']);
    for (const k of Object.keys(t)) if (!known.has(k)) fail(`${w} has an unknown field "${k}"`);
  });
  return raw as unknown as Trajectory;
}

export function expandFileValue(v: FileValue): string {
  return typeof v === 'string' ? v : v.repeat.repeat(v.times);
}

/**
 * The virtual workspace a trajectory runs in: an in-memory workspace port (the pure isolation rules,
 * synchronous answers) plus the trajectory's `files` / `edits` values.
 */
export class VirtualWorkspace extends MemoryWorkspace {
  constructor(files: Record<string, FileValue>, options: MemoryWorkspaceOptions = {}) {
    super(
      Object.entries(files).map(([p, v]): [string, string] => [p, expandFileValue(v)]),
      options,
    );
  }
  /** The editor state a turn sets (`selection`, `diagnostics`), kept for the turns after it. */
  applyEditor(turn: Pick<TrajectoryTurn, 'selection' | 'diagnostics'>): void {
    if (turn.selection !== undefined)
      this.setSelection(
        turn.selection === null
          ? undefined
          : { path: turn.selection.file, startLine: turn.selection.startLine, endLine: turn.selection.endLine },
      );
    if (turn.diagnostics !== undefined)
      this.setDiagnostics(
        turn.diagnostics.map((d) => ({
          path: d.path,
          line: d.line,
          column: d.column ?? 1,
          severity: d.severity,
          message: d.message,
          ...(d.source ? { source: d.source } : {}),
        })),
      );
  }

  applyEdits(edits: Record<string, FileValue | null> | undefined): void {
    if (!edits) return;
    for (const [p, v] of Object.entries(edits)) {
      if (v === null) this.delete(p);
      else this.write(p, expandFileValue(v));
    }
  }
}

export function attachmentLabel(a: TrajectoryAttachment): string {
  if (a.selection) return `${a.selection.file}#L${a.selection.startLine}-L${a.selection.endLine}`;
  return a.file ?? '?';
}

export function selectionRange(a: TrajectoryAttachment): LineRange | undefined {
  return a.selection ? { startLine: a.selection.startLine, endLine: a.selection.endLine } : undefined;
}
