/**
 * A reply's code blocks in the real workbench, as a person acts on them: the model (the OpenAI
 * imitation) answers with prose, a TypeScript block fenced with its file (```` ```ts src/pricing.ts ````)
 * and a shell block. The ts block's header names the file and its main button reads "Apply to
 * pricing.ts"; the shell block offers "Insert into Terminal" and no Apply. Apply opens the diff with
 * the review bar in the status bar ("Change 1 of 2"); the first change is accepted from the bar, the
 * second with Ctrl+Enter in the diff; the block then says "Applied · Undo" and the file on disk holds
 * both changes. Screenshots at 1280×800 and at a 260 px side bar.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ChatPanel, normalize, TEST_ID } from './support/chatPanel';
import { freshChat } from './support/freshChat';
import { e2eSession, log, type E2ESession } from './support/session';
import { Steps } from './support/steps';
import { activeEditor, chatFrame, openStrataView, poll, runCommand, setSidebarWidth, TIMEOUT } from './support/workbench';

const FILE = 'src/pricing.ts';
const ORIGINAL = [
  "import { percentOf, type Cents } from './money';",
  '',
  '/** The price after a percentage discount. */',
  'export function discounted(price: Cents, percent: number): Cents {',
  '  return price - percentOf(price, percent);',
  '}',
  '',
  '/** The price with VAT added. */',
  'export function withVat(price: Cents, rate: number): Cents {',
  '  return price + percentOf(price, rate);',
  '}',
  '',
].join('\n');
/**
 * The file as the model proposes it, whole (a block fenced with its path is the file): both
 * functions change, two separate changes in the diff.
 */
const EXPECTED = ORIGINAL.replace(
  '  return price - percentOf(price, percent);',
  '  return Math.max(0, price - percentOf(price, percent));',
).replace('  return price + percentOf(price, rate);', '  return rate <= 0 ? price : price + percentOf(price, rate);');
const BLOCK = EXPECTED.trimEnd().split('\n');
const SHELL = 'npx vitest run test/pricing.test.ts';
const QUESTION = 'Can a discount make a price negative, and what happens with a zero VAT rate?';
const REPLY = [
  'A discount over 100 % makes `discounted` negative, and a rate of zero still calls `percentOf`. Clamp the one and skip the other:',
  '',
  `\`\`\`ts ${FILE}`,
  ...BLOCK,
  '```',
  '',
  'Then run the pricing tests:',
  '',
  '```bash',
  SHELL,
  '```',
  '',
  'Both changes keep the return type `Cents`.',
].join('\n');

/** The status bar item whose text is `text` (its icon is not text). */
function statusItem(session: E2ESession, text: string) {
  return session.page.locator('.part.statusbar .statusbar-item', { hasText: text }).first();
}

async function leaveAsFound(session: E2ESession, width: number): Promise<void> {
  const { page } = session;
  await page.keyboard.press('Escape');
  await runCommand(page, 'View: Close All Editors');
  if (width > 0) await setSidebarWidth(page, width).catch(() => undefined);
  await openStrataView(page);
  const panel = new ChatPanel(page, await chatFrame(page));
  await panel.byTestId(TEST_ID.newChat).click();
  await poll('the new chat to be empty', TIMEOUT.ui, async () => ((await panel.messages('assistant').count()) === 0 ? true : undefined));
}

describe('e2e: code block actions and change review', function () {
  this.timeout(360_000);
  let session: E2ESession;

  before(async function () {
    this.timeout(180_000);
    session = await e2eSession();
  });

  it('names the file, offers Apply and Insert into Terminal, and shows Applied · Undo after Accept from the review bar', async () => {
    const steps = new Steps(session, 'code-actions');
    const { page, imitation } = session;
    const file = path.join(session.workspace, FILE);
    fs.writeFileSync(file, ORIGINAL);
    let originalWidth = 0;
    try {
      const panel = await freshChat(steps, session);
      originalWidth = (await page.locator('.part.sidebar').boundingBox())?.width ?? 0;
      const assistantBefore = await panel.messages('assistant').count();
      imitation.queueReply(REPLY);
      await steps.run('question sent', () => panel.typeAndSend(QUESTION));
      const reply = panel.messages('assistant').nth(assistantBefore);
      const blocks = reply.locator('.code-block');

      await steps.run('the ts block names its file and offers "Apply to pricing.ts"', async () => {
        await poll('the reply to end', TIMEOUT.reply, async () =>
          (await reply.getAttribute('data-status')) === 'complete' ? true : undefined,
        );
        assert.equal(await blocks.count(), 2, 'code blocks in the reply');
        const ts = blocks.nth(0);
        assert.equal(normalize(await ts.locator('[data-testid="strata-code-file"]').innerText()), FILE);
        assert.equal(await ts.locator('[data-testid="strata-code-file"]').getAttribute('title'), FILE);
        const apply = ts.locator('[data-testid="strata-apply"]');
        assert.equal(await apply.count(), 1);
        assert.equal(normalize(await apply.innerText()), 'Apply to pricing.ts');
        assert.equal(await apply.getAttribute('aria-label'), 'Apply to pricing.ts');
        assert.equal(await ts.locator('[data-testid="strata-code-terminal"]').count(), 0, 'a ts block offers no terminal');
        // Highlighted: the tokenizer's spans are in the block once its fence closed.
        await poll('token spans in the ts block', TIMEOUT.ui, async () =>
          (await ts.locator('pre code span').count()) > 0 ? true : undefined,
        );
      });

      await steps.run('the bash block offers "Insert into Terminal" and no Apply', async () => {
        const bash = blocks.nth(1);
        assert.equal(await bash.locator('[data-testid="strata-code-file"]').count(), 0, 'a bash block names no file');
        assert.equal(normalize(await bash.locator('.code-lang').innerText()), 'bash');
        assert.equal(await bash.locator('[data-testid="strata-apply"]').count(), 0, 'a shell block has no Apply');
        const terminal = bash.locator('[data-testid="strata-code-terminal"]');
        assert.equal(await terminal.count(), 1);
        assert.equal(normalize(await terminal.innerText()), 'Insert into Terminal');
        assert.equal(normalize(await bash.locator('pre').innerText()), SHELL);
        // Every icon button keeps its accessible name.
        const names = await bash
          .locator('.code-header button')
          .evaluateAll((els) => els.map((el) => el.getAttribute('aria-label') ?? (el.textContent ?? '').trim()));
        assert.deepEqual(names, ['Wrap Long Lines', 'Copy', 'Insert at Cursor', 'Insert into Terminal']);
      });

      await steps.run('the blocks at a 260 px side bar', async () => {
        await setSidebarWidth(page, 260);
        const apply = blocks.nth(0).locator('[data-testid="strata-apply"]');
        await apply.scrollIntoViewIfNeeded();
        await apply.waitFor({ state: 'visible', timeout: TIMEOUT.ui });
        // The main action stays whole inside the panel (the header wraps rather than cutting it).
        const box = await apply.boundingBox();
        const panelBox = await page.locator('.part.sidebar').boundingBox();
        assert.ok(box && panelBox, 'the Apply button and the side bar are laid out');
        assert.ok(
          box.x + box.width <= panelBox.x + panelBox.width,
          `Apply ends at ${box.x + box.width} px, the side bar at ${panelBox.x + panelBox.width} px`,
        );
      });
      await steps.run('side bar width restored', () => setSidebarWidth(page, originalWidth));

      await steps.run('Apply opens the diff with the review bar: Change 1 of 2', async () => {
        await blocks.nth(0).locator('[data-testid="strata-apply"]').click();
        await page.locator('.part.editor .monaco-diff-editor').first().waitFor({ state: 'visible', timeout: TIMEOUT.ui });
        await page
          .locator('.part.editor .tabs-container .tab.active', { hasText: 'Strata proposal' })
          .waitFor({ state: 'visible', timeout: TIMEOUT.ui });
        await statusItem(session, 'Change 1 of 2').waitFor({ state: 'visible', timeout: TIMEOUT.ui });
        await statusItem(session, 'Accept (Ctrl+Enter)').waitFor({ state: 'visible', timeout: TIMEOUT.ui });
        await statusItem(session, 'Reject (Ctrl+Backspace)').waitFor({ state: 'visible', timeout: TIMEOUT.ui });
        assert.equal(fs.readFileSync(file, 'utf8'), ORIGINAL, 'nothing is written before Accept');
      });

      const firstOnly = ORIGINAL.replace(
        '  return price - percentOf(price, percent);',
        '  return Math.max(0, price - percentOf(price, percent));',
      );
      await steps.run('Accept in the status bar writes the first change; Change 1 of 1 is left', async () => {
        await statusItem(session, 'Accept (Ctrl+Enter)').click();
        await poll(`${FILE} to hold the first change`, TIMEOUT.ui, async () =>
          fs.readFileSync(file, 'utf8') === firstOnly ? true : undefined,
        );
        await statusItem(session, 'Change 1 of 1').waitFor({ state: 'visible', timeout: TIMEOUT.ui });
        assert.equal(await page.locator('.part.editor .monaco-diff-editor').count(), 1, 'the diff stays open with the other change');
        assert.equal(await reply.locator('[data-testid="strata-applied"]').count(), 0, 'nothing is decided yet');
      });

      await steps.run('Ctrl+Enter in the diff accepts the last change: the block says Applied · Undo', async () => {
        // Keys go to what has focus: the diff's proposed side is clicked first, as a person would.
        await page.locator('.part.editor .monaco-diff-editor .editor.modified .view-lines').first().click();
        await page.keyboard.press('Control+Enter');
        await poll(`${FILE} to hold both changes`, TIMEOUT.ui, async () => (fs.readFileSync(file, 'utf8') === EXPECTED ? true : undefined));
        await page.locator('.part.editor .monaco-diff-editor').first().waitFor({ state: 'hidden', timeout: TIMEOUT.ui });
        await statusItem(session, 'Accept (Ctrl+Enter)').waitFor({ state: 'hidden', timeout: TIMEOUT.ui });
        await activeEditor(page).getByText('Math.max(0,').first().waitFor({ state: 'visible', timeout: TIMEOUT.ui });
        await openStrataView(page);
        const applied = blocks.nth(0).locator('[data-testid="strata-applied"]');
        await applied.waitFor({ state: 'visible', timeout: TIMEOUT.ui });
        assert.equal(await applied.getAttribute('data-state'), 'applied');
        assert.equal(normalize(await applied.innerText()), 'Applied · Undo');
        assert.equal(await blocks.nth(0).locator('[data-testid="strata-undo-apply"]').count(), 1);
        assert.equal(await blocks.nth(1).locator('[data-testid="strata-applied"]').count(), 0, 'the bash block has no state');
        await applied.scrollIntoViewIfNeeded();
      });

      await steps.run('the Applied block at a 260 px side bar', async () => {
        await setSidebarWidth(page, 260);
        const applied = blocks.nth(0).locator('[data-testid="strata-applied"]');
        await applied.scrollIntoViewIfNeeded();
        await applied.waitFor({ state: 'visible', timeout: TIMEOUT.ui });
      });
    } finally {
      fs.rmSync(file, { force: true });
      // The next test starts where a fresh session would: an empty chat, no editors open.
      await leaveAsFound(session, originalWidth).catch((e: Error) => log(`could not reset the workbench: ${e.message}`));
    }
  });
});
