/**
 * Apply and citations in the real workbench, as a person does it: the model (the OpenAI imitation)
 * answers with a cited range and a code block for a file of the sample workspace. The cited range is
 * a link that opens the file with those lines selected; Apply opens a diff of the proposed file, and
 * the diff's "Accept Change" button writes it. Screenshots of the reply and the diff are saved.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ChatPanel, normalize, TEST_ID } from './support/chatPanel';
import { e2eSession, log, type E2ESession } from './support/session';
import { Steps } from './support/steps';
import { activeEditor, chatFrame, cursorStatus, openStrataView, poll, runCommand, TIMEOUT, waitForWorkbench } from './support/workbench';

const FILE = 'src/money.ts';
const OLD_BODY = '  return roundHalfEven((amount * percent) / 100);';
const NEW_BODY = '  return roundHalfEven((amount * percent) / 100 + Number.EPSILON);';
const QUESTION = 'Where is the percentage rounded, and how do I guard against float error there?';
const REPLY = [
  `The percentage is applied in ${FILE}:21-23, which rounds with \`roundHalfEven\`. A tiny epsilon keeps values like 0.4999999 from rounding down:`,
  '',
  `In \`${FILE}\`:`,
  '',
  '```ts',
  '/** Applies a percentage (e.g. 19 for 19 %) to an amount, rounding half to even. */',
  'export function percentOf(amount: Cents, percent: number): Cents {',
  NEW_BODY,
  '}',
  '```',
].join('\n');

async function leaveAsFound(session: E2ESession): Promise<void> {
  const { page } = session;
  await page.keyboard.press('Escape');
  await activeEditor(page)
    .click({ timeout: 5_000 })
    .catch(() => undefined);
  await runCommand(page, 'View: Close All Editors');
  await openStrataView(page);
  const panel = new ChatPanel(page, await chatFrame(page));
  await panel.byTestId(TEST_ID.newChat).click();
  await poll('the new chat to be empty', TIMEOUT.ui, async () => ((await panel.messages('assistant').count()) === 0 ? true : undefined));
}

describe('e2e: Apply a code block and open a citation', function () {
  this.timeout(300_000);
  let session: E2ESession;

  before(async function () {
    this.timeout(180_000);
    session = await e2eSession();
  });

  it('links the cited range, shows the diff, and Accept writes the file', async () => {
    const steps = new Steps(session, 'apply');
    const { page, imitation } = session;
    const file = path.join(session.workspace, FILE);
    const original = fs.readFileSync(file, 'utf8');
    assert.ok(original.includes(OLD_BODY), `${FILE} no longer holds the line this test changes`);
    const expected = original.replace(OLD_BODY, NEW_BODY);
    try {
      await steps.run('workbench loaded', () => waitForWorkbench(page));
      const panel = await steps.run('chat panel open', async () => {
        await openStrataView(page);
        const p = new ChatPanel(page, await chatFrame(page));
        await p.waitUntilReady();
        return p;
      });
      await steps.run('new chat', () => panel.byTestId(TEST_ID.newChat).click());
      const assistantBefore = await panel.messages('assistant').count();
      imitation.queueReply(REPLY);
      await steps.run('question sent', () => panel.typeAndSend(QUESTION));
      const reply = panel.messages('assistant').nth(assistantBefore);
      await steps.run('reply with a linked citation and an Apply button', async () => {
        await reply.locator(`[data-testid="strata-apply"]`).waitFor({ state: 'visible', timeout: TIMEOUT.reply });
        await poll('the reply to end', TIMEOUT.reply, async () =>
          (await reply.getAttribute('data-status')) === 'complete' ? true : undefined,
        );
        const link = reply.locator('[data-testid="strata-citation"]').first();
        await link.waitFor({ state: 'visible', timeout: TIMEOUT.ui });
        assert.equal(normalize(await link.innerText()), `${FILE}:21-23`);
        const links = await reply.locator('[data-testid="strata-citation"]').allInnerTexts();
        assert.deepEqual(links.map(normalize), [`${FILE}:21-23`, FILE], 'the cited range and the backticked path are links');
      });
      await steps.run('the citation opens the file at the cited lines', async () => {
        await reply.locator('[data-testid="strata-citation"]').first().click();
        await page
          .locator('.part.editor .tabs-container .tab.active', { hasText: 'money.ts' })
          .waitFor({ state: 'visible', timeout: TIMEOUT.ui });
        const status = await poll('the cited lines selected', TIMEOUT.ui, async () => {
          const s = await cursorStatus(page);
          return /^Ln 23, Col \d+ \(\d+ selected\)/.test(s) ? s : undefined;
        });
        const selected = Number(/\((\d+) selected\)/.exec(status)?.[1]);
        const lines = original.split('\n');
        assert.equal(selected, lines.slice(20, 23).join('\n').length, `status bar: ${status}`);
      });
      await steps.run('Apply opens the diff of the proposed file', async () => {
        await openStrataView(page);
        await reply.locator('[data-testid="strata-apply"]').click();
        await page.locator('.part.editor .monaco-diff-editor').first().waitFor({ state: 'visible', timeout: TIMEOUT.ui });
        await page
          .locator('.part.editor .tabs-container .tab.active', { hasText: 'Strata proposal' })
          .waitFor({ state: 'visible', timeout: TIMEOUT.ui });
        await poll('the new line in the diff', TIMEOUT.ui, async () =>
          (await page.locator('.part.editor .monaco-diff-editor .line-insert').count()) > 0 ? true : undefined,
        );
        assert.equal(fs.readFileSync(file, 'utf8'), original, 'nothing is written before Accept');
      });
      await steps.run('Accept Change on the diff writes the file', async () => {
        const accept = page.locator('.part.editor .editor-actions .action-label[aria-label*="Accept Change"]').first();
        await accept.waitFor({ state: 'visible', timeout: TIMEOUT.ui });
        assert.equal(await page.locator('.part.editor .editor-actions .action-label[aria-label*="Reject Change"]').count(), 1);
        await accept.click();
        await poll(`${FILE} to hold the change`, TIMEOUT.ui, async () => (fs.readFileSync(file, 'utf8') === expected ? true : undefined));
        await page.locator('.part.editor .monaco-diff-editor').first().waitFor({ state: 'hidden', timeout: TIMEOUT.ui });
        await activeEditor(page).getByText('Number.EPSILON').first().waitFor({ state: 'visible', timeout: TIMEOUT.ui });
      });
      await steps.run('Reject Change from the Command Palette leaves the file alone', async () => {
        await openStrataView(page);
        await reply.locator('[data-testid="strata-apply"]').click();
        await page.locator('.part.editor .monaco-diff-editor').first().waitFor({ state: 'visible', timeout: TIMEOUT.ui });
        // Keys go to what has focus: the panel keeps it after the click unless the diff is clicked.
        await page.locator('.part.editor .monaco-diff-editor .editor.modified .view-lines').first().click();
        await runCommand(page, 'Strata: Reject Change');
        await page.locator('.part.editor .monaco-diff-editor').first().waitFor({ state: 'hidden', timeout: TIMEOUT.ui });
        assert.equal(fs.readFileSync(file, 'utf8'), expected);
      });
    } finally {
      fs.writeFileSync(file, original);
      // The next test starts where a fresh session would: an empty chat, no editors open.
      await leaveAsFound(session).catch((e: Error) => log(`could not reset the workbench: ${e.message}`));
    }
  });
});
