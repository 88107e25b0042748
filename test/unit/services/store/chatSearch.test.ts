import * as assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { PromptContextEngine } from '../../../../src/engine/engine';
import { parseChatSearchResult, parseWebviewRequest } from '../../../../src/protocol/requests';
import { ChatSearch, chatTexts } from '../../../../src/services/store/chatSearch';
import { ChatStore } from '../../../../src/services/store/chatStore';
import { getTokenizer } from '../../../../src/services/tokenizer';
import { tempDir } from '../../../support/tempDir';

/** A chat line as the store writes it, with only what the search reads. */
function line(turn: number, keep: number, add: { userText: string; reply: string; steps?: { text: string }[] }[]): string {
  return JSON.stringify({
    format: 'strata-chat',
    v: 2,
    turn,
    delta: { completedTurns: turn, turns: { keep, add: add.map((a, i) => ({ turn: keep + i + 1, items: [], ...a })) } },
    stateHash: '0'.repeat(64),
  });
}

describe('chat history search', () => {
  it('reads the texts of a chat the store saved: the user messages and the replies', () => {
    const root = tempDir('strata-chat-search-');
    const store = ChatStore.open(root, { durable: false });
    const engine = new PromptContextEngine({
      conversationId: 'c1',
      layout: 'transcript',
      policy: 'append-version',
      tokenizer: getTokenizer('o200k_base'),
      system: 'sys',
      limits: { contextWindow: 128000, maxOutputTokens: 4096 },
    });
    for (const [q, a] of [
      ['Why does the cache miss?', 'Because the library is re-sorted.'],
      ['And the tokenizer?', 'It counts o200k tokens.'],
    ]) {
      const env = engine.buildTurn({
        userText: q,
        attachments: [{ kind: 'file', uri: 'a.ts', content: 'export const secretInFile = 1;\n' }],
      });
      engine.completeTurn(a);
      store.appendTurn('c1', { state: engine.state, engine: engine.options, envelope: env });
    }
    const texts = chatTexts(fs.readFileSync(store.chatPath('c1'), 'utf8'));
    assert.deepEqual(texts, [
      'Why does the cache miss?',
      'Because the library is re-sorted.',
      'And the tokenizer?',
      'It counts o200k tokens.',
    ]);
    assert.ok(!texts.some((t) => t.includes('secretInFile')), 'attached files are not searched (only what was written in the chat)');
  });

  it('follows a dropped turn (Regenerate) and the text between tool steps; a torn last line is skipped', () => {
    const text = [
      line(1, 0, [{ userText: 'first question', reply: 'first answer', steps: [{ text: 'Let me read the tests.' }] }]),
      line(2, 1, [{ userText: 'second question', reply: 'an answer that was regenerated' }]),
      line(2, 1, [{ userText: 'second question', reply: 'the new answer' }]),
      '{"format":"strata-chat","v":2,"turn":3,"delta":{"turns"',
    ].join('\n');
    assert.deepEqual(chatTexts(text), ['first question', 'Let me read the tests.', 'first answer', 'second question', 'the new answer']);
  });

  it('matches titles and text case-insensitively, with an excerpt around a text match, most recent first', async () => {
    const dir = tempDir('strata-chat-search-');
    const file = (id: string) => path.join(dir, `${id}.jsonl`);
    fs.writeFileSync(
      file('a'),
      line(1, 0, [
        { userText: 'hello', reply: `${'x '.repeat(60)}The Prompt CACHE holds when the block order is kept. ${'y '.repeat(60)}` },
      ]),
    );
    fs.writeFileSync(file('b'), line(1, 0, [{ userText: 'unrelated', reply: 'nothing here' }]));
    const search = new ChatSearch(file);
    const chats = [
      { id: 'c', title: 'Cache misses' },
      { id: 'a', title: 'Order of blocks' },
      { id: 'b', title: 'Other' },
      { id: 'gone', title: 'Deleted meanwhile' },
    ];
    const found = await search.search('prompt cache', chats);
    assert.equal(found.complete, true);
    assert.deepEqual(
      found.matches.map((m) => m.chatId),
      ['a'],
    );
    assert.match(found.matches[0].excerpt!, /^….*The Prompt CACHE holds when the block order is kept\..*…$/);
    assert.ok(found.matches[0].excerpt!.length < 200);
    assert.deepEqual(
      (await search.search('CACHE', chats)).matches.map((m) => [m.chatId, m.excerpt !== undefined]),
      [
        ['c', false],
        ['a', true],
      ],
    );
    assert.equal((await search.search('  ', chats)).matches.length, 4, 'a blank query lists every chat');
  });

  it('a newer search ends an older one, and the time bound ends a long one (incomplete)', async () => {
    const dir = tempDir('strata-chat-search-');
    const file = (id: string) => path.join(dir, `${id}.jsonl`);
    const chats = Array.from({ length: 50 }, (_, i) => ({ id: `c${i}`, title: `Chat ${i}` }));
    for (const c of chats) fs.writeFileSync(file(c.id), line(1, 0, [{ userText: 'q', reply: `answer of ${c.id}` }]));
    const search = new ChatSearch(file);
    const first = search.search('answer', chats);
    const second = await search.search('answer of c4', chats);
    assert.equal((await first).complete, false);
    assert.deepEqual(
      second.matches.map((m) => m.chatId),
      ['c4', 'c40', 'c41', 'c42', 'c43', 'c44', 'c45', 'c46', 'c47', 'c48', 'c49'],
    );
    let t = 0;
    const bounded = await new ChatSearch(file).search('answer', chats, { deadlineMs: 5, now: () => (t += 1) });
    assert.equal(bounded.complete, false);
    assert.ok(bounded.matches.length < chats.length);
  });

  it('searches 1,000 chats without holding the event loop more than 50 ms at a time', async function () {
    this.timeout(120_000);
    const dir = tempDir('strata-chat-search-');
    const file = (id: string) => path.join(dir, `${id}.jsonl`);
    const words = 'cache prefix token budget layer history library attachment version selection engine provider stream'.split(' ');
    const chats = Array.from({ length: 1000 }, (_, i) => ({ id: `c${i}`, title: `Chat ${i}` }));
    for (const [i, c] of chats.entries()) {
      const lines: string[] = [];
      for (let t = 1; t <= 12; t++) {
        const text = Array.from({ length: 160 }, (_, k) => words[(i * 7 + t * 3 + k) % words.length]).join(' ');
        lines.push(
          line(t, t - 1, [
            { userText: `question ${t} ${text.slice(0, 80)}`, reply: i === 777 && t === 9 ? `${text} needle-777 ${text}` : text },
          ]),
        );
      }
      fs.writeFileSync(file(c.id), lines.join('\n') + '\n');
    }
    const search = new ChatSearch(file);
    // The event loop's longest gap while the search runs: what a command or a message would wait.
    let longestGap = 0;
    let last = performance.now();
    const timer = setInterval(() => {
      const now = performance.now();
      longestGap = Math.max(longestGap, now - last);
      last = now;
    }, 1);
    const t0 = performance.now();
    const cold = await search.search('needle-777', chats, { deadlineMs: 60_000 });
    const coldMs = performance.now() - t0;
    const t1 = performance.now();
    const warm = await search.search('needle-77', chats, { deadlineMs: 60_000 });
    const warmMs = performance.now() - t1;
    clearInterval(timer);
    assert.deepEqual(
      cold.matches.map((m) => m.chatId),
      ['c777'],
    );
    assert.deepEqual(
      warm.matches.map((m) => m.chatId),
      ['c777'],
    );
    console.log(
      `      1,000 chats (${chats.length * 12} turns): first search ${coldMs.toFixed(0)} ms, again ${warmMs.toFixed(0)} ms; longest hold ${Math.max(cold.longestSliceMs, warm.longestSliceMs).toFixed(1)} ms, longest event-loop gap ${longestGap.toFixed(1)} ms`,
    );
    assert.ok(cold.longestSliceMs < 50 && warm.longestSliceMs < 50, 'one chat never holds the host 50 ms');
  });

  it('the protocol checks the search request and its answer', () => {
    assert.deepEqual(parseWebviewRequest({ kind: 'searchChats', query: 'cache' }), { kind: 'searchChats', query: 'cache' });
    assert.match(String(parseWebviewRequest({ kind: 'searchChats', query: 'x'.repeat(201) })), /at most 200/);
    assert.deepEqual(parseWebviewRequest({ kind: 'deleteChat', chatId: 'c1', confirm: true }), {
      kind: 'deleteChat',
      chatId: 'c1',
      confirm: true,
    });
    assert.deepEqual(parseWebviewRequest({ kind: 'deleteChat', chatId: 'c1' }), { kind: 'deleteChat', chatId: 'c1' });
    assert.match(String(parseWebviewRequest({ kind: 'deleteChat', chatId: 'c1', confirm: 'yes' })), /confirm must be a boolean/);
    assert.deepEqual(parseChatSearchResult({ hits: [{ chatId: 'c1', excerpt: '…x…' }], complete: true }), {
      hits: [{ chatId: 'c1', excerpt: '…x…' }],
      complete: true,
    });
    assert.equal(parseChatSearchResult({ hits: [{ chatId: '../x' }], complete: true }), undefined);
    assert.equal(parseChatSearchResult({ hits: [] }), undefined);
  });
});
