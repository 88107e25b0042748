/**
 * Two windows, one chat store, at the store level: two `ChatStore` instances on one folder
 * stand for two windows. Appends checked against their base (appended / diverged / missing), status
 * and incremental reads after the other window's writes, Regenerate refused when its turn is no
 * longer the last, the store lock (stale-lock breaking, busy, a torn line of a write in progress),
 * blob collection's grace period, chat files in the engine's key order (written before canonical
 * lines), snapshots reused on reload, and snapshots with lone surrogates.
 */
import * as assert from 'node:assert/strict';
import { execFileSync, spawn } from 'child_process';
import * as crypto from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { PromptContextEngine, type EngineOptions } from '../../../../src/engine/engine';
import { diffState, encodeState, engineMeta, stateBlobs, stateDigest } from '../../../../src/engine/stateCodec';
import { ChatStore, ChatStoreError, type ChatBase } from '../../../../src/services/store/chatStore';
import { getTokenizer } from '../../../../src/services/tokenizer';
import { tempDir } from '../../../support/tempDir';

const tmp = (): string => tempDir('strata-windows-');

function options(id = 'c1'): EngineOptions {
  return {
    conversationId: id,
    layout: 'transcript',
    policy: 'append-version',
    tokenizer: getTokenizer('o200k_base'),
    system: 'sys',
    limits: { contextWindow: 128000, maxOutputTokens: 4096 },
  };
}

/** A window: its store instance, its engine, and the base its engine state is. */
class Window {
  engine: PromptContextEngine;
  base: ChatBase = { turns: 0, stateHash: '' };
  constructor(
    readonly store: ChatStore,
    readonly chatId = 'c1',
  ) {
    this.engine = new PromptContextEngine(options(chatId));
  }
  static open(root: string, chatId = 'c1'): Window {
    return new Window(ChatStore.open(root, { durable: false }), chatId);
  }
  load(): this {
    const l = this.store.loadChat(this.chatId);
    this.engine = new PromptContextEngine(options(this.chatId), l.state);
    this.base = l.base;
    return this;
  }
  /** Builds and completes a turn in memory (not saved). */
  turn(text: string, file?: [string, string]): void {
    this.engine.buildTurn({ userText: text, attachments: file ? [{ kind: 'file', uri: file[0], content: file[1] }] : [] });
    this.engine.completeTurn(`reply to ${text}`);
  }
  save(extra: { replaceLast?: boolean } = {}): void {
    const r = this.store.appendTurn(this.chatId, { state: this.engine.state, engine: this.engine.options, base: this.base, ...extra });
    this.base = r.base;
  }
  send(text: string, file?: [string, string]): void {
    this.turn(text, file);
    this.save();
  }
}

function conflictOf(fn: () => void): ChatStoreError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ChatStoreError && e.code === 'conflict') return e;
    throw e;
  }
  throw new Error('no conflict');
}

const texts = (store: ChatStore, id = 'c1') => store.loadChat(id).state.turns.map((t) => t.userText);

function deadPid(): number {
  return Number(execFileSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }));
}

describe('two windows, one chat store', () => {
  it('an append built on a state another window moved past is refused, saying the other window appended; the status says so too', () => {
    const root = tmp();
    const a = Window.open(root);
    const b = Window.open(root);
    a.send('one');
    b.load();
    a.send('two');
    assert.deepStrictEqual(b.store.chatStatus('c1', b.base), { relation: 'appended', disk: a.base });
    b.turn('from b');
    const e = conflictOf(() => b.save());
    assert.deepStrictEqual(e.conflict, { reason: 'appended', base: { turns: 1, stateHash: b.base.stateHash }, disk: a.base });
    assert.match(e.message, /has 1 turn\(s\) saved after turn 1 .*the turn was not saved/);
    assert.deepStrictEqual(texts(a.store), ['one', 'two'], 'nothing of b was written');
    // b follows the disk and continues.
    b.load();
    assert.strictEqual(b.store.chatStatus('c1', b.base).relation, 'same');
    b.send('three from b');
    assert.deepStrictEqual(texts(Window.open(root).store), ['one', 'two', 'three from b']);
    // A new chat created in the meantime by the other window: also `appended` from an empty base.
    const c = Window.open(root, 'c2');
    const d = Window.open(root, 'c2');
    c.send('c first');
    d.turn('d first');
    assert.strictEqual(conflictOf(() => d.save()).conflict!.reason, 'appended');
  });

  it('diverged: the turn an append followed was regenerated in the other window; missing: the chat was deleted', () => {
    const root = tmp();
    const a = Window.open(root);
    a.send('one');
    a.send('two');
    const b = Window.open(root).load();
    // b regenerates turn 2 (replaces it under one lock).
    b.engine = new PromptContextEngine(options(), b.store.loadChat('c1', { throughTurn: 1 }).state);
    b.turn('two again');
    b.save({ replaceLast: true });
    assert.deepStrictEqual(texts(b.store), ['one', 'two again']);
    a.turn('three');
    const e = conflictOf(() => a.save());
    assert.strictEqual(e.conflict!.reason, 'diverged');
    assert.match(e.message, /no longer holds the turn 2/);
    assert.strictEqual(a.store.chatStatus('c1', a.base).relation, 'diverged');
    b.store.deleteChat('c1');
    assert.strictEqual(a.store.chatStatus('c1', a.base).relation, 'missing');
    assert.strictEqual(conflictOf(() => a.save()).conflict!.reason, 'missing');
    assert.ok(!a.store.hasChat('c1'), 'a deleted chat is not brought back');
  });

  it('Regenerate whose turn is no longer the last is refused and cuts nothing', () => {
    const root = tmp();
    const a = Window.open(root);
    a.send('one');
    a.send('two');
    const b = Window.open(root).load();
    b.send('three from b');
    a.engine = new PromptContextEngine(options(), a.store.loadChat('c1', { throughTurn: 1 }).state);
    a.turn('two again');
    assert.strictEqual(conflictOf(() => a.save({ replaceLast: true })).conflict!.reason, 'appended');
    assert.deepStrictEqual(texts(Window.open(root).store), ['one', 'two', 'three from b'], "the other window's turn is still there");
  });

  it('reads only what the other window appended, and notices a rewrite of the same length', () => {
    const root = tmp();
    const a = Window.open(root);
    const b = Window.open(root);
    a.send('one', ['f1.ts', 'export const one = 1;\n']);
    a.send('two');
    b.load();
    const file = path.join(root, 'chats', 'c1.jsonl');
    // Spy on what b reads: after a's appends, only the new bytes (and its last line, to check it).
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const nodeFs = require('fs') as typeof fs;
    const readSync = nodeFs.readSync;
    let read = 0;
    nodeFs.readSync = ((fd: number, buf: NodeJS.ArrayBufferView, off: number, len: number, pos: number) => {
      const n = readSync(fd, buf, off, len, pos);
      read += n;
      return n;
    }) as typeof fs.readSync;
    try {
      const before = fs.statSync(file).size;
      a.send('three');
      a.send('four');
      read = 0;
      const status = b.store.chatStatus('c1', b.base);
      assert.strictEqual(status.relation, 'appended');
      const lastLine = fs.readFileSync(file, 'utf8').split('\n').filter(Boolean)[1].length + 1;
      assert.strictEqual(read, fs.statSync(file).size - before + lastLine, 'the new lines and the last line known');
    } finally {
      nodeFs.readSync = readSync;
    }
    const again = b.store.loadChat('c1');
    assert.deepStrictEqual(
      again.state.turns.map((t) => t.userText),
      ['one', 'two', 'three', 'four'],
    );
    assert.strictEqual(JSON.stringify(again.state.turns), JSON.stringify(ChatStore.open(root).loadChat('c1').state.turns));
    // A rewrite that keeps the size: the last line's bytes differ, so the whole file is read again.
    b.load();
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    const c = Window.open(root).load();
    c.store.dropLastTurn('c1');
    c.load();
    c.send('FOUR'); // same length as 'four': the same number of bytes at the same place
    assert.strictEqual(fs.readFileSync(file, 'utf8').length, lines.join('\n').length);
    assert.strictEqual(b.store.chatStatus('c1', b.base).relation, 'diverged');
    assert.deepStrictEqual(texts(b.store), ['one', 'two', 'three', 'FOUR']);
  });

  it("the store lock: a dead holder's lock is broken at once, a live one makes writers wait then fail `busy`, an old one is stale", () => {
    const root = tmp();
    const a = Window.open(root);
    a.send('one');
    const lock = path.join(root, 'store.lock');
    const broke: string[] = [];
    const b = new Window(
      ChatStore.open(root, { durable: false, lock: { waitMs: 300, staleMs: 5000, onBreak: (w) => broke.push(w) } }),
    ).load();
    // Dead holder (killed mid-write): broken at once.
    fs.writeFileSync(lock, JSON.stringify({ pid: deadPid(), host: os.hostname(), nonce: 'dead', at: 'then' }));
    b.send('two');
    assert.strictEqual(broke.length, 1);
    assert.match(broke[0], /broke a stale chat store lock of pid \d+/);
    assert.ok(!fs.existsSync(lock), 'released after the write');
    // Live holder, fresh: wait (bounded), then busy.
    fs.writeFileSync(lock, JSON.stringify({ pid: process.pid === 1 ? 2 : 1, host: os.hostname(), nonce: 'live', at: 'now' }));
    b.turn('three');
    const t0 = Date.now();
    assert.throws(
      () => b.save(),
      (e: unknown) =>
        e instanceof ChatStoreError && e.code === 'busy' && /another window \(pid 1\) has held its lock for over 300 ms/.test(e.message),
    );
    assert.ok(Date.now() - t0 >= 280, 'waited');
    assert.ok(fs.existsSync(lock), "someone else's lock is left alone");
    // The same lock, not refreshed for longer than staleMs: broken.
    const old = new Date(Date.now() - 60_000);
    fs.utimesSync(lock, old, old);
    b.save();
    assert.strictEqual(broke.length, 2);
    // An empty lock file (its creator died before writing it), older than a second: broken.
    fs.writeFileSync(lock, '');
    fs.utimesSync(lock, old, old);
    b.send('four');
    assert.deepStrictEqual(texts(b.store), ['one', 'two', 'three', 'four']);
    assert.deepStrictEqual(
      fs.readdirSync(root).filter((n) => n.startsWith('store.lock')),
      [],
    );
  });

  it('a torn last line seen while another process holds the lock is a write in progress, not damage', async () => {
    const root = tmp();
    const a = Window.open(root);
    a.send('one');
    a.send('two');
    const file = path.join(root, 'chats', 'c1.jsonl');
    const full = fs.readFileSync(file);
    fs.writeFileSync(file, full.subarray(0, full.length - 20));
    const reader = ChatStore.open(root, { durable: false, lock: { waitMs: 100 } });
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 20000)'], { stdio: 'ignore' });
    try {
      // Another live process holds the lock: it is writing that line right now.
      fs.writeFileSync(path.join(root, 'store.lock'), JSON.stringify({ pid: child.pid, host: os.hostname(), nonce: 'writer', at: 'now' }));
      const l = reader.loadChat('c1');
      assert.strictEqual(l.state.completedTurns, 1);
      assert.deepStrictEqual(l.warnings, [], 'no warning while the writer holds the lock');
    } finally {
      child.kill('SIGKILL');
      await new Promise((r) => child.on('exit', r));
    }
    const after = ChatStore.open(root, { durable: false }).loadChat('c1');
    assert.match(after.warnings[0], /was cut off by an interrupted write/);
  });

  it('a window opening while another holds the lock does not hang: it waits a second, then opens with the chats as they are', async () => {
    const root = tmp();
    Window.open(root).send('one');
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 20000)'], { stdio: 'ignore' });
    try {
      fs.writeFileSync(path.join(root, 'store.lock'), JSON.stringify({ pid: child.pid, host: os.hostname(), nonce: 'long', at: 'now' }));
      const t0 = Date.now();
      const store = ChatStore.open(root, { durable: false });
      const waited = Date.now() - t0;
      assert.ok(waited >= 900 && waited < 4000, `waited ${waited} ms`);
      assert.match(store.warnings[0], /the chat list was not checked against the chat files: the chat store is busy/);
      assert.deepStrictEqual(texts(store), ['one']);
    } finally {
      child.kill('SIGKILL');
      await new Promise((r) => child.on('exit', r));
    }
  });

  it('blob collection: referenced blobs stay; unreferenced ones go after the grace period, or at once when only the deleted chat named them', () => {
    const root = tmp();
    const store = ChatStore.open(root, { durable: false, blobGraceMs: 60_000 });
    const a = new Window(store, 'keep');
    a.send('one', ['kept.ts', 'export const kept = 1;\n']);
    const d = new Window(store, 'gone');
    d.send('one', ['gone.ts', 'export const gone = 1;\n']);
    const blob = (text: string) => {
      const h = crypto.createHash('sha256').update(text, 'utf8').digest('hex');
      return path.join(root, 'blobs', h.slice(0, 2), h);
    };
    // An orphan a writer without the lock has just written (its line not appended yet), and an old orphan.
    const young = blob('written by an older Strata, line not appended yet\n');
    const old = blob('left by a crash an hour ago\n');
    const inTorn = blob('named only by a torn last line\n');
    for (const [f, t] of [
      [young, 'written by an older Strata, line not appended yet\n'],
      [old, 'left by a crash an hour ago\n'],
      [inTorn, 'named only by a torn last line\n'],
    ] as const) {
      fs.mkdirSync(path.dirname(f), { recursive: true });
      fs.writeFileSync(f, t);
    }
    const hour = new Date(Date.now() - 3600_000);
    fs.utimesSync(old, hour, hour);
    fs.utimesSync(inTorn, hour, hour);
    fs.appendFileSync(
      path.join(root, 'chats', 'keep.jsonl'),
      `{"format":"strata-chat","v":1,"turn":2,"delta":{"entries":{"set":[{"artifact":{"contentHash":"${path.basename(inTorn)}"`,
    );
    const goneBlob = blob('export const gone = 1;\n');
    fs.utimesSync(goneBlob, new Date(), new Date());
    assert.strictEqual(store.deleteChat('gone').removedBlobs, 2, "the deleted chat's own blob (young) and the old orphan");
    assert.ok(!fs.existsSync(goneBlob) && !fs.existsSync(old));
    assert.ok(fs.existsSync(young), 'young orphan kept (grace)');
    assert.ok(fs.existsSync(inTorn), 'named by a torn line: kept');
    assert.ok(fs.existsSync(blob('export const kept = 1;\n')), 'referenced: kept');
    assert.strictEqual(store.collectBlobs({ graceMs: 0 }), 1, 'no grace: the young orphan goes');
    assert.strictEqual(store.loadChat('keep').state.completedTurns, 1);
  });

  it("a chat file in the engine's key order (written before canonical lines) loads, and appends to it stay compact and load", () => {
    const root = tmp();
    const engine = new PromptContextEngine(options());
    const lines: string[] = [];
    let prev: ReturnType<typeof encodeState> | undefined;
    for (let i = 1; i <= 3; i++) {
      engine.buildTurn({ userText: `old ${i}`, attachments: [{ kind: 'file', uri: `o${i}.ts`, content: `export const o${i} = ${i};\n` }] });
      engine.completeTurn(`reply ${i}`);
      const enc = encodeState(engine.state, { engine: engineMeta(engine.options) });
      for (const b of stateBlobs(engine.state)) {
        const f = path.join(root, 'blobs', b.hash.slice(0, 2), b.hash);
        fs.mkdirSync(path.dirname(f), { recursive: true });
        fs.writeFileSync(f, b.text);
      }
      lines.push(
        JSON.stringify({
          format: 'strata-chat',
          v: 1,
          turn: i,
          delta: diffState(prev, enc),
          stateHash: stateDigest(enc, 1),
          meta: { turn: i, attachments: [], pinned: [], detached: [], pruned: [], compacted: [], missing: [] },
        }),
      );
      prev = enc;
    }
    fs.mkdirSync(path.join(root, 'chats'), { recursive: true });
    fs.writeFileSync(path.join(root, 'chats', 'c1.jsonl'), lines.join('\n') + '\n');
    const w = Window.open(root).load();
    assert.deepStrictEqual(
      w.engine.state.turns.map((t) => t.userText),
      ['old 1', 'old 2', 'old 3'],
    );
    w.send('new 4');
    const newLine = fs.readFileSync(path.join(root, 'chats', 'c1.jsonl'), 'utf8').split('\n')[3];
    assert.ok(newLine.length < lines[2].length * 2, 'the appended delta holds the new turn, not the whole state again');
    assert.deepStrictEqual(texts(ChatStore.open(root)), ['old 1', 'old 2', 'old 3', 'new 4']);
    const resumed = new PromptContextEngine(options(), ChatStore.open(root).loadChat('c1').state);
    assert.strictEqual(JSON.stringify(resumed.buildTurn({ userText: 'next' })), JSON.stringify(w.engine.buildTurn({ userText: 'next' })));
  });

  it('a reload takes the snapshots it already holds from memory, and gives the same state', () => {
    const root = tmp();
    const a = Window.open(root);
    a.send('one', ['big.ts', 'export const big = 1;\n'.repeat(200)]);
    const b = Window.open(root).load();
    a.send('two', ['small.ts', 'export const small = 2;\n']);
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const nodeFs = require('fs') as typeof fs;
    const openSync = nodeFs.openSync;
    const blobReads: string[] = [];
    nodeFs.openSync = ((p: fs.PathLike, flags?: fs.OpenMode, mode?: fs.Mode) => {
      if (String(p).includes(`${path.sep}blobs${path.sep}`)) blobReads.push(path.basename(String(p)));
      return openSync(p, flags ?? 'r', mode);
    }) as typeof fs.openSync;
    let reloaded;
    try {
      reloaded = b.store.loadChat('c1', { reuse: b.engine.state });
    } finally {
      nodeFs.openSync = openSync;
    }
    const small = [...reloaded.state.entries.values()].find((e) => e.artifact.source.uri === 'small.ts')!.artifact.contentHash;
    assert.deepStrictEqual(blobReads, [small], 'only the new snapshot was read');
    assert.strictEqual(JSON.stringify([...reloaded.state.entries]), JSON.stringify([...ChatStore.open(root).loadChat('c1').state.entries]));
  });

  it('a snapshot with a lone surrogate (a JSON blob) is saved and loaded exactly', () => {
    const root = tmp();
    const a = Window.open(root);
    const odd = 'const s = "\uD800 lone";\n';
    a.send('odd', ['odd.ts', odd]);
    const loaded = ChatStore.open(root).loadChat('c1');
    assert.strictEqual([...loaded.state.entries.values()][0].artifact.content, odd);
  });
});
