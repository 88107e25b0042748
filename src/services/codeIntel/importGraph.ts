/**
 * "Attach File with Imports": the files the user names and what they import, breadth first, within
 * a depth and a token budget. Each file is read through the workspace port (refused as an
 * attachment would be) and visited once; the named files come first, in the order given. A file
 * that alone is larger than what is left of the budget goes in as its outline (its symbols with line
 * ranges and how to read one) when that fits, else it is skipped; its imports are still followed,
 * since smaller files deeper down may fit. Imports are resolved by the port as the editor resolves
 * them (path aliases, index files), and ones outside the workspace are never followed.
 *
 * A large module (over `LARGE_MODULE_TOKENS`) below the named files is not sent whole: what the
 * files that import it name is, each declaration as its own item. The names are those of the import
 * statements (`import { a, b as c }`, `export { d } from`) and, for `import * as ns`, the members
 * the file uses as `ns.x`; each is resolved by the definition provider where it is written, and the
 * declarations found in the module are cut as a selection's definitions are (`declarationItemSteps`:
 * a class or interface as its outline, a long function as its signature and its body when the
 * importer calls it and it fits, a short one whole). A large module none of whose declarations are
 * named this way (`export *`) is sent whole or as its outline, as a small one is. Small modules stay whole.
 *
 * Whole files are `file` artifacts (sent once, referenced after, a new version when changed);
 * outlines are `tool` artifacts of `get_outline`, the same as the tool's result for the same file;
 * imported declarations are ranged `get_definition` / `get_outline` excerpts, the items a selection's
 * definitions are (deduplicated by content, checked again before each request).
 */
import type { NewArtifactInput } from '../../engine/artifacts';
import type { Rejection } from '../../engine/isolation';
import { mapBounded, wait, type Step } from '../../common/steps';
import { PORT_CONCURRENCY, type MaybePromise, type WorkspacePort } from '../workspacePort';
import type { CodeIntelPort } from './codeIntelPort';
import { identifierOccurrences, importedNames } from './identifiers';
import { abortError, driveMaybe } from './maybeSync';
import { OUTLINE_TOOL, renderOutline } from './outline';
import { declarationItemSteps, MAX_SELECTION_IDENTIFIERS, type DeclarationUse, type SelectionDefinitions } from './selectionDefinitions';

export { OUTLINE_TOOL };

/** Defaults when the caller has no setting: two levels of imports, 8,000 tokens. */
export const DEFAULT_IMPORT_DEPTH = 2;
export const DEFAULT_IMPORT_BUDGET = 8000;
/** An imported module of more tokens than this is sent as the declarations its importers name, not whole. */
export const LARGE_MODULE_TOKENS = 2000;

export interface ImportOptions {
  /** Import levels followed below the named files (0: the named files alone). */
  depth: number;
  budgetTokens: number;
  countTokens: (text: string) => number;
  signal?: AbortSignal;
}

export interface ImportedFile {
  path: string;
  /** 0 for a named file, 1 for what it imports, … */
  depth: number;
  as: 'file' | 'outline';
  tokens: number;
  input: NewArtifactInput;
}

/** A large module sent as the declarations its importers name (see the file comment). */
export interface ImportedNames {
  /** The module. */
  path: string;
  depth: number;
  /** The file whose chip carries the declarations: the first that imports the module. */
  importedBy: string;
  /** The module whole, which was not sent. */
  moduleTokens: number;
  /** What was sent: the declarations' tokens. */
  tokens: number;
  definitions: SelectionDefinitions['definitions'];
  skippedForBudget: SelectionDefinitions['skippedForBudget'];
  bodiesLeftOut: SelectionDefinitions['bodiesLeftOut'];
}

export interface ImportClosure {
  files: ImportedFile[];
  /** Large modules sent as the declarations imported from them, in the order they were reached. */
  names: ImportedNames[];
  rejections: Rejection[];
  /** Files that fit neither whole nor as an outline. */
  skipped: { path: string; depth: number; tokens: number }[];
}

/** The outline artifact of `path`, or undefined when the port has no symbols for it. */
export function* outlineInput(port: CodeIntelPort, path: string, signal?: AbortSignal): Step<NewArtifactInput | undefined> {
  const symbols = yield* wait(port.outline(path, signal));
  if (!symbols || symbols.length === 0) return undefined;
  return { kind: 'tool', tool: OUTLINE_TOOL, uri: path, content: renderOutline(path, symbols) };
}

/**
 * Where the names `text` (the file `path`) imports are declared, as the definition provider resolves
 * them: each imported name where the import statement writes it, each `ns.x` of a namespace import
 * at its first use. `called`: the file calls it.
 */
function* importedDeclarations(port: CodeIntelPort, path: string, text: string, signal?: AbortSignal): Step<DeclarationUse[]> {
  const names = importedNames(text);
  if (names.length === 0) return [];
  const occurrences = identifierOccurrences(text, 1);
  const asks: { line: number; column: number; name: string; called: boolean }[] = [];
  for (const n of names) {
    if (!n.namespace) {
      const called = occurrences.some((o) => o.receiver === '' && o.name === n.local && o.called);
      asks.push({ line: n.line, column: n.column, name: n.imported, called });
      continue;
    }
    const first = new Map<string, { line: number; column: number; name: string; called: boolean }>();
    for (const o of occurrences) {
      if (o.receiver !== n.local) continue;
      const seen = first.get(o.name);
      if (seen) seen.called ||= o.called;
      else first.set(o.name, { line: o.line, column: o.column, name: o.name, called: o.called });
    }
    asks.push(...first.values());
  }
  const list = asks.slice(0, MAX_SELECTION_IDENTIFIERS);
  if (signal?.aborted) throw abortError();
  const found = yield* wait(mapBounded(list, PORT_CONCURRENCY, (a) => port.definitions(path, a.line, a.column, signal)));
  const out: DeclarationUse[] = [];
  list.forEach((a, use) => {
    for (const loc of found[use]) out.push({ loc, name: a.name, called: a.called, use });
  });
  return out;
}

function* importSteps(port: CodeIntelPort & WorkspacePort, roots: readonly string[], opts: ImportOptions): Step<ImportClosure> {
  const out: ImportClosure = { files: [], names: [], rejections: [], skipped: [] };
  const { signal } = opts;
  const seen = new Set<string>();
  /** Visited files by their normalized path (`./a.ts` named and `a.ts` imported are one file). */
  const done = new Set<string>();
  const queue: { path: string; depth: number }[] = [];
  /** Files read when they were found as an import (to tell a large module), by the path asked. */
  const reads = new Map<string, Awaited<ReturnType<WorkspacePort['resolve']>>>();
  /** A large module's declarations its importers name, and the first importer. */
  const wanted = new Map<string, { importedBy: string; uses: DeclarationUse[] }>();
  const largeModules = new Set<string>();
  for (const p of roots) {
    if (seen.has(p)) continue;
    seen.add(p);
    queue.push({ path: p, depth: 0 });
  }
  let left = opts.budgetTokens;
  for (let head = 0; head < queue.length; head++) {
    if (signal?.aborted) throw abortError();
    const { path, depth } = queue[head];
    const r = reads.get(path) ?? (yield* wait(port.resolve({ kind: 'file', path }, signal)));
    // A refused file is not read, and neither is what it imports: its imports would tell about it.
    if (!r.ok) {
      out.rejections.push(r.rejection);
      continue;
    }
    const uri = r.input.uri;
    if (done.has(uri)) continue;
    done.add(uri);
    const tokens = opts.countTokens(r.input.content);
    const want = depth > 0 && tokens > LARGE_MODULE_TOKENS ? wanted.get(uri) : undefined;
    if (want) {
      const items = yield* declarationItemSteps(port, want.uses, undefined, {
        budgetTokens: left,
        wholeBudget: opts.budgetTokens,
        countTokens: opts.countTokens,
        signal,
      });
      const used = items.definitions.reduce((n, d) => n + d.tokens, 0);
      left -= used;
      out.rejections.push(...items.rejections);
      out.names.push({
        path: uri,
        depth,
        importedBy: want.importedBy,
        moduleTokens: tokens,
        tokens: used,
        definitions: items.definitions,
        skippedForBudget: items.skippedForBudget,
        bodiesLeftOut: items.bodiesLeftOut,
      });
    } else if (tokens <= left) {
      left -= tokens;
      out.files.push({ path: uri, depth, as: 'file', tokens, input: r.input });
    } else {
      const outline = yield* outlineInput(port, uri, signal);
      const outlineTokens = outline ? opts.countTokens(outline.content) : 0;
      if (outline && outlineTokens <= left) {
        left -= outlineTokens;
        out.files.push({ path: uri, depth, as: 'outline', tokens: outlineTokens, input: outline });
      } else out.skipped.push({ path: uri, depth, tokens });
    }
    if (depth >= opts.depth) continue;
    const large = new Set<string>();
    for (const next of yield* wait(port.imports(uri, signal))) {
      if (!seen.has(next)) {
        seen.add(next);
        queue.push({ path: next, depth: depth + 1 });
        const read = yield* wait(port.resolve({ kind: 'file', path: next }, signal));
        reads.set(next, read);
        if (read.ok && opts.countTokens(read.input.content) > LARGE_MODULE_TOKENS) largeModules.add(read.input.uri);
      }
      const read = reads.get(next);
      if (read?.ok && largeModules.has(read.input.uri)) large.add(read.input.uri);
    }
    if (large.size === 0) continue;
    // What this file names of each large module it imports (a module imported by several files collects all their names).
    for (const u of yield* importedDeclarations(port, uri, r.input.content, signal)) {
      if (!large.has(u.loc.path)) continue;
      const w = wanted.get(u.loc.path) ?? { importedBy: uri, uses: [] };
      wanted.set(u.loc.path, w);
      w.uses.push({ ...u, use: w.uses.length });
    }
  }
  return out;
}

/** The named files and their imports, breadth first, within the depth and the budget (see the file comment). */
export function filesWithImports(
  port: CodeIntelPort & WorkspacePort,
  rootPaths: readonly string[],
  opts: ImportOptions,
): MaybePromise<ImportClosure> {
  return driveMaybe(importSteps(port, rootPaths, opts));
}
