/**
 * `--reload-at N` for the replay tool: every completed turn up to N is saved
 * through the real `ChatStore` (into a temporary folder); after turn N the chat is loaded by a
 * fresh store instance into a fresh `PromptContextEngine` built with the same options, and the
 * replay continues with it. The request dumps must then be byte-identical to a run without reload.
 *
 * If turn N is blocked (nothing sent, so not completed), the reload happens after the next
 * completed turn. Set STRATA_KEEP_RELOAD_DIR=1 to keep the temporary store for inspection.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { ReloadHook } from './replay';
import { engineFor } from './replayCore';
import { ChatStore, chatIdFor } from '../src/services/store/chatStore';
import { compareEngineMeta, engineMeta } from '../src/engine/stateCodec';
import { PromptContextEngine } from '../src/engine/engine';

export interface ReloadStats {
  chatId: string;
  turn: number;
  bytesOnDisk: number;
  loadMs: number;
}

/** The most recent reload of this process (tests and the report read it). */
export let lastReload: ReloadStats | undefined;

function dirBytes(dir: string): number {
  let n = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    n += e.isDirectory() ? dirBytes(p) : fs.statSync(p).size;
  }
  return n;
}

export const reloadHook: ReloadHook = (traj, strategy, args, tok) => {
  const reloadAt = args.reloadAt;
  // Past the last turn there is nothing to resume (and no temporary store to leave behind).
  if (reloadAt === undefined || reloadAt > traj.turns.length) return undefined;
  const chatId = chatIdFor(traj.name);
  let root: string | undefined;
  let store: ChatStore | undefined;
  let done = false;
  return (turn, engine) => {
    if (done) return;
    if (!store) {
      root = fs.mkdtempSync(path.join(os.tmpdir(), `strata-reload-${strategy}-`));
      store = ChatStore.open(root, { durable: false });
    }
    store.appendTurn(chatId, { state: engine.state, engine: engine.options });
    if (turn < reloadAt) return;
    done = true;
    try {
      const t0 = performance.now();
      const loaded = ChatStore.open(root!, { durable: false }).loadChat(chatId);
      const fresh: PromptContextEngine = engineFor(traj, {
        layout: strategy === 'library' ? 'library' : 'transcript',
        policy: args.policy,
        tokenizer: tok,
      });
      const next = new PromptContextEngine(fresh.options, loaded.state);
      const loadMs = performance.now() - t0;
      if (loaded.warnings.length > 0) throw new Error(`reload of ${chatId}: ${loaded.warnings.join('; ')}`);
      const diff = loaded.engine ? compareEngineMeta(loaded.engine, engineMeta(next.options)) : ['no engine options were saved'];
      if (diff.length > 0) throw new Error(`reload of ${chatId}: saved options differ from the replay's: ${diff.join('; ')}`);
      lastReload = { chatId, turn, bytesOnDisk: dirBytes(root!), loadMs };
      return next;
    } finally {
      if (!process.env.STRATA_KEEP_RELOAD_DIR) fs.rmSync(root!, { recursive: true, force: true });
      else process.stderr.write(`reload: chat store kept in ${root}\n`);
    }
  };
};
