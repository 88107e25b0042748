import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { HostWorkspace } from '../../src/host/context/hostWorkspace';
import { DEFAULT_EXCLUDES, DEFAULT_MAX_FILE_BYTES } from '../../src/engine/isolation';
import { runSteps } from '../../src/common/steps';
import { ToolExecutor, type ToolResult } from '../../src/services/tools/executor';
import { withTimeout } from './support/panel';

/**
 * The tools reach only the workspace, in the real editor: folders linked out of the workspace (or
 * to `.git`) are not listed through, a tool path never names an untitled buffer, a FIFO is refused
 * at once instead of hanging the read, and no refusal tells the model an absolute path outside the
 * workspace (the link's target goes to the log only).
 */

const counter = { count: (text: string) => Math.ceil(text.length / 4) };
const posixOnly = process.platform === 'win32' ? it.skip : it;

function folder(name: string): vscode.WorkspaceFolder {
  const f = vscode.workspace.workspaceFolders?.find((w) => w.name === name);
  assert.ok(f, `workspace folder ${name} is not open`);
  return f;
}

describe('Tools reach only the workspace', () => {
  const logged: string[] = [];
  const ws = new HostWorkspace(
    () => ({ excludes: DEFAULT_EXCLUDES, maxFileBytes: DEFAULT_MAX_FILE_BYTES }),
    (line) => logged.push(line),
  );
  const tools = new ToolExecutor(ws, counter);
  let appDir: string;
  let root: string;
  const made: string[] = [];

  async function call(name: string, args: Record<string, unknown>): Promise<ToolResult> {
    return runSteps(tools.execute({ id: `c-${name}`, name, args }));
  }

  function tellsNoOutsidePath(r: ToolResult): void {
    const said = JSON.stringify(r.output);
    assert.ok(!said.includes(root), `the model is told no absolute path: ${said}`);
  }

  before(() => {
    appDir = folder('app').uri.fsPath;
    root = path.dirname(appDir);
    fs.mkdirSync(path.join(appDir, '.git'), { recursive: true });
    fs.writeFileSync(path.join(appDir, '.git', 'config'), '[remote "origin"]\n\turl = https://token@example.invalid/r.git\n');
    fs.symlinkSync(path.join(root, 'outside'), path.join(appDir, 'linked-out'));
    fs.symlinkSync(path.join(appDir, '.git'), path.join(appDir, 'linked-git'));
    made.push(path.join(appDir, '.git'), path.join(appDir, 'linked-out'), path.join(appDir, 'linked-git'));
    if (process.platform !== 'win32') {
      execFileSync('mkfifo', [path.join(appDir, 'pipe.txt')]);
      made.push(path.join(appDir, 'pipe.txt'));
    }
  });

  after(async () => {
    for (const p of made) fs.rmSync(p, { recursive: true, force: true });
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('list_files lists nothing through a folder linked out of the workspace or to .git', async () => {
    // What the editor's file search itself returns through the links (it follows them by default).
    const searched = await vscode.workspace.findFiles(new vscode.RelativePattern(folder('app'), 'linked-*/**'));
    console.log(`      the file search returns ${searched.length} file(s) through the links`);
    const r = await call('list_files', { glob: 'app/**' });
    assert.equal(r.output.kind, 'artifact');
    const listed = r.output.kind === 'artifact' ? r.output.input.content.split('\n') : [];
    assert.ok(listed.includes('app/src/math.ts'), listed.join(', '));
    assert.deepEqual(
      listed.filter((p) => p.startsWith('app/linked-') || p.startsWith('app/.git')),
      [],
    );
    const search = await call('search_text', { query: 'this file is outside' });
    assert.equal(search.output.kind, 'text', JSON.stringify(search.output));
    if (searched.length > 0)
      assert.ok(
        logged.some((l) => l.includes(path.join(root, 'outside'))),
        'the target is logged',
      );
  });

  it('read_file through a linked folder is refused without naming the target; the log has it', async () => {
    logged.length = 0;
    const r = await call('read_file', { path: 'app/linked-out/secret.txt' });
    assert.equal((r.output as { refused?: string }).refused, 'outside-workspace');
    assert.match((r.output as { text: string }).text, /a link that points outside the workspace/);
    tellsNoOutsidePath(r);
    assert.ok(
      logged.some((l) => l.includes(path.join(root, 'outside', 'secret.txt'))),
      logged.join('\n'),
    );
    assert.equal((await call('read_file', { path: 'app/linked-git/config' })).output.kind, 'text');
  });

  it('read_file through a link answers the same for a file that exists behind it and one that does not', async () => {
    const answer = async (p: string, name: string) => {
      const r = await call('read_file', { path: p });
      tellsNoOutsidePath(r);
      return JSON.stringify(r.output).split(name).join('<name>');
    };
    const existing = await answer('app/linked-out/secret.txt', 'secret.txt');
    assert.match(existing, /a link that points outside the workspace/);
    assert.equal(await answer('app/linked-out/no-such.txt', 'no-such.txt'), existing);
    const inGit = await answer('app/linked-git/config', 'config');
    assert.match(inGit, /matches strata\.context\.exclude/);
    assert.equal(await answer('app/linked-git/no-such', 'no-such'), inGit);
  });

  it('read_file of untitled:N is refused; the user can still attach the buffer', async () => {
    const doc = await vscode.workspace.openTextDocument({ content: 'TOKEN=pasted-scratch-secret', language: 'plaintext' });
    const p = HostWorkspace.pathOf(doc.uri)!;
    assert.ok(p.startsWith('untitled:'));
    const r = await call('read_file', { path: p });
    assert.equal((r.output as { refused?: string }).refused, 'outside-workspace');
    assert.ok(!JSON.stringify(r.output).includes('pasted-scratch-secret'));
    const attached = await ws.resolve({ kind: 'file', path: p });
    assert.ok(attached.ok, 'an attachment of the user’s own buffer');
  });

  it('get_selection in a file outside the workspace names only the file', async () => {
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(path.join(root, 'outside', 'secret.txt')));
    const editor = await vscode.window.showTextDocument(doc);
    editor.selection = new vscode.Selection(0, 0, 0, 10);
    const r = await call('get_selection', {});
    assert.equal((r.output as { refused?: string }).refused, 'outside-workspace');
    assert.match((r.output as { text: string }).text, /secret\.txt/);
    tellsNoOutsidePath(r);
  });

  posixOnly('a FIFO is refused at once, as a tool read and as an attachment', async () => {
    const r = await withTimeout(call('read_file', { path: 'app/pipe.txt' }), 5_000, 'read_file of a FIFO');
    assert.equal((r.output as { refused?: string }).refused, 'not-regular');
    assert.match((r.output as { text: string }).text, /FIFO/);
    const a = await withTimeout(ws.resolve({ kind: 'file', path: 'app/pipe.txt' }), 5_000, 'attaching a FIFO');
    assert.ok(!a.ok && a.rejection.reason === 'not-regular');
  });
});
