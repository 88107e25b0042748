import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { StrataApi } from '../../src/extension';
import type { RefusalUi } from '../../src/host/context/refusalActions';
import type { ChipView } from '../../src/protocol/messages';
import { folderUri, PanelDriver, strataApi, until, withTimeout } from './support/panel';

/**
 * Feedback where the action happened, in the real editor: Attach File to Strata from the Explorer
 * brings the chat into sight; a refusal while the chat is hidden is a notification with the file
 * and the reason, and a 20 MB file's refusal offers Attach First Lines and Raise Limit…, the first
 * of which attaches the lines that fit, marked "first N lines of M" on the chip and in the tree.
 * The notifications are answered in the user's place through the refusals' `ui`.
 */

/** 209,716 lines of 100 bytes: 20 MB over the 8 MB default limit. */
const LINES = 209_716;

describe('Attach refusals where the action happened', function () {
  this.timeout(180_000);
  let api: StrataApi;
  let panel: PanelDriver;
  let big: vscode.Uri;
  const warned: { text: string; actions: string[] }[] = [];
  const informed: string[] = [];
  let answer: string | undefined;

  before(async () => {
    api = await strataApi();
    await vscode.commands.executeCommand('strata.chat.focus');
    await withTimeout(api.whenChatReady(), 30_000, 'the chat webview saying ready');
    panel = new PanelDriver(api);
    big = vscode.Uri.joinPath(folderUri('app'), 'logs', 'big.log');
    fs.mkdirSync(path.dirname(big.fsPath), { recursive: true });
    const line = `${'x'.repeat(95)}0000\n`;
    fs.writeFileSync(big.fsPath, line.repeat(LINES));
    const ui: RefusalUi = {
      warn: async (text, ...actions) => {
        warned.push({ text, actions });
        return answer;
      },
      info: async (text) => void informed.push(text),
    };
    api.testing.refusals.ui = ui;
  });

  after(async () => {
    panel?.dispose();
    fs.rmSync(path.dirname(big.fsPath), { recursive: true, force: true });
    await vscode.commands.executeCommand('strata.chat.focus');
  });

  beforeEach(async () => {
    await api.testing.controller.newChat();
    api.testing.session.clearChips();
    warned.length = 0;
    informed.length = 0;
    answer = undefined;
    panel.clear();
  });

  const chatVisible = () => api.testing.chatSurface('view')?.visible === true;

  it('Explorer attach reveals the chat; a refusal while it is hidden is a notification naming the file and why', async () => {
    await vscode.commands.executeCommand('workbench.view.explorer');
    await until('the chat is hidden', () => !chatVisible());
    // Refused while hidden: the editor says so where the user is, and the chat is not brought up for it.
    const none = (await vscode.commands.executeCommand(
      'strata.attachFileToStrata',
      vscode.Uri.joinPath(folderUri('app'), '.env'),
    )) as unknown[];
    assert.deepEqual(none, []);
    assert.equal(warned.length, 1);
    assert.match(warned[0].text, /^Strata: app\/\.env matches the exclude pattern \*\*\/\.env \(strata\.context\.exclude\)/);
    assert.deepEqual(warned[0].actions, [], 'an excluded file offers nothing to do');
    assert.equal(chatVisible(), false);

    const added = (await vscode.commands.executeCommand(
      'strata.attachFileToStrata',
      vscode.Uri.joinPath(folderUri('app'), 'src', 'main.ts'),
    )) as ChipView[];
    assert.deepEqual(
      added.map((c) => c.label),
      ['app/src/main.ts'],
    );
    await until('the chat is in sight', chatVisible);
    assert.equal(warned.length, 1, 'no notification for a file that went in');
  });

  it('a 20 MB file: "20 MB (limit 8 MB)", Attach First Lines attaches the lines that fit, marked as partial', async () => {
    await vscode.commands.executeCommand('workbench.view.explorer');
    await until('the chat is hidden', () => !chatVisible());
    answer = 'Attach First Lines';
    // What the next message leaves below the compaction target, less the 1,000 tokens kept for the question.
    const meter = api.testing.session.meter();
    const room = Math.floor((meter.budget * meter.targetPercent) / 100) - meter.used - 1000;
    const none = (await vscode.commands.executeCommand('strata.attachFileToStrata', big)) as unknown[];
    assert.deepEqual(none, []);
    assert.deepEqual(warned[0], {
      text: 'Strata: app/logs/big.log is 20 MB (limit 8 MB); nothing of it was sent.',
      actions: ['Attach First Lines', 'Raise Limit…'],
    });
    // The banner in the panel says the same, with the same actions.
    const banner = panel.last('banners')?.banners.find((b) => b.path === 'app/logs/big.log');
    assert.deepEqual(banner?.actions, ['attachHead', 'raiseLimit', 'dismiss']);

    // The chip is on the list before the attach has finished (the meter is built after it): the
    // notification that says so comes last.
    await until(
      'the first lines are attached and said so',
      () => api.testing.session.chips().some((c) => c.partial !== undefined) && informed.length > 0,
      30_000,
    );
    const chip = api.testing.session.chips().find((c) => c.partial)!;
    // Not the 83,886 lines the 8 MB limit holds (millions of tokens, which pruning would drop whole):
    // the whole lines that fit the room, filling most of it.
    const kept = chip.partial!.lines;
    assert.equal(chip.label, `app/logs/big.log:L1-${kept}`);
    assert.deepEqual(chip.partial, { lines: kept, of: LINES });
    const content = `${'x'.repeat(95)}0000\n`.repeat(kept).slice(0, -1);
    const tokens = api.testing.session.engine.options.tokenizer.count(content);
    assert.ok(tokens <= room && tokens >= room * 0.95, `${kept} lines, ${tokens} tokens for a room of ${room}`);
    assert.equal(chip.tokens, tokens);
    const said = `first ${kept.toLocaleString('en-US')} lines of 209,716`;
    assert.match(chip.detail ?? '', new RegExp(`the ${said} \\(the file is over the size limit\\)`));
    assert.deepEqual(informed, [`Strata: attached app/logs/big.log:L1-${kept} (${said}).`]);
    assert.equal(
      panel.last('banners')?.banners.some((b) => b.path === 'app/logs/big.log'),
      false,
      'the refusal is settled: its banner went',
    );
    // Context Layers' next message says it is partial.
    const next = api.testing.tree.getChildren(undefined).find((n) => n.id === 'next');
    const row = next?.children?.find((n) => n.name === chip.label);
    assert.equal(row?.description, said);
  });

  it('the @ picker marks the 20 MB file with its size; choosing it gives the refusal with its actions, not an attach', async () => {
    await vscode.commands.executeCommand('strata.chat.focus');
    await until('the chat is in sight', chatVisible);
    api.testing.mentions.invalidate();
    let found: { label: string; refused?: string } | undefined;
    const deadline = Date.now() + 20_000;
    while (!found && Date.now() < deadline) {
      const list = (await panel.requestOk({ kind: 'mentions', query: 'big.log' })) as { label: string; refused?: string }[];
      found = list.find((v) => v.label === 'app/logs/big.log');
      if (!found) await new Promise((r) => setTimeout(r, 200));
    }
    assert.deepEqual(found && { label: found.label, refused: found.refused }, { label: 'app/logs/big.log', refused: '20 MB (limit 8 MB)' });
    const picked = await panel.request({ kind: 'attachMention', ref: { kind: 'file', path: 'app/logs/big.log' } });
    assert.deepEqual(picked, { ok: true, value: { labels: [] } });
    const banner = panel.last('banners')?.banners.find((b) => b.path === 'app/logs/big.log');
    assert.equal(banner?.message, 'app/logs/big.log is 20 MB (limit 8 MB); nothing of it was sent.');
    assert.deepEqual(banner?.actions, ['attachHead', 'raiseLimit', 'dismiss']);
    assert.equal(warned.length, 0, 'the chat is in sight: no notification');
    assert.equal(api.testing.session.chips().length, 0);
  });
});
