/**
 * A long chat as the extension sends it: the generated 1,000-turn conversation driven
 * through `ChatSession` — chips attached, `send` with a scripted provider (build, stream, commit,
 * save to the chat store), then the meter and the panel's last 50 messages, as the host refreshes
 * the panel after a turn. What a user waits for besides the model, per turn, early and late.
 *
 * The workspace is in memory and reports only changed files (as the host's file watcher and stat
 * cache do); the store writes without fsync (`durable: false`), so the figures are the CPU work, not
 * the disk. The model's window holds the whole chat (nothing is pruned).
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ChatSession } from '../../src/services/chatSession';
import { MemoryWorkspace } from '../../src/services/memoryWorkspace';
import { ScriptedProvider } from '../../src/services/providers/scripted';
import type { TurnEnvelope } from '../../src/engine/engine';
import { treeNodes } from '../../src/host/views/treeSource';
import type { SentRequest } from '../../src/host/views/sentRequests';
import type { StrataController } from '../../src/host/strataController';
import { GuardedTokenizer } from '../../src/services/tokenizer';
import { modelInfo } from '../../src/services/modelInfo';
import { generateConversation, LONG_CHAT, type GeneratedInfo, type GenerateOptions } from './generate';
import { expandFileValue } from '../trajectory';
import { round, stats, type Stats } from './stats';

export interface SessionWindow {
  /** `ChatSession.send`, from the call to the saved turn (build, scripted reply, commit, save). */
  send: Stats;
  /** `ChatStore.appendTurn` inside it: encoding the change, the state digest, the line written. */
  save: Stats;
  /** `engine.buildTurn` inside it. */
  build: Stats;
  /** The meter and the last 50 messages after the turn (the panel's refresh). */
  refresh: Stats;
  /** The Context Layers tree's nodes after the turn, with the newest 200 requests' ledgers kept as the host keeps them. */
  tree: Stats;
}

export interface SessionTurnsResult {
  turns: number;
  generated: GeneratedInfo;
  first20: SessionWindow;
  last20: SessionWindow;
  /** last ÷ first medians. */
  ratio: { send: number; save: number; build: number; refresh: number; tree: number };
  /** Bytes of the chat file after the last turn. */
  chatFileBytes: number;
  totalMs: number;
}

/** Drives the whole conversation through one session; times every turn. */
export async function measureSessionTurns(gen: GenerateOptions = LONG_CHAT): Promise<SessionTurnsResult> {
  const { trajectory: traj, info } = generateConversation(gen);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-session-'));
  const t0 = performance.now();
  try {
    const ws = new MemoryWorkspace(
      Object.entries(traj.files).map(([p, v]) => [p, expandFileValue(v)] as [string, string]),
      { fresh: 'changed' },
    );
    const tokenizer = new GuardedTokenizer(traj.model.encoding === 'cl100k_base' ? 'cl100k_base' : 'o200k_base');
    const model = modelInfo('scripted', traj.model.id, {
      contextWindow: traj.model.contextWindow,
      maxOutputTokens: traj.model.maxOutputTokens,
      encoding: tokenizer.encoding,
    });
    const session = ChatSession.open({
      storeRoot: root,
      port: ws,
      tokenizer: () => tokenizer,
      model,
      store: { durable: false },
      newChatId: () => 'long-chat',
      settings: () => ({ layout: 'transcript', policy: 'append-version' }),
    });
    // The save inside each send, timed where the pipeline calls it.
    let saveMs = 0;
    const store = session.store;
    const appendTurn = store.appendTurn.bind(store);
    store.appendTurn = (...a: Parameters<typeof store.appendTurn>) => {
      const s0 = performance.now();
      try {
        return appendTurn(...a);
      } finally {
        saveMs += performance.now() - s0;
      }
    };
    const provider = new ScriptedProvider();
    // The requests this window sent, as the controller keeps them for the tree (the newest 200).
    const sent = new Map<number, SentRequest>();
    const controller = {
      sentRequests: () => sent,
      lastSent: () => [...sent.values()].reduce<SentRequest | undefined>((a, r) => (!a || r.turn >= a.turn ? r : a), undefined),
    } as unknown as StrataController;
    const rows: { send: number; save: number; build: number; refresh: number; tree: number }[] = [];
    for (const [i, t] of traj.turns.entries()) {
      for (const [p, v] of Object.entries(t.edits ?? {})) if (v !== null) ws.write(p, expandFileValue(v));
      for (const a of t.attach ?? []) {
        const spec = a.file
          ? { kind: 'file' as const, path: a.file }
          : { kind: 'selection' as const, path: a.selection!.file, startLine: a.selection!.startLine, endLine: a.selection!.endLine };
        const r = await session.attach(spec);
        if (!r.ok) throw new Error(`turn ${i + 1}: ${r.rejection.message}`);
      }
      provider.push(t.reply);
      saveMs = 0;
      let buildMs = 0;
      let envelope: TurnEnvelope | undefined;
      const s0 = performance.now();
      const out = await session.send(t.user, provider, model, undefined, (e) => {
        if (e.type === 'built') {
          buildMs += e.buildMs;
          envelope = e.envelope;
        }
      });
      const sendMs = performance.now() - s0;
      if (out.status !== 'done') throw new Error(`turn ${i + 1} ended ${out.status}`);
      const r0 = performance.now();
      session.meter();
      session.messages({ last: 50 });
      const refreshMs = performance.now() - r0;
      sent.set(envelope!.turn, {
        chatId: 'long-chat',
        turn: envelope!.turn,
        envelope: envelope!,
        status: 'done',
        model: 'scripted',
        provider: 'openai',
      });
      if (sent.size > 200) sent.delete(Math.min(...sent.keys()));
      const g0 = performance.now();
      treeNodes(controller, session);
      rows.push({ send: sendMs, save: saveMs, build: buildMs, refresh: refreshMs, tree: performance.now() - g0 });
    }
    const win = (xs: typeof rows): SessionWindow => ({
      send: stats(xs.map((r) => r.send)),
      save: stats(xs.map((r) => r.save)),
      build: stats(xs.map((r) => r.build)),
      refresh: stats(xs.map((r) => r.refresh)),
      tree: stats(xs.map((r) => r.tree)),
    });
    const first20 = win(rows.slice(0, 20));
    const last20 = win(rows.slice(-20));
    const ratio = (k: keyof SessionWindow) => (first20[k].median > 0 ? round(last20[k].median / first20[k].median, 2) : 0);
    const chatFileBytes = fs.statSync(path.join(root, 'chats', 'long-chat.jsonl')).size;
    return {
      turns: rows.length,
      generated: info,
      first20,
      last20,
      ratio: { send: ratio('send'), save: ratio('save'), build: ratio('build'), refresh: ratio('refresh'), tree: ratio('tree') },
      chatFileBytes,
      totalMs: round(performance.now() - t0, 0),
    };
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}
