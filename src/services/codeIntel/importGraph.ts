/**
 * "Attach File with Imports": the files the user names and what they import, breadth first, within
 * a depth and a token budget. Each file is read through the workspace port (refused as an
 * attachment would be) and visited once; the named files come first, in the order given. A file
 * that alone is larger than what is left of the budget goes in as its outline (its symbols with line
 * ranges and how to read one) when that fits, else it is skipped; its imports are still followed,
 * since smaller files deeper down may fit. Imports are resolved by the port as the editor resolves
 * them (path aliases, index files), and ones outside the workspace are never followed.
 *
 * Whole files are `file` artifacts (sent once, referenced after, a new version when changed);
 * outlines are `tool` artifacts of `get_outline`, the same as the tool's result for the same file.
 */
import type { NewArtifactInput } from '../../engine/artifacts';
import type { Rejection } from '../../engine/isolation';
import { wait, type Step } from '../../common/steps';
import type { MaybePromise, WorkspacePort } from '../workspacePort';
import type { CodeIntelPort } from './codeIntelPort';
import { abortError, driveMaybe } from './maybeSync';
import { OUTLINE_TOOL, renderOutline } from './outline';

export { OUTLINE_TOOL };

/** Defaults when the caller has no setting: two levels of imports, 8,000 tokens. */
export const DEFAULT_IMPORT_DEPTH = 2;
export const DEFAULT_IMPORT_BUDGET = 8000;

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

export interface ImportClosure {
  files: ImportedFile[];
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

function* importSteps(port: CodeIntelPort & WorkspacePort, roots: readonly string[], opts: ImportOptions): Step<ImportClosure> {
  const out: ImportClosure = { files: [], rejections: [], skipped: [] };
  const { signal } = opts;
  const seen = new Set<string>();
  /** Visited files by their normalized path (`./a.ts` named and `a.ts` imported are one file). */
  const done = new Set<string>();
  const queue: { path: string; depth: number }[] = [];
  for (const p of roots) {
    if (seen.has(p)) continue;
    seen.add(p);
    queue.push({ path: p, depth: 0 });
  }
  let left = opts.budgetTokens;
  for (let head = 0; head < queue.length; head++) {
    if (signal?.aborted) throw abortError();
    const { path, depth } = queue[head];
    const r = yield* wait(port.resolve({ kind: 'file', path }, signal));
    // A refused file is not read, and neither is what it imports: its imports would tell about it.
    if (!r.ok) {
      out.rejections.push(r.rejection);
      continue;
    }
    const uri = r.input.uri;
    if (done.has(uri)) continue;
    done.add(uri);
    const tokens = opts.countTokens(r.input.content);
    if (tokens <= left) {
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
    for (const next of yield* wait(port.imports(uri, signal))) {
      if (seen.has(next)) continue;
      seen.add(next);
      queue.push({ path: next, depth: depth + 1 });
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
