/**
 * When a command that writes, imports or accepts asks the user: an argument (from another
 * extension, a keybinding, a link) may choose the file or the change, never the user's yes.
 */
import * as assert from 'node:assert/strict';
import { acceptQuestion, fileCommandQuestion, proposalFor, runsThingsAtAcceptQuestion } from '../../../../src/host/commands/consentRules';

describe('command consent', () => {
  it('strata.exportChat and strata.importChat run with a file ask, naming it; from the dialog they do not ask again', () => {
    assert.deepEqual(fileCommandQuestion('export', '../outside/notes.md'), { action: 'export', target: '../outside/notes.md' });
    assert.deepEqual(fileCommandQuestion('import', 'chats/shared.md'), { action: 'import', target: 'chats/shared.md' });
    assert.equal(fileCommandQuestion('export', undefined), undefined);
    assert.equal(fileCommandQuestion('import', undefined), undefined);
  });

  it('strata.acceptChange asks unless the change is the diff in front of the user', () => {
    const older = { path: 'src/a.ts' };
    const newest = { path: '.vscode/tasks.json' };
    // Run without an argument and no diff in front: the newest proposal, and a question naming it.
    const chosen = proposalFor(undefined, undefined, newest);
    assert.equal(chosen, newest);
    assert.deepEqual(acceptQuestion(chosen!, undefined), { kind: 'accept', path: '.vscode/tasks.json' });
    // Run with the URI of a diff in the background: that proposal, and a question.
    assert.equal(proposalFor(older, newest, newest), older);
    assert.deepEqual(acceptQuestion(older, newest), { kind: 'accept', path: 'src/a.ts' });
    // The diff the user is looking at (the editor's Accept button): no question.
    assert.equal(proposalFor(undefined, older, newest), older);
    assert.equal(acceptQuestion(older, older), undefined);
    // A proposal with the same path but not the one in front still asks.
    assert.deepEqual(acceptQuestion({ path: 'src/a.ts' }, older), { kind: 'accept', path: 'src/a.ts' });
  });

  it('Accept asks again about a file that runs things unless that risk was confirmed when it was proposed', () => {
    const risk = 'a task the editor can run when the folder opens';
    assert.deepEqual(runsThingsAtAcceptQuestion('.vscode/tasks.json', risk, false), {
      kind: 'runsThings',
      path: '.vscode/tasks.json',
      risk,
    });
    assert.equal(runsThingsAtAcceptQuestion('.vscode/tasks.json', risk, true), undefined);
    assert.equal(runsThingsAtAcceptQuestion('src/a.ts', undefined, false), undefined);
  });
});
