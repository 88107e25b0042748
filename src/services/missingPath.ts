/**
 * Where a path that does not resolve would lead. A tool asked for `linked-out/x` must answer the
 * same whether `x` exists behind the link or not, or its answers tell the model which files exist
 * outside the workspace; the same for a link to an excluded folder (`linked-git/x` → `.git/x`) and
 * for a dangling link whose target is outside. So a path `realpath` cannot resolve is followed as
 * far as it exists: its nearest ancestor that resolves, then each missing name, and a dangling link
 * by its target (at most {@link MAX_LINK_HOPS} links, as the system's own limit).
 */
import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { relativeInside, type PathApi } from '../common/pathContainment';

export const MAX_LINK_HOPS = 40;

export interface MissingPathDeps {
  /** Path rules of the platform (tests pass `path.win32` or `path.posix`). */
  paths?: PathApi & Pick<typeof nodePath, 'dirname' | 'basename' | 'join' | 'resolve'>;
  realpath?: (p: string) => Promise<string>;
  lstat?: (p: string) => Promise<{ isSymbolicLink(): boolean }>;
  readlink?: (p: string) => Promise<string>;
}

/**
 * The real path `absolute` would have if its missing names existed, with every link on the way
 * followed (dangling ones to where they point); undefined for a link loop or a link that cannot be read.
 */
export async function wouldBeRealPath(absolute: string, deps: MissingPathDeps = {}, hops = 0): Promise<string | undefined> {
  const paths = deps.paths ?? nodePath;
  const realpath = deps.realpath ?? ((p: string) => fs.promises.realpath(p));
  const lstat = deps.lstat ?? ((p: string) => fs.promises.lstat(p));
  const readlink = deps.readlink ?? ((p: string) => fs.promises.readlink(p));
  try {
    return await realpath(absolute);
  } catch {
    // Not there (or not readable): resolve the parent, then look at this name in it.
  }
  const parent = paths.dirname(absolute);
  if (parent === absolute) return absolute;
  const parentReal = await wouldBeRealPath(parent, deps, hops);
  if (parentReal === undefined) return undefined;
  const here = paths.join(parentReal, paths.basename(absolute));
  let link: boolean;
  try {
    link = (await lstat(here)).isSymbolicLink();
  } catch {
    return here;
  }
  if (!link) return here;
  if (hops >= MAX_LINK_HOPS) return undefined;
  const target = await readlink(here).catch(() => undefined);
  if (target === undefined) return undefined;
  return wouldBeRealPath(paths.resolve(parentReal, target), deps, hops + 1);
}

export type MissingPathVerdict =
  { kind: 'outside-workspace'; real?: string } | { kind: 'excluded'; realRelative: string } | { kind: 'absent' };

/**
 * What a tool answers for a path inside the folder (`relative` to it, `/` separators) that does not
 * resolve: `outside-workspace` when it would lead out of the folder's real path `folderReal` (or
 * through a link loop), `excluded` when it would lead to a path that `excluded` matches, else
 * `absent`: the same answers as for a file that exists there.
 */
export async function missingPathVerdict(
  folderReal: string,
  absolute: string,
  relative: string,
  excluded: (realRelative: string) => boolean,
  deps: MissingPathDeps = {},
): Promise<MissingPathVerdict> {
  const paths = deps.paths ?? nodePath;
  const real = await wouldBeRealPath(absolute, deps);
  if (real === undefined) return { kind: 'outside-workspace' };
  const realRelative = relativeInside(paths, folderReal, real);
  if (realRelative === undefined) return { kind: 'outside-workspace', real };
  if (realRelative !== relative && realRelative.length > 0 && excluded(realRelative)) return { kind: 'excluded', realRelative };
  return { kind: 'absent' };
}
