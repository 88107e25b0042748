/**
 * "Attach Selection with Definitions": the declarations a selection uses, each cut to the smallest
 * useful unit, nearest and most specific first, within a token budget.
 *
 * 1. The selection is read through the workspace port (refused as an attachment would be), and every
 *    position of a name in it found by scanning its text (`identifiers.ts`): each identifier and
 *    member access, so `this.options` and a parameter `options`, `super.fetch()`, `filters.type` and
 *    a member hidden by a local of the same name are each asked about where they are.
 * 2. The port's definition provider is asked at each distinct use (a name with what it is a member
 *    of); a use that resolves only inside the selection is asked again at its next occurrence. A
 *    definition inside the selection itself is dropped (it is already there).
 * 3. Each definition becomes its declaration in the file's outline: the symbol whose name is on the
 *    definition's line (a member rather than its class). A class, interface or enum used by name is
 *    its outline (its header verbatim, then each member's first line with its lines); a function,
 *    method or variable longer than a few lines is its signature, and its whole body only when the
 *    selection calls it and the budget has room after everything else; anything short is whole. A
 *    declaration that holds the selection (a parameter or a local of the function the selection is
 *    in) is reduced to the definition's own lines. Short neighbours are read as one range.
 * 4. Ordered nearest first (same file by line distance to the selection, then other files in order
 *    of first use), members and short declarations before outlines, read through
 *    `WorkspacePort.resolve` as a selection (excluded, outside and binary files are refused with
 *    their reason), and cut to the budget: what does not fit is listed, and smaller ones after it
 *    may still fit; then bodies of what the selection calls replace their signatures while they fit.
 *
 * Each definition is a ranged excerpt of its file, as a ranged `read_file` result is (a `tool`
 * artifact of `get_definition`), or an outline (a `tool` artifact of `get_outline` with the
 * declaration's range): recoverable by reading the range again, its file checked again before every
 * request, deduplicated by content. Written as steps, so the in-memory port answers synchronously
 * (the replay) and the editor's asynchronously.
 */
import type { NewArtifactInput } from '../../engine/artifacts';
import type { Rejection } from '../../engine/isolation';
import { mapBounded, wait, type Step } from '../../common/steps';
import { PORT_CONCURRENCY, type MaybePromise, type WorkspacePort } from '../workspacePort';
import type { CodeIntelPort, CodeLocation, CodeSymbol } from './codeIntelPort';
import { identifierOccurrences, type IdentifierOccurrence } from './identifiers';
import { abortError, driveMaybe } from './maybeSync';
import { enclosingSymbol, flattenSymbols, OUTLINE_TOOL } from './outline';

/** The tool a definition's excerpt is recorded as (the same artifact id as the tool's result for the same lines). */
export const DEFINITION_TOOL = 'get_definition';
/** The token budget of a selection's definitions when the caller has no setting (the chip's default). */
export const DEFAULT_DEFINITIONS_BUDGET = 4000;
/** Distinct uses asked about at most: a selection of a whole file must not ask the provider thousands of times. */
export const MAX_SELECTION_IDENTIFIERS = 200;
/** Occurrences of one use asked about at most while it resolves only inside the selection. */
export const MAX_ASKS_PER_USE = 3;
/** A declaration of at most this many lines goes whole; a longer one as its signature (or outline) first. */
export const SHORT_DECLARATION_LINES = 6;
/** A signature is looked for in this many lines from the name; none found, the name's line stands for it. */
export const SIGNATURE_MAX_LINES = 12;
/** A member's line in an outline is cut to this many characters. */
export const OUTLINE_LINE_CHARS = 110;

export interface SelectionRange {
  path: string;
  /** 1-based, inclusive. */
  startLine: number;
  endLine: number;
}

export interface DefinitionOptions {
  budgetTokens: number;
  /** The budget the reasons name, when `budgetTokens` is what is left of a larger one (an import closure's). */
  wholeBudget?: number;
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
  /**
   * `excerpt`: the declaration's lines `startLine`–`endLine` verbatim; `signature`: its first lines
   * up to its body (`endLine` is the signature's last line); `outline`: a class, interface or enum
   * used by name, its header verbatim then each member's first line (`startLine`–`endLine` is the
   * whole declaration).
   */
  as: 'excerpt' | 'signature' | 'outline';
  /** The last line of what is verbatim at the start (`endLine` for an excerpt, the header's last line for an outline). */
  headerEndLine: number;
  /** What is attached: a ranged excerpt of the file. */
  input: NewArtifactInput;
}

export interface SkippedDefinition {
  path: string;
  startLine: number;
  endLine: number;
  symbol: string;
  tokens: number;
  /** Why it is left out: what was left of the budget when its turn came. */
  reason: string;
}

export interface SelectionDefinitions {
  /** Attached, in order (nearest first). */
  definitions: SelectionDefinition[];
  /** The selection or a definition's file refused (excluded, outside, binary, too large, gone). */
  rejections: Rejection[];
  /** Declarations that did not fit the budget, in the order they were considered. */
  skippedForBudget: SkippedDefinition[];
  /** Declarations sent as their signature although the selection calls them: the whole body did not fit. */
  bodiesLeftOut: SkippedDefinition[];
  /** The selection as read (absent when it was refused). */
  selection?: NewArtifactInput;
}

/** Declarations at most this many lines apart in one file are read as one range: a block's header costs about as much as three lines. */
export const MERGE_GAP_LINES = 3;

/** Outline symbols whose members are what a use needs: used by name, they go as their outline. */
const CONTAINER_KINDS = new Set(['class', 'interface', 'enum', 'module', 'namespace', 'struct', 'object', 'package']);

/** `own`: the lines as they are (a definition's own lines, short neighbours read as one); `whole`: a declaration; `container`: used by name. */
type Form = 'own' | 'whole' | 'container';

interface Candidate {
  path: string;
  startLine: number;
  endLine: number;
  /** The line the declaration's name is on (its signature starts there). */
  nameLine: number;
  symbol: string;
  kind: string;
  usedBy: string;
  form: Form;
  /** The outline symbol, for a container's outline. */
  outline?: CodeSymbol;
  /** The lines of the symbol that holds it (`''` at the top of its file): only neighbours under one holder are read as one range. */
  parent: string;
  /** The selection calls it: its whole body is wanted when it fits. */
  called: boolean;
  /** Order of first use: of the use that led here, and of the first use that led to its file. */
  use: number;
  fileUse: number;
}

/** A candidate as it is offered to the budget: the smallest useful form, and the larger one it may grow to. */
interface Offer {
  c: Candidate;
  as: SelectionDefinition['as'];
  startLine: number;
  endLine: number;
  headerEndLine: number;
  content: string;
  tokens: number;
  input: NewArtifactInput;
  /** The whole body, when `as` is `signature` and the selection calls it. */
  body?: { content: string; tokens: number; input: NewArtifactInput };
}

function overlaps(a: { startLine: number; endLine: number }, b: { startLine: number; endLine: number }): boolean {
  return a.startLine <= b.endLine && b.startLine <= a.endLine;
}

/**
 * The declaration a definition stands for: the most specific symbol whose name is on the
 * definition's line; else the smallest symbol holding it when that has no members (a local of a
 * function); else the definition's own lines. A symbol that holds the selection is never it.
 */
function declarationOf(
  loc: CodeLocation,
  symbols: readonly CodeSymbol[] | undefined,
  sel: SelectionRange | undefined,
  name: string,
): Pick<Candidate, 'startLine' | 'endLine' | 'nameLine' | 'symbol' | 'kind' | 'form' | 'outline' | 'parent'> {
  const parentOf = (r: { startLine: number; endLine: number }, not?: CodeSymbol) => {
    let p: CodeSymbol | undefined;
    for (const s of flattenSymbols(symbols ?? []))
      if (s !== not && s.startLine <= r.startLine && r.endLine <= s.endLine && (!p || s.endLine - s.startLine < p.endLine - p.startLine))
        p = s;
    return p ? `${p.startLine}-${p.endLine}` : '';
  };
  const own = {
    startLine: loc.line,
    endLine: Math.max(loc.line, loc.endLine ?? loc.line),
    nameLine: loc.line,
    symbol: name,
    kind: 'definition',
    form: 'own' as const,
    parent: '',
  };
  if (!symbols) return own;
  own.parent = parentOf(own);
  let named: CodeSymbol | undefined;
  for (const s of flattenSymbols(symbols))
    if (s.nameLine === loc.line && s.startLine <= loc.line && loc.line <= s.endLine) {
      // The outermost of equal spans: a property rather than the keys of the object on its line.
      if (!named || s.endLine - s.startLine < named.endLine - named.startLine) named = s;
    }
  const holder = named ?? enclosingSymbol(symbols, loc.line);
  if (!holder || (!named && holder.children && holder.children.length > 0)) return own;
  if (sel && loc.path === sel.path && overlaps(holder, sel)) return own;
  const container = CONTAINER_KINDS.has(holder.kind) && (holder.children?.length ?? 0) > 0;
  return {
    startLine: holder.startLine,
    endLine: holder.endLine,
    nameLine: Math.min(Math.max(holder.nameLine, holder.startLine), holder.endLine),
    symbol: holder.name,
    kind: holder.kind,
    form: container ? 'container' : 'whole',
    parent: parentOf(holder, holder),
    ...(container ? { outline: holder } : {}),
  };
}

/**
 * Short declarations of one file at most `MERGE_GAP_LINES` apart become one range (three one-line
 * properties are one excerpt, not three blocks each with its own header), as long as the range
 * stays short. Outlines and long declarations stay apart, so a member is never lost inside its class.
 */
function mergeShort(list: readonly Candidate[]): Candidate[] {
  const short = (c: Candidate) => c.form !== 'container' && c.endLine - c.startLine < SHORT_DECLARATION_LINES;
  const byFile = new Map<string, Candidate[]>();
  const out: Candidate[] = [];
  for (const c of list) {
    if (!short(c)) out.push(c);
    else byFile.set(c.path, [...(byFile.get(c.path) ?? []), c]);
  }
  for (const group of byFile.values()) {
    group.sort((a, b) => a.startLine - b.startLine || b.endLine - a.endLine);
    let cur: Candidate | undefined;
    for (const c of group) {
      if (
        cur &&
        c.parent === cur.parent &&
        c.startLine <= cur.endLine + 1 + MERGE_GAP_LINES &&
        Math.max(cur.endLine, c.endLine) - cur.startLine < SIGNATURE_MAX_LINES
      ) {
        const inside = c.endLine <= cur.endLine;
        const first = c.use < cur.use ? c : cur;
        cur = {
          ...cur,
          endLine: Math.max(cur.endLine, c.endLine),
          symbol: inside ? cur.symbol : `${cur.symbol}, ${c.symbol}`,
          kind: inside || cur.kind === c.kind ? cur.kind : 'declarations',
          // Read verbatim as one range, however long the merge makes it.
          form: 'own',
          called: cur.called || c.called,
          usedBy: first.usedBy,
          use: first.use,
          fileUse: Math.min(cur.fileUse, c.fileUse),
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

/** The index (in `lines`) of a signature's last line: the first line from the name's that opens a body or an initializer. */
function signatureEnd(lines: readonly string[], nameIndex: number): number {
  const last = Math.min(lines.length - 1, nameIndex + SIGNATURE_MAX_LINES - 1);
  for (let i = Math.max(0, nameIndex); i <= last; i++) if (/(?:[{:=(]|=>)\s*$/.test(lines[i])) return i;
  return Math.max(0, Math.min(nameIndex, lines.length - 1));
}

/** A container's outline: its header verbatim, each member's first line with its lines, then how to read one. */
function outlineText(c: Candidate, lines: readonly string[], headerEnd: number): string {
  const out = lines.slice(0, headerEnd + 1);
  for (const m of c.outline?.children ?? []) {
    const text = (lines[m.nameLine - c.startLine] ?? m.name).trim();
    const cut = text.length > OUTLINE_LINE_CHARS ? `${text.slice(0, OUTLINE_LINE_CHARS - 1)}…` : text;
    out.push(`  L${m.startLine}-L${m.endLine}: ${cut}`);
  }
  out.push(
    `[Outline of ${c.kind} ${c.symbol}, ${c.path} L${c.startLine}-L${c.endLine}: call read_file with path "${c.path}", startLine and endLine to read a member's lines.]`,
  );
  return out.join('\n');
}

/** The forms `c` (read as `content`, lines `startLine`–`endLine`) is offered in: see the file comment. */
function offerOf(c: Candidate, uri: string, startLine: number, endLine: number, content: string, count: (t: string) => number): Offer {
  const excerpt = (s: number, e: number, text: string): NewArtifactInput => ({
    kind: 'tool',
    tool: DEFINITION_TOOL,
    uri,
    range: { startLine: s, endLine: e },
    content: text,
  });
  const whole: Offer = {
    c,
    as: 'excerpt',
    startLine,
    endLine,
    headerEndLine: endLine,
    content,
    tokens: count(content),
    input: excerpt(startLine, endLine, content),
  };
  if (c.form === 'own' || endLine - startLine < SHORT_DECLARATION_LINES) return whole;
  const lines = content.split('\n');
  const headEnd = signatureEnd(lines, c.nameLine - startLine);
  if (c.form === 'container') {
    const text = outlineText(c, lines, headEnd);
    const tokens = count(text);
    if (tokens >= whole.tokens) return whole;
    const input: NewArtifactInput = { kind: 'tool', tool: OUTLINE_TOOL, uri, range: { startLine, endLine }, content: text };
    return { c, as: 'outline', startLine, endLine, headerEndLine: startLine + headEnd, content: text, tokens, input };
  }
  const head = lines.slice(0, headEnd + 1).join('\n');
  const last = startLine + headEnd;
  return {
    c,
    as: 'signature',
    startLine,
    endLine: last,
    headerEndLine: last,
    content: head,
    tokens: count(head),
    input: excerpt(startLine, last, head),
    ...(c.called ? { body: { content, tokens: whole.tokens, input: whole.input } } : {}),
  };
}

/** The distinct uses of a selection: occurrences of one name with the same receiver, in order of first occurrence. */
function usesOf(occurrences: readonly IdentifierOccurrence[]): IdentifierOccurrence[][] {
  const groups = new Map<string, IdentifierOccurrence[]>();
  for (const o of occurrences) {
    // A chain that starts on an earlier line has no receiver to tell it apart: each is its own use.
    const key = o.receiver === '.' ? `${o.line}:${o.column}` : `${o.receiver}\u0000${o.name}`;
    const g = groups.get(key);
    if (g) g.push(o);
    else groups.set(key, [o]);
  }
  return [...groups.values()].slice(0, MAX_SELECTION_IDENTIFIERS);
}

/** A declaration found for a use: where the provider says it is, the name used, whether it is called, and the order of first use. */
export interface DeclarationUse {
  loc: CodeLocation;
  name: string;
  called: boolean;
  use: number;
}

/** What `declarationItems` attaches and leaves out (the fields of `SelectionDefinitions` but the selection). */
export type DeclarationItems = Omit<SelectionDefinitions, 'selection'>;

/**
 * Steps 3 and 4 of the file comment, shared by a selection's definitions and the names a file
 * imports from a large module: each location becomes its declaration cut to the smallest useful unit,
 * ordered (nearest to `near` first, when there is one; then by first use), read through the
 * workspace port and cut to the budget, bodies of called ones last.
 */
export function* declarationItemSteps(
  port: CodeIntelPort & WorkspacePort,
  locations: readonly DeclarationUse[],
  near: SelectionRange | undefined,
  opts: DefinitionOptions,
): Step<DeclarationItems> {
  const out: DeclarationItems = { definitions: [], rejections: [], skippedForBudget: [], bodiesLeftOut: [] };
  const { signal } = opts;
  const files = [...new Set(locations.map((l) => l.loc.path))];
  if (signal?.aborted) throw abortError();
  const outlines = yield* wait(mapBounded(files, PORT_CONCURRENCY, (f) => port.outline(f, signal)));
  const outlineOf = new Map(files.map((f, i) => [f, outlines[i]]));

  const fileUse = new Map<string, number>();
  const byKey = new Map<string, Candidate>();
  for (const { loc, use, name, called } of locations) {
    if (!fileUse.has(loc.path)) fileUse.set(loc.path, use);
    const decl = declarationOf(loc, outlineOf.get(loc.path), near, name);
    const key = `${loc.path}#${decl.startLine}-${decl.endLine}`;
    const seen = byKey.get(key);
    if (seen) {
      seen.called ||= called;
      continue;
    }
    byKey.set(key, { path: loc.path, ...decl, usedBy: name, called, use, fileUse: fileUse.get(loc.path)! });
  }
  const distance = (c: Candidate) => (!near ? 0 : c.endLine < near.startLine ? near.startLine - c.endLine : c.startLine - near.endLine);
  // Nearest first; within that, members and short declarations before the outlines of what is used by name.
  const ordered = mergeShort([...byKey.values()]).sort((a, b) => {
    const oa = a.form === 'container' ? 1 : 0;
    const ob = b.form === 'container' ? 1 : 0;
    if (oa !== ob) return oa - ob;
    const sa = a.path === near?.path ? 0 : 1;
    const sb = b.path === near?.path ? 0 : 1;
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
  const refused = new Set<string>();
  const offers: Offer[] = [];
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
    offers.push(offerOf(c, r.input.uri, lines.startLine, lines.endLine, r.input.content, opts.countTokens));
  });

  // The smallest useful form of everything first, then bodies of what the selection calls, nearest first.
  let left = opts.budgetTokens;
  const taken: Offer[] = [];
  for (const o of offers) {
    if (o.tokens > left) {
      out.skippedForBudget.push({
        path: o.input.uri,
        startLine: o.startLine,
        endLine: o.endLine,
        symbol: o.c.symbol,
        tokens: o.tokens,
        reason: `${o.tokens} tokens, ${left} left of the ${opts.wholeBudget ?? opts.budgetTokens}-token budget`,
      });
      continue;
    }
    left -= o.tokens;
    taken.push(o);
  }
  for (const o of taken) {
    if (!o.body) continue;
    const more = o.body.tokens - o.tokens;
    if (more > left) {
      out.bodiesLeftOut.push({
        path: o.input.uri,
        startLine: o.c.startLine,
        endLine: o.c.endLine,
        symbol: o.c.symbol,
        tokens: o.body.tokens,
        reason: `its body: ${more} more tokens, ${left} left of the ${opts.wholeBudget ?? opts.budgetTokens}-token budget`,
      });
      continue;
    }
    left -= more;
    Object.assign(o, { as: 'excerpt', endLine: o.c.endLine, headerEndLine: o.c.endLine, ...o.body, body: undefined });
  }
  for (const o of taken)
    out.definitions.push({
      path: o.input.uri,
      startLine: o.startLine,
      endLine: o.endLine,
      symbol: o.c.symbol,
      kind: o.c.kind,
      usedBy: o.c.usedBy,
      tokens: o.tokens,
      as: o.as,
      headerEndLine: o.headerEndLine,
      input: o.input,
    });
  return out;
}

function* selectionDefinitionSteps(
  port: CodeIntelPort & WorkspacePort,
  sel: SelectionRange,
  opts: DefinitionOptions,
): Step<SelectionDefinitions> {
  const out: SelectionDefinitions = { definitions: [], rejections: [], skippedForBudget: [], bodiesLeftOut: [] };
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
  const inSelection = (loc: CodeLocation) => loc.path === path && loc.line >= selection.startLine && loc.line <= selection.endLine;
  const uses = usesOf(identifierOccurrences(read.input.content, selection.startLine));

  // Each use at its first occurrence; one that resolves only inside the selection (the method's own
  // name, an object key, a local) again at its next, up to MAX_ASKS_PER_USE.
  const answers: CodeLocation[][] = uses.map(() => []);
  for (let round = 0; round < MAX_ASKS_PER_USE; round++) {
    if (signal?.aborted) throw abortError();
    const ask = uses.map((g, use) => ({ g, use })).filter(({ g, use }) => round < g.length && !answers[use].some((l) => !inSelection(l)));
    if (ask.length === 0) break;
    const found = yield* wait(mapBounded(ask, PORT_CONCURRENCY, ({ g }) => port.definitions(path, g[round].line, g[round].column, signal)));
    ask.forEach(({ use }, i) => answers[use].push(...found[i]));
  }
  const locations: { loc: CodeLocation; use: number }[] = [];
  answers.forEach((locs, use) => {
    for (const loc of locs) if (!inSelection(loc)) locations.push({ loc, use });
  });
  const items = yield* declarationItemSteps(
    port,
    locations.map(({ loc, use }) => ({ loc, use, name: uses[use][0].name, called: uses[use].some((o) => o.called) })),
    selection,
    opts,
  );
  out.definitions = items.definitions;
  out.rejections.push(...items.rejections);
  out.skippedForBudget = items.skippedForBudget;
  out.bodiesLeftOut = items.bodiesLeftOut;
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
