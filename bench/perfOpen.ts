/**
 * Opening a long chat from disk (issue 12: a 1,000-turn chat ≤ 150 ms). A generated conversation
 * (bench/perfGenerate.ts: seeded, real source text, edits, selections) is driven through the turn
 * pipeline with the real `ChatStore` as its persist target, so the chat file holds what the extension
 * writes. Then the open is timed the way a window opens it: a fresh `ChatStore` (`ChatStore.open`),
 * `loadChat`, and a `ChatSession` on that store opening the chat (`openChat`: the engine built on the
 * loaded state, metas, the first 50 messages for the panel).
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ChatStore } from '../src/services/chatStore';
import { ChatSession } from '../src/services/chatSession';
import { MemoryWorkspace } from '../src/services/memoryWorkspace';
import { modelInfo } from '../src/services/modelInfo';
import { GuardedTokenizer } from '../src/services/tokenizer';
import { generateConversation, type GeneratedInfo, type GenerateOptions } from './perfGenerate';
import { ReplayRun } from './replayCore';
import { round, stats, type Stats } from './perfStats';

export const OPEN_DEFAULTS = { turns: 1000, fileBytes: 5_000_000 } as const;

export interface OpenTimeResult {
  turns: number;
  generated: GeneratedInfo;
  /** Size of the chat file and of the blobs folder. */
  chatFileBytes: number;
  blobBytes: number;
  /** Writing the chat (driving the pipeline with the store as persist target), ms. */
  writeMs: number;
  runs: number;
  /** `ChatStore.open` + `loadChat` (state decoded, every blob read and verified). */
  loadChat: Stats;
  /** `ChatSession.openChat` on an open session (load + engine on the state + metas + the panel's last 50 messages). */
  openChat: Stats;
  /** A fresh window: `ChatSession.open` (store opened, index reconciled, the chat opened) + the panel's last 50 messages. */
  sessionOpen: Stats;
}

function dirBytes(dir: string): number {
  let n = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    n += e.isDirectory() ? dirBytes(p) : fs.statSync(p).size;
  }
  return n;
}

/** Writes the generated conversation into a chat store at `root`; returns the chat id. */
export function writeGeneratedChat(root: string, gen: GenerateOptions = {}): { chatId: string; info: GeneratedInfo; writeMs: number } {
  const { trajectory, info } = generateConversation({ turns: OPEN_DEFAULTS.turns, fileBytes: OPEN_DEFAULTS.fileBytes, ...gen });
  const chatId = 'long-chat';
  const store = ChatStore.open(root, { durable: false });
  const t0 = performance.now();
  const run = new ReplayRun(trajectory, { layout: 'transcript', policy: 'append-version', tokenizer: new GuardedTokenizer('o200k_base'), fresh: 'changed', check: false });
  run.pipeline.persist = { store, chatId };
  for (let i = 0; i < trajectory.turns.length; i++) {
    const { request, send } = run.prepare(i);
    run.result(i, run.pipeline.runSync(request, run.scripted, send));
  }
  return { chatId, info, writeMs: performance.now() - t0 };
}

export function measureOpenTime(runs = 7, gen: GenerateOptions = {}): OpenTimeResult {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-open-'));
  try {
    const { chatId, info, writeMs } = writeGeneratedChat(root, gen);
    const tokenizer = new GuardedTokenizer('o200k_base');
    const sessionOptions = {
      storeRoot: root,
      port: new MemoryWorkspace({}),
      tokenizer: () => tokenizer,
      settings: () => ({ layout: 'transcript' as const, policy: 'append-version' as const }),
      model: modelInfo('openai', 'gpt-4o'),
      store: { durable: false },
    };
    const load: number[] = [];
    const open: number[] = [];
    const fresh: number[] = [];
    let turns = 0;
    for (let r = 0; r < runs; r++) {
      let t0 = performance.now();
      const loaded = ChatStore.open(root, { durable: false }).loadChat(chatId);
      load.push(performance.now() - t0);
      turns = loaded.state.completedTurns;

      const session = ChatSession.open(sessionOptions, 'no-such-chat-yet');
      session.newChat();
      t0 = performance.now();
      session.openChat(chatId);
      session.messages({ last: 25 });
      open.push(performance.now() - t0);

      t0 = performance.now();
      const s2 = ChatSession.open(sessionOptions, chatId);
      s2.messages({ last: 25 });
      fresh.push(performance.now() - t0);
      if (s2.engine.state.completedTurns !== turns) throw new Error('the session opened a different chat');
    }
    return {
      turns,
      generated: info,
      chatFileBytes: fs.statSync(path.join(root, 'chats', `${chatId}.jsonl`)).size,
      blobBytes: dirBytes(path.join(root, 'blobs')),
      writeMs: round(writeMs, 0),
      runs,
      loadChat: stats(load),
      openChat: stats(open),
      sessionOpen: stats(fresh),
    };
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

if (require.main === module) {
  const turns = Number(process.argv[2] ?? OPEN_DEFAULTS.turns);
  const r = measureOpenTime(5, { turns });
  process.stdout.write(JSON.stringify(r, null, 2) + '\n');
}
