/**
 * A long chat in the real workbench, written by another window of the same folder. A second
 * process (as a second VS Code window would: its own `ChatSession` on this folder's chat store, the
 * store's lock between them) writes a 1,000-turn chat while the editor is open. What a person sees:
 * the chat appears in the panel's chat list without a reload; opening it shows its newest 50 messages
 * at once, at the end; scrolling up loads the earlier ones above without moving what is on screen,
 * back to the first question; a turn sent in it streams and is saved after the 1,000 others.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { modelInfo } from '../../src/services/modelInfo';
import { OpenAIProvider } from '../../src/services/providers/openai';
import { ScriptedProvider } from '../../src/services/providers/scripted';
import { ChatPanel, normalize, TEST_ID } from './support/chatPanel';
import { otherWindowSession, storeRoot } from './support/otherWindow';
import { e2eSession, IMITATION_MODEL, log, type E2ESession } from './support/session';
import { Steps } from './support/steps';
import {
  chatFrame,
  openStrataView,
  pickColorTheme,
  poll,
  showContextLayers,
  TIMEOUT,
  waitForWorkbench,
  watchEmptyChatMessage,
} from './support/workbench';

const TURNS = 1000;
const TITLE = 'A week of questions about the invoice module';
const question = (t: number) => `Question ${t}: what does line ${(t % 90) + 1} of the invoice module do with the discount?`;
const answer = (t: number) =>
  `Answer ${t}. It applies the line's own discount before the tax, then rounds to cents; the total adds the rounded lines.`;
const LAST_QUESTION = 'After all this: which function should I read first?';
const LAST_ANSWER = 'Start with totals() in src/invoice.ts: every other function is called from there.';

describe('e2e: a 1,000-turn chat from another window', function () {
  this.timeout(420_000);
  let session: E2ESession;

  before(async function () {
    this.timeout(180_000);
    session = await e2eSession();
  });

  // This test runs in a dark theme (the others in the light one the workbench starts with): the
  // panel, the tree and the meter are seen in both in the real workbench.
  let darkened = false;
  after(async () => {
    if (session && darkened) await pickColorTheme(session.page, 'Light Modern').catch(() => undefined);
  });

  it('lists it without a reload, opens it at its newest 50 messages, loads the rest on scroll, and continues it', async () => {
    const steps = new Steps(session, 'long');
    const { page, imitation } = session;

    await steps.run('workbench loaded', () => waitForWorkbench(page));
    const panel = await steps.run('chat panel open', async () => {
      await openStrataView(page);
      const p = new ChatPanel(page, await chatFrame(page));
      await p.waitUntilReady();
      return p;
    });

    await steps.run('Dark Modern theme picked from the Command Palette', async () => {
      darkened = true;
      await pickColorTheme(page, 'Dark Modern', async () => (await page.locator('.monaco-workbench.vs-dark').count()) > 0);
      await poll('the workbench in a dark theme', TIMEOUT.ui, async () =>
        (await page.locator('.monaco-workbench.vs-dark').count()) > 0 ? true : undefined,
      );
      await poll('the panel in a dark theme', TIMEOUT.ui, async () =>
        (await panel.frame.locator('body.vscode-dark').count()) > 0 ? true : undefined,
      );
    });

    const chatId = await steps.run(`another process writes a ${TURNS}-turn chat to this folder's chats`, async () => {
      const root = await poll("the folder's chat store", TIMEOUT.ui, async () => storeRoot(session));
      const other = otherWindowSession(session, root);
      // A chat of its own (the session would otherwise open the folder's most recent one).
      other.newChat();
      other.setModel(modelInfo('openai', IMITATION_MODEL));
      // Turns 1–999 answered in process (quick); turn 1,000 through the imitation server, as this
      // window's turns go: its prompt cache then holds the chat's last request.
      const scripted = new ScriptedProvider();
      const imitated = new OpenAIProvider({ baseURL: session.imitation.url });
      const started = Date.now();
      for (let t = 1; t <= TURNS; t++) {
        // Files now and then, as a person attaches them: the chat's context is not only text.
        if (t === 1) assert.equal((await other.attach({ kind: 'file', path: 'src/invoice.ts' })).ok, true);
        if (t === 400) assert.equal((await other.attach({ kind: 'selection', path: 'src/tax.ts', startLine: 1, endLine: 12 })).ok, true);
        let provider: ScriptedProvider | OpenAIProvider = scripted;
        if (t < TURNS) scripted.push(answer(t));
        else {
          session.imitation.queueReply(answer(t));
          provider = imitated;
        }
        const outcome = await other.send(question(t), provider);
        assert.equal(outcome.status, 'done', `turn ${t}: ${outcome.status}`);
        if (t === 1) other.renameChat(other.activeChatId, TITLE);
      }
      log(`the other process wrote ${TURNS} turns in ${((Date.now() - started) / 1000).toFixed(1)} s`);
      return other.activeChatId;
    });

    const item = panel.frame.locator(`[data-testid="strata-chat-item"][data-chat-id="${chatId}"]`);
    await steps.run('the chat list shows it without a reload', async () => {
      await panel.byTestId('strata-chat-title').click();
      await item.waitFor({ state: 'visible', timeout: TIMEOUT.ui });
      assert.match(normalize(await item.innerText()), new RegExp(TITLE));
    });

    const messages = panel.byTestId(TEST_ID.message);
    // Watches the Context Layers view from before the switch: its empty-chat message must never be on
    // screen together with the rows of the chat's last request.
    await showContextLayers(page);
    const watch = await watchEmptyChatMessage(page);
    await steps.run('opened from the list: its newest 50 messages, at the end', async () => {
      const t0 = Date.now();
      await item.click();
      await panel
        .messages('assistant')
        .filter({ hasText: `Answer ${TURNS}.` })
        .first()
        .waitFor({ state: 'visible', timeout: TIMEOUT.ui });
      log(`the ${TURNS}-turn chat was on screen ${Date.now() - t0} ms after the click`);
      assert.equal(await messages.count(), 50, 'messages in the panel right after opening');
      // textContent: messages out of sight are not laid out (their innerText is empty).
      assert.match(normalize((await messages.first().textContent()) ?? ''), new RegExp(`Question ${TURNS - 24}:`));
      assert.equal(
        (await panel.byTestId('strata-load-older').count()) + (await panel.byTestId('strata-loading-older').count()),
        1,
        'a row above the messages says there are earlier ones',
      );
    });

    await steps.run('Context Layers shows its last request, not the empty-chat message', async () => {
      const tree = page.locator('[id="workbench.view.extension.strata"]');
      await poll('the tree to show turn 1000', TIMEOUT.ui, async () => {
        // The row says "Last request"; its turn is in what a screen reader reads (and the tooltip).
        const names = await tree.locator('.monaco-list-row').evaluateAll((els) => els.map((el) => el.getAttribute('aria-label') ?? ''));
        return names.some((n) => normalize(n).startsWith(`Last request · turn ${TURNS}:`)) ? true : undefined;
      });
      // Never shown with the rows (it lingered about half a second after them while the message was
      // set as the workbench fetched the rows: the workbench sends a view's changes 200 ms apart).
      await page.waitForTimeout(500);
      assert.equal(await watch.stop(), false, 'the empty-chat message was shown above the last request of the chat switched to');
      assert.equal(
        await tree.getByText('No request yet in this chat').count(),
        0,
        'the empty-chat message is shown above the last request',
      );
    });

    const conversation = panel.byTestId('strata-conversation');
    await steps.run('scrolled to the top: earlier messages load above, the one read stays in place', async () => {
      const firstShown = panel
        .messages('user')
        .filter({ hasText: `Question ${TURNS - 24}:` })
        .first();
      // Where that message is on screen at each scroll while only the first 50 are in the panel: the
      // last one is where the user was reading when the earlier messages were asked for. (The wheel
      // returns before the view has scrolled, so a reading taken in the test could come from before
      // the scroll, or from after the load.)
      await conversation.evaluate(
        (el, text) => {
          const w = globalThis as unknown as { __strataReadAt?: number };
          delete w.__strataReadAt;
          const onScroll = () => {
            const shown = el.querySelectorAll('[data-testid="strata-message"]');
            if (shown.length !== 50) {
              el.removeEventListener('scroll', onScroll);
              return;
            }
            let msg;
            for (let i = 0; i < shown.length && !msg; i++) if ((shown[i].textContent ?? '').includes(text)) msg = shown[i];
            if (msg) w.__strataReadAt = msg.getBoundingClientRect().top - el.getBoundingClientRect().top;
          };
          el.addEventListener('scroll', onScroll, { passive: true });
        },
        `Question ${TURNS - 24}:`,
      );
      await conversation.hover();
      await page.mouse.wheel(0, -100_000);
      await poll('earlier messages above', TIMEOUT.ui, async () => ((await messages.count()) > 50 ? true : undefined));
      // Scroll anchoring: the message at the top when the user got there is where it was.
      await page.waitForTimeout(300);
      const readAt = await conversation.evaluate(() => (globalThis as unknown as { __strataReadAt?: number }).__strataReadAt);
      const now = await firstShown.evaluate((m) => {
        const view = m.closest('[data-testid="strata-conversation"]');
        return view ? m.getBoundingClientRect().top - view.getBoundingClientRect().top : undefined;
      });
      log(`the message read was ${readAt?.toFixed(0)} px below the top of the view before the load, ${now?.toFixed(0)} px after`);
      assert.ok(readAt !== undefined, 'no scroll was seen before the earlier messages loaded');
      assert.ok(now !== undefined, 'the message read before the load is still in the panel');
      assert.ok(
        Math.abs(now - readAt) <= 40,
        `the message the user was reading moved from ${readAt.toFixed(0)} px to ${now.toFixed(0)} px below the top of the view when earlier ones loaded`,
      );
    });

    await steps.run('scrolling on loads the rest, back to the first question', async () => {
      const t0 = Date.now();
      await poll(
        'the first question',
        120_000,
        async () => {
          if ((await panel.messages('user').filter({ hasText: 'Question 1:' }).count()) > 0) return true;
          await conversation.hover();
          await page.mouse.wheel(0, -100_000);
          return undefined;
        },
        250,
      );
      const count = await messages.count();
      log(`all ${count} messages loaded by scrolling in ${Date.now() - t0} ms`);
      assert.equal(count, 2 * TURNS);
      assert.equal(await panel.byTestId('strata-load-older').count(), 0, 'no "earlier messages" row once the first is shown');
      // On up to the top, with the wheel: the first question is laid out and painted there (its
      // innerText stays empty while the browser skips it), and the view stays at the top.
      const first = panel.messages('user').filter({ hasText: 'Question 1:' }).first();
      await poll(
        'the first question painted at the top',
        TIMEOUT.ui,
        async () => {
          await conversation.hover();
          await page.mouse.wheel(0, -100_000);
          await page.waitForTimeout(200);
          const top = await conversation.evaluate((el) => el.scrollTop);
          return top === 0 && /Question 1:/.test(await first.innerText()) ? true : undefined;
        },
        250,
      );
      await page.waitForTimeout(500);
      assert.equal(await conversation.evaluate((el) => el.scrollTop), 0, 'the view left the top by itself');
      assert.match(normalize(await first.innerText()), /Question 1:/);
    });

    await steps.run(`a turn sent in it is saved after the ${TURNS} others`, async () => {
      const before = imitation.chatRequests.length;
      imitation.queueReply(LAST_ANSWER);
      await panel.typeAndSend(LAST_QUESTION);
      await panel.messages('assistant').filter({ hasText: LAST_ANSWER }).first().waitFor({ state: 'visible', timeout: TIMEOUT.reply });
      const sent = imitation.chatRequests.slice(before);
      assert.equal(sent.length, 1, `chat requests for one turn: ${sent.length}`);
      const all = (sent[0].messages ?? []).flatMap((m) => m.content.map((b) => b.text)).join('\n');
      assert.ok(
        all.includes(LAST_QUESTION) && all.includes(question(TURNS)) && all.includes(answer(TURNS)),
        'the request carries the question and the turn before it',
      );
      // What the other window sent last is a prefix of this request: the provider serves it from its cache.
      const usage = sent[0].usage!;
      log(
        `turn ${TURNS + 1}: ${usage.input} prompt tokens, ${usage.cacheRead} served from the provider's cache (the other window's turn ${TURNS})`,
      );
      assert.ok(
        usage.cacheRead >= 0.9 * usage.input,
        `only ${usage.cacheRead} of ${usage.input} prompt tokens were cached: the request does not extend the other window's last one`,
      );
      // The reply's text shows while it streams ("Working…"); its bar follows when the turn settles.
      const reply = panel.messages('assistant').filter({ hasText: LAST_ANSWER }).first();
      const bar = await poll("the reply's bar once the turn settled", TIMEOUT.reply, async () => {
        const text = normalize(await reply.innerText());
        return /Working…/.test(text) ? undefined : text;
      });
      assert.match(bar, /\b(9\d|100)% cached/, `the reply's bar: ${bar}`);
      const root = storeRoot(session)!;
      const lines = fs
        .readFileSync(path.join(root, 'chats', `${chatId}.jsonl`), 'utf8')
        .split('\n')
        .filter((l) => l.trim());
      assert.equal(lines.length, TURNS + 1, 'lines in the chat file after the turn');
      assert.equal(await panel.byTestId(TEST_ID.error).filter({ visible: true }).count(), 0, 'an error banner after the turn');
    });
  });
});
