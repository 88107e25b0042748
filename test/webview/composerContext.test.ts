import * as assert from 'node:assert/strict';
import type { MentionView, SuggestionView } from '../../src/protocol/mentions';
import { assistantMessage, CHAT_ID, chips, state, userMessage } from './fixtures';
import type { Panel } from './harness';
import { panelSuite } from './suite';

/** Polls `fn` until it returns true (or throws after `timeoutMs`). */
async function until(what: string, fn: () => Promise<boolean>, timeoutMs = 4000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await fn()) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const MENTIONS: MentionView[] = [
  { kind: 'selection', label: 'selection', detail: 'tokenizer.ts:12-30', ref: { kind: 'selection' } },
  { kind: 'problems', label: 'problems', detail: '2 errors in tokenizer.ts (a snapshot)', ref: { kind: 'problems' } },
  { kind: 'editor', label: 'src/engine/tokenizer.ts', detail: 'open editor', ref: { kind: 'file', path: 'src/engine/tokenizer.ts' } },
  { kind: 'file', label: 'src/host/chatView.ts', detail: 'src/host', ref: { kind: 'file', path: 'src/host/chatView.ts' } },
];

const SUGGESTION: SuggestionView = {
  label: 'tokenizer.ts:12-30',
  detail: 'src/engine/tokenizer.ts:12-30',
  ref: { kind: 'range', path: 'src/engine/tokenizer.ts', startLine: 12, endLine: 30 },
  available: true,
};

/** The `mentions` requests posted so far, oldest first. */
async function mentionRequests(p: Panel) {
  return (await p.requests()).filter((r) => r.request.kind === 'mentions');
}

async function options(p: Panel): Promise<string[]> {
  return p.byTestId('strata-picker').getByRole('option').allTextContents();
}

async function selectedOption(p: Panel): Promise<string | null> {
  return p.byTestId('strata-picker').locator('[role="option"][aria-selected="true"]').textContent();
}

/** Types `text` into the input and answers the latest `mentions` request with `answer`. */
async function typeAndAnswer(p: Panel, text: string, answer: MentionView[]): Promise<void> {
  const before = (await mentionRequests(p)).length;
  await p.page.keyboard.type(text);
  await until('a mentions request', async () => (await mentionRequests(p)).length > before);
  const all = await mentionRequests(p);
  await p.respond(all[all.length - 1].requestId, { ok: true, value: answer });
}

describe('chat panel: context in one keystroke', function () {
  this.timeout(60_000);
  const { open } = panelSuite();

  it('@ opens a keyboard-driven listbox; typing filters through the host; Enter attaches and takes @query out', async () => {
    const p = await open();
    await p.init(state());
    const input = p.byTestId('strata-input');
    await input.click();
    await p.page.keyboard.type('Compare ');
    await typeAndAnswer(p, '@', MENTIONS);
    const picker = p.byTestId('strata-picker');
    await picker.waitFor({ state: 'visible' });
    assert.deepEqual(
      (await mentionRequests(p)).map((r) => r.request),
      [{ kind: 'mentions', query: '' }],
    );
    assert.equal(await picker.getByRole('option').count(), 4);
    const listbox = picker.getByRole('listbox');
    assert.equal(await listbox.count(), 1);
    // The focus stays in the input; the active option is named on the input and on the listbox.
    const active = await input.getAttribute('aria-activedescendant');
    assert.ok(active);
    assert.equal(await listbox.getAttribute('aria-activedescendant'), active);
    assert.equal(await input.getAttribute('aria-controls'), await listbox.getAttribute('id'));
    assert.match((await selectedOption(p)) ?? '', /^selection/);

    await p.page.keyboard.press('ArrowDown');
    assert.match((await selectedOption(p)) ?? '', /^problems/);
    await p.page.keyboard.press('ArrowUp');
    await p.page.keyboard.press('ArrowUp');
    assert.match((await selectedOption(p)) ?? '', /^src\/host\/chatView\.ts/, 'ArrowUp wraps to the last option');

    // Filtering: each keystroke asks the host with the text after @.
    await typeAndAnswer(p, 'chv', [{ ...MENTIONS[3], matches: [9, 13, 14] }]);
    assert.deepEqual((await mentionRequests(p)).at(-1)?.request, { kind: 'mentions', query: 'chv' });
    await until('one option', async () => (await options(p)).length === 1);
    assert.equal(await picker.locator('.picker-match').count(), 2, 'matched characters are highlighted (9, and the run 13-14)');

    await p.page.keyboard.press('Enter');
    const attach = await p.waitForRequest('attachMention');
    assert.deepEqual(attach.request, { kind: 'attachMention', ref: { kind: 'file', path: 'src/host/chatView.ts' } });
    assert.equal(await input.inputValue(), 'Compare ', 'the @query left the input');
    assert.equal(await picker.isVisible(), false);
    await p.respond(attach.requestId, { ok: true, value: { labels: ['src/host/chatView.ts'] } });
    assert.equal((await p.requests()).filter((r) => r.request.kind === 'send').length, 0, 'Enter picked, it did not send');
  });

  it('Tab picks too, a click picks, and an @ inside a word is no mention', async () => {
    const p = await open();
    await p.init(state());
    await p.byTestId('strata-input').click();
    await p.page.keyboard.type('mail me@example.com ');
    await p.settle();
    assert.equal((await mentionRequests(p)).length, 0);
    await typeAndAnswer(p, '@', MENTIONS);
    await p.page.keyboard.press('ArrowDown');
    await p.page.keyboard.press('Tab');
    const first = await p.waitForRequest('attachMention');
    assert.deepEqual(first.request.ref, { kind: 'problems' });
    await p.respond(first.requestId, {
      ok: true,
      value: {
        labels: ['src/engine/tokenizer.ts'],
        insertText: 'Problems in src/engine/tokenizer.ts (snapshot at 14:05: 1 error):\n- L3:1 error: x',
      },
    });
    // The problems snapshot is written into the message, editable, where @problems was.
    assert.equal(
      await p.byTestId('strata-input').inputValue(),
      'mail me@example.com \nProblems in src/engine/tokenizer.ts (snapshot at 14:05: 1 error):\n- L3:1 error: x\n',
    );

    await p.clearPosted();
    await typeAndAnswer(p, '@', MENTIONS);
    await p.byTestId('strata-picker').getByRole('option').nth(2).click();
    const clicked = await p.waitForRequest('attachMention');
    assert.deepEqual(clicked.request.ref, { kind: 'file', path: 'src/engine/tokenizer.ts' });
  });

  it('Escape closes the picker without stopping the reply, and the same @ stays closed while typing on', async () => {
    const p = await open();
    await p.init(state({ messages: [userMessage(1, 'q'), assistantMessage(1, 'done')] }));
    await p.post({
      type: 'turnStarted',
      chatId: CHAT_ID,
      turnId: 't2',
      user: userMessage(2, 'more'),
      assistant: assistantMessage(2, '', { status: 'streaming' }),
    });
    await p.byTestId('strata-input').click();
    await typeAndAnswer(p, '@', MENTIONS);
    await p.byTestId('strata-picker').waitFor({ state: 'visible' });
    await p.page.keyboard.press('Escape');
    await p.byTestId('strata-picker').waitFor({ state: 'hidden' });
    await p.settle();
    assert.equal((await p.requests()).filter((r) => r.request.kind === 'stop').length, 0, 'the Escape was the picker’s');
    const asked = (await mentionRequests(p)).length;
    await p.page.keyboard.type('abc');
    await p.settle();
    assert.equal(await p.byTestId('strata-picker').isVisible(), false);
    assert.equal((await mentionRequests(p)).length, asked);
    // A second Escape stops the reply.
    await p.page.keyboard.press('Escape');
    await p.waitForRequest('stop');
  });

  it('a late answer to an older query does not replace a newer one', async () => {
    const p = await open();
    await p.init(state());
    await p.byTestId('strata-input').click();
    await p.page.keyboard.type('@c');
    await until('two mentions requests', async () => (await mentionRequests(p)).length === 2);
    await p.page.keyboard.type('h');
    await until('three mentions requests', async () => (await mentionRequests(p)).length === 3);
    const [, older, newer] = await mentionRequests(p);
    await p.respond(newer.requestId, { ok: true, value: [MENTIONS[3]] });
    await p.respond(older.requestId, { ok: true, value: MENTIONS });
    assert.deepEqual(await options(p), ['src/host/chatView.tssrc/host']);
  });

  it('/ completes commands; /explain attaches the selection and writes an editable template', async () => {
    const p = await open();
    await p.init(state());
    const input = p.byTestId('strata-input');
    await input.click();
    await p.page.keyboard.type('/');
    const picker = p.byTestId('strata-picker');
    await picker.waitFor({ state: 'visible' });
    const names = (await options(p)).map((t) => t.split(/\s/)[0].replace(/^(\/\w+).*$/, '$1'));
    for (const name of ['/explain', '/fix', '/tests', '/new', '/model', '/compact', '/cost'])
      assert.ok(
        names.some((n) => n.startsWith(name)),
        `${name} is offered: ${names.join(' ')}`,
      );
    await p.page.keyboard.type('expl');
    await until('only /explain', async () => (await options(p)).length === 1);
    await p.page.keyboard.press('Enter');
    const attach = await p.waitForRequest('attachMention');
    assert.deepEqual(attach.request.ref, { kind: 'activeEditor' });
    await p.respond(attach.requestId, { ok: true, value: { labels: ['src/engine/tokenizer.ts:L12-30'] } });
    await until('the template', async () => (await input.inputValue()).startsWith('Explain'));
    assert.equal(
      await input.inputValue(),
      'Explain `src/engine/tokenizer.ts:L12-30`: what it does, how it works, and anything surprising.',
    );
    assert.equal((await p.requests()).filter((r) => r.request.kind === 'send').length, 0, 'nothing is sent before the user sends');
  });

  it('/new, /compact and /cost ask the host; an unknown command is sent as text', async () => {
    const p = await open();
    await p.init(state());
    await p.autoRespond({ newChat: { ok: true }, slashCommand: { ok: true } });
    const input = p.byTestId('strata-input');
    await input.click();
    for (const [typed, expected] of [
      ['/new', { kind: 'newChat' }],
      ['/compact', { kind: 'slashCommand', name: 'compact' }],
      ['/cost', { kind: 'slashCommand', name: 'cost' }],
    ] as const) {
      await p.clearPosted();
      await p.page.keyboard.type(typed);
      await p.page.keyboard.press('Enter');
      const r = await p.waitForRequest(expected.kind);
      assert.deepEqual(r.request, expected);
      assert.equal(await input.inputValue(), '');
    }
    await p.clearPosted();
    await p.page.keyboard.type('/frobnicate the cache');
    assert.equal(await p.byTestId('strata-picker').isVisible(), false);
    await p.page.keyboard.press('Enter');
    const send = await p.waitForRequest('send');
    assert.deepEqual(send.request, { kind: 'send', text: '/frobnicate the cache' });
  });

  it('the suggestion chip: offered dashed, included by a click or by Enter from the keyboard, hidden when off', async () => {
    const p = await open();
    await p.init(state());
    const chip = p.byTestId('strata-suggestion');
    assert.equal(await chip.isVisible(), false);
    await p.post({ type: 'suggestion', suggestion: SUGGESTION });
    await p.settle();
    assert.equal(await chip.isVisible(), true);
    assert.match((await chip.textContent()) ?? '', /tokenizer\.ts:12-30/);
    assert.equal(
      await chip.evaluate(
        (el) => (globalThis as unknown as { getComputedStyle(e: unknown): { borderTopStyle: string } }).getComputedStyle(el).borderTopStyle,
      ),
      'dashed',
    );
    assert.match((await chip.getAttribute('aria-label')) ?? '', /not sent unless included/);

    await chip.click();
    const clicked = await p.waitForRequest('attachMention');
    assert.deepEqual(clicked.request.ref, SUGGESTION.ref);
    await p.respond(clicked.requestId, { ok: true, value: { labels: ['src/engine/tokenizer.ts:L12-30'] } });

    // From the input, Shift+Tab reaches the chip and Enter includes it; the focus goes back to the input.
    await p.clearPosted();
    await p.byTestId('strata-input').click();
    await p.page.keyboard.press('Shift+Tab');
    assert.equal(await chip.evaluate((el) => el === (el.ownerDocument as { activeElement: unknown }).activeElement), true);
    await p.page.keyboard.press('Enter');
    const entered = await p.waitForRequest('attachMention');
    assert.deepEqual(entered.request.ref, SUGGESTION.ref);
    await p.respond(entered.requestId, { ok: true, value: { labels: ['src/engine/tokenizer.ts:L12-30'] } });
    await until('the input to have the focus', () =>
      p.byTestId('strata-input').evaluate((el) => el === (el.ownerDocument as { activeElement: unknown }).activeElement),
    );

    // `off` (or nothing to offer): the host posts null.
    await p.post({ type: 'suggestion', suggestion: null });
    await p.settle();
    assert.equal(await chip.isVisible(), false);
  });

  it('a suggestion the isolation refuses is shown with its reason and cannot be included', async () => {
    const p = await open();
    await p.init(state());
    await p.post({
      type: 'suggestion',
      suggestion: {
        label: '.env',
        detail: '.env',
        ref: { kind: 'file', path: '.env' },
        available: false,
        reason: '.env is excluded by strata.context.exclude (**/.env).',
      },
    });
    await p.settle();
    const chip = p.byTestId('strata-suggestion');
    assert.equal(await chip.getAttribute('aria-disabled'), 'true');
    assert.match((await chip.getAttribute('aria-label')) ?? '', /cannot be included: .env is excluded/);
    // Playwright waits for an aria-disabled control to be enabled: a user's click reaches it anyway.
    await chip.click({ force: true });
    await until('the reason under the input', async () => /excluded/.test((await p.byTestId('strata-status').textContent()) ?? ''));
    assert.equal((await p.requests()).filter((r) => r.request.kind === 'attachMention').length, 0);
  });

  it('the placeholder says what the message is about', async () => {
    const p = await open();
    await p.init(state());
    const input = p.byTestId('strata-input');
    assert.equal(await input.getAttribute('placeholder'), 'Ask, @ to attach, / for commands');
    await p.post({ type: 'chips', chips: [chips[0]] });
    await p.settle();
    assert.equal(await input.getAttribute('placeholder'), 'Ask about tokenizer.ts…');
    await p.post({ type: 'chips', chips: [...chips, { ...chips[0], id: 'chip-9', label: 'src/x.ts' }] });
    await p.settle();
    assert.equal(await input.getAttribute('placeholder'), `Ask about ${chips.length + 1} attached items…`);
  });
});
