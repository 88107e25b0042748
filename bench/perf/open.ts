/**
 * Opening a long chat from disk (target: a 1,000-turn chat in ≤ 150 ms). The generated conversation of
 * bench/perf/generate.ts (seeded, real source text, ~5 MB of distinct files, edits, selections) is
 * saved by the real `ChatStore`, one line per turn — its states built directly (`writeSyntheticChat`,
 * seconds) or by driving the turn pipeline (`writeGeneratedChat`, what the extension writes, a minute
 * for 1,000 turns). Then the open is timed the way a window opens it: a fresh `ChatStore`
 * (`ChatStore.open`), `loadChat`, and a `ChatSession` on that store opening the chat (`openChat`: the
 * engine built on the loaded state, metas, the panel's last 50 messages); and once as the first thing
 * a new process does (cold).
 *
 *   node out/bench/perf/open.js [turns] [--pipeline]
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { fileId, makeArtifact, sliceLines, versionKey, type NewArtifactInput } from '../../src/engine/artifacts';
import { emptyState, type ChatState, type TurnItem } from '../../src/engine/state';
import { engineMeta, type EngineMeta } from '../../src/engine/stateCodec';
import { PromptContextEngine } from '../../src/engine/engine';
import { ChatStore } from '../../src/services/store/chatStore';
import { ChatSession } from '../../src/services/chatSession';
import { MemoryWorkspace } from '../../src/services/memoryWorkspace';
import { modelInfo } from '../../src/services/modelInfo';
import { GuardedTokenizer } from '../../src/services/tokenizer';
import { NODE_HASHER } from '../../src/services/nodeHasher';
import { generateConversation, type GeneratedInfo, type GenerateOptions } from './generate';
import { ReplayRun } from '../replayCore';
import { expandFileValue } from '../trajectory';
import { round, stats, type Stats } from './stats';

export const OPEN_DEFAULTS = { turns: 1000, fileBytes: 5_000_000 } as const;

export interface OpenTimeResult {
  turns: number;
  generated: GeneratedInfo;
  /** How the chat was written: `synthetic` (states built directly, saved by ChatStore) or `pipeline`. */
  writer: 'synthetic' | 'pipeline';
  /** Size of the chat file, of the blobs folder, and the number of blobs. */
  chatFileBytes: number;
  blobBytes: number;
  blobs: number;
  /** Writing the chat, ms. */
  writeMs: number;
  runs: number;
  /** `ChatStore.open` + `loadChat` (state decoded, every blob read and verified), in this process. */
  loadChat: Stats;
  /** `ChatSession.openChat` on an open session (load + engine on the state + metas) + the panel's last 50 messages. */
  openChat: Stats;
  /** A fresh window: `ChatSession.open` (store opened, index reconciled, the chat opened) + the panel's last 50 messages. */
  sessionOpen: Stats;
  /** `ChatStore.open` + `loadChat` as the first thing a new Node process does (nothing compiled or warm yet). */
  cold: Stats;
  /**
   * The meter after the open, in a window whose tokenizer has counted nothing yet (`ChatSession.meter`:
   * the first build of the chat, which counts every past text; the panel's state carries it).
   */
  firstMeter: Stats;
  /** The same with the token counts an earlier window saved beside the chat (what this version saves). */
  firstMeterSaved: Stats;
  /** The meter after a change to the next request (an item removed, then kept), once the chat was metered. */
  meterAfterChange: Stats;
}

function dirBytes(dir: string): number {
  let n = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    n += e.isDirectory() ? dirBytes(p) : fs.statSync(p).size;
  }
  return n;
}

/**
 * Writes the generated conversation into a chat store at `root` by driving it through the turn
 * pipeline (what the extension writes, exactly; slow for 1,000 turns: every build renders the whole
 * transcript). Returns the chat id.
 */
export function writeGeneratedChat(root: string, gen: GenerateOptions = {}): { chatId: string; info: GeneratedInfo; writeMs: number } {
  const { trajectory, info } = generateConversation({ turns: OPEN_DEFAULTS.turns, fileBytes: OPEN_DEFAULTS.fileBytes, ...gen });
  const chatId = 'long-chat';
  const store = ChatStore.open(root, { durable: false });
  const t0 = performance.now();
  const run = new ReplayRun(trajectory, {
    layout: 'transcript',
    policy: 'append-version',
    tokenizer: new GuardedTokenizer('o200k_base'),
    fresh: 'changed',
    check: false,
  });
  run.pipeline.persist = { store, chatId };
  for (let i = 0; i < trajectory.turns.length; i++) {
    const { request, send } = run.prepare(i);
    run.result(i, run.pipeline.runSync(request, run.scripted, send));
  }
  return { chatId, info, writeMs: performance.now() - t0 };
}

/**
 * Writes the generated conversation into a chat store at `root` without the engine: the chat state
 * each turn leaves (files attached, re-attached as references, edited files as new versions with the
 * old ones superseded, selections, the previous request's block hashes, per-turn request facts) is
 * built directly and saved with `ChatStore.appendTurn`, one line per turn, as the extension saves
 * them. Seconds instead of a minute for 1,000 turns; the file has the same shape and about the same
 * size as the pipeline's (`writeGeneratedChat`).
 */
export function writeSyntheticChat(root: string, gen: GenerateOptions = {}): { chatId: string; info: GeneratedInfo; writeMs: number } {
  const { trajectory, info } = generateConversation({ turns: OPEN_DEFAULTS.turns, fileBytes: OPEN_DEFAULTS.fileBytes, ...gen });
  const chatId = 'long-chat';
  const store = ChatStore.open(root, { durable: false });
  const t0 = performance.now();
  const meta: EngineMeta = engineMeta({
    conversationId: chatId,
    layout: 'transcript',
    policy: 'append-version',
    tokenizer: { encoding: 'o200k_base', count: () => 0 },
    limits: { contextWindow: trajectory.model.contextWindow, maxOutputTokens: trajectory.model.maxOutputTokens },
    system: trajectory.system,
  });
  const state: ChatState = emptyState();
  const current = new Map(Object.entries(trajectory.files).map(([p, v]) => [p, expandFileValue(v)]));
  const h = (t: string) => NODE_HASHER.sha256Hex(t);
  const add = (input: NewArtifactInput, turn: number): string => {
    const probe = makeArtifact(input, 1, NODE_HASHER);
    const v = (state.versions.get(probe.id) ?? 0) + 1;
    const artifact = v === 1 ? probe : makeArtifact(input, v, NODE_HASHER);
    const key = versionKey(artifact.id, v);
    const old = state.latest.get(artifact.id);
    if (old) state.entries.set(old, { ...state.entries.get(old)!, superseded: true, presence: 'pruned' });
    state.entries.set(key, { artifact, key, firstTurn: turn, presence: 'present', superseded: false, missing: false, essential: false });
    state.latest.set(artifact.id, key);
    state.versions.set(artifact.id, v);
    state.order.push(key);
    return key;
  };
  let blocks = [`system:${h(trajectory.system)}`];
  trajectory.turns.forEach((t, i) => {
    const turn = i + 1;
    const items: TurnItem[] = [];
    const seen = new Set<string>();
    for (const [p, text] of Object.entries(t.edits ?? {})) if (text !== null) current.set(p, expandFileValue(text));
    // Append-version: an attached file edited since is sent again, as a new version, at the next turn.
    for (const [p] of Object.entries(t.edits ?? {})) {
      const key = state.latest.get(fileId(p));
      if (key && state.entries.get(key)!.artifact.content !== current.get(p)) {
        items.push({ key: add({ kind: 'file', uri: p, content: current.get(p)! }, turn), mode: 'full' });
        seen.add(fileId(p));
      }
    }
    for (const a of t.attach ?? []) {
      if (a.file) {
        const id = fileId(a.file);
        if (seen.has(id)) continue;
        seen.add(id);
        const key = state.latest.get(id);
        if (key) items.push({ key, mode: 'reference' });
        else items.push({ key: add({ kind: 'file', uri: a.file, content: current.get(a.file)! }, turn), mode: 'full' });
      } else if (a.selection) {
        const sel = sliceLines(current.get(a.selection.file)!, { startLine: a.selection.startLine, endLine: a.selection.endLine });
        if (!sel) continue;
        const input: NewArtifactInput = { kind: 'selection', uri: a.selection.file, range: sel.range, content: sel.content };
        const id = makeArtifact(input, 1, NODE_HASHER).id;
        if (seen.has(id)) continue;
        seen.add(id);
        items.push(state.latest.has(id) ? { key: state.latest.get(id)!, mode: 'reference' } : { key: add(input, turn), mode: 'full' });
      }
    }
    state.turns = [...state.turns, { turn, userText: t.user, items, reply: t.reply }];
    state.completedTurns = turn;
    blocks = [
      ...blocks,
      ...items.filter((x) => x.mode === 'full').map((x) => `user:${state.entries.get(x.key)!.artifact.contentHash}`),
      `user:${h(t.user)}`,
      `assistant:${h(t.reply)}`,
    ];
    state.previousBlocks = blocks;
    const layers = (['L1', 'L2', 'L3', 'L4', 'L5'] as const).map((id, k) => ({
      id,
      hash: h(`${id}:${turn}:${k}`),
      tokens: 1000 * (k + 1) + turn,
    }));
    store.appendTurn(chatId, {
      state,
      engine: meta,
      envelope: {
        layers,
        prefixHash: h(`prefix:${turn}`),
        totalTokens: 15_000 + turn * 400,
        ledger: { cachedTokens: 14_000 + turn * 380, budget: 1_900_000 },
      },
      usage: { input: 15_000 + turn * 400, cacheRead: 14_000 + turn * 380, cacheWrite: 0, output: 300 },
      model: 'OpenAI · gpt-4o',
      provider: 'openai',
      request: {
        attachments: (t.attach ?? []).map((a) =>
          a.file
            ? { kind: 'file' as const, path: a.file }
            : { kind: 'selection' as const, path: a.selection!.file, startLine: a.selection!.startLine, endLine: a.selection!.endLine },
        ),
      },
    });
  });
  return { chatId, info, writeMs: performance.now() - t0 };
}

/** Opens the chat once in this process and prints the time (the cold case runs this in a new process). */
function coldOpen(root: string, chatId: string): number {
  const t0 = performance.now();
  const loaded = ChatStore.open(root, { durable: false }).loadChat(chatId);
  const ms = performance.now() - t0;
  if (loaded.state.completedTurns === 0) throw new Error('empty chat');
  return ms;
}

export function measureOpenTime(
  runs = 7,
  gen: GenerateOptions = {},
  writer: 'synthetic' | 'pipeline' = 'synthetic',
  coldRuns = 3,
): OpenTimeResult {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-open-'));
  try {
    const { chatId, info, writeMs } = (writer === 'synthetic' ? writeSyntheticChat : writeGeneratedChat)(root, gen);
    const tokenizer = new GuardedTokenizer('o200k_base');
    const sessionOptions = {
      storeRoot: root,
      port: new MemoryWorkspace({}),
      tokenizer: () => tokenizer,
      settings: () => ({ layout: 'transcript' as const, policy: 'append-version' as const }),
      model: modelInfo('openai', 'gpt-4o'),
      store: { durable: false },
    };
    // A second, small chat: the session under test has it open when it opens the long one from disk.
    const small = new PromptContextEngine({
      conversationId: 'small-chat',
      layout: 'transcript',
      policy: 'append-version',
      tokenizer,
      system: 'small',
      limits: { contextWindow: 128_000, maxOutputTokens: 4096 },
    });
    small.buildTurn({ userText: 'a small chat' });
    small.completeTurn('ok');
    ChatStore.open(root, { durable: false }).appendTurn('small-chat', { state: small.state, engine: small.options });
    const cold: number[] = [];
    for (let r = 0; r < coldRuns; r++) {
      const out = execFileSync(process.execPath, [__filename, '--cold', root, chatId], { encoding: 'utf8' });
      cold.push(Number(out.trim()));
    }
    const load: number[] = [];
    const open: number[] = [];
    const fresh: number[] = [];
    let turns = 0;
    for (let r = 0; r < runs; r++) {
      let t0 = performance.now();
      const loaded = ChatStore.open(root, { durable: false }).loadChat(chatId);
      load.push(performance.now() - t0);
      turns = loaded.state.completedTurns;

      const session = ChatSession.open(sessionOptions, 'small-chat');
      if (session.activeChatId !== 'small-chat') throw new Error('the session opened another chat first');
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
    const firstMeter: number[] = [];
    for (let r = 0; r < Math.min(3, runs); r++) {
      // As a chat saved by an older version: no counts beside it (the session saves them after this meter).
      fs.rmSync(path.join(root, 'counts'), { recursive: true, force: true });
      const fresh = new GuardedTokenizer('o200k_base');
      const s3 = ChatSession.open({ ...sessionOptions, tokenizer: () => fresh }, chatId);
      const t0 = performance.now();
      s3.meter();
      firstMeter.push(performance.now() - t0);
    }
    const counter = new GuardedTokenizer('o200k_base').counter;
    if (ChatStore.open(root, { durable: false }).loadTokenCounts(chatId, counter).size === 0)
      throw new Error('the first meter of a long chat saved no token counts');
    const firstMeterSaved: number[] = [];
    const meterAfterChange: number[] = [];
    for (let r = 0; r < Math.min(3, runs); r++) {
      const fresh = new GuardedTokenizer('o200k_base');
      const s4 = ChatSession.open({ ...sessionOptions, tokenizer: () => fresh }, chatId);
      let t0 = performance.now();
      s4.meter();
      firstMeterSaved.push(performance.now() - t0);
      // Then the user changes what the next request holds (an item removed, then kept): each change
      // builds the predicted request again, pruning included until a turn is sent.
      const item = s4
        .chatItems()
        .filter((i) => i.status === 'present')
        .pop();
      if (!item) throw new Error('no item to remove');
      for (let k = 0; k < 4; k++) {
        if (k % 2 === 0) s4.removeItem(item.id);
        else s4.cancelItemOp(item.id);
        t0 = performance.now();
        s4.meter();
        meterAfterChange.push(performance.now() - t0);
      }
    }
    const blobsDir = path.join(root, 'blobs');
    return {
      turns,
      generated: info,
      writer,
      chatFileBytes: fs.statSync(path.join(root, 'chats', `${chatId}.jsonl`)).size,
      blobBytes: dirBytes(blobsDir),
      blobs: fs.readdirSync(blobsDir).reduce((n, d) => n + fs.readdirSync(path.join(blobsDir, d)).length, 0),
      writeMs: round(writeMs, 0),
      runs,
      loadChat: stats(load),
      openChat: stats(open),
      sessionOpen: stats(fresh),
      cold: stats(cold),
      firstMeter: stats(firstMeter),
      firstMeterSaved: stats(firstMeterSaved),
      meterAfterChange: stats(meterAfterChange),
    };
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

if (require.main === module) {
  const args = process.argv.slice(2);
  if (args[0] === '--cold') {
    process.stdout.write(`${coldOpen(args[1], args[2])}\n`);
  } else {
    // node out/bench/perf/open.js [turns] [--pipeline]
    const turns = Number(args.find((a) => /^\d+$/.test(a)) ?? OPEN_DEFAULTS.turns);
    const r = measureOpenTime(5, { turns }, args.includes('--pipeline') ? 'pipeline' : 'synthetic');
    process.stdout.write(JSON.stringify(r, null, 2) + '\n');
  }
}
