/**
 * Cost in the real workbench: the cost line under a reply (the imitation server reports usage; its
 * model is priced through `strata.prices` in the user settings), and "cache likely expired" once
 * `strata.cache.lifetimeSeconds` (2 s in the e2e user settings) has passed since the chat's last request.
 *
 * Hooks: `strata-cost` under the assistant message; `strata-cache-expired` in the panel while the
 * cache has likely expired.
 */
import * as assert from 'node:assert/strict';
import { ChatPanel } from './support/chatPanel';
import { CACHE_LIFETIME_SECONDS, e2eSession, type E2ESession } from './support/session';
import { freshChat } from './support/freshChat';
import { Steps } from './support/steps';
import { chatFrame, openFile, openStrataView, poll, runCommand, TIMEOUT } from './support/workbench';

const FILES = ['src/invoice.ts', 'src/money.ts', 'src/render.ts', 'src/tax.ts'];

describe('e2e: cost and cache expiry in the real workbench', function () {
  this.timeout(300_000);
  let session: E2ESession;

  before(async function () {
    this.timeout(180_000);
    session = await e2eSession();
  });

  it('shows the cost under the reply, then "cache likely expired" once the lifetime has passed', async () => {
    const steps = new Steps(session, 'cost');
    const { page } = session;
    await freshChat(steps, session);
    // Enough context for the provider to cache the next request's prefix (over 1,024 tokens).
    for (const file of FILES) await steps.run(`${file} opened`, () => openFile(page, file));
    await steps.run('Strata: Attach Open Editors', () => runCommand(page, 'Strata: Attach Open Editors'));
    await openStrataView(page);
    const panel = new ChatPanel(page, await chatFrame(page));
    await panel.waitUntilReady();
    const frame = await chatFrame(page);
    const before = await frame.locator('[data-testid="strata-cost"]').count();
    const sentAt = Date.now();
    await steps.run('question sent', () => panel.typeAndSend('How are the totals of an invoice computed?'));

    const cost = await steps.run('cost line under the reply', () =>
      poll('a cost line under the new reply', TIMEOUT.reply, async () => {
        const lines = frame.locator('[data-testid="strata-cost"]');
        if ((await lines.count()) <= before) return undefined;
        return (await lines.last().textContent()) ?? undefined;
      }),
    );
    assert.match(cost, /^\$0\.\d{3,4}(, saved \$0\.\d{3,4})?$/, `cost line: "${cost}"`);
    const reply = frame.locator('[data-testid="strata-message"][data-role="assistant"]').last();
    assert.equal(await reply.locator('[data-testid="strata-cost"]').count(), 1, 'the cost line belongs to the reply');

    const notice = await steps.run('cache likely expired after the lifetime', () =>
      poll('the cache-expired notice', TIMEOUT.reply, async () => {
        const el = frame.locator('[data-testid="strata-cache-expired"]');
        return (await el.isVisible()) ? ((await el.textContent()) ?? undefined) : undefined;
      }),
    );
    assert.ok(Date.now() - sentAt >= CACHE_LIFETIME_SECONDS * 1000, 'not before the lifetime passed');
    assert.match(notice, /^cache likely expired — the next message costs ~\$0\.\d{4} \([\d,]+ tokens uncached\)$/, notice);
    await session.screenshot('cost-cache-expired');
  });
});
