/**
 * One figure in every place, in the real workbench: after a reply, the reply's line, the Context
 * Layers "Last request" row and the provider's reported usage say the same prompt size and cached
 * share; the panel's meter and the status bar say the same size of the next request against the same
 * budget, the meter naming the model's window beside it.
 *
 * Hooks: `strata-reply-line` under the reply, `strata-meter-used` in the panel; the status bar item
 * is found by its accessible name ("Strata context: …").
 */
import * as assert from 'node:assert/strict';
import { ChatPanel } from './support/chatPanel';
import { freshChat } from './support/freshChat';
import { e2eSession, type E2ESession } from './support/session';
import { Steps } from './support/steps';
import { chatFrame, openFile, openStrataView, poll, runCommand, showContextLayers, TIMEOUT } from './support/workbench';

const FILES = ['src/invoice.ts', 'src/money.ts'];
/** "9.6k", "412" or "1.2M": the short form the one formatter writes (src/common/numberFormat.ts). */
const TOKENS = String.raw`\d+(?:\.\d)?[kM]?`;

describe('e2e: the same request shows the same figures everywhere', function () {
  this.timeout(300_000);
  let session: E2ESession;

  before(async function () {
    this.timeout(180_000);
    session = await e2eSession();
  });

  it('reply line, Last request row, meter and status bar agree', async () => {
    const steps = new Steps(session, 'one-figure');
    const { page } = session;
    await freshChat(steps, session);
    for (const file of FILES) await steps.run(`${file} opened`, () => openFile(page, file));
    await steps.run('Strata: Attach Open Editors', () => runCommand(page, 'Strata: Attach Open Editors'));
    await openStrataView(page);
    const frame = await chatFrame(page);
    const panel = new ChatPanel(page, frame);
    await panel.waitUntilReady();
    const repliesBefore = await panel.messages('assistant').count();
    await steps.run('question sent', () => panel.typeAndSend('Where is the invoice total rounded?'));
    await steps.run('reply complete', () =>
      poll('the reply to complete', TIMEOUT.reply, async () => {
        const replies = panel.messages('assistant');
        if ((await replies.count()) <= repliesBefore) return undefined;
        return (await replies.last().getAttribute('data-status')) === 'complete' ? true : undefined;
      }),
    );

    const usage = await steps.run("the reply's line", () =>
      poll('the usage in the reply line', TIMEOUT.ui, async () => {
        const text = (await panel.messages('assistant').last().locator('[data-testid="strata-reply-line"] .msg-usage').textContent()) ?? '';
        return new RegExp(`^(${TOKENS}) in, (\\d+)% cached$`).exec(text.trim()) ?? undefined;
      }),
    );
    const [, replyTokens, replyCached] = usage;

    const lastRow = await steps.run('the Last request row in Context Layers', async () => {
      await showContextLayers(page);
      const tree = page.locator('[id="workbench.view.extension.strata"]');
      const row = tree.locator('.monaco-list-row').filter({ has: page.locator('.label-name', { hasText: /^Last request$/ }) });
      return poll('the Last request row with its figures', TIMEOUT.ui, async () => {
        if ((await row.count()) !== 1) return undefined;
        const text = ((await row.locator('.label-description').textContent()) ?? '').trim();
        return new RegExp(`^(${TOKENS}) · (\\d+)% cached`).exec(text) ?? undefined;
      });
    });
    assert.equal(lastRow[1], replyTokens, `tree "${lastRow[0]}" and reply line "${usage[0]}" name one prompt size`);
    assert.equal(lastRow[2], replyCached, `tree "${lastRow[0]}" and reply line "${usage[0]}" name one cached share`);

    const meter = await steps.run('the meter', () =>
      poll('the meter with its budget and window', TIMEOUT.ui, async () => {
        const text = ((await frame.locator('[data-testid="strata-meter-used"]').textContent()) ?? '').trim();
        return new RegExp(`^(${TOKENS}) of (${TOKENS}) budget \\((${TOKENS}) window\\)$`).exec(text) ?? undefined;
      }),
    );
    const status = await steps.run('the status bar', () =>
      poll('the status bar meter', TIMEOUT.ui, async () => {
        const item = page.locator('.part.statusbar [aria-label^="Strata context:"]').first();
        if ((await item.count()) === 0) return undefined;
        const label = (await item.getAttribute('aria-label')) ?? '';
        const text = ((await item.textContent()) ?? '').trim();
        const short = new RegExp(`^(${TOKENS})/(${TOKENS})`).exec(text);
        return short ? { label, short } : undefined;
      }),
    );
    assert.equal(status.short[1], meter[1], `status bar "${status.short[0]}" and meter "${meter[0]}" name one next-request size`);
    assert.equal(status.short[2], meter[2], `status bar "${status.short[0]}" and meter "${meter[0]}" name one budget`);
    assert.ok(
      status.label.startsWith(`Strata context: ${meter[0]},`),
      `the status bar's accessible name "${status.label}" reads as the meter`,
    );
    await session.screenshot('one-figure');
  });
});
