/**
 * The harness scripts (plain JS under scripts/, shared with the integration runner and `npm start`),
 * loaded at run time from the repository root: the compiled test lives in out/test/e2e/, the
 * scripts do not move, so a relative import would not resolve in both places.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ChildProcess } from 'node:child_process';

function findRepoRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json')) && fs.existsSync(path.join(dir, 'scripts', 'harness', 'codeServer.js'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no repository root above ${from}`);
  }
}

export const repoRoot = findRepoRoot(__dirname);

export interface RunningCodeServer {
  child: ChildProcess;
  port: number;
  authority: string;
  url: string;
  stop(): Promise<void>;
}

export interface CodeServerModule {
  CHROMIUM_ARGS: string[];
  QUIET_SETTINGS: Record<string, unknown>;
  isolatedEnv(runDir: string): NodeJS.ProcessEnv;
  writeUserSettings(userDataDir: string, settings: Record<string, unknown>): string;
  installVsix(vsix: string, options: { extensionsDir: string; userDataDir: string; env: NodeJS.ProcessEnv }): string;
  startCodeServer(options: {
    runDir: string;
    userDataDir: string;
    extensionsDir: string;
    env: NodeJS.ProcessEnv;
    logFile: string;
    port?: number;
    smokeTestDriver?: boolean;
    disableWorkspaceTrust?: boolean;
  }): Promise<RunningCodeServer>;
  workbenchUrl(authority: string, folder: string): string;
  tail(file: string, lines: number): string;
}

export interface HarnessConfigModule {
  CODE_SERVER_VERSION: string;
  chromiumPath: string;
}

function load<T>(relative: string): T {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require(path.join(repoRoot, relative)) as T;
}

export const codeServer = load<CodeServerModule>('scripts/harness/codeServer.js');
export const harnessConfig = load<HarnessConfigModule>('scripts/harness/config.js');
