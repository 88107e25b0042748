/**
 * Another window of the same folder, as a test writes a chat through it: its own `ChatSession` on
 * this folder's chat store (the store's lock between the two), the extension's default settings,
 * the sample workspace's files.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ChatSession } from '../../../src/services/chatSession';
import { MemoryWorkspace } from '../../../src/services/memoryWorkspace';
import { PRODUCT_PROMPT } from '../../../src/services/productPrompt';
import { getTokenizer } from '../../../src/services/tokenizer';
import { repoRoot } from './harness';
import type { E2ESession } from './session';

/** The folder's chat store, as the extension opened it: `<user data>/User/workspaceStorage/<id>/strata-dev.strata`. */
export function storeRoot(session: E2ESession): string | undefined {
  const base = path.join(session.paths.userDataDir, 'User', 'workspaceStorage');
  if (!fs.existsSync(base)) return undefined;
  const found = fs
    .readdirSync(base)
    .map((d) => path.join(base, d, 'strata-dev.strata'))
    .filter((d) => fs.existsSync(path.join(d, 'chats')));
  return found.length === 1 ? found[0] : undefined;
}

/** The extension's default tool settings (package.json): the other window runs the same Strata. */
export function defaultToolSettings(): { enabled: boolean; maxSteps: number; maxResultTokens: number; maxTurnTokens: number } {
  // The settings are contributed in titled sections.
  const sections = (
    JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {
      contributes: { configuration: { properties: Record<string, { default?: unknown }> }[] };
    }
  ).contributes.configuration;
  const props = Object.assign({}, ...sections.map((s) => s.properties)) as Record<string, { default?: unknown }>;
  const d = (k: string) => props[`strata.tools.${k}`].default;
  return {
    enabled: d('enabled') as boolean,
    maxSteps: d('maxSteps') as number,
    maxResultTokens: d('maxResultTokens') as number,
    maxTurnTokens: d('maxTurnTokens') as number,
  };
}

/** Every file of the sample workspace, by workspace-relative path (what the other window reads). */
export function workspaceFiles(root: string): [string, string][] {
  const out: [string, string][] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) out.push([path.relative(root, p).split(path.sep).join('/'), fs.readFileSync(p, 'utf8')]);
    }
  };
  walk(root);
  return out;
}

/**
 * A `ChatSession` of another window on `root` (the folder's chat store): the editor's settings as
 * another window of this folder has them (the product prompt, the folder's AGENTS.md as project
 * instructions, the default tool settings).
 */
export function otherWindowSession(session: E2ESession, root: string): ChatSession {
  const instructions = [{ source: 'AGENTS.md', text: fs.readFileSync(path.join(session.workspace, 'AGENTS.md'), 'utf8') }];
  return ChatSession.open({
    storeRoot: root,
    port: new MemoryWorkspace(workspaceFiles(session.workspace)),
    tokenizer: getTokenizer,
    settings: () => ({
      layout: 'transcript',
      policy: 'append-version',
      tools: defaultToolSettings(),
      system: PRODUCT_PROMPT,
      instructions,
    }),
    store: { durable: false },
  });
}
