/**
 * Workspace tools in the real workbench: the model reads the workspace through tools. The OpenAI
 * imitation is scripted to call `read_file` on a file of the sample workspace and on a path outside
 * it, then to answer. What a person sees: the two calls as steps in the reply (one done with its
 * size, one refused), a step that opens to show its arguments and result, the Context Layers tree
 * listing the file the tool read under L3 as recoverable. What went out: the second request is the
 * first one plus the step (a pure append), the file's bytes once, nothing of the outside path.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ChatPanel, normalize, TEST_ID } from './support/chatPanel';
import { e2eSession, type E2ESession } from './support/session';
import { Steps } from './support/steps';
import { chatFrame, openStrataView, poll, showContextLayers, TIMEOUT, waitForWorkbench, watchEmptyChatMessage } from './support/workbench';

const FILE = 'src/tax.ts';
/** How its row in Context Layers ends: `<tokens> · tax.ts` (the path is in the tooltip). */
const NAME = ' · tax.ts';
const OUTSIDE = '../outside-the-workspace.txt';
const QUESTION = 'Where are the tax rates defined, and which one applies to books?';
const ANSWER = 'The rates are a table in src/tax.ts, keyed by region and category; books have their own reduced rate there.';

describe('e2e: a tool turn in the real workbench', function () {
  this.timeout(300_000);
  let session: E2ESession;

  before(async function () {
    this.timeout(180_000);
    session = await e2eSession();
  });

  it('shows the model reading a file as a step, refuses a path outside the workspace, and sends the file once', async () => {
    const steps = new Steps(session, 'tools');
    const { page, imitation } = session;
    const content = fs.readFileSync(path.join(session.workspace, FILE), 'utf8');
    fs.writeFileSync(path.join(path.dirname(session.workspace), path.basename(OUTSIDE)), 'SECRET-OUTSIDE-CONTENT\n');

    await steps.run('workbench loaded', () => waitForWorkbench(page));
    const panel = await steps.run('chat panel open', async () => {
      await openStrataView(page);
      const p = new ChatPanel(page, await chatFrame(page));
      await p.waitUntilReady();
      return p;
    });
    await steps.run('new chat', async () => {
      // Context Layers follows: the empty-chat message, never above the previous chat's last request.
      await showContextLayers(page);
      const watch = await watchEmptyChatMessage(page);
      await panel.byTestId(TEST_ID.newChat).click();
      const tree = page.locator('[id="workbench.view.extension.strata"]');
      await poll("the empty-chat message without the last chat's request", TIMEOUT.ui, async () =>
        (await tree.getByText('No request yet in this chat').count()) > 0 &&
        (await tree.locator('.monaco-list-row .label-name').filter({ hasText: 'Last request' }).count()) === 0
          ? true
          : undefined,
      );
      await page.waitForTimeout(500);
      assert.equal(await watch.stop(), false, "the empty-chat message was shown above the previous chat's last request");
    });

    const before = imitation.chatRequests.length;
    imitation.queueReply(
      {
        text: 'Let me look at the tax module.',
        toolCalls: [
          { name: 'read_file', args: { path: FILE } },
          { name: 'read_file', args: { path: OUTSIDE } },
        ],
      },
      ANSWER,
    );
    await steps.run('question sent', () => panel.typeAndSend(QUESTION));
    await steps.run('the answer shown after the tool step', async () => {
      await panel.messages('assistant').filter({ hasText: ANSWER }).first().waitFor({ state: 'visible', timeout: TIMEOUT.reply });
    });
    const stepRows = panel.messages('assistant').last().locator('[data-testid="strata-tool-step"]');
    await steps.run('two read_file steps: one done, one refused', async () => {
      const states = await poll('two finished tool steps', TIMEOUT.ui, async () => {
        const all = await stepRows.evaluateAll((els) => els.map((e) => `${e.getAttribute('data-tool')}:${e.getAttribute('data-status')}`));
        return all.length === 2 && !all.some((s) => s.endsWith(':running')) ? all : undefined;
      });
      assert.deepEqual(states, ['read_file:done', 'read_file:refused']);
      const size = normalize(await stepRows.nth(0).locator('[data-testid="strata-tool-step-size"]').innerText());
      assert.match(size, /^\d[\d,]* tokens$/, `size shown for the read: "${size}"`);
      assert.match(normalize(await stepRows.nth(1).innerText()), /outside/i);
    });
    await steps.run('a step opens to show its arguments and result', async () => {
      await stepRows.nth(0).locator('summary').click();
      const text = normalize(await stepRows.nth(0).innerText());
      assert.ok(text.includes(FILE), `the opened step does not name ${FILE}: "${text}"`);
      assert.match(text, /Arguments/);
      assert.match(text, /Result/);
    });

    await steps.run('the requests: a pure append, the file once, nothing from outside', async () => {
      const sent = imitation.chatRequests.slice(before);
      assert.equal(sent.length, 2, `model calls for one tool turn: ${sent.length}`);
      const [first, second] = sent.map((r) => r.messages ?? []);
      assert.deepEqual(
        second.slice(0, first.length).map((m) => m.content.map((b) => b.text)),
        first.map((m) => m.content.map((b) => b.text)),
        'the second request does not start with the first one',
      );
      const all = second.flatMap((m) => m.content.map((b) => b.text)).join('\n');
      assert.equal(all.split(content.trimEnd()).length - 1, 1, `${FILE} is not in the second request exactly once`);
      assert.ok(!all.includes('SECRET-OUTSIDE-CONTENT'), 'the outside file reached the model');
      assert.deepEqual(sent[0].tools?.includes('read_file'), true, 'read_file was not offered');
    });
    await steps.run('Context Layers lists the file the tool read under L3', async () => {
      await showContextLayers(page);
      const rows = page.locator('[id="workbench.view.extension.strata"] .monaco-list-row');
      // Open L3 (a person clicks it; the tree keeps a layer's expansion as the user left it).
      const l3Row = rows.filter({ hasText: 'This turn' }).first();
      await l3Row.waitFor({ state: 'visible', timeout: TIMEOUT.ui });
      if ((await l3Row.getAttribute('aria-expanded')) === 'false') await l3Row.click();
      const labels = await poll('the tree to show the tool read', TIMEOUT.ui, async () => {
        const texts = (await rows.locator('.label-name').allInnerTexts()).map((t) => t.trim());
        return texts.some((t) => t.startsWith('Last request')) && texts.some((t) => t.endsWith(NAME)) ? texts : undefined;
      });
      const l3 = labels.indexOf('This turn');
      const file = labels.findIndex((t) => t.endsWith(NAME));
      assert.ok(l3 >= 0 && file > l3, `${FILE} is not listed under L3: ${labels.join(' | ')}`);
      const row = rows.filter({ has: page.locator('.label-name', { hasText: NAME }) }).first();
      const aria = (await row.getAttribute('aria-label')) ?? '';
      assert.match(aria, /recoverable|read_file|tool/i, `the row does not say the tool read it: "${aria}"`);
    });
  });
});
