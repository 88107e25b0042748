/**
 * What code intelligence needs from a workspace (a port, like ToolWorkspacePort): the symbols of a
 * file, where a name is defined, where it is used, workspace symbols by name and the files a file
 * imports. The host answers through the editor's language features (definition, reference, document
 * and workspace symbol providers), so every language the user has installed works and path aliases
 * resolve as in the editor; the replay, the benchmark and the tests use an in-memory TypeScript
 * implementation that answers the same calls deterministically.
 *
 * Every path is workspace-relative with '/' separators (multi-root: `<folder>/<path>`). A port leaves
 * out locations outside the workspace folders; isolation (excludes, binary, size) is not its job: the
 * callers read every range through `WorkspacePort.resolve`, as an attachment would.
 */
import type { MaybePromise, WorkspacePort } from '../workspacePort';

/** A symbol of a file, as the editor's outline shows it. Lines are 1-based and inclusive. */
export interface CodeSymbol {
  name: string;
  /** Lower-case kind: `function`, `class`, `method`, `interface`, `variable`, `constant`, `enum`, `type`, `property`, `module`, … */
  kind: string;
  /** The declaration's full range (for a function, its signature through its closing brace). */
  startLine: number;
  endLine: number;
  /** The line the name itself is on (its selection range). */
  nameLine: number;
  /** What the editor shows beside the name (a signature or a type), when it has one. */
  detail?: string;
  children?: CodeSymbol[];
}

/** A place in a workspace file. Lines and columns are 1-based. */
export interface CodeLocation {
  path: string;
  line: number;
  column: number;
  /** The last line of the range the provider returned (a definition's name, usually the same line). */
  endLine?: number;
}

/** A workspace symbol: a `CodeSymbol` without children, with the file it is in. */
export interface WorkspaceSymbol {
  name: string;
  kind: string;
  path: string;
  line: number;
  /** The enclosing symbol's name (a method's class), when the provider says. */
  container?: string;
}

export interface CodeIntelPort {
  /** The file's symbols as a tree in source order; undefined when no provider knows the file's language. */
  outline(path: string, signal?: AbortSignal): MaybePromise<CodeSymbol[] | undefined>;
  /** Where the identifier at `line`:`column` is defined (inside the workspace only), nearest provider answer first. */
  definitions(path: string, line: number, column: number, signal?: AbortSignal): MaybePromise<CodeLocation[]>;
  /** Where the identifier at `line`:`column` is used, the declaration included (inside the workspace only). */
  references(path: string, line: number, column: number, signal?: AbortSignal): MaybePromise<CodeLocation[]>;
  /** Workspace symbols matching `query` as the editor's "Go to Symbol in Workspace" does, at most `limit`. */
  workspaceSymbols(query: string, limit: number, signal?: AbortSignal): MaybePromise<WorkspaceSymbol[]>;
  /**
   * The workspace files `path` imports, in source order, each once, resolved as the editor resolves
   * them (path aliases, index files, `.js` written for `.ts`); imports that resolve outside the
   * workspace (packages, `node_modules` typings) are left out.
   */
  imports(path: string, signal?: AbortSignal): MaybePromise<string[]>;
}

export function isCodeIntelPort(port: WorkspacePort | object): port is CodeIntelPort & WorkspacePort {
  const p = port as Partial<CodeIntelPort>;
  return (
    typeof p.outline === 'function' &&
    typeof p.definitions === 'function' &&
    typeof p.references === 'function' &&
    typeof p.workspaceSymbols === 'function' &&
    typeof p.imports === 'function'
  );
}
