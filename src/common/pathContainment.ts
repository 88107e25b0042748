/**
 * Whether a file system path lies inside a folder, decided once for every platform. The path API
 * is a parameter (Node's `path`, `path.win32` or `path.posix`), so Windows rules are tested on any
 * machine and this module stays free of Node.
 *
 * `relative(root, target)` does the comparing: on Windows it ignores case (drive letters included)
 * and either separator, and understands UNC paths. Long-path forms (`\\?\C:\…`, `\\?\UNC\server\…`)
 * are rewritten to their plain forms first, so a real path reported in one form and a folder in the
 * other still compare.
 */

/** The part of Node's `path` module the check needs. */
export interface PathApi {
  readonly sep: string;
  relative(from: string, to: string): string;
  isAbsolute(path: string): boolean;
}

/** `\\?\C:\x` → `C:\x`, `\\?\UNC\server\share\x` → `\\server\share\x` (Windows only). */
function withoutLongPathPrefix(api: PathApi, p: string): string {
  if (api.sep !== '\\') return p;
  const unified = p.replace(/\//g, '\\');
  if (/^\\\\[?.]\\UNC\\/i.test(unified)) return `\\\\${unified.slice(8)}`;
  if (/^\\\\[?.]\\[A-Za-z]:/.test(unified)) return unified.slice(4);
  return unified;
}

/**
 * `target`'s path relative to `root` with '/' separators ('' for `root` itself), or undefined when
 * `target` is not inside `root` (another drive, a climb out with `..`, or not absolute).
 */
export function relativeInside(api: PathApi, root: string, target: string): string | undefined {
  const from = withoutLongPathPrefix(api, root);
  const to = withoutLongPathPrefix(api, target);
  if (!api.isAbsolute(from) || !api.isAbsolute(to)) return undefined;
  const rel = api.relative(from, to);
  if (rel === '') return '';
  // Another drive or UNC share: `relative` answers with an absolute path.
  if (api.isAbsolute(rel)) return undefined;
  const parts = rel.split(api.sep);
  if (parts[0] === '..') return undefined;
  return parts.join('/');
}

/** Whether `target` is `root` or lies inside it. */
export function isInside(api: PathApi, root: string, target: string): boolean {
  return relativeInside(api, root, target) !== undefined;
}
