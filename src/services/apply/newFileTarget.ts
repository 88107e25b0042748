/**
 * Where a file that does not exist yet would really be written. Creating a file follows links in
 * its folders (and a dangling link at its name): `linkdir/evil.sh` with `linkdir → ../outside`
 * lands in `outside/`, `gitlink/hooks/x` with `gitlink → .git` in `.git/hooks`. So the deepest
 * ancestor that exists is resolved to its real path, which must lie inside the workspace folder
 * and, with the rest of the path, match no exclude; a link anywhere on the path that points at
 * nothing is refused; and the write goes to the real path checked here.
 */
import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { relativeInside, type PathApi } from '../../common/pathContainment';

export type NewFileTarget =
  | { ok: true; real: string; realRelative: string }
  | { ok: false; reason: 'outside-workspace' | 'excluded' | 'dangling-link' | 'exists' | 'not-a-folder'; message: string };

export interface NewFileTargetDeps {
  /** Path rules of the platform (tests pass `path.win32` or `path.posix` for the pure parts). */
  paths?: PathApi & Pick<typeof nodePath, 'join'>;
  lstat?: (p: string) => Promise<fs.Stats>;
  realpath?: (p: string) => Promise<string>;
}

/**
 * The real path a new file `relative` (workspace-relative, `/` separators, already normalized)
 * in the folder `folder` would be written to, checked. `excluded(realRelative)` says whether a
 * workspace-relative path matches `strata.context.exclude`; `label` names the file in messages.
 */
export async function newFileTarget(
  folder: string,
  relative: string,
  excluded: (realRelative: string) => boolean,
  label: string,
  deps: NewFileTargetDeps = {},
): Promise<NewFileTarget> {
  const paths = deps.paths ?? nodePath;
  const lstat = deps.lstat ?? ((p: string) => fs.promises.lstat(p));
  const realpath = deps.realpath ?? ((p: string) => fs.promises.realpath(p));
  const folderReal = await realpath(folder).catch(() => folder);
  const segments = relative.split('/').filter((s) => s.length > 0);
  // The deepest existing ancestor: walk down from the folder until a name is missing.
  let existing = 0;
  for (; existing < segments.length; existing++) {
    const p = paths.join(folder, ...segments.slice(0, existing + 1));
    let st: fs.Stats;
    try {
      st = await lstat(p);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') break;
      if (code === 'ENOTDIR')
        return { ok: false, reason: 'not-a-folder', message: `${label} cannot be created: a part of its path is a file, not a folder.` };
      throw e;
    }
    if (st.isSymbolicLink()) {
      const target = await realpath(p).catch(() => undefined);
      if (target === undefined)
        return {
          ok: false,
          reason: 'dangling-link',
          message: `${label} cannot be created: its path goes through a link that points at nothing.`,
        };
    }
  }
  if (existing === segments.length) return { ok: false, reason: 'exists', message: `${label} exists already.` };
  const ancestor = paths.join(folder, ...segments.slice(0, existing));
  const ancestorReal = existing === 0 ? folderReal : await realpath(ancestor);
  const ancestorRelative = relativeInside(paths, folderReal, ancestorReal);
  if (ancestorRelative === undefined)
    return {
      ok: false,
      reason: 'outside-workspace',
      message: `${label} would be written through a link that points outside the workspace; Strata writes only inside this window's workspace folders.`,
    };
  const rest = segments.slice(existing);
  const realRelative = [...(ancestorRelative.length > 0 ? ancestorRelative.split('/') : []), ...rest].join('/');
  if (excluded(realRelative) || excluded(relative))
    return {
      ok: false,
      reason: 'excluded',
      message: `${label} would be written to ${realRelative}, which matches strata.context.exclude; Strata does not write there.`,
    };
  return { ok: true, real: paths.join(ancestorReal, ...rest), realRelative };
}
