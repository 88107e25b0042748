/**
 * The "In context" row in the real workbench: after three attachments over two turns (a selection
 * and a file with the first message, another file with the second), the row above the input lists
 * all three with the token figures Context Layers shows for the last request, and the active
 * editor's suggestion does not offer one of them again.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ChatPanel, TEST_ID } from './support/chatPanel';
import { e2eSession, type E2ESession } from './support/session';
import { Steps } from './support/steps';
import {
  chatFrame,
  openFile,
  openStrataView,
  poll,
  runCommand,
  selectLines,
  showContextLayers,
  TIMEOUT,
  waitForWorkbench,
} from './support/workbench';

const SELECTED = 'src/money.ts';
const START = 11;
const END = 17;
const FIRST_FILE = 'src/invoice.ts';
const SECOND_FILE = 'src/tax.ts';

function baseName(p: string): string {
  return p.slice(p.lastIndexOf('/') + 1);
}

/** `<label>: <n> tokens` of each In context item (its title), as label → tokens. */
async function inContextTokens(panel: ChatPanel): Promise<Map<string, number>> {
  const titles = await panel.byTestId('strata-in-context-item').evaluateAll((els) => els.map((e) => e.getAttribute('title') ?? ''));
  const out = new Map<string, number>();
  for (const t of titles) {
    const m = /^(.+?): ([\d,]+) tokens/.exec(t);
    if (m) out.set(m[1], Number(m[2].replace(/,/g, '')));
  }
  return out;
}

describe('e2e: the In context row', function () {
  this.timeout(300_000);
  let session: E2ESession;

  before(async function () {
    this.timeout(180_000);
    session = await e2eSession();
  });

  it('after three attachments over two turns lists all three with the tree’s figures, and the suggestion offers none again', async () => {
    const steps = new Steps(session, 'in-context');
    const { page, imitation } = session;
    await steps.run('workbench loaded', () => waitForWorkbench(page));
    const panel = await steps.run('a new chat, no editor open', async () => {
      await runCommand(page, 'View: Close All Editors');
      await openStrataView(page);
      const p = new ChatPanel(page, await chatFrame(page));
      await p.waitUntilReady();
      await p.byTestId(TEST_ID.newChat).click();
      await p.removeAllChips();
      return p;
    });
    const chips = () => panel.frame.locator(`[data-testid="${TEST_ID.chip}"] .chip-label`).allInnerTexts();
    const send = async (question: string, reply: string) => {
      const replies = await panel.messages('assistant').count();
      imitation.queueReply(reply);
      await panel.typeAndSend(question);
      await poll('the reply', TIMEOUT.reply, async () =>
        (await panel.messages('assistant').count()) > replies &&
        (await panel.messages('assistant').last().getAttribute('data-status')) === 'complete'
          ? true
          : undefined,
      );
    };

    const lines = fs.readFileSync(path.join(session.workspace, SELECTED), 'utf8').split('\n');
    const selection = lines.slice(START - 1, END).join('\n');
    await steps.run(`turn 1: lines ${START}-${END} of ${SELECTED} and ${FIRST_FILE} attached`, async () => {
      await openFile(page, SELECTED);
      await selectLines(page, START, END, selection.length);
      await runCommand(page, 'Strata: Attach Selection');
      await openFile(page, FIRST_FILE);
      await runCommand(page, 'Strata: Attach Active File');
      await openStrataView(page);
      await poll('two chips', TIMEOUT.ui, async () => ((await chips()).length === 2 ? true : undefined));
    });
    await steps.run('turn 1 sent', () => send('How is an invoice rounded?', 'Each line is rounded half to even, then summed.'));
    await steps.run(`turn 2: ${SECOND_FILE} attached and sent`, async () => {
      await openFile(page, SECOND_FILE);
      await runCommand(page, 'Strata: Attach Active File');
      await openStrataView(page);
      await poll('the tax.ts chip', TIMEOUT.ui, async () => ((await chips()).includes(SECOND_FILE) ? true : undefined));
      await send('And where is tax added?', 'Tax is added after rounding, per line.');
    });

    const row = panel.byTestId('strata-in-context');
    const items = await steps.run('the In context row lists all three', async () => {
      await row.waitFor({ state: 'visible', timeout: TIMEOUT.ui });
      await poll('three items in context', TIMEOUT.ui, async () =>
        /^In context: 3 files/.test((await panel.byTestId('strata-in-context-toggle').innerText()).trim()) ? true : undefined,
      );
      const toggle = panel.byTestId('strata-in-context-toggle');
      if ((await toggle.getAttribute('aria-expanded')) === 'false') await toggle.click();
      await panel.byTestId('strata-in-context-item').first().waitFor({ state: 'visible', timeout: TIMEOUT.ui });
      const found = await inContextTokens(panel);
      const names = [...found.keys()].map(baseName).sort();
      assert.deepEqual(
        names.map((n) => n.replace(/:.*$/, '')),
        ['invoice.ts', 'money.ts', 'tax.ts'],
        `items: ${[...found.keys()].join(', ')}`,
      );
      return found;
    });

    await steps.run('Context Layers shows the same figures', async () => {
      await showContextLayers(page);
      const tree = page.locator('[id="workbench.view.extension.strata"]');
      const rows = tree.locator('.monaco-list-row');
      const l2 = rows.filter({ has: page.locator('.label-name', { hasText: 'Attachments' }) }).first();
      await l2.waitFor({ state: 'visible', timeout: TIMEOUT.ui });
      if ((await l2.getAttribute('aria-expanded')) === 'false') await l2.click();
      for (const [label, tokens] of items) {
        const name = baseName(label).replace(/:.*$/, '');
        const shown = await poll(`the ${name} row`, TIMEOUT.ui, async () => {
          const names = await rows.locator('.label-name').allInnerTexts();
          return names.find((n) => new RegExp(`^[\\d,]+ · ${name.replace('.', '\\.')}`).test(n.trim()));
        });
        assert.equal(Number(/^([\d,]+)/.exec(shown.trim())![1].replace(/,/g, '')), tokens, `${label}: the row reads "${shown}"`);
      }
    });

    await steps.run(`with ${SECOND_FILE} in the editor, the suggestion does not offer it again`, async () => {
      await openFile(page, SECOND_FILE);
      await openStrataView(page);
      const suggestion = panel.byTestId('strata-suggestion');
      // The suggestion follows the active editor; for a file already in context it is not offered.
      await poll('the suggestion settled', TIMEOUT.ui, async () => {
        const visible = await suggestion.isVisible();
        const text = visible ? await suggestion.innerText() : '';
        return !visible || !/tax\.ts/.test(text) || /in context/.test(text) ? true : undefined;
      });
      if (await suggestion.isVisible()) assert.doesNotMatch(await suggestion.innerText(), /^\s*\+\s*tax\.ts/);
      assert.ok(!(await chips()).includes(SECOND_FILE), 'no chip for it either');
    });
  });
});
