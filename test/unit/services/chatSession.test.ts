/**
 * ChatSession (src/services/chatSession.ts): the window's chats, composer chips, pending operations on
 * items already in the chat, the meter, send / stop / regenerate, reload, and the panel's message views.
 * Turns go through the real turn pipeline with a memory workspace and a scripted provider; one test
 * goes to the OpenAI imitation server over HTTP.
 */
import { onCore } from '../../support/onCore';
import * as assert from 'node:assert/strict';
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import type { ChatMessage } from '../../../src/engine/types';
import { DEFAULT_EXCLUDES, IsolationPolicy } from '../../../src/engine/isolation';
import { ChatSession, type ChatSessionOptions, type SessionSettings } from '../../../src/services/chatSession';
import { ChatStore } from '../../../src/services/store/chatStore';
import { MemoryWorkspace } from '../../../src/services/memoryWorkspace';
import { modelInfo, type ModelInfo } from '../../../src/services/modelInfo';
import { OpenAIProvider, ProviderError, type ChatRequest } from '../../../src/services/providers';
import { ScriptedProvider } from '../../../src/services/providers/scripted';
import { getTokenizer, GuardedTokenizer } from '../../../src/services/tokenizer';
import type { TurnEvent } from '../../../src/services/turnPipeline';
import { startOpenAIImitation } from '../../support/imitationServers';
import { installNetworkGuard } from '../../support/networkGuard';
import { tempDir } from '../../support/tempDir';

const tmp = (): string => tempDir('strata-session-');

const MAIN_TS = Array.from({ length: 40 }, (_, i) => `export function f${i}(x: number): number { return x + ${i}; }`).join('\n') + '\n';
const UTIL_TS = ['export const a = 1;', 'export const b = 2;', 'export const c = 3;', 'export const d = 4;', ''].join('\n');

function workspace(): MemoryWorkspace {
  return new MemoryWorkspace({ 'src/main.ts': MAIN_TS, 'src/util.ts': UTIL_TS, 'docs/notes.md': '# Notes\n\nSome notes.\n' });
}

const GPT = modelInfo('openai', 'gpt-4o');

interface Setup {
  root: string;
  ws: MemoryWorkspace;
  settings: SessionSettings;
  logs: string[];
  options: ChatSessionOptions;
}

function setup(over: Partial<ChatSessionOptions> = {}, root = tmp(), ws = workspace()): Setup {
  const settings: SessionSettings = { layout: 'transcript', policy: 'append-version', system: 'You are a test assistant.' };
  const logs: string[] = [];
  let n = 0;
  const options: ChatSessionOptions = {
    storeRoot: root,
    port: ws,
    tokenizer: (e) => getTokenizer(e),
    settings: () => settings,
    log: (l) => logs.push(l),
    model: GPT,
    store: { durable: false },
    newChatId: () => `chat-${++n}`,
    check: true,
    ...over,
  };
  return { root, ws, settings, logs, options };
}

/** A scripted provider that records every request's messages. */
function recorder(reply: (req: ChatRequest) => string = (r) => `reply to: ${lastUserText(r.messages)}`) {
  const requests: ChatMessage[][] = [];
  const provider = new ScriptedProvider((req) => reply(req), { chunkChars: 5, onRequest: (req) => requests.push(req.messages) });
  return { provider, requests };
}

function lastUserText(messages: ChatMessage[]): string {
  const m = messages[messages.length - 1];
  return m.content[m.content.length - 1].text;
}

function requestText(messages: ChatMessage[]): string {
  return messages.map((m) => m.content.map((b) => b.text).join('')).join('\n');
}

describe('ChatSession: chips, items, meter', () => {
  it('attaches files and selections as chips (labels, tokens, no duplicates), removes and pins them', async () => {
    const s = ChatSession.open(setup().options);
    const file = await s.attach({ kind: 'file', path: 'src/main.ts' });
    const sel = await s.attach({ kind: 'selection', path: 'src/util.ts', startLine: 2, endLine: 30 });
    assert.ok(file.ok && sel.ok);
    assert.deepStrictEqual(
      s.chips().map((c) => [c.kind, c.label, c.pinned]),
      [
        ['file', 'src/main.ts', false],
        ['selection', 'src/util.ts:L2-5', false],
      ],
    );
    assert.strictEqual(s.chips()[0].tokens, getTokenizer('o200k_base').count(MAIN_TS));
    assert.match(s.chips()[1].detail!, /the file ends at line 5/);
    const again = await s.attach({ kind: 'file', path: 'src/main.ts' });
    assert.ok(again.ok && again.chip.id === s.chips()[0].id, 'attaching the same file again keeps one chip');
    const refused = await s.attach({ kind: 'file', path: '.env' });
    assert.ok(!refused.ok && refused.rejection.reason === 'excluded');
    const missing = await s.attach({ kind: 'file', path: 'src/none.ts' });
    assert.ok(!missing.ok && missing.rejection.reason === 'not-found');
    const outside = await s.attach({ kind: 'file', path: '../secret.ts' });
    assert.ok(!outside.ok && outside.rejection.reason === 'outside-workspace');
    assert.ok(s.pinChip(s.chips()[1].id, true));
    assert.ok(s.removeChip(s.chips()[0].id));
    assert.ok(!s.removeChip('chip-999'));
    assert.deepStrictEqual(
      s.chips().map((c) => [c.label, c.pinned]),
      [['src/util.ts:L2-5', true]],
    );
    const { provider } = recorder();
    const o = await s.send('keep this selection', provider);
    assert.strictEqual(o.status, 'done');
    assert.deepStrictEqual(s.chips(), [], 'a kept turn clears the chips');
    const items = s.chatItems();
    assert.strictEqual(items.length, 1);
    assert.ok(items[0].pinned && items[0].kind === 'selection' && items[0].label === 'src/util.ts:L2-5');
  });

  it('meter: ok, warn, pruned, over; pending pin / remove and compact-now show at once', async () => {
    const small: ModelInfo = {
      provider: 'openai',
      model: 'tiny',
      contextWindow: 8000,
      maxOutputTokens: 1000,
      encoding: 'o200k_base',
      tokenizerEstimated: false,
      windowSource: 'server',
      outputSource: 'server',
    };
    const st = setup({ model: small });
    const big = Array.from({ length: 700 }, (_, i) => `line ${i}: some words to fill the budget`).join('\n');
    st.ws.write('src/big.ts', big);
    const s = ChatSession.open(st.options);
    const m0 = s.meter();
    assert.strictEqual(m0.level, 'ok');
    assert.strictEqual(m0.budget, 8000 - 1000 - 160);
    assert.deepStrictEqual(
      [m0.contextWindow, m0.reservedOutput, m0.margin, m0.warnPercent, m0.compactPercent, m0.targetPercent],
      [8000, 1000, 160, 70, 80, 60],
    );
    assert.strictEqual(m0.lastCachedShare, undefined);
    // A chip of ~75% of the budget: warn (the prediction is built with the chip; nothing is cut yet).
    const words = Math.floor(0.75 * m0.budget);
    st.ws.write('src/half.ts', 'x '.repeat(words));
    await s.attach({ kind: 'file', path: 'src/half.ts' });
    const m1 = s.meter();
    assert.strictEqual(m1.level, 'warn', JSON.stringify(m1));
    assert.ok(m1.used > m0.used + words * 0.9);
    s.clearChips();
    // A bigger file is compacted to fit: pruned (red).
    await s.attach({ kind: 'file', path: 'src/big.ts' });
    assert.strictEqual(s.meter().level, 'pruned');
    const { provider } = recorder();
    await s.send('read big.ts', provider);
    assert.strictEqual(s.meter().level, 'pruned', 'pruning ran for the last request');
    assert.ok(s.meter().lastCachedShare !== undefined);
    // Pinned content over the budget: over.
    st.ws.write('src/huge.ts', 'y '.repeat(m0.budget + 100));
    const huge = await s.attach({ kind: 'file', path: 'src/huge.ts' });
    assert.ok(huge.ok);
    s.pinChip(huge.chip.id, true);
    assert.strictEqual(s.meter().level, 'over');
    s.clearChips();
    // Pending operations on items already in the chat are reflected at once.
    const item = s.chatItems()[0];
    const before = s.meter().used;
    assert.ok(s.removeItem(item.id));
    assert.strictEqual(s.chatItems()[0].pending, 'detach');
    assert.ok(s.meter().used < before, 'removing big.ts lowers the prediction');
    s.cancelItemOp(item.id);
    assert.strictEqual(s.meter().used, before);
    assert.ok(s.setItemPinned(item.id, true));
    assert.strictEqual(s.chatItems()[0].pending, 'pin');
    s.cancelItemOp(item.id);
    // Compact now: the next request is cut down to the target (here 20% of the budget).
    const loose = setup({ model: { ...small, contextWindow: 16_000 } });
    loose.settings.thresholds = { warnPercent: 70, compactPercent: 90, targetPercent: 20 };
    loose.ws.write('src/big.ts', big);
    const s2 = ChatSession.open(loose.options);
    await s2.attach({ kind: 'file', path: 'src/big.ts' });
    assert.strictEqual((await s2.send('first', provider)).status, 'done');
    const plain = s2.meter();
    assert.strictEqual(plain.level, 'ok');
    const compacted = s2.compactNow();
    assert.ok(compacted.used <= (compacted.budget * 20) / 100 && compacted.used < plain.used, `${plain.used} → ${compacted.used}`);
    assert.strictEqual(compacted.level, 'pruned');
    const o = await s2.send('second', provider);
    assert.ok(o.envelope!.pruned.some((c) => c.reason === 'compacted'));
    assert.strictEqual(s2.meter().used < plain.used, true);
  });

  it('model changes update the budget at once; a different encoding gets its own tokenizer', () => {
    const s = ChatSession.open(setup().options);
    assert.strictEqual(s.meter().budget, 128_000 - 16_384 - 1000);
    s.setModel(modelInfo('openai', 'gpt-4-turbo'));
    assert.strictEqual(s.engine.options.tokenizer.encoding, 'cl100k_base');
    assert.strictEqual(s.meter().budget, 128_000 - 4096 - 1000);
    s.setModel(modelInfo('anthropic', 'claude-sonnet-4-20250514'));
    assert.strictEqual(s.meter().estimated, true);
    assert.strictEqual(s.meter().contextWindow, 200_000);
    assert.deepStrictEqual(modelInfo('ollama', 'llama3.2'), {
      provider: 'ollama',
      model: 'llama3.2',
      contextWindow: 128_000,
      maxOutputTokens: 4096,
      encoding: 'o200k_base',
      tokenizerEstimated: true,
      windowSource: 'assumed',
      outputSource: 'assumed',
    });
    assert.strictEqual(modelInfo('vscode-lm', 'copilot-x', { maxInputTokens: 60_000 }).contextWindow, 64_096);
  });
});

describe('ChatSession: chats', () => {
  it('new / rename / switch / delete; the list shows an unsaved new chat first', async () => {
    const st = setup();
    const s = ChatSession.open(st.options);
    const { provider } = recorder();
    assert.strictEqual(s.activeChatId, 'chat-1');
    assert.deepStrictEqual(
      s.chats().map((c) => [c.id, c.title, c.turns]),
      [['chat-1', 'New chat', 0]],
    );
    assert.strictEqual(s.newChat(), 'chat-1', 'an empty unsaved chat is reused');
    // A chip taken off (with Undo) does not outlive New Chat; a chip on the next message does.
    s.composer.put({ kind: 'file', path: 'a.ts' }, { kind: 'file', uri: 'a.ts', content: 'a' }, 1);
    const off = s.composer.put({ kind: 'file', path: 'b.ts' }, { kind: 'file', uri: 'b.ts', content: 'b' }, 1);
    s.composer.takeOff(off.id, 'b.ts: removed from next message.');
    s.newChat();
    assert.deepStrictEqual(
      s.composer.panelViews().map((c) => [c.label, c.removed]),
      [['a.ts', undefined]],
    );
    s.clearChips();
    s.renameChat('chat-1', '  First   chat ');
    await s.send('hello one', provider);
    assert.deepStrictEqual(
      s.chats().map((c) => [c.id, c.title, c.turns]),
      [['chat-1', 'First chat', 1]],
    );
    const second = s.newChat();
    assert.strictEqual(second, 'chat-2');
    assert.deepStrictEqual(s.messages().messages, []);
    await s.send('hello two', provider);
    await s.send('more two', provider);
    s.renameChat('chat-2', 'Second');
    assert.deepStrictEqual(
      s
        .chats()
        .map((c) => c.title)
        .sort(),
      ['First chat', 'Second'],
    );
    s.openChat('chat-1');
    assert.deepStrictEqual(
      s.messages().messages.map((m) => m.text),
      ['hello one', 'reply to: hello one'],
    );
    s.deleteChat('chat-1');
    assert.strictEqual(s.activeChatId, 'chat-2', 'deleting the active chat opens the most recent other one');
    assert.deepStrictEqual(
      s.chats().map((c) => c.id),
      ['chat-2'],
    );
    s.deleteChat('chat-2');
    assert.strictEqual(s.activeChatId, 'chat-3');
    assert.deepStrictEqual(
      s.chats().map((c) => [c.id, c.turns]),
      [['chat-3', 0]],
    );
    assert.throws(() => s.renameChat('chat-3', '   '), /cannot be empty/);
    // A session opened on the same store resumes the most recent chat.
    await s.send('hello three', provider);
    const again = ChatSession.open(setup({}, st.root).options);
    assert.strictEqual(again.activeChatId, 'chat-3');
    assert.strictEqual(again.messages().messages.length, 2);
  });

  it('messages: last N and before turn T, with stacked layer bars, usage, model and stopped status', async () => {
    const s = ChatSession.open(setup().options);
    const { provider } = recorder();
    for (let i = 1; i <= 6; i++) {
      if (i === 2) await s.attach({ kind: 'selection', path: 'src/util.ts', startLine: 1, endLine: 2 });
      await s.send(`message ${i}`, provider);
    }
    const all = s.messages();
    assert.strictEqual(all.messages.length, 12);
    assert.strictEqual(all.hasOlder, false);
    const last = s.messages({ last: 2 });
    assert.deepStrictEqual(
      last.messages.map((m) => m.id),
      ['5:user', '5:assistant', '6:user', '6:assistant'],
    );
    assert.strictEqual(last.hasOlder, true);
    const older = s.messages({ last: 2, beforeTurn: 5 });
    assert.deepStrictEqual(
      older.messages.map((m) => m.id),
      ['3:user', '3:assistant', '4:user', '4:assistant'],
    );
    const first = s.messages({ last: 10, beforeTurn: 3 });
    assert.deepStrictEqual(
      first.messages.map((m) => m.id),
      ['1:user', '1:assistant', '2:user', '2:assistant'],
    );
    assert.strictEqual(first.hasOlder, false);
    const a2 = all.messages[3];
    assert.deepStrictEqual(all.messages[2].attachments, ['src/util.ts:L1-2']);
    assert.strictEqual(a2.status, 'complete');
    assert.strictEqual(a2.model, 'openai · gpt-4o');
    assert.ok(
      a2.bar && a2.bar.total === Object.values(a2.bar.layers).reduce((x, y) => x + y, 0) && a2.bar.layers.L3 > 0 && !a2.bar.cachedReported,
    );
    // A stopped reply shows as stopped, also after a reload.
    const ctrl = new AbortController();
    const stopping = new ScriptedProvider(() => 'a long reply that will be cut short', {
      chunkChars: 4,
      onChunk: (seq) => seq === 1 && ctrl.abort(),
    });
    const o = await s.send('stop me', stopping, undefined, ctrl.signal);
    assert.ok(o.status === 'stopped' && o.kept && o.reply === 'a long r');
    const view = s.messages({ last: 1 }).messages;
    assert.deepStrictEqual([view[1].text, view[1].status], ['a long r', 'stopped']);
    const reopened = ChatSession.open(setup({}, s.store.root).options);
    assert.deepStrictEqual(reopened.messages({ last: 1 }).messages[1].status, 'stopped');
    assert.deepStrictEqual(
      reopened.messages().messages.map((m) => m.bar),
      s.messages().messages.map((m) => m.bar),
    );
  });

  it('a 500-turn chat: opening it and messages(last 50) are cheap', async function () {
    this.timeout(120_000);
    const st = setup();
    const s = ChatSession.open(st.options);
    const { provider } = recorder(() => 'ok');
    for (let i = 1; i <= 500; i++) await s.send(`turn ${i}: ${'words '.repeat(20)}`, provider);
    const t0 = performance.now();
    const reopened = ChatSession.open(setup({}, st.root).options);
    const openMs = performance.now() - t0;
    // On a core: the bound is on the work, not on what else the machine runs.
    const { value: page, ms: pageMs } = onCore(() => reopened.messages({ last: 50 }));
    assert.strictEqual(page.messages.length, 100);
    assert.strictEqual(page.messages[0].id, '451:user');
    const t2 = performance.now();
    const meter = reopened.meter();
    const meterMs = performance.now() - t2;
    assert.equal(meter.used, 18519, "the reopened chat's next request, counted");
    process.stdout.write(
      `      500 turns: open ${openMs.toFixed(0)} ms, messages(last 50) ${pageMs.toFixed(2)} ms, first meter ${meterMs.toFixed(0)} ms\n`,
    );
    assert.ok(pageMs < 20, `messages(last 50) took ${pageMs} ms on a core`);
  });
});

describe('ChatSession: turns', () => {
  it('regenerate: the same request again (selection snapshot included), the reply replaced in place', async () => {
    const st = setup();
    const s = ChatSession.open(st.options);
    const { provider, requests } = recorder((r) => `answer ${requests.length}: ${lastUserText(r.messages)}`);
    await s.send('first', provider);
    await s.attach({ kind: 'file', path: 'src/main.ts' });
    await s.attach({ kind: 'selection', path: 'src/util.ts', startLine: 2, endLine: 3 });
    s.pinChip(s.chips()[1].id, true);
    await s.attach({ kind: 'file', path: 'docs/notes.md' });
    const o = await s.send('explain these', provider);
    assert.strictEqual(o.status, 'done');
    // The selection's file changes after the snapshot: the regenerated request must still carry the snapshot.
    st.ws.write('src/util.ts', 'export const changed = true;\n');
    await s.attach({ kind: 'file', path: 'docs/notes.md' });
    const pending = s.chips();
    const events: TurnEvent['type'][] = [];
    const r = await s.regenerate(provider, undefined, undefined, (e) => events.push(e.type));
    assert.strictEqual(r.status, 'done');
    assert.strictEqual(JSON.stringify(requests[2]), JSON.stringify(requests[1]), 'byte-identical request');
    assert.strictEqual(s.messages().messages.length, 4);
    assert.strictEqual(s.messages().messages[3].text, 'answer 2: explain these');
    assert.deepStrictEqual(s.chips(), pending, 'the composer is left alone');
    assert.ok(
      s.chatItems().some((i) => i.kind === 'selection' && i.pinned),
      'the pin was applied again',
    );
    const loaded = ChatStore.open(st.root, { durable: false }).loadChat(s.activeChatId);
    assert.strictEqual(loaded.state.completedTurns, 2);
    assert.strictEqual(loaded.state.turns[1].reply, 'answer 2: explain these');
    assert.ok(events.includes('persisted') && events[events.length - 1] === 'done');
    // A failed regeneration keeps the old reply.
    const failing = new ScriptedProvider(undefined).push({ text: '', fail: new ProviderError('server', 'down') });
    const f = await s.regenerate(failing);
    assert.strictEqual(f.status, 'error');
    assert.strictEqual(s.messages().messages[3].text, 'answer 2: explain these');
    assert.strictEqual(
      ChatStore.open(st.root, { durable: false }).loadChat(s.activeChatId).state.turns[1].reply,
      'answer 2: explain these',
    );
    // Without a provider: the preview of what would be regenerated.
    const preview = await s.regenerate(undefined);
    assert.strictEqual(preview.status, 'preview');
    assert.strictEqual(JSON.stringify(preview.envelope!.messages), JSON.stringify(requests[1]));
    assert.strictEqual(s.engine.state.completedTurns, 2);
  });

  it('token counts are saved beside the chat: a new window opens it without tokenizing its history again, and meters the same', async () => {
    const tok1 = new GuardedTokenizer('o200k_base');
    const st = setup({ tokenizer: () => tok1 });
    const s = ChatSession.open(st.options);
    const { provider } = recorder();
    await s.attach({ kind: 'file', path: 'src/main.ts' });
    await s.send('one', provider);
    await s.attach({ kind: 'selection', path: 'src/util.ts', startLine: 1, endLine: 2 });
    await s.send('two, about the selection', provider);
    await s.send('three', provider);
    const chatId = s.activeChatId;
    const store = ChatStore.open(st.root, { durable: false });
    const saved = store.loadTokenCounts(chatId, tok1.counter);
    assert.ok(saved.size >= 8, `counts saved with the turns (${saved.size})`);
    assert.strictEqual(
      store.loadTokenCounts(chatId, new GuardedTokenizer('cl100k_base').counter).size,
      0,
      "another encoding's counts are not these",
    );

    // A new window: its tokenizer has counted nothing.
    const open = (tok: GuardedTokenizer) => ChatSession.open({ ...st.options, tokenizer: () => tok }, chatId);
    const fresh = new GuardedTokenizer('o200k_base');
    const meter = open(fresh).meter();
    const stats = fresh.memoStats();
    assert.equal(stats.seedHits, 20, 'the saved counts were used');
    // Without the saved counts (the file deleted), the same meter costs encoding every text.
    fs.rmSync(path.join(st.root, 'counts'), { recursive: true, force: true });
    const cold = new GuardedTokenizer('o200k_base');
    const coldMeter = open(cold).meter();
    assert.deepStrictEqual(meter, coldMeter, 'the same meter either way');
    assert.ok(
      stats.misses < cold.memoStats().misses / 2,
      `history not encoded again: ${stats.misses} encodings with the saved counts, ${cold.memoStats().misses} without`,
    );
    assert.ok(
      store.loadTokenCounts(chatId, tok1.counter).size >= saved.size,
      'that first meter saved what it counted at once (not only with the next turn)',
    );
  });

  it('reload: a new session on the same store and chat builds a byte-identical next request', async () => {
    const st = setup();
    const s = ChatSession.open(st.options);
    const { provider } = recorder();
    await s.attach({ kind: 'file', path: 'src/main.ts' });
    await s.send('one', provider);
    await s.attach({ kind: 'selection', path: 'src/util.ts', startLine: 1, endLine: 2 });
    await s.send('two', provider);
    st.ws.write('src/main.ts', MAIN_TS.replace('f0', 'g0'));
    await s.send('three', provider);
    const preview = async (session: ChatSession) => {
      await session.attach({ kind: 'file', path: 'docs/notes.md' });
      const o = await session.send('four', undefined);
      assert.strictEqual(o.status, 'preview');
      return JSON.stringify(o.envelope!.messages) + JSON.stringify(o.envelope!.layers.map((l) => l.hash));
    };
    const before = await preview(s);
    const reloaded = ChatSession.open(setup({}, st.root, st.ws).options, s.activeChatId);
    assert.strictEqual(await preview(reloaded), before);
    assert.deepStrictEqual(reloaded.messages(), s.messages());
    assert.deepStrictEqual(reloaded.meter(), s.meter());
  });

  it('isolation at send: a file chip whose file was excluded or removed since attaching sends none of it', async () => {
    const st = setup();
    st.ws.write('config/keys.ts', 'export const key = "first";\n');
    const s = ChatSession.open(st.options);
    const { provider, requests } = recorder();
    await s.attach({ kind: 'file', path: 'config/keys.ts' });
    await s.attach({ kind: 'file', path: 'docs/notes.md' });
    st.ws.setIsolation(new IsolationPolicy([...DEFAULT_EXCLUDES, 'config/**']));
    st.ws.write('config/keys.ts', 'export const key = "SECRET";\n');
    st.ws.delete('docs/notes.md');
    const o = await s.send('check', provider);
    assert.strictEqual(o.status, 'done');
    assert.deepStrictEqual(
      o.rejections.map((r) => [r.attachment, r.reason]),
      [
        ['config/keys.ts', 'excluded'],
        ['docs/notes.md', 'not-found'],
      ],
    );
    const text = requestText(requests[0]);
    assert.ok(!text.includes('SECRET') && !text.includes('first') && !text.includes('Some notes'));
  });

  it('errors keep nothing and leave the chips; no provider previews; stop() keeps what streamed', async () => {
    const st = setup();
    const s = ChatSession.open(st.options);
    await s.attach({ kind: 'file', path: 'src/util.ts' });
    const failing = new ScriptedProvider(undefined).push({ text: 'x', fail: new ProviderError('rate-limited', 'slow down') });
    const e = await s.send('hi', failing);
    assert.ok(e.status === 'error' && e.error.code === 'rate-limited');
    assert.strictEqual(s.chips().length, 1);
    assert.strictEqual(s.messages().messages.length, 0);
    assert.strictEqual(s.store.hasChat(s.activeChatId), false);
    const p = await s.send('hi', undefined);
    assert.strictEqual(p.status, 'preview');
    assert.strictEqual(s.chips().length, 1);
    assert.strictEqual(s.lastRequest(), undefined);
    let stopAt = -1;
    const slow = new ScriptedProvider(() => 'abcdefghijklmnopqrstuvwxyz', {
      chunkChars: 2,
      onChunk: (seq) => seq === 2 && ((stopAt = seq), s.stop()),
    });
    const busyCheck = s.send('go', slow);
    assert.strictEqual(s.busy, true);
    assert.throws(() => s.newChat(), /still streaming/);
    const o = await busyCheck;
    assert.strictEqual(stopAt, 2);
    assert.ok(o.status === 'stopped' && o.kept && o.reply === 'abcdef');
    assert.strictEqual(s.busy, false);
    assert.deepStrictEqual(s.chips(), []);
    assert.strictEqual(s.lastRequest()!.turn, 1);
    assert.strictEqual(ChatStore.open(st.root, { durable: false }).loadChat(s.activeChatId).turns[0].stopped, true);
  });

  it('a model or settings change while a reply streams applies when the turn ends', async () => {
    const st = setup();
    const s = ChatSession.open(st.options);
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => (release = r));
    const port = st.ws;
    const slowPort = {
      resolve: port.resolve.bind(port),
      readFresh: port.readFresh.bind(port),
      recheck: async (p: string, l: string) => (await gate, port.recheck(p, l)),
    };
    const s2 = ChatSession.open({ ...st.options, port: slowPort, storeRoot: tmp() });
    await s2.attach({ kind: 'file', path: 'src/util.ts' });
    const { provider } = recorder();
    const turn = s2.send('hello', provider);
    assert.ok(s2.busy);
    s2.setModel(modelInfo('openai', 'gpt-4-turbo'));
    st.settings.layout = 'library';
    assert.strictEqual(s2.settingsChanged(), undefined);
    assert.strictEqual(s2.engine.options.tokenizer.encoding, 'o200k_base', 'not yet');
    release();
    const o = await turn;
    assert.strictEqual(o.status, 'done');
    assert.strictEqual(o.envelope!.layout, 'transcript', 'the turn was built with the settings it started with');
    assert.strictEqual(s2.engine.options.tokenizer.encoding, 'cl100k_base');
    assert.strictEqual(s2.engine.options.layout, 'library');
    assert.strictEqual(s.busy, false);
  });

  it('a full turn through the OpenAI imitation server over HTTP, state updated before the final event', async () => {
    const guard = installNetworkGuard();
    const server = await startOpenAIImitation({ apiKey: 'sk-test-session-0123456789abcdef' });
    try {
      const s = ChatSession.open(setup().options);
      await s.attach({ kind: 'selection', path: 'src/main.ts', startLine: 3, endLine: 4 });
      server.queueReply('Here is what lines 3-4 do.');
      let atDone: number | undefined;
      const chunks: string[] = [];
      const o = await s.send(
        'what do these lines do?',
        new OpenAIProvider({ apiKey: 'sk-test-session-0123456789abcdef', baseURL: server.url }),
        modelInfo('openai', 'gpt-4o'),
        undefined,
        (e) => {
          if (e.type === 'text') chunks.push(e.text);
          if (e.type === 'done') atDone = s.messages().messages.length;
        },
      );
      assert.strictEqual(o.status, 'done');
      assert.strictEqual(chunks.join(''), 'Here is what lines 3-4 do.');
      assert.strictEqual(atDone, 2, 'messages() already shows the turn when `done` arrives');
      const body = server.chatRequests[0].body as { messages: { content: string }[]; prompt_cache_key?: string };
      assert.strictEqual(body.prompt_cache_key, s.activeChatId);
      const lines = MAIN_TS.split('\n').slice(2, 4).join('\n');
      assert.ok(body.messages[body.messages.length - 1].content.includes(`\n${lines}\n</selection:`));
      const bar = s.messages().messages[1];
      assert.ok(bar.usage && bar.bar!.cachedReported);
      assert.deepStrictEqual(guard.foreign, []);
    } finally {
      await server.close();
      guard.uninstall();
    }
  });

  it('loads no LangChain module (the host loads providers lazily)', () => {
    const out = execFileSync(
      process.execPath,
      [
        '-e',
        `require(${JSON.stringify(path.resolve(__dirname, '../../../src/services/chatSession.js'))}); process.stdout.write(String(Object.keys(require.cache).filter((k) => k.includes('langchain') || k.includes('gpt-tokenizer')).length))`,
      ],
      { encoding: 'utf8' },
    );
    assert.strictEqual(out, '0');
  });
});

describe('ChatSession: workspace tools', () => {
  it('offers the tools when the setting is on and the provider supports them; the messages show each step; a reopened chat too', async () => {
    const s = setup();
    s.settings.tools = { enabled: true, maxSteps: 8, maxResultTokens: 6000, maxTurnTokens: 60_000 };
    const offered: (readonly unknown[] | undefined)[] = [];
    const provider = new ScriptedProvider(() => 'util has four constants.', { onRequest: (req) => offered.push(req.tools) });
    provider.push({
      text: 'Reading util.',
      toolCalls: [
        { id: 'c1', name: 'read_file', args: { path: 'src/util.ts' } },
        { id: 'c2', name: 'read_file', args: { path: '../x' } },
      ],
    });
    const session = ChatSession.open(s.options);
    const events: TurnEvent[] = [];
    const outcome = await session.send('What is in util?', provider, GPT, undefined, (e) => events.push(e));
    assert.equal(outcome.status, 'done');
    assert.equal(offered.length, 2);
    assert.ok(
      offered.every((t) => Array.isArray(t) && t.length === 5),
      'the five tools in both requests',
    );
    assert.deepEqual(
      events.filter((e) => e.type === 'toolResult').map((e) => (e.type === 'toolResult' ? `${e.view.name}:${e.view.status}` : '')),
      ['read_file:done', 'read_file:refused'],
    );
    const { messages } = session.messages();
    const reply = messages.find((m) => m.role === 'assistant')!;
    assert.equal(reply.text, 'Reading util.\n\nutil has four constants.');
    assert.deepEqual(
      reply.toolSteps?.map((v) => [v.label, v.status, v.summary]),
      [
        ['read_file src/util.ts', 'done', 'src/util.ts, 5 lines'],
        ['read_file ../x', 'refused', 'refused: outside-workspace'],
      ],
    );
    // Reopened from disk: the same view, and the same next request.
    const before = session.predictedEnvelope()!.messages;
    const again = ChatSession.open(s.options, session.activeChatId);
    assert.deepEqual(again.messages().messages, session.messages().messages);
    assert.deepEqual(again.predictedEnvelope()!.messages, before);
  });

  it('offers no tools when the setting is off', async () => {
    const s = setup();
    s.settings.tools = { enabled: false, maxSteps: 8, maxResultTokens: 6000, maxTurnTokens: 60_000 };
    const offered: unknown[] = [];
    const provider = new ScriptedProvider(() => 'plain', { onRequest: (req) => offered.push(req.tools) });
    const session = ChatSession.open(s.options);
    await session.send('hi', provider, GPT);
    assert.deepEqual(offered, [undefined]);
  });
});
