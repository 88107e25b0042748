/**
 * "Attach Selection with Definitions": the definitions of what a selection uses, each as a range of
 * its file (the enclosing declaration), nearest first, within a token budget.
 *
 * 1. The selection is read through the workspace port (refused as an attachment would be), and its
 *    identifiers found by scanning its text (`identifiers.ts`).
 * 2. The port's definition provider is asked at each identifier; a definition inside the selection
 *    itself is dropped (it is already there).
 * 3. Each definition becomes its enclosing declaration: the smallest symbol of the file's outline
 *    that contains its line (a method rather than its class; the whole class only when nothing
 *    smaller holds it). A declaration that holds the selection (a parameter or a local of the
 *    function the selection is in) is reduced to the definition's own lines.
 * 4. Deduplicated, ordered nearest first (same file by line distance to the selection, then other
 *    files in order of first use), read through `WorkspacePort.resolve` as a selection (excluded,
 *    outside and binary files are refused with their reason), and cut to the budget: a declaration
 *    that does not fit is skipped, and smaller ones after it may still fit.
 *
 * Each definition is a ranged excerpt of its file, as a ranged `read_file` result is (a `tool`
 * artifact of `get_definition`): recoverable by reading the range again, its file checked again
 * before every request, deduplicated by content. Written as steps, so the in-memory port answers
 * synchronously (the replay) and the editor's asynchronously.
 */
import type { NewArtifactInput } from '../../engine/artifacts';
import type { Rejection } from '../../engine/isolation';
import { mapBounded, wait, type Step } from '../../common/steps';
import { PORT_CONCURRENCY, type MaybePromise, type WorkspacePort } from '../workspacePort';
import type { CodeIntelPort, CodeLocation, CodeSymbol } from './codeIntelPort';
import { identifierUses } from './identifiers';
import { abortError, driveMaybe } from './maybeSync';
import { enclosingSymbol } from './outline';

/** The tool a definition's excerpt is recorded as (the same artifact id as the tool's result for the same lines). */
export const DEFINITION_TOOL = 'get_definition';
/** The token budget of a selection's definitions when the caller has no setting (the chip's default). */
export const DEFAULT_DEFINITIONS_BUDGET = 4000;
/** Identifiers asked about at most: a selection of a whole file must not ask the provider thousands of times. */
export const MAX_SELECTION_IDENTIFIERS = 200;

export interface SelectionRange {
  path: string;
  /** 1-based, inclusive. */
  startLine: number;
  endLine: number;
}

export interface DefinitionOptions {
  budgetTokens: number;
  countTokens: (text: string) => number;
  signal?: AbortSignal;
}

export interface SelectionDefinition {
  path: string;
  startLine: number;
  endLine: number;
  /** The declaration's name (the symbol of the outline, or the identifier when no symbol holds it). */
  symbol: string;
  /** The symbol's kind (`function`, `interface`, …); `definition` when no symbol holds it. */
  kind: string;
  /** The selection's identifier that led to it (the first one, when several did). */
  usedBy: string;
  tokens: number;
  /** What is attached: a ranged excerpt of the file. */
  input: NewArtifactInput;
}

export interface SkippedDefinition {
  path: string;
  startLine: number;
  endLine: number;
  symbol: string;
  tokens: number;
}

export interface SelectionDefinitions {
  /** Attached, in order (nearest first). */
  definitions: SelectionDefinition[];
  /** The selection or a definition's file refused (excluded, outside, binary, too large, gone). */
  rejections: Rejection[];
  /** Declarations that did not fit the budget. */
  skippedForBudget: SkippedDefinition[];
  /** The selection as read (absent when it was refused). */
  selection?: NewArtifactInput;
}

interface Candidate {
  path: string;
  startLine: number;
  endLine: number;
  symbol: string;
  kind: string;
  usedBy: string;
  /** Order of first use: of the identifier that led here, and of the first identifier that led to its file. */
  use: number;
  fileUse: number;
}

function overlaps(a: { startLine: number; endLine: number }, b: { startLine: number; endLine: number }): boolean {
  return a.startLine <= b.endLine && b.startLine <= a.endLine;
}

function contains(outer: { startLine: number; endLine: number }, inner: { startLine: number; endLine: number }): boolean {
  return outer.startLine <= inner.startLine && inner.endLine <= outer.endLine;
}

/** The declaration a definition stands for: its enclosing symbol, or its own lines when that symbol holds the selection. */
function declarationOf(
  loc: CodeLocation,
  symbols: readonly CodeSymbol[] | undefined,
  sel: SelectionRange,
  name: string,
): { startLine: number; endLine: number; symbol: string; kind: string } {
  const own = { startLine: loc.line, endLine: Math.max(loc.line, loc.endLine ?? loc.line), symbol: name, kind: 'definition' };
  const s = symbols ? enclosingSymbol(symbols, loc.line) : undefined;
  if (!s) return own;
  const decl = { startLine: s.startLine, endLine: s.endLine, symbol: s.name, kind: s.kind };
  return loc.path === sel.path && overlaps(decl, sel) ? own : decl;
}

/** Declarations at most this many lines apart in one file are read as one range: a block's header costs about as much as three lines. */
export const MERGE_GAP_LINES = 3;

/**
 * Declarations of one file that overlap, nest or are at most `MERGE_GAP_LINES` apart become one
 * range: three one-line properties of an interface, or a function and the helper right above it,
 * are one excerpt, not three blocks each with its own header. The merged range keeps the earliest
 * use and the first identifier that led to it.
 */
function mergeNearby(list: readonly Candidate[]): Candidate[] {
  const byFile = new Map<string, Candidate[]>();
  for (const c of list) byFile.set(c.path, [...(byFile.get(c.path) ?? []), c]);
  const out: Candidate[] = [];
  for (const group of byFile.values()) {
    group.sort((a, b) => a.startLine - b.startLine || b.endLine - a.endLine);
    let cur: Candidate | undefined;
    for (const c of group) {
      if (cur && c.startLine <= cur.endLine + 1 + MERGE_GAP_LINES) {
        const inside = c.endLine <= cur.endLine;
        const first = c.use < cur.use ? c : cur;
        cur = {
          ...cur,
          endLine: Math.max(cur.endLine, c.endLine),
          symbol: inside ? cur.symbol : `${cur.symbol}, ${c.symbol}`,
          kind: inside || cur.kind === c.kind ? cur.kind : 'declarations',
          usedBy: first.usedBy,
          use: first.use,
        };
        continue;
      }
      if (cur) out.push(cur);
      cur = { ...c };
    }
    if (cur) out.push(cur);
  }
  return out;
}

function* selectionDefinitionSteps(
  port: CodeIntelPort & WorkspacePort,
  sel: SelectionRange,
  opts: DefinitionOptions,
): Step<SelectionDefinitions> {
  const out: SelectionDefinitions = { definitions: [], rejections: [], skippedForBudget: [] };
  const { signal } = opts;
  const read = yield* wait(port.resolve({ kind: 'selection', path: sel.path, startLine: sel.startLine, endLine: sel.endLine }, signal));
  if (!read.ok) {
    out.rejections.push(read.rejection);
    return out;
  }
  out.selection = read.input;
  const path = read.input.uri;
  const range = read.input.range ?? { startLine: sel.startLine, endLine: sel.endLine };
  const selection: SelectionRange = { path, startLine: range.startLine, endLine: range.endLine };
  const uses = identifierUses(read.input.content, selection.startLine).slice(0, MAX_SELECTION_IDENTIFIERS);
  if (signal?.aborted) throw abortError();

  const found = yield* wait(mapBounded(uses, PORT_CONCURRENCY, (u) => port.definitions(path, u.line, u.column, signal)));
  const locations: { loc: CodeLocation; use: number }[] = [];
  found.forEach((locs, use) => {
    for (const loc of locs)
      if (!(loc.path === path && loc.line >= selection.startLine && loc.line <= selection.endLine)) locations.push({ loc, use });
  });
  const files = [...new Set(locations.map((l) => l.loc.path))];
  if (signal?.aborted) throw abortError();
  const outlines = yield* wait(mapBounded(files, PORT_CONCURRENCY, (f) => port.outline(f, signal)));
  const outlineOf = new Map(files.map((f, i) => [f, outlines[i]]));

  const fileUse = new Map<string, number>();
  const byKey = new Map<string, Candidate>();
  for (const { loc, use } of locations) {
    if (!fileUse.has(loc.path)) fileUse.set(loc.path, use);
    const decl = declarationOf(loc, outlineOf.get(loc.path), selection, uses[use].name);
    const key = `${loc.path}#${decl.startLine}-${decl.endLine}`;
    if (byKey.has(key)) continue;
    byKey.set(key, { path: loc.path, ...decl, usedBy: uses[use].name, use, fileUse: fileUse.get(loc.path)! });
  }
  const merged = mergeNearby([...byKey.values()]);
  const distance = (c: Candidate) => (c.endLine < selection.startLine ? selection.startLine - c.endLine : c.startLine - selection.endLine);
  const ordered = merged.sort((a, b) => {
    const sa = a.path === path ? 0 : 1;
    const sb = b.path === path ? 0 : 1;
    if (sa !== sb) return sa - sb;
    if (sa === 0) return distance(a) - distance(b) || a.startLine - b.startLine;
    return a.fileUse - b.fileUse || a.use - b.use || a.startLine - b.startLine;
  });

  if (signal?.aborted) throw abortError();
  const reads = yield* wait(
    mapBounded(ordered, PORT_CONCURRENCY, (c) =>
      port.resolve({ kind: 'selection', path: c.path, startLine: c.startLine, endLine: c.endLine }, signal),
    ),
  );
  let left = opts.budgetTokens;
  const refused = new Set<string>();
  ordered.forEach((c, i) => {
    const r = reads[i];
    if (!r.ok) {
      // One rejection per file and reason: ten declarations of an excluded file are one refusal.
      const key = `${c.path}\u0000${r.rejection.reason}`;
      if (!refused.has(key)) out.rejections.push(r.rejection);
      refused.add(key);
      return;
    }
    const lines = r.input.range ?? { startLine: c.startLine, endLine: c.endLine };
    if (out.definitions.some((d) => d.path === c.path && contains(d, lines))) return;
    const content = r.input.content;
    const tokens = opts.countTokens(content);
    if (tokens > left) {
      out.skippedForBudget.push({ path: c.path, startLine: lines.startLine, endLine: lines.endLine, symbol: c.symbol, tokens });
      return;
    }
    left -= tokens;
    out.definitions.push({
      path: r.input.uri,
      startLine: lines.startLine,
      endLine: lines.endLine,
      symbol: c.symbol,
      kind: c.kind,
      usedBy: c.usedBy,
      tokens,
      input: { kind: 'tool', tool: DEFINITION_TOOL, uri: r.input.uri, range: { ...lines }, content },
    });
  });
  return out;
}

/**
 * The definitions `sel` uses, nearest first, within `budgetTokens` (see the file comment). Answers
 * synchronously when the port does.
 */
export function definitionsForSelection(
  port: CodeIntelPort & WorkspacePort,
  sel: SelectionRange,
  opts: DefinitionOptions,
): MaybePromise<SelectionDefinitions> {
  return driveMaybe(selectionDefinitionSteps(port, sel, opts));
}
