/**
 * Opening a long chat in the editor gives the event loop a turn every few ms: the chat file is read
 * ahead in slices (`ChatStore.preloadChat`), and the first meter is built in steps
 * (`ChatSession.meterSliced`); an import is decoded and checked in slices
 * (`ChatStore.importMarkdownSliced`). Each must give exactly what the one-piece path gives: the same
 * head, meter, predicted request and chat file; and a sliced meter that something overtook gives way.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { ChatSession, type ChatSessionOptions } from '../../../src/services/chatSession';
import { MemoryWorkspace } from '../../../src/services/memoryWorkspace';
import { modelInfo } from '../../../src/services/modelInfo';
import { ScriptedProvider } from '../../../src/services/providers/scripted';
import { readChatHead, readChatHeadSliced } from '../../../src/services/store/chatHead';
import { getTokenizer } from '../../../src/services/tokenizer';
import { TimeSlice } from '../../../src/services/timeSlice';
import { tempDir } from '../../support/tempDir';

const SMALL = modelInfo('scripted', 'small-window', { contextWindow: 16_000, maxOutputTokens: 1024 });

function options(root: string): ChatSessionOptions {
  let n = 0;
  return {
    storeRoot: root,
    port: new MemoryWorkspace({ 'src/a.ts': 'export const a = 1;\n' }),
    tokenizer: (e) => getTokenizer(e),
    settings: () => ({ layout: 'transcript', policy: 'append-version', system: 'You are a test assistant.' }),
    store: { durable: false },
    newChatId: () => `chat-${++n}`,
  };
}

function line(i: number): string {
  return `export const value${i} = computeSomething(${i}, "text ${i % 97}", [${i % 13}, ${i % 7}]); // line ${i}`;
}

describe('opening a long chat in slices', function () {
  this.timeout(120_000);
  const root = tempDir('strata-sliced-');
  let chatId = '';

  before(async () => {
    const writer = ChatSession.open(options(root));
    writer.setModel(modelInfo('scripted', 'gpt-4o'));
    const provider = new ScriptedProvider();
    for (let t = 1; t <= 300; t++) {
      provider.push(`${t}. The answer is ${line(t)}; see also ${line(t + 1)}.`);
      assert.equal((await writer.send(`Question ${t}: what does value${t} hold?`, provider)).status, 'done');
    }
    chatId = writer.activeChatId;
    // The most recent chat, which a new session opens first: the long one is read only when asked for.
    writer.newChat();
    provider.push('Hello.');
    assert.equal((await writer.send('Hi', provider)).status, 'done');
  });

  it('reads the same head as the one-piece read, a slice at a time', async () => {
    const file = path.join(root, 'chats', `${chatId}.jsonl`);
    const whole = readChatHead(file, chatId, () => false);
    const slice = new TimeSlice(0);
    const sliced = await readChatHeadSliced(file, chatId, () => false, undefined, slice);
    assert.ok(slice.pauses >= 300, `${slice.pauses} pauses`);
    assert.deepEqual(sliced.chain?.encoded(), whole.chain?.encoded());
    assert.deepEqual({ ...sliced, chain: undefined }, { ...whole, chain: undefined });
    // Read ahead, then continued: nothing appended, so the one-piece read returns it as is.
    assert.equal(
      readChatHead(file, chatId, () => false, undefined, sliced),
      sliced,
    );
  });

  it('opens the chat with the same state and the same meter as the one-piece open', async () => {
    const plain = ChatSession.open(options(root), 'none');
    plain.setModel(SMALL);
    plain.newChat();
    plain.openChat(chatId);
    const expected = plain.meter();
    const expectedRequest = plain.predictedEnvelope();

    const sliced = ChatSession.open(options(root), 'none');
    sliced.setModel(SMALL);
    sliced.newChat();
    const slice = new TimeSlice(0);
    await sliced.store.preloadChat(chatId, slice);
    sliced.openChat(chatId);
    for (const k of ['completedTurns', 'turns', 'previousBlocks', 'summary', 'order'] as const)
      assert.deepEqual(sliced.engine.state[k], plain.engine.state[k], k);
    const meter = await sliced.meterSliced(slice);
    // The file a line at a time, the history a turn at a time, then the cuts.
    assert.ok(slice.pauses > 600, `${slice.pauses} pauses`);
    assert.deepEqual(meter, expected);
    assert.equal(JSON.stringify(sliced.predictedEnvelope()), JSON.stringify(expectedRequest));
    // Built: the next read is the same meter, at once.
    assert.deepEqual(sliced.meterIfReady(), expected);
  });

  it('gives way when the next request changes while it is paused; the meter read then is the new one', async () => {
    const s = ChatSession.open(options(root), 'none');
    s.setModel(SMALL);
    s.newChat();
    s.openChat(chatId);
    const slice = new TimeSlice(0);
    const pending = s.meterSliced(slice);
    await s.attach({ kind: 'file', path: 'src/a.ts' });
    assert.equal(await pending, undefined);
    const now = s.meter();
    const reference = ChatSession.open(options(root), 'none');
    reference.setModel(SMALL);
    reference.newChat();
    reference.openChat(chatId);
    await reference.attach({ kind: 'file', path: 'src/a.ts' });
    assert.deepEqual(now, reference.meter());
  });

  it('imports an export into the same chat file as the one-piece import', async () => {
    const s = ChatSession.open(options(root), 'none');
    const md = s.store.exportMarkdown(chatId);
    const allowed = { isAllowedPath: () => true };
    const whole = s.store.importMarkdown(md, { ...allowed, chatId: 'imported-whole' });
    const slice = new TimeSlice(0);
    const sliced = await s.store.importMarkdownSliced(md, { ...allowed, chatId: 'imported-sliced' }, slice);
    assert.ok(slice.pauses > 10, `${slice.pauses} pauses`);
    assert.deepEqual({ ...sliced, chatId: '' }, { ...whole, chatId: '' });
    const file = (id: string) => fs.readFileSync(path.join(root, 'chats', `${id}.jsonl`), 'utf8');
    assert.equal(file('imported-sliced'), file('imported-whole'));
    assert.deepEqual(s.store.loadChat('imported-sliced').state, s.store.loadChat('imported-whole').state);
  });

  it('leaves no file of a sliced import that failed, and a window opening removes an abandoned one', async () => {
    const s = ChatSession.open(options(root), 'none');
    const md = s.store.exportMarkdown(chatId);
    const temps = () => fs.readdirSync(root).filter((n) => n.startsWith('import.tmp-'));
    await assert.rejects(s.store.importMarkdownSliced(md, { isAllowedPath: () => true, chatId }, new TimeSlice(0)), (e: Error) =>
      e.message.includes('already exists'),
    );
    assert.deepEqual(temps(), []);
    const abandoned = path.join(root, 'import.tmp-1-1');
    const written = path.join(root, 'import.tmp-1-2');
    fs.writeFileSync(abandoned, '{}\n');
    fs.writeFileSync(written, '{}\n');
    const old = new Date(Date.now() - 11 * 60_000);
    fs.utimesSync(abandoned, old, old);
    ChatSession.open(options(root), 'none');
    assert.deepEqual(temps(), ['import.tmp-1-2']);
    fs.rmSync(written);
  });
});
