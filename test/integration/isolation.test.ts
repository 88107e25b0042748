import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { ThreadClock } from './support/threadClock';
import { HostWorkspace } from '../../src/host/context/hostWorkspace';
import { DEFAULT_EXCLUDES, DEFAULT_MAX_FILE_BYTES } from '../../src/engine/isolation';
import type { Resolved } from '../../src/services/workspacePort';
import { sha256HexNode as sha } from '../../src/services/nodeHasher';
import { mapBounded } from '../../src/common/steps';
import { PORT_CONCURRENCY } from '../../src/services/workspacePort';
import { ChatSession } from '../../src/services/chatSession';
import { modelInfo } from '../../src/services/modelInfo';
import { ScriptedProvider } from '../../src/services/providers/scripted';
import { GuardedTokenizer } from '../../src/services/tokenizer';
import { tempDir } from '../support/tempDir';

/**
 * Workspace isolation on the real extension host (docs/design.md#isolation) against the multi-root
 * fixture of scripts/harness/fixtureWorkspace.js: folders `app` and `lib`, a symlink out of the
 * workspace, a symlink to `.env`, excluded, binary, over-size and 5 MB files, and a file outside
 * both folders.
 */

function folder(name: string): vscode.WorkspaceFolder {
  const f = vscode.workspace.workspaceFolders?.find((w) => w.name === name);
  assert.ok(f, `workspace folder ${name} is not open (folders: ${vscode.workspace.workspaceFolders?.map((w) => w.name).join(', ')})`);
  return f;
}

function rejected(r: Resolved): string {
  assert.equal(r.ok, false, 'expected a refusal');
  return r.ok ? '' : r.rejection.reason;
}

/**
 * Runs `fn` while sampling the event loop; returns its result and the longest stall in ms, wall
 * clock and held: each gap between two ticks less the time the host's main thread waited for a core
 * in it (Linux's scheduler statistics; where they cannot be read, held is the wall clock).
 */
async function withStallProbe<T>(fn: () => Promise<T>): Promise<{ value: T; maxStallMs: number; maxHeldMs: number }> {
  const clock = new ThreadClock();
  let last = performance.now();
  let lastWaited = clock.now().waited;
  let maxStallMs = 0;
  let maxHeldMs = 0;
  const tick = () => {
    const now = performance.now();
    const waited = clock.now().waited;
    maxStallMs = Math.max(maxStallMs, now - last);
    maxHeldMs = Math.max(maxHeldMs, now - last - (waited - lastWaited));
    last = now;
    lastWaited = waited;
  };
  const timer = setInterval(tick, 1);
  try {
    const value = await fn();
    tick();
    return { value, maxStallMs, maxHeldMs };
  } finally {
    clearInterval(timer);
    clock.close();
  }
}

describe('Workspace isolation in the extension host', () => {
  const ws = new HostWorkspace(() => ({ excludes: DEFAULT_EXCLUDES, maxFileBytes: DEFAULT_MAX_FILE_BYTES }));
  let appDir: string;

  before(() => {
    appDir = folder('app').uri.fsPath;
    folder('lib');
  });

  afterEach(async () => {
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('names files by folder in a multi-root workspace and reads them', async () => {
    const uri = vscode.Uri.joinPath(folder('app').uri, 'src', 'math.ts');
    assert.equal(HostWorkspace.pathOf(uri), 'app/src/math.ts');
    const r = await ws.resolve({ kind: 'file', path: 'app/src/math.ts' });
    assert.ok(r.ok);
    assert.equal(r.input.uri, 'app/src/math.ts');
    assert.equal(r.input.content, fs.readFileSync(uri.fsPath, 'utf8'));
    const lib = await ws.resolve({ kind: 'file', path: 'lib/index.ts' });
    assert.ok(lib.ok);
    assert.equal(lib.input.content, 'export const version = "1.0.0";\n');
  });

  it('refuses excluded secrets files, by pattern', async () => {
    assert.equal(rejected(await ws.resolve({ kind: 'file', path: 'app/.env' })), 'excluded');
    assert.equal(rejected(await ws.resolve({ kind: 'file', path: 'app/keys/server.pem' })), 'excluded');
    const r = await ws.resolve({ kind: 'file', path: 'app/.env' });
    assert.ok(!r.ok && /strata\.context\.exclude/.test(r.rejection.message), 'the message names the setting');
  });

  it('refuses a symlink that points out of the workspace, and one that points at an excluded file', async () => {
    const out = await ws.resolve({ kind: 'file', path: 'app/link-out.txt' });
    assert.equal(rejected(out), 'outside-workspace');
    assert.ok(!out.ok && /link that points outside the workspace/.test(out.rejection.message), out.ok ? '' : out.rejection.message);
    assert.equal(rejected(await ws.resolve({ kind: 'file', path: 'app/link-env.txt' })), 'excluded');
  });

  it('refuses paths that climb out, files outside every folder, and unknown folders', async () => {
    assert.equal(rejected(await ws.resolve({ kind: 'file', path: 'app/../outside/secret.txt' })), 'outside-workspace');
    assert.equal(rejected(await ws.resolve({ kind: 'file', path: 'nope/file.ts' })), 'outside-workspace');
    const outsideUri = vscode.Uri.file(path.join(path.dirname(appDir), 'outside', 'secret.txt'));
    assert.equal(HostWorkspace.pathOf(outsideUri), undefined);
  });

  it('refuses binary, over-size and missing files with their reasons', async () => {
    assert.equal(rejected(await ws.resolve({ kind: 'file', path: 'app/image.bin' })), 'binary');
    const huge = await ws.resolve({ kind: 'file', path: 'app/huge.log' });
    assert.equal(rejected(huge), 'too-large');
    assert.ok(!huge.ok && /^app\/huge\.log is \d+ MB \(limit 8 MB\); nothing of it was sent\.$/.test(huge.rejection.message));
    assert.equal(rejected(await ws.resolve({ kind: 'file', path: 'app/src/missing.ts' })), 'not-found');
  });

  it('reads a dirty buffer as the editor shows it, and slices selections verbatim (CRLF kept)', async () => {
    const uri = vscode.Uri.joinPath(folder('app').uri, 'src', 'main.ts');
    const doc = await vscode.workspace.openTextDocument(uri);
    const editor = await vscode.window.showTextDocument(doc);
    await editor.edit((e) => e.insert(new vscode.Position(0, 0), '// unsaved line\n'));
    assert.ok(doc.isDirty);
    const r = await ws.resolve({ kind: 'file', path: 'app/src/main.ts' });
    assert.ok(r.ok);
    assert.ok(r.input.content.startsWith('// unsaved line\n'), 'the dirty buffer is attached');
    const crlf = await ws.resolve({ kind: 'selection', path: 'app/src/crlf.ts', startLine: 2, endLine: 3 });
    assert.ok(crlf.ok);
    assert.equal(crlf.input.content, 'const b = 2;\r\nconst c = 3;');
    assert.deepEqual(crlf.input.range, { startLine: 2, endLine: 3 });
    // Refused as the replay's workspace words it (the port's label, `path#L3-L9`).
    const past = await ws.resolve({ kind: 'selection', path: 'app/src/crlf.ts', startLine: 500, endLine: 510 });
    assert.ok(!past.ok);
    assert.equal(past.rejection.attachment, 'app/src/crlf.ts#L500-L510');
    assert.match(past.rejection.message, /^app\/src\/crlf\.ts#L500-L510: the file has no line 500\.$/);
    const gone = await ws.resolve({ kind: 'selection', path: 'app/src/nope.ts', startLine: 1, endLine: 2 });
    assert.ok(!gone.ok && gone.rejection.attachment === 'app/src/nope.ts#L1-L2');
  });

  it('attaches untitled documents of this window', async () => {
    const doc = await vscode.workspace.openTextDocument({ content: 'scratch notes\nline two', language: 'plaintext' });
    const p = HostWorkspace.pathOf(doc.uri);
    assert.ok(p && p.startsWith('untitled:'), String(p));
    const r = await ws.resolve({ kind: 'file', path: p });
    assert.ok(r.ok);
    assert.equal(r.input.content, 'scratch notes\nline two');
  });

  it('re-checks the real path before sending: a file swapped for a symlink out is refused', async () => {
    const file = path.join(appDir, 'swap.txt');
    fs.writeFileSync(file, 'harmless\n');
    try {
      const r = await ws.resolve({ kind: 'file', path: 'app/swap.txt' });
      assert.ok(r.ok);
      assert.equal(await ws.recheck('app/swap.txt', 'app/swap.txt'), undefined);
      fs.rmSync(file);
      fs.symlinkSync(path.join(path.dirname(appDir), 'outside', 'secret.txt'), file);
      const again = await ws.recheck('app/swap.txt', 'app/swap.txt');
      assert.equal(again?.reason, 'outside-workspace');
      const fresh = await ws.readFresh([{ id: 'file:app/swap.txt', uri: 'app/swap.txt' }]);
      assert.notEqual(fresh.get('file:app/swap.txt'), 'this file is outside every workspace folder\n');
    } finally {
      fs.rmSync(file, { force: true });
    }
  });

  it('reads a 5 MB file in pieces (target 50 ms a piece, printed; fails at a 150 ms freeze)', async () => {
    // A wall-clock probe also sees the OS giving the CPU to other processes (beside two busy ones,
    // 63-79 ms where a quiet machine gives 20-45): the figure checked is the stall less the time the
    // host waited for a core in it, against a freeze; the target is printed. The stall session
    // (test/integration/stalls) measures the same read on a core. Up to three reads (a fresh
    // workspace each); the best one must stay within the bound, and all are printed.
    const runs: { wall: number; held: number }[] = [];
    for (let attempt = 0; attempt < 3; attempt++) {
      const fresh = new HostWorkspace(() => ({ excludes: DEFAULT_EXCLUDES, maxFileBytes: DEFAULT_MAX_FILE_BYTES }));
      const { value, maxStallMs, maxHeldMs } = await withStallProbe(() => fresh.resolve({ kind: 'file', path: 'app/big.txt' }));
      assert.ok(value.ok);
      assert.ok(value.input.content.length > 5 * 1024 * 1024 - 200);
      runs.push({ wall: maxStallMs, held: maxHeldMs });
      if (maxHeldMs <= 50) break;
    }
    const shown = runs.map((r) => `${r.held.toFixed(1)} ms held (${r.wall.toFixed(1)} wall clock)`).join(', then ');
    console.log(`    5 MB attach read: longest event-loop stall ${shown} (target 50 ms)`);
    assert.ok(Math.min(...runs.map((r) => r.held)) <= 150, `the host was blocked for ${shown} in ${runs.length} reads`);
  });

  it('a file the chat holds that is then deleted keeps its last snapshot, marked missing, and is not refused', async () => {
    const file = path.join(appDir, 'deleted-later.ts');
    fs.writeFileSync(file, 'export const kept = 1;\n');
    const root = tempDir('strata-missing-');
    const tokenizer = new GuardedTokenizer('o200k_base');
    const model = modelInfo('scripted', 'scripted', { contextWindow: 100_000, maxOutputTokens: 1000, encoding: 'o200k_base' });
    const session = ChatSession.open({
      storeRoot: root,
      port: ws,
      tokenizer: () => tokenizer,
      model,
      store: { durable: false },
      newChatId: () => 'missing-chat',
      settings: () => ({ layout: 'transcript', policy: 'append-version' }),
    });
    const provider = new ScriptedProvider();
    try {
      const attached = await session.attach({ kind: 'file', path: 'app/deleted-later.ts' });
      assert.ok(attached.ok, 'attached');
      provider.push('First reply.');
      assert.equal((await session.send('Look at it.', provider, model)).status, 'done');
      fs.rmSync(file);
      provider.push('Second reply.');
      const second = await session.send('And now?', provider, model);
      assert.equal(second.status, 'done');
      assert.deepEqual(
        second.rejections.map((r) => r.message),
        [],
        'nothing refused',
      );
      const entry = session.engine.state.entries.get('file:app/deleted-later.ts');
      assert.ok(entry, 'still in the chat');
      assert.equal(entry.presence, 'present', 'not detached');
      assert.equal(entry.missing, true, 'marked missing');
      assert.equal(entry.artifact.content, 'export const kept = 1;\n', 'its last snapshot kept');
      const item = second.envelope!.ledger.layers.flatMap((l) => l.items).find((i) => i.key === 'file:app/deleted-later.ts');
      assert.equal(item?.missing, true, 'the ledger shows it missing');
    } finally {
      fs.rmSync(file, { force: true });
    }
  });

  it('checks the hundreds of files a long chat holds a few at a time: each answer lands with its own file (prints the time)', async () => {
    const dir = path.join(appDir, 'many');
    fs.mkdirSync(dir, { recursive: true });
    const n = 300;
    const text = (i: number) => `file ${i}\n`;
    try {
      for (let i = 0; i < n; i++) fs.writeFileSync(path.join(dir, `f${i}.txt`), text(i));
      const srcs = Array.from({ length: n }, (_, i) => ({
        id: `file:app/many/f${i}.txt`,
        uri: `app/many/f${i}.txt`,
        contentHash: sha(text(i)),
        missing: false,
      }));
      // Read once (the port remembers what it read), then change some, remove some, swap one for a link out.
      const first = await ws.readFresh(srcs);
      assert.deepEqual(
        [...first.keys()],
        srcs.map((s) => s.id),
        'files never read before are read, in the order asked',
      );
      assert.ok(srcs.every((s, i) => first.get(s.id) === text(i)));
      assert.equal((await ws.readFresh(srcs)).size, 0, 'nothing changed since');
      for (const i of [7, 150, 299]) fs.writeFileSync(path.join(dir, `f${i}.txt`), `changed ${i}\n`);
      for (const i of [3, 200]) fs.rmSync(path.join(dir, `f${i}.txt`));
      fs.rmSync(path.join(dir, 'f42.txt'));
      fs.symlinkSync(path.join(path.dirname(appDir), 'outside', 'secret.txt'), path.join(dir, 'f42.txt'));
      fs.writeFileSync(path.join(dir, 'f99.txt'), Buffer.from([0x66, 0x00, 0x67, 0x0a]));
      const t0 = performance.now();
      const fresh = await ws.readFresh(srcs);
      const ms = performance.now() - t0;
      assert.deepEqual(
        [...fresh.entries()],
        [
          ['file:app/many/f3.txt', null],
          ['file:app/many/f7.txt', 'changed 7\n'],
          ['file:app/many/f42.txt', null],
          ['file:app/many/f99.txt', null],
          ['file:app/many/f150.txt', 'changed 150\n'],
          ['file:app/many/f200.txt', null],
          ['file:app/many/f299.txt', 'changed 299\n'],
        ],
        'the changed, removed, swapped and now binary files, in the order asked, each with its own content',
      );
      const t1 = performance.now();
      const checks = await Promise.all(srcs.map((s) => ws.recheck(s.uri, s.uri)));
      const recheckMs = performance.now() - t1;
      // Removed files are not refused (freshness marks them missing); the link out is.
      assert.deepEqual(
        checks.flatMap((c, i) => (c ? [[i, c.reason]] : [])),
        [[42, 'outside-workspace']],
      );
      // Both in one pass, as the turn pipeline asks before each turn: the link out and the binary file refused, the rest as readFresh.
      const t3 = performance.now();
      const both = await ws.refresh(srcs);
      const refreshMs = performance.now() - t3;
      assert.deepEqual(
        [...both.rejections.entries()].map(([id, r]) => [id, r.reason]),
        [
          ['file:app/many/f42.txt', 'outside-workspace'],
          ['file:app/many/f99.txt', 'binary'],
        ],
      );
      assert.deepEqual(
        [...both.fresh.entries()],
        [...fresh.entries()].filter(([id]) => !both.rejections.has(id)),
      );
      // The same, one file after the other (how they were read before).
      const t2 = performance.now();
      for (const src of srcs) await ws.readFresh([src]);
      const oneByOneMs = performance.now() - t2;
      // Before a turn: the re-check then the re-read (two passes), against both in one; five times each, alternating.
      const twoPasses: number[] = [];
      const onePass: number[] = [];
      for (let r = 0; r < 5; r++) {
        const a = performance.now();
        await mapBounded(srcs, PORT_CONCURRENCY, (s) => ws.recheck(s.uri, s.uri));
        await ws.readFresh(srcs);
        twoPasses.push(performance.now() - a);
        const b = performance.now();
        await ws.refresh(srcs);
        onePass.push(performance.now() - b);
      }
      const ms3 = (xs: number[]) => xs.map((x) => x.toFixed(1)).join(', ');
      console.log(
        `    ${n} files held by a chat: readFresh ${ms.toFixed(1)} ms (one file after the other: ${oneByOneMs.toFixed(1)} ms), the isolation re-check of all of them ${recheckMs.toFixed(1)} ms, both in one pass ${refreshMs.toFixed(1)} ms`,
      );
      console.log(`    before a turn, re-check then re-read: ${ms3(twoPasses)} ms; in one pass: ${ms3(onePass)} ms`);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('knows a file it read is unchanged by its bytes: with a BOM, and not valid UTF-8 (then by its decoded text)', async () => {
    const bomFile = path.join(appDir, 'bom.txt');
    const badFile = path.join(appDir, 'bad-utf8.txt');
    fs.writeFileSync(bomFile, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('with a BOM\n')]));
    fs.writeFileSync(badFile, Buffer.from([0x61, 0xff, 0x62, 0x0a]));
    const srcs = [
      { id: 'file:app/bom.txt', uri: 'app/bom.txt', contentHash: sha('with a BOM\n'), missing: false },
      { id: 'file:app/bad-utf8.txt', uri: 'app/bad-utf8.txt', contentHash: sha('a\ufffdb\n'), missing: false },
    ];
    try {
      const first = await ws.readFresh(srcs);
      assert.equal(first.get('file:app/bom.txt'), 'with a BOM\n', 'the BOM is not part of the text');
      assert.equal(first.get('file:app/bad-utf8.txt'), 'a\ufffdb\n');
      assert.equal((await ws.readFresh(srcs)).size, 0, 'both are left out while the chat holds their text');
    } finally {
      fs.rmSync(bomFile, { force: true });
      fs.rmSync(badFile, { force: true });
    }
  });

  it('re-reads only files that changed since the chat last held them (disk and open documents)', async () => {
    const file = path.join(appDir, 'fresh.txt');
    const limitFile = path.join(appDir, 'limit.txt');
    fs.writeFileSync(file, 'one\n');
    const src = (contentHash: string) => [{ id: 'file:app/fresh.txt', uri: 'app/fresh.txt', contentHash, missing: false }];
    try {
      const r = await ws.resolve({ kind: 'file', path: 'app/fresh.txt' });
      assert.ok(r.ok);
      const unchanged = await ws.readFresh(src(sha('one\n')));
      assert.equal(unchanged.has('file:app/fresh.txt'), false, 'an unchanged file the chat holds is not re-read');
      fs.writeFileSync(file, 'two, longer\n');
      const changed = await ws.readFresh(src(sha('one\n')));
      assert.equal(changed.get('file:app/fresh.txt'), 'two, longer\n');
      // The turn that read it was never committed (a provider error): the chat still holds "one",
      // so the unchanged file is read again, not left out.
      const again = await ws.readFresh(src(sha('one\n')));
      assert.equal(again.get('file:app/fresh.txt'), 'two, longer\n', 'a change a failed turn read is reported again');
      assert.equal((await ws.readFresh(src(sha('two, longer\n')))).has('file:app/fresh.txt'), false);
      // Another chat that holds an older content gets the file too.
      assert.equal((await ws.readFresh(src(sha('zero\n')))).get('file:app/fresh.txt'), 'two, longer\n');
      fs.rmSync(file);
      const gone = await ws.readFresh(src(sha('two, longer\n')));
      assert.equal(gone.get('file:app/fresh.txt'), null);
      // An open document: left out while its version is the one the chat holds, its text once it is edited.
      fs.writeFileSync(file, 'open\n');
      const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
      const editor = await vscode.window.showTextDocument(doc);
      assert.equal((await ws.readFresh(src(sha('open\n')))).has('file:app/fresh.txt'), false, 'an open, unedited document the chat holds');
      await editor.edit((e) => e.insert(new vscode.Position(0, 0), 'dirty '));
      assert.equal((await ws.readFresh(src(sha('open\n')))).get('file:app/fresh.txt'), 'dirty open\n');
      assert.equal((await ws.readFresh(src(sha('dirty open\n')))).has('file:app/fresh.txt'), false);
      // Text pasted into the open document is held to the size limit a file on disk is: refused, not sent.
      const small = new HostWorkspace(() => ({ excludes: DEFAULT_EXCLUDES, maxFileBytes: 1000 }));
      await editor.edit((e) => e.insert(new vscode.Position(0, 0), 'x'.repeat(2000)));
      const big = await small.refresh(src(sha('dirty open\n')));
      assert.equal(big.rejections.get('file:app/fresh.txt')?.reason, 'too-large');
      assert.equal(big.fresh.has('file:app/fresh.txt'), false, 'none of it is read for sending');
      assert.equal((await small.readFresh(src(sha('dirty open\n')))).get('file:app/fresh.txt'), null);
      await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
      // The size limit lowered under a file the chat holds, unchanged on disk: refused at the next turn too.
      let limit = DEFAULT_MAX_FILE_BYTES;
      const lowered = new HostWorkspace(() => ({ excludes: DEFAULT_EXCLUDES, maxFileBytes: limit }));
      const body = 'y'.repeat(1500) + '\n';
      fs.writeFileSync(limitFile, body);
      const held = (contentHash: string) => [{ id: 'file:app/limit.txt', uri: 'app/limit.txt', contentHash, missing: false }];
      assert.equal((await lowered.readFresh(held(sha('older\n')))).get('file:app/limit.txt'), body);
      assert.equal((await lowered.refresh(held(sha(body)))).fresh.size, 0, 'held and unchanged');
      limit = 1000;
      assert.equal((await lowered.refresh(held(sha(body)))).rejections.get('file:app/limit.txt')?.reason, 'too-large');
    } finally {
      fs.rmSync(file, { force: true });
      fs.rmSync(limitFile, { force: true });
    }
  });
});
