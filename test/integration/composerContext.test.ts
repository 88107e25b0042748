import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { StrataApi } from '../../src/extension';
import { MentionSource, workspaceFileSize } from '../../src/host/context/mentionSource';
import type { MentionResult, MentionView, SuggestionView } from '../../src/protocol/mentions';
import { inContextView } from '../../src/services/session/inContext';
import { startOpenAIImitation } from '../support/imitationServers';
import { configure, folderUri, PanelDriver, selectLines, strataApi, withTimeout } from './support/panel';

/**
 * Context in one keystroke, in the real editor: the `@` picker lists workspace files through the
 * tools' isolation (a file open in no editor is listed, an excluded one never), picking attaches
 * through the attach path, symbols and problems are checked the same way, and the active editor is
 * offered, not sent (or attached visibly with `always`). Also measures the picker on 2,000 files.
 */

const EXCLUDED = ['app/.env', 'app/keys/server.pem', 'app/link-env.txt', 'app/link-out.txt'];

function labels(views: readonly MentionView[]): string[] {
  return views.map((v) => v.label);
}

async function closeEditors(): Promise<void> {
  await vscode.commands.executeCommand('workbench.action.closeAllEditors');
}

/** Shows a file of the `app` folder with nothing selected (the editor restores a document's last selection). */
async function show(...relative: string[]): Promise<vscode.TextEditor> {
  const editor = await vscode.window.showTextDocument(
    await vscode.workspace.openTextDocument(vscode.Uri.joinPath(folderUri('app'), ...relative)),
  );
  editor.selection = new vscode.Selection(0, 0, 0, 0);
  return editor;
}

describe('Composer context in the real editor', function () {
  this.timeout(180_000);
  let api: StrataApi;
  let panel: PanelDriver;

  const mentions = async (query: string) => (await panel.requestOk({ kind: 'mentions', query })) as MentionView[];
  const attach = async (ref: MentionView['ref']) => (await panel.requestOk({ kind: 'attachMention', ref })) as MentionResult;
  const lastSuggestion = async (): Promise<SuggestionView | null> => {
    await api.testing.suggestion.update();
    return panel.last('suggestion')?.suggestion ?? null;
  };

  before(async () => {
    api = await strataApi();
    await vscode.commands.executeCommand('strata.chat.focus');
    await withTimeout(api.whenChatReady(), 30_000, 'the chat webview saying ready');
    panel = new PanelDriver(api);
  });

  after(async () => {
    panel?.dispose();
    await configure(api, { 'context.activeEditor': undefined });
    await closeEditors();
  });

  beforeEach(async () => {
    await api.testing.controller.newChat();
    api.testing.session.clearChips();
    panel.clear();
  });

  it('@ lists a file open in no editor, never an excluded one, and picking attaches it', async () => {
    await closeEditors();
    const all = labels(await mentions(''));
    assert.ok(all.includes('app/src/main.ts'), `main.ts is listed: ${all.join(', ')}`);
    for (const excluded of EXCLUDED) assert.ok(!all.includes(excluded), `${excluded} is not listed`);
    assert.deepEqual(
      labels(await mentions('env')).filter((l) => l.includes('.env')),
      [],
    );
    const ranked = await mentions('main');
    assert.equal(ranked[0].label, 'app/src/main.ts');
    assert.deepEqual(ranked[0].ref, { kind: 'file', path: 'app/src/main.ts' });

    const picked = await attach(ranked[0].ref);
    assert.deepEqual(picked, { labels: ['app/src/main.ts'] });
    assert.deepEqual(
      api.testing.session.chips().map((c) => c.label),
      ['app/src/main.ts'],
    );
    // A forged pick of an excluded file goes through the same isolation: refused, with the reason.
    const forged = await attach({ kind: 'file', path: 'app/.env' });
    assert.deepEqual(forged, { labels: [] });
    const banner = panel.last('banners')?.banners.find((b) => b.severity === 'warning');
    assert.match(banner?.message ?? '', /\.env/);
    assert.deepEqual(
      api.testing.session.chips().map((c) => c.label),
      ['app/src/main.ts'],
    );
  });

  it('open editors come first; symbols and problems pass the same isolation', async () => {
    await closeEditors();
    await selectLines(['src', 'math.ts'], 1, 3);
    const first = await mentions('');
    assert.deepEqual(
      first.slice(0, 3).map((v) => v.kind),
      ['selection', 'problems', 'editor'],
    );
    assert.equal(first[0].detail, 'math.ts:1-3');

    const mathUri = vscode.Uri.joinPath(folderUri('app'), 'src', 'math.ts');
    const envUri = vscode.Uri.joinPath(folderUri('app'), '.env');
    const symbols = vscode.languages.registerWorkspaceSymbolProvider({
      provideWorkspaceSymbols: () => [
        new vscode.SymbolInformation(
          'addNumbers',
          vscode.SymbolKind.Function,
          'math',
          new vscode.Location(mathUri, new vscode.Range(0, 0, 2, 1)),
        ),
        new vscode.SymbolInformation(
          'addSecret',
          vscode.SymbolKind.Variable,
          '',
          new vscode.Location(envUri, new vscode.Range(0, 0, 0, 10)),
        ),
      ],
    });
    const diagnostics = vscode.languages.createDiagnosticCollection('strata-test');
    try {
      const found = await mentions('#add');
      // Other providers (the editor's own languages) may add theirs; the one in .env never shows.
      assert.ok(labels(found).includes('addNumbers'), labels(found).join(', '));
      assert.ok(!labels(found).includes('addSecret'), 'the symbol in .env is not listed');
      assert.ok(found.every((v) => v.ref.kind !== 'range' || !v.ref.path.endsWith('.env')));
      const addNumbers = found.find((v) => v.label === 'addNumbers')!;
      assert.deepEqual(addNumbers.ref, { kind: 'range', path: 'app/src/math.ts', startLine: 1, endLine: 3 });
      assert.deepEqual(await attach(addNumbers.ref), { labels: ['app/src/math.ts:L1-3'] });

      diagnostics.set(mathUri, [
        new vscode.Diagnostic(
          new vscode.Range(1, 2, 1, 8),
          "Type 'string' is not assignable to type 'number'.",
          vscode.DiagnosticSeverity.Error,
        ),
      ]);
      const problems = await attach({ kind: 'problems' });
      assert.deepEqual(problems.labels, ['app/src/math.ts']);
      assert.match(
        problems.insertText ?? '',
        /^Problems in app\/src\/math\.ts \(snapshot at \d\d:\d\d: 1 error\):\n- L2:3 error: Type 'string'/,
      );
    } finally {
      symbols.dispose();
      diagnostics.dispose();
    }
  });

  it('the active editor is offered, not sent; the tree says so; an excluded file is offered with its reason', async () => {
    await closeEditors();
    await show('src', 'math.ts');
    const offered = await lastSuggestion();
    assert.deepEqual(offered, {
      label: 'math.ts',
      detail: 'app/src/math.ts',
      ref: { kind: 'file', path: 'app/src/math.ts' },
      available: true,
    });
    assert.deepEqual(api.testing.session.chips(), [], 'a suggestion is not attached');
    const next = api.testing.tree.getChildren(undefined).find((n) => n.id === 'next');
    assert.ok(next);
    assert.deepEqual(
      api.testing.tree.getChildren(next).map((n) => [n.label, n.description]),
      [['math.ts', 'suggested, not included']],
    );

    await selectLines(['src', 'math.ts'], 2, 3);
    assert.equal((await lastSuggestion())?.label, 'math.ts:2-3');
    // Included (the chip's click): it is attached, and no longer offered.
    const ref = (await lastSuggestion())!.ref;
    await attach(ref);
    assert.deepEqual(
      api.testing.session.chips().map((c) => c.label),
      ['app/src/math.ts:L2-3'],
    );
    assert.equal(await lastSuggestion(), null);

    await show('.env');
    const refused = await lastSuggestion();
    assert.equal(refused?.available, false);
    assert.match(refused?.reason ?? '', /exclude/);

    await configure(api, { 'context.activeEditor': 'off' });
    assert.equal(await lastSuggestion(), null);
    await configure(api, { 'context.activeEditor': undefined });
  });

  it('always: the active file is attached as a visible chip, and follows the editor', async () => {
    await closeEditors();
    await configure(api, { 'context.activeEditor': 'always' });
    try {
      // Files never selected before (the editor restores a document's last selection a moment after it opens).
      await show('src', 'main.ts');
      await lastSuggestion();
      const chipLabels = () => api.testing.session.chips().map((c) => c.label);
      assert.deepEqual(chipLabels(), ['app/src/main.ts']);
      const shown = panel.last('chips')?.chips.map((c) => c.label);
      assert.deepEqual(shown, ['app/src/main.ts'], 'the panel shows it as a normal chip');
      await show('README.md');
      await lastSuggestion();
      assert.deepEqual(chipLabels(), ['app/README.md']);
      // Removed by the user: it stays removed while the editor stays on that file.
      const chipId = api.testing.session.chips()[0].id;
      await panel.requestOk({ kind: 'removeChip', chipId });
      await lastSuggestion();
      assert.deepEqual(chipLabels(), []);
    } finally {
      await configure(api, { 'context.activeEditor': undefined });
    }
  });

  it('a view loaded again gets the In context row with its state, not an empty one', async () => {
    // The side view's webview is discarded while hidden: each time it is shown it says `ready` and
    // gets the panel state; the row of earlier attachments must follow it at once.
    const server = await startOpenAIImitation({ defaultReply: 'Noted.' });
    try {
      await configure(api, { provider: 'openai', baseUrl: server.url, model: 'gpt-4o' });
      await closeEditors();
      await show('src', 'math.ts');
      await vscode.commands.executeCommand('strata.attachActiveFile');
      await panel.sendAndWait('What does add do?');
      const session = api.testing.session;
      const expected = inContextView(session.predictedEnvelope()?.ledger, session.chatItems());
      assert.deepEqual(
        expected.items.filter((i) => i.kind !== 'instructions').map((i) => i.label),
        ['app/src/math.ts'],
        'the file sent with the first message rides along with the next',
      );
      panel.clear();
      await api.testing.receive({ type: 'ready' });
      const init = panel.of('init');
      assert.equal(init.length, 1, 'one init for the view that said ready');
      assert.ok(init[0].state.meter, 'the state carries the meter (no meter message follows it)');
      const row = panel.last('inContext');
      assert.ok(row, 'the In context row follows the state');
      assert.deepEqual(row.inContext, expected);
      assert.ok(panel.posted.indexOf(row) > panel.posted.indexOf(init[0]), 'after the state, which empties the row of another chat');
    } finally {
      await configure(api, { provider: undefined, baseUrl: undefined, model: undefined });
      await server.close();
      await closeEditors();
    }
  });

  it('/compact and /cost run their commands', async () => {
    // Two long replies make the history; a 1 % target leaves room for none of it whole.
    const server = await startOpenAIImitation({
      defaultReply: `${'The function adds two numbers and rounds the sum. '.repeat(60)}\n`,
      deltaChars: 400,
    });
    try {
      await configure(api, { provider: 'openai', baseUrl: server.url, model: 'gpt-4o', 'budget.targetPercent': 1 });
      await panel.sendAndWait('What does add do?');
      await panel.sendAndWait('And how is the sum rounded?');
      // History (L4) of the predicted next request, the one the meter and the In context row show.
      const history = () => {
        const layer = api.testing.session.predictedEnvelope()?.ledger.layers.find((l) => l.id === 'L4');
        assert.ok(layer, 'the next request has a History layer');
        return { tokens: layer.tokens, summarized: layer.items.filter((i) => i.segment === 'summary').length };
      };
      const before = history();
      assert.equal(before.summarized, 0, 'nothing is summarized before /compact');
      const meterBefore = api.testing.session.meter();
      panel.clear();

      // /compact: the next request's history is summarized down to the target, and the meter says so.
      await panel.requestOk({ kind: 'slashCommand', name: 'compact' });
      const after = history();
      assert.ok(after.tokens < before.tokens, `History ${before.tokens} → ${after.tokens} tokens`);
      // One summary item stands for the turns it replaces.
      assert.equal(after.summarized, 1, `History holds one summary after /compact (${after.summarized} items)`);
      const meter = panel.last('meter')?.meter;
      assert.ok(meter, 'the panel got the new meter');
      assert.equal(meter.level, 'pruned');
      assert.equal(meter.used, api.testing.session.meter().used);
      assert.ok(meter.used < meterBefore.used, `the meter ${meterBefore.used} → ${meter.used}`);

      // /cost: the chat's cost per turn, rendered. The imitation's model has no price: the document
      // says so, with both turns' usage in tokens.
      await panel.requestOk({ kind: 'slashCommand', name: 'cost' });
      const doc = vscode.workspace.textDocuments.filter((d) => d.uri.path === '/Chat Cost.md').at(-1);
      assert.ok(doc, 'the Chat Cost document is open');
      const text = doc.getText();
      assert.equal(text, api.testing.session.chatCosts.report('What does add do?', api.testing.session.turnMetas()));
      assert.ok(text.startsWith('# Cost of “What does add do?”\n\nNo turn of this chat has a price'), text);
      assert.ok(text.includes('\n2 turns have usage but no known price (tokens only).\n'), text);
    } finally {
      await configure(api, { provider: undefined, baseUrl: undefined, model: undefined, 'budget.targetPercent': undefined });
      await server.close();
      await closeEditors();
    }
  });

  it('the picker on 2,000 files: the first listing, and each keystroke through the panel', async () => {
    const dir = path.join(folderUri('lib').fsPath, 'many');
    fs.mkdirSync(dir, { recursive: true });
    const words = ['chat', 'session', 'store', 'layer', 'tree', 'provider', 'request', 'budget', 'token', 'cache'];
    for (let i = 0; i < 2000; i++) {
      const sub = path.join(dir, words[i % words.length]);
      fs.mkdirSync(sub, { recursive: true });
      fs.writeFileSync(
        path.join(sub, `${words[(i * 7) % words.length]}${words[(i * 3) % words.length]}${i}.ts`),
        `export const v${i} = ${i};\n`,
      );
    }
    try {
      // A window's first listing (taken when the panel loads, before the first `@`).
      const cold: number[] = [];
      for (let round = 0; round < 3; round++) {
        const source = new MentionSource({
          workspace: api.testing.workspace,
          attachSpecs: async () => [],
          fileSize: workspaceFileSize(api.testing.workspace),
          maxFileBytes: () => 8 * 1024 * 1024,
        });
        const t0 = performance.now();
        const first = await source.list('');
        cold.push(performance.now() - t0);
        assert.equal(first.length, 50);
      }
      // The window's own picker, once its listing holds the new files.
      api.testing.mentions.invalidate();
      const deadline = Date.now() + 30_000;
      while ((await mentions('budgetlayer11'))[0]?.label !== 'lib/many/session/budgetlayer11.ts') {
        assert.ok(Date.now() < deadline, 'the new files were not listed within 30 s');
        await new Promise((r) => setTimeout(r, 100));
      }
      const times: number[] = [];
      for (let round = 0; round < 3; round++)
        for (const q of ['b', 'bu', 'bud', 'budg', 'budge', 'budget', 'budgetl', 'budgetla', 'sessbudlay', 'many/tree/req']) {
          const t = performance.now();
          await mentions(q);
          times.push(performance.now() - t);
        }
      times.sort((a, b) => a - b);
      const median = times[Math.floor(times.length / 2)];
      const p95 = times[Math.floor(times.length * 0.95)];
      console.log(
        `      @ picker on 2,000 files: listing ${cold.map((t) => t.toFixed(0)).join(', ')} ms; per keystroke through the panel's request median ${median.toFixed(1)} ms, p95 ${p95.toFixed(1)} ms, max ${times[times.length - 1].toFixed(1)} ms`,
      );
      assert.ok(median < 100, `median ${median.toFixed(0)} ms`);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
      api.testing.mentions.invalidate();
    }
  });
});
