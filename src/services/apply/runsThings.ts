/**
 * Files that run things, or tell the editor or the model what to do: a change to one of them is not
 * "just code". Apply asks for a separate confirmation naming the risk before it proposes such a
 * change, whatever the reply calls the file (the check is on the workspace path, and again on the
 * real path the write goes to). Pure: matched on path segments, no regular expression.
 */

export interface RunsThings {
  /** What the file does when left alone, for the confirmation ("runs tasks when the folder opens"). */
  risk: string;
}

/** Exact file names (case-insensitive) anywhere in the workspace. */
const BY_NAME: Readonly<Record<string, string>> = {
  'package.json': 'its "scripts" run on npm install, npm test and other package-manager commands',
  makefile: 'its recipes run as shell commands on make',
  jenkinsfile: 'it runs as a CI pipeline',
  '.gitlab-ci.yml': 'it runs as a CI pipeline',
  '.travis.yml': 'it runs as a CI pipeline',
  'azure-pipelines.yml': 'it runs as a CI pipeline',
  'bitbucket-pipelines.yml': 'it runs as a CI pipeline',
  '.pre-commit-config.yaml': 'its hooks run on git commit',
  'lefthook.yml': 'its hooks run on git commands',
  '.gitattributes': 'its filters and diff drivers can run commands on git operations',
  '.gitmodules': 'it decides what git clones and checks out',
  '.envrc': 'direnv runs it when you enter the folder',
  '.npmrc': 'it configures npm, including scripts and registries',
  '.yarnrc.yml': 'it configures yarn, including plugins that run code',
  'agents.md': 'it gives instructions to AI assistants, Strata included',
  'claude.md': 'it gives instructions to AI assistants',
  '.cursorrules': 'it gives instructions to AI assistants',
};

/** A file directly inside one of these folders (case-insensitive). */
const BY_FOLDER: readonly [string, string][] = [
  [
    '.vscode',
    'the editor reads it: tasks can run when the folder opens, launch configurations run programs, settings change how extensions behave',
  ],
  ['.github/workflows', "it runs as a CI workflow with the repository's secrets"],
  ['.circleci', 'it runs as a CI pipeline'],
  ['.husky', 'it runs as a git hook'],
  ['.githooks', 'it runs as a git hook'],
  ['.git/hooks', 'it runs as a git hook'],
  ['.devcontainer', 'it decides what a dev container runs'],
  ['.strata', 'it gives Strata instructions for every chat in this workspace'],
];

/** `risk` for a path (workspace-relative, `/` or `\` separators), or undefined for an ordinary file. */
export function classifyRunsThings(path: string): RunsThings | undefined {
  if (path.length > 4096) return undefined;
  const segments = path
    .split(/[\\/]/)
    .filter((s) => s.length > 0 && s !== '.')
    .map((s) => s.toLowerCase());
  if (segments.length === 0) return undefined;
  const name = segments[segments.length - 1];
  if (name.endsWith('.code-workspace'))
    return { risk: 'the editor reads it: its tasks, launch configurations and settings apply to the workspace' };
  const byName = BY_NAME[name];
  if (Object.prototype.hasOwnProperty.call(BY_NAME, name) && byName) return { risk: byName };
  const folders = segments.slice(0, -1).join('/');
  for (const [folder, risk] of BY_FOLDER) if (folders === folder || folders.endsWith(`/${folder}`)) return { risk };
  return undefined;
}
