import * as assert from 'node:assert/strict';
import type { Locator } from 'playwright-core';
import { type BannerView, type ChipView, type MessageView, type ToolStepView } from '../../src/protocol/messages';
import type { WebviewRequest } from '../../src/protocol/requests';
import { assistantMessage, bar, CHAT_ID, chips, longChat, meter, model, state, userMessage } from './fixtures';
import { isObj } from '../../src/common/guards';
import type { WithDriver } from './harness';
import { panelSuite } from './suite';

/** Browser globals used inside page functions (the Node tsconfig has no DOM library). */
interface PageGlobals {
  getComputedStyle(el: unknown): { backgroundColor: string; whiteSpace: string };
}

/** Polls `fn` until it returns true (or throws after `timeoutMs`). */
async function until(what: string, fn: () => Promise<boolean>, timeoutMs = 4000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await fn()) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * Scrolls the conversation as a user would: the panel tells the user's scrolls (wheel, keys,
 * scrollbar) from scrolls that layout causes, and only the former stop it following the end.
 */
async function userScrollTo(conversation: Locator, top: number): Promise<void> {
  await conversation.evaluate((el, y) => {
    const { WheelEvent } = globalThis as unknown as { WheelEvent: new (type: string, init: { deltaY: number; bubbles: boolean }) => Event };
    el.dispatchEvent(new WheelEvent('wheel', { deltaY: y - el.scrollTop, bubbles: true }));
    el.scrollTo({ top: y });
  }, top);
}

const ALL_KINDS: readonly WebviewRequest['kind'][] = [
  'send',
  'stop',
  'regenerate',
  'newChat',
  'switchChat',
  'renameChat',
  'deleteChat',
  'attach',
  'removeChip',
  'pinChip',
  'attachDefinitions',
  'selectModel',
  'listModels',
  'insertCode',
  'copy',
  'bannerAction',
  'loadOlder',
];

describe('chat panel in a real browser (standalone page, production bundle)', function () {
  this.timeout(60_000);
  const seenKinds = new Set<string>();
  // Every message the panel posted in a test must pass the host's own validation (checked by the
  // suite); the request kinds seen are collected for the coverage test at the end.
  const { open } = panelSuite({
    onPosted: (m) => {
      if (m.type === 'request') seenKinds.add(m.request.kind);
    },
  });

  it('says ready first and posts nothing else before init', async () => {
    const p = await open();
    await new Promise((r) => setTimeout(r, 200));
    assert.deepEqual(await p.posted(), [{ type: 'ready' }]);
    await p.init(state());
    assert.deepEqual(await p.posted(), [{ type: 'ready' }]);
    assert.equal(await p.byTestId('strata-empty').isVisible(), true);
    assert.equal(await p.byTestId('strata-meter').isVisible(), true);
    assert.equal(await p.byTestId('strata-send').getAttribute('aria-disabled'), 'true');
    assert.equal(await p.byTestId('strata-stop').isVisible(), false);
  });

  it('Enter sends, Shift+Enter adds a line, Enter inside an IME composition does not send', async () => {
    const p = await open();
    await p.init(state());
    const input = p.byTestId('strata-input');
    await input.click();
    await p.page.keyboard.type('hello');
    await p.page.keyboard.press('Shift+Enter');
    await p.page.keyboard.type('world');
    assert.equal(await input.inputValue(), 'hello\nworld');
    assert.equal((await p.requests()).length, 0);

    // An Enter that commits an IME composition.
    await input.dispatchEvent('keydown', { key: 'Enter', code: 'Enter', isComposing: true, bubbles: true, cancelable: true });
    await input.dispatchEvent('compositionstart', { data: '' });
    await input.dispatchEvent('keydown', { key: 'Enter', code: 'Enter', bubbles: true, cancelable: true });
    await input.dispatchEvent('compositionend', { data: '日本' });
    await p.settle();
    assert.equal((await p.requests()).length, 0, 'nothing sent during composition');
    await new Promise((r) => setTimeout(r, 20));

    await input.press('Enter');
    const send = await p.waitForRequest('send');
    assert.deepEqual(send.request, { kind: 'send', text: 'hello\nworld' });
    assert.equal(await input.inputValue(), '');
    await p.respond(send.requestId, { ok: true });

    // Empty and whitespace-only input sends nothing.
    await input.press('Enter');
    await input.fill('   \n  ');
    await input.press('Enter');
    assert.equal((await p.requests()).filter((r) => r.request.kind === 'send').length, 1);
  });

  it('Send is enabled only with text and when idle; a refused message comes back into the input', async () => {
    const p = await open();
    await p.init(state());
    const sendButton = p.byTestId('strata-send');
    assert.equal(await sendButton.getAttribute('aria-disabled'), 'true');
    await p.byTestId('strata-input').fill('Explain the selection');
    assert.equal(await sendButton.getAttribute('aria-disabled'), 'false');
    await sendButton.click();
    const send = await p.waitForRequest('send');
    assert.equal(send.request.text, 'Explain the selection');
    assert.equal(await p.byTestId('strata-input').inputValue(), '');
    await p.respond(send.requestId, { ok: false, error: 'Another turn is running.' });
    await until('the text is back', async () => (await p.byTestId('strata-input').inputValue()) === 'Explain the selection');
    assert.match((await p.byTestId('strata-status').textContent()) ?? '', /Another turn is running/);
  });

  it('streams a reply: chunks in order, duplicates ignored, only the streaming message changes', async () => {
    const p = await open();
    const messages = [
      userMessage(1, 'First?'),
      assistantMessage(1, 'First answer.'),
      userMessage(2, 'Second?'),
      assistantMessage(2, 'Second answer with `code`.'),
    ];
    await p.init(state({ messages }));
    // A probe on an existing message: a re-render of the conversation would drop it.
    await p.page.evaluate(() => {
      const d = globalThis as unknown as { document: { querySelector(s: string): { setAttribute(n: string, v: string): void } | null } };
      d.document.querySelector('[data-message-id="1:assistant"]')?.setAttribute('data-probe', 'kept');
    });

    const user = userMessage(3, 'Third?', ['src/a.ts:L1-5']);
    const assistant = assistantMessage(3, '', { status: 'streaming', usage: undefined });
    const sendBox = await p.byTestId('strata-send').boundingBox();
    await p.post({ type: 'turnStarted', chatId: CHAT_ID, turnId: 't3', user, assistant });
    await p.settle();
    assert.equal(await p.byTestId('strata-stop').isVisible(), true);
    // Stop takes Send's place: Send is gone, Stop ends where Send ended.
    assert.equal(await p.byTestId('strata-send').isVisible(), false);
    const stopBox = await p.byTestId('strata-stop').boundingBox();
    assert.equal(Math.round(stopBox!.x + stopBox!.width), Math.round(sendBox!.x + sendBox!.width));
    assert.equal(Math.round(stopBox!.y), Math.round(sendBox!.y));
    const streaming = p.page.locator('[data-message-id="3:assistant"]');
    assert.equal(await streaming.getAttribute('data-status'), 'streaming');
    assert.equal(await streaming.locator('[data-testid="strata-message-body"]').getAttribute('aria-live'), 'polite');
    assert.equal(await streaming.locator('[data-testid="strata-message-body"]').getAttribute('aria-busy'), 'true');

    const chunk = (seq: number, text: string) => p.post({ type: 'chunk', chatId: CHAT_ID, turnId: 't3', seq, text });
    await chunk(0, 'Hello');
    await chunk(2, ' **world**'); // early: waits for 1
    await p.settle();
    assert.equal((await streaming.locator('[data-testid="strata-message-body"]').textContent())?.trim(), 'Hello');
    await chunk(1, ',');
    await chunk(1, ','); // duplicate
    await chunk(0, 'Hello'); // duplicate
    await chunk(2, ' **world**'); // duplicate
    await chunk(3, '!');
    await p.post({ type: 'chunk', chatId: 'other-chat', turnId: 't3', seq: 4, text: 'WRONG CHAT' });
    await p.settle();
    const body = streaming.locator('[data-testid="strata-message-body"]');
    assert.equal((await body.textContent())?.trim(), 'Hello, world!');
    assert.equal(await body.locator('strong').textContent(), 'world');

    await p.post({ type: 'turnEnded', chatId: CHAT_ID, turnId: 't3', kept: true, assistant: assistantMessage(3, 'Hello, **world**!') });
    await p.settle();
    assert.equal(await streaming.getAttribute('data-status'), 'complete');
    assert.equal(await body.getAttribute('aria-busy'), 'false');
    assert.equal(await p.byTestId('strata-stop').isVisible(), false);
    assert.equal(await streaming.locator('[data-testid="strata-layer-bar"]').count(), 1);
    assert.equal(await p.page.locator('[data-message-id="1:assistant"]').getAttribute('data-probe'), 'kept');
    assert.equal(await p.page.locator('[data-testid="strata-message"][data-role="user"]').count(), 3);
    assert.equal(await p.page.locator('[data-testid="strata-message"][data-role="assistant"]').count(), 3);
    assert.match((await p.page.locator('[data-message-id="3:user"]').textContent()) ?? '', /src\/a\.ts:L1-5/);
    // A chunk after the end is ignored.
    await chunk(4, ' late');
    await p.settle();
    assert.equal((await body.textContent())?.trim(), 'Hello, world!');
  });

  it("tool steps: each done step shows its tool's icon from the registry, an unknown tool the generic one", async () => {
    const p = await open();
    await p.init(state({ messages: [userMessage(1, 'q'), assistantMessage(1, 'a')] }));
    await p.post({
      type: 'turnStarted',
      chatId: CHAT_ID,
      turnId: 't2',
      user: userMessage(2, 'Where is add?'),
      assistant: assistantMessage(2, '', { status: 'streaming', usage: undefined }),
    });
    const names = ['read_file', 'get_outline', 'find_symbol', 'get_definition', 'find_references', 'no_such_tool'];
    for (const [i, name] of names.entries()) {
      const step: ToolStepView = { id: `call_${i}`, step: 1, name, label: name, args: '{}', status: 'done', summary: 'ok' };
      await p.post({ type: 'toolStep', chatId: CHAT_ID, turnId: 't2', step });
    }
    await p.settle();
    const icons = await p.page
      .locator('[data-message-id="2:assistant"] [data-testid="strata-tool-step"] summary .codicon')
      .evaluateAll((els) => els.map((e) => e.className));
    assert.deepEqual(icons, [
      'codicon codicon-file-code',
      'codicon codicon-symbol-class',
      'codicon codicon-symbol-method',
      'codicon codicon-go-to-file',
      'codicon codicon-references',
      'codicon codicon-tools',
    ]);
  });

  it('tool calls: each a collapsible step (name, arguments, result size, in context or not), live and after reload', async () => {
    const p = await open();
    await p.init(state({ messages: [userMessage(1, 'q'), assistantMessage(1, 'a')] }));
    await p.post({
      type: 'turnStarted',
      chatId: CHAT_ID,
      turnId: 't2',
      user: userMessage(2, 'How does add work?'),
      assistant: assistantMessage(2, '', { status: 'streaming', usage: undefined }),
    });
    const msg = p.page.locator('[data-message-id="2:assistant"]');
    const step = (over: Partial<ToolStepView>): ToolStepView => ({
      id: 'call_1',
      step: 1,
      name: 'read_file',
      label: 'read_file src/a.ts',
      args: '{"path":"src/a.ts"}',
      status: 'running',
      ...over,
    });
    await p.post({ type: 'toolStep', chatId: CHAT_ID, turnId: 't2', step: step({}) });
    await p.settle();
    const steps = msg.locator('[data-testid="strata-tool-step"]');
    assert.equal(await steps.count(), 1);
    assert.equal(await steps.first().getAttribute('data-status'), 'running');
    assert.equal(await steps.first().getAttribute('open'), null, 'collapsed by default');
    await p.post({
      type: 'toolStep',
      chatId: CHAT_ID,
      turnId: 't2',
      step: step({
        status: 'done',
        summary: 'src/a.ts, 40 lines',
        resultTokens: 1234,
        key: 'file:src/a.ts',
        cachedTokens: 2048,
        cachedReported: true,
      }),
    });
    await p.post({
      type: 'toolStep',
      chatId: CHAT_ID,
      turnId: 't2',
      step: step({
        id: 'call_2',
        step: 2,
        label: 'read_file .env',
        args: '{"path":".env"}',
        status: 'refused',
        summary: 'refused: excluded',
      }),
    });
    await p.post({
      type: 'toolStep',
      chatId: CHAT_ID,
      turnId: 't2',
      step: step({
        id: 'call_3',
        step: 2,
        label: 'read_file src/a.ts:1-5',
        status: 'done',
        summary: 'src/a.ts, lines 1-5',
        resultTokens: 31,
        reused: true,
      }),
    });
    await p.post({ type: 'toolStep', chatId: 'other-chat', turnId: 't2', step: step({ id: 'call_9' }) });
    await p.settle();
    assert.equal(await steps.count(), 3, 'replaced by id, added in order, other chats ignored');
    assert.deepEqual(
      await steps.evaluateAll((els) =>
        els.map((e) => `${e.getAttribute('data-tool')}:${e.getAttribute('data-status')}:${e.getAttribute('data-reused')}`),
      ),
      ['read_file:done:false', 'read_file:refused:false', 'read_file:done:true'],
    );
    const first = steps.first();
    assert.match((await first.locator('summary').textContent()) ?? '', /read_file src\/a\.ts.*1,234 tokens.*2,048 cached/);
    assert.match((await steps.nth(2).locator('summary').textContent()) ?? '', /in context/);
    await first.locator('summary').click();
    assert.equal(await first.getAttribute('open'), '', 'opens on click');
    assert.equal(await first.locator('.tool-step-args').textContent(), '{"path":"src/a.ts"}');
    assert.equal(await first.locator('[data-testid="strata-tool-step-summary"]').textContent(), 'src/a.ts, 40 lines');
    // A step update keeps an open step open.
    await p.post({
      type: 'toolStep',
      chatId: CHAT_ID,
      turnId: 't2',
      step: step({ status: 'done', summary: 'src/a.ts, 40 lines', resultTokens: 1234, cachedTokens: 2048 }),
    });
    await p.settle();
    assert.equal(await first.getAttribute('open'), '');
    await p.post({ type: 'chunk', chatId: CHAT_ID, turnId: 't2', seq: 0, text: 'It adds.' });
    const final = [
      step({ status: 'done', summary: 'src/a.ts, 40 lines', resultTokens: 1234 }),
      step({ id: 'call_2', step: 2, status: 'refused', summary: 'refused: excluded' }),
    ];
    await p.post({
      type: 'turnEnded',
      chatId: CHAT_ID,
      turnId: 't2',
      kept: true,
      assistant: assistantMessage(2, 'It adds.', { toolSteps: final }),
    });
    await p.settle();
    assert.equal(await steps.count(), 2, 'the final message carries the steps');
    assert.equal((await msg.locator('[data-testid="strata-message-body"]').textContent())?.trim(), 'It adds.');
    // From a fresh state (reload): the steps come with the message.
    await p.init(state({ messages: [userMessage(2, 'How does add work?'), assistantMessage(2, 'It adds.', { toolSteps: final })] }));
    await p.settle();
    assert.equal(await p.page.locator('[data-message-id="2:assistant"] [data-testid="strata-tool-step"]').count(), 2);
    assert.equal(
      await p.page.locator('[data-message-id="2:assistant"] [data-testid="strata-tool-steps"]').getAttribute('aria-label'),
      '2 tool calls',
    );
  });

  it('sanitizes model output: no script, no handlers, no javascript: or command: links, raw HTML as text', async () => {
    const p = await open();
    const evil = [
      '<script>globalThis.__pwned = 1</script>',
      '<img src=x onerror="globalThis.__pwned = 2">',
      '[click](javascript:globalThis.__pwned=3)',
      '[terminal](command:workbench.action.terminal.new)',
      '[enc](jav&#x61;script:alert(1)) [vs](vscode://file/etc/passwd) [data](data:text/html,<script>alert(1)</script>)',
      '<javascript:alert(1)> <command:workbench.action.openSettings>',
      '![tracker](https://evil.example/pixel.png) ![d](data:image/png;base64,AAAA)',
      '<a href="https://ok.example" onclick="globalThis.__pwned=4">raw link</a> <b>bold?</b> <iframe src="https://evil.example"></iframe>',
      '[ok](https://example.com/docs) and https://example.org/auto and <mailto:dev@example.com>',
      '| a | b |\n|:-:|--:|\n| 1 | 2 |',
    ].join('\n\n');
    await p.init(
      state({ messages: [userMessage(1, '<b>user html</b> <script>globalThis.__pwned=5</script>'), assistantMessage(1, evil)] }),
    );
    const body = p.page.locator('[data-message-id="1:assistant"] [data-testid="strata-message-body"]');
    const report = await body.evaluate((el) => {
      const all = [el, ...Array.from(el.querySelectorAll('*'))];
      return {
        tags: Array.from(new Set(all.slice(1).map((e) => e.tagName.toLowerCase()))).sort(),
        handlers: all.flatMap((e) =>
          Array.from(e.attributes as ArrayLike<{ name: string }>)
            .filter((a) => /^on/i.test(a.name))
            .map((a) => a.name),
        ),
        styles: all.filter((e) => e.hasAttribute('style')).length,
        hrefs: Array.from(el.querySelectorAll('a[href]') as ArrayLike<{ getAttribute(n: string): string | null }>).map((a) =>
          a.getAttribute('href'),
        ),
        text: el.textContent,
        pwned: (globalThis as unknown as { __pwned?: number }).__pwned,
      };
    });
    assert.equal(report.pwned, undefined);
    assert.deepEqual(report.handlers, []);
    assert.equal(report.styles, 0);
    for (const tag of ['script', 'img', 'iframe', 'b', 'style', 'svg'])
      assert.ok(!report.tags.includes(tag), `no <${tag}>: ${report.tags.join(',')}`);
    for (const href of report.hrefs) assert.match(href ?? '', /^(https?:|mailto:)/, `unsafe href ${href}`);
    assert.ok(report.hrefs.includes('https://example.com/docs'));
    assert.ok(report.hrefs.includes('https://example.org/auto'));
    assert.ok(report.hrefs.includes('mailto:dev@example.com'));
    // Raw HTML is shown as text, not interpreted; link text stays readable.
    assert.match(report.text ?? '', /<script>globalThis.__pwned = 1<\/script>/);
    assert.match(report.text ?? '', /<b>bold\?<\/b>/);
    assert.match(report.text ?? '', /terminal/);
    assert.equal(await body.locator('td.md-align-right').count(), 1);
    // User text is plain text.
    const userBody = p.page.locator('[data-message-id="1:user"] [data-testid="strata-message-body"]');
    assert.equal(await userBody.textContent(), '<b>user html</b> <script>globalThis.__pwned=5</script>');
    assert.equal(await userBody.locator('*').count(), 0);
  });

  it('code blocks: Copy and Insert at Cursor send exactly the code', async () => {
    const p = await open();
    const code1 = 'if (a < b && c > d) {\n\treturn "x & y";   \n}\n  \n// ünïcödé → done';
    const code2 = 'plain indented code\n  with two levels';
    const text = `Here:\n\n\`\`\`ts title="x"\n${code1}\n\`\`\`\n\nand\n\n    ${code2.split('\n').join('\n    ')}\n\n~~~\n~~~`;
    await p.init(state({ messages: [userMessage(1, 'q'), assistantMessage(1, text)] }));
    await p.autoRespond({ copy: { ok: true }, insertCode: { ok: true } });
    const copies = p.page.getByTestId('strata-code-copy');
    const inserts = p.page.getByTestId('strata-code-insert');
    assert.equal(await copies.count(), 3);
    assert.equal(await p.page.locator('.code-lang').first().textContent(), 'ts');
    await copies.nth(0).click();
    assert.equal((await p.waitForRequest('copy')).request.text, code1);
    await inserts.nth(0).click();
    assert.equal((await p.waitForRequest('insertCode')).request.code, code1);
    await inserts.nth(1).click();
    await until('second insert', async () => (await p.requests()).filter((r) => r.request.kind === 'insertCode').length === 2);
    assert.equal((await p.waitForRequest('insertCode')).request.code, code2);
    await inserts.nth(2).click();
    await until('third insert', async () => (await p.requests()).filter((r) => r.request.kind === 'insertCode').length === 3);
    assert.equal((await p.waitForRequest('insertCode')).request.code, '');
    // Copy feedback, then the reply's own Copy.
    await until('copied feedback', async () => (await copies.nth(0).getAttribute('aria-label')) === 'Copied');
    await p.page.getByTestId('strata-copy-reply').click();
    await until('reply copied', async () => (await p.requests()).filter((r) => r.request.kind === 'copy').length === 2);
    assert.equal((await p.waitForRequest('copy')).request.text, text);
  });

  it('chips: label, tokens and detail; remove and pin ask the host, which decides', async () => {
    const p = await open();
    await p.init(state({ chips }));
    const chipEls = p.byTestId('strata-chip');
    assert.equal(await chipEls.count(), 2);
    assert.match((await chipEls.nth(0).textContent()) ?? '', /src\/engine\/tokenizer\.ts.*3\.4k/);
    assert.match((await chipEls.nth(1).textContent()) ?? '', /src\/engine\/cache\.ts:L12-30.*240/);
    assert.match((await chipEls.nth(1).getAttribute('title')) ?? '', /Lines 12–30 .* unsaved changes/);
    assert.equal(await chipEls.nth(1).getAttribute('data-pinned'), 'true');
    assert.equal(await chipEls.nth(1).getByTestId('strata-chip-pin').getAttribute('aria-pressed'), 'true');

    await chipEls.nth(0).getByTestId('strata-chip-pin').click();
    const pin = await p.waitForRequest('pinChip');
    assert.deepEqual(pin.request, { kind: 'pinChip', chipId: chips[0].id, pinned: true });
    await p.respond(pin.requestId, { ok: true });
    await p.post({ type: 'chips', chips: [{ ...chips[0], pinned: true }, chips[1]] });
    await p.settle();
    assert.equal(await chipEls.nth(0).getAttribute('data-pinned'), 'true');

    await chipEls.nth(1).getByTestId('strata-chip-remove').click();
    const remove = await p.waitForRequest('removeChip');
    assert.deepEqual(remove.request, { kind: 'removeChip', chipId: chips[1].id });
    // Refused: the chip stays, the reason shows.
    await p.respond(remove.requestId, { ok: false, error: 'Pinned items are removed from the Context Layers view.' });
    assert.equal(await chipEls.count(), 2);
    assert.match((await p.byTestId('strata-status').textContent()) ?? '', /Pinned items/);
    await p.post({ type: 'chips', chips: [chips[0]] });
    await p.settle();
    assert.equal(await chipEls.count(), 1);

    // A selection chip's definitions: "+N definitions" once attached; until then, the action that finds them.
    const withDefs: ChipView = {
      ...chips[1],
      definitions: [
        { label: 'src/engine/budget.ts:L4-20', symbol: 'fitBudget', usedBy: 'fitBudget', tokens: 120 },
        { label: 'src/engine/types.ts:L30-34', symbol: 'Segment', usedBy: 'Segment', tokens: 40 },
      ],
    };
    await p.post({ type: 'chips', chips: [{ ...chips[1], pinned: false }] });
    await p.settle();
    await chipEls.nth(0).getByTestId('strata-chip-definitions').click();
    const defs = await p.waitForRequest('attachDefinitions');
    assert.deepEqual(defs.request, { kind: 'attachDefinitions', chipId: chips[1].id });
    await p.respond(defs.requestId, { ok: true, value: [withDefs] });
    await p.post({ type: 'chips', chips: [withDefs] });
    await p.settle();
    assert.equal(await chipEls.nth(0).getByTestId('strata-definitions-count').textContent(), '+2 definitions');
    assert.equal(await chipEls.nth(0).getByTestId('strata-chip-definitions').count(), 0);
    assert.match(
      (await chipEls.nth(0).getAttribute('title')) ?? '',
      /\+ fitBudget \(src\/engine\/budget\.ts:L4-20, used by fitBudget\): 120 tokens/,
    );
    await p.post({ type: 'chips', chips: [{ ...chips[0], outline: true }] });
    await p.settle();
    assert.equal(await chipEls.nth(0).getByTestId('strata-chip-outline').textContent(), 'outline');
    await p.post({ type: 'chips', chips: [chips[0]] });
    await p.settle();

    // The attach buttons.
    await p.byTestId('strata-attach-file').click();
    await p.byTestId('strata-attach-selection').click();
    await p.byTestId('strata-attach-editors').click();
    await until('three attach requests', async () => (await p.requests()).filter((r) => r.request.kind === 'attach').length === 3);
    const whats = (await p.requests()).filter((r) => r.request.kind === 'attach').map((r) => (r.request as { what: string }).what);
    assert.deepEqual(whats, ['activeFile', 'selection', 'openEditors']);
  });

  it('meter: used ÷ budget, levels in theme colours, tooltip with the budget arithmetic and thresholds', async () => {
    const p = await open();
    await p.init(state({ meter: meter({ used: 12_345, lastCachedShare: 0.64 }) }));
    const m = p.byTestId('strata-meter');
    assert.equal(await m.getAttribute('data-level'), 'ok');
    assert.match((await m.textContent()) ?? '', /^12\.3k of 123k budget \(128k window\) · 64% cached/);
    assert.equal(await m.getByTestId('strata-meter-estimated').isVisible(), false);
    await m.hover();
    const tip = p.byTestId('strata-tooltip');
    await tip.waitFor({ state: 'visible' });
    const text = (await tip.textContent()) ?? '';
    for (const expected of [
      'Context window128,000',
      '− Reserved output4,096',
      '− Safety margin1,000',
      '= Budget122,904',
      'Next request (predicted)12,345 · 10%',
      'Warn70% · 86,032',
      'Compact80% · 98,323',
      'Target after compaction60% · 73,742',
      '64% served from the provider',
    ]) {
      assert.ok(text.includes(expected), `tooltip has "${expected}": ${text}`);
    }
    assert.equal(await m.getAttribute('aria-describedby'), 'strata-tooltip');

    const fill = () =>
      m.locator('.meter-fill').evaluate((el) => (globalThis as unknown as PageGlobals).getComputedStyle(el).backgroundColor);
    assert.equal(await fill(), 'rgb(0, 120, 212)');
    await p.post({ type: 'meter', meter: meter({ used: 90_000, level: 'warn', estimated: true }) });
    await p.settle();
    assert.equal(await m.getAttribute('data-level'), 'warn');
    assert.equal(await fill(), 'rgb(204, 167, 0)');
    assert.equal(await m.getByTestId('strata-meter-estimated').isVisible(), true);
    assert.match((await m.getAttribute('aria-label')) ?? '', /estimated/);
    await p.post({ type: 'meter', meter: meter({ used: 70_000, level: 'pruned' }) });
    await p.settle();
    assert.equal(await m.getAttribute('data-level'), 'pruned');
    assert.equal(await fill(), 'rgb(241, 76, 76)');
    await p.post({ type: 'meter', meter: meter({ used: 130_000, level: 'over' }) });
    await p.settle();
    assert.equal(await m.getAttribute('data-level'), 'over');
    assert.equal(await fill(), 'rgb(241, 76, 76)');
    assert.equal(await m.locator('.meter-fill').evaluate((el) => el.style.width), '100%', 'over budget fills the track');
  });

  it('cost: a line under each reply, the chat total in the list, the next message in the meter tooltip, the expired-cache notice', async () => {
    const p = await open();
    const priced = assistantMessage(1, 'Priced reply.', {
      cost: { text: '$0.012, saved $0.0045', usd: 0.0123, savedUsd: 0.0045 },
    });
    const unpriced = assistantMessage(2, 'Unpriced reply.', { cost: { text: '2,000 tokens in (1,024 cached) · 50 out · no price known' } });
    const chats = state().chats.map((c, i) => (i === 0 ? { ...c, cost: '$0.42' } : c));
    await p.init(
      state({
        chats,
        messages: [userMessage(1, 'One'), priced, userMessage(2, 'Two'), unpriced],
        meter: meter({ nextCost: 'Next message: ~$0.0175 before the reply (6,000 of 10,000 prompt tokens cached; prices: x).' }),
      }),
    );
    const lines = p.byTestId('strata-cost');
    assert.equal(await lines.count(), 2);
    assert.equal(await lines.nth(0).textContent(), '$0.012, saved $0.0045');
    assert.equal(await lines.nth(1).textContent(), 'no price known');
    // One line under each reply: the prompt's tokens, then the money.
    const replyLines = p.byTestId('strata-reply-line');
    assert.deepEqual(await replyLines.allTextContents(), [
      '12.2k in, 84% cached · $0.012, saved $0.0045',
      '12.2k in, 84% cached · no price known Set price…',
    ]);
    const setPrice = p.byTestId('strata-set-price');
    assert.equal(await setPrice.count(), 1, 'Set price… only where no price is known');
    assert.equal(await setPrice.textContent(), 'Set price…');
    // The rest (the full tokens line, where to set a price) on focus.
    await replyLines.nth(1).focus();
    const costTip = p.byTestId('strata-tooltip');
    await costTip.waitFor({ state: 'visible' });
    assert.match(
      (await costTip.textContent()) ?? '',
      /2,000 tokens in \(1,024 cached\) · 50 out · no price known\. Set a price with the strata\.prices setting/,
    );
    await p.page.keyboard.press('Escape');
    const expired = p.byTestId('strata-cache-expired');
    assert.equal(await expired.isVisible(), false);

    const m = p.byTestId('strata-meter');
    await m.hover();
    const tip = p.byTestId('strata-tooltip');
    await tip.waitFor({ state: 'visible' });
    assert.match((await tip.textContent()) ?? '', /Next message: ~\$0\.0175 before the reply/);

    const notice = 'cache likely expired — the next message costs ~$0.0375 (10,000 tokens uncached)';
    await p.post({
      type: 'meter',
      meter: meter({
        cacheExpired: notice,
        nextCost: 'Next message: ~$0.0375 before the reply (10,000 prompt tokens, none cached; prices: x).',
      }),
    });
    await p.settle();
    await expired.waitFor({ state: 'visible' });
    assert.equal(await expired.textContent(), notice);
    assert.match((await m.getAttribute('aria-label')) ?? '', /cache likely expired/);
    await p.post({ type: 'meter', meter: meter() });
    await p.settle();
    assert.equal(await expired.isVisible(), false, 'a new request warmed the cache');

    await p.byTestId('strata-chat-title').click();
    const list = p.byTestId('strata-chat-list');
    await list.waitFor({ state: 'visible' });
    assert.match((await list.getByTestId('strata-chat-item').first().textContent()) ?? '', /\$0\.42/);
  });

  it('meter while a long chat is counted: the messages first, "Counting tokens…", then the figures', async () => {
    const p = await open();
    await p.init(state({ messages: longChat(50, 3, 176), hasOlder: true, meter: undefined }));
    const m = p.byTestId('strata-meter');
    assert.equal(await p.page.locator('[data-testid="strata-message"]').count(), 50, 'the messages are shown at once');
    assert.equal(await m.isVisible(), true);
    assert.equal(await m.getAttribute('data-level'), 'pending');
    assert.equal(await m.getAttribute('aria-busy'), 'true');
    assert.match((await m.textContent()) ?? '', /Counting tokens…/);
    assert.equal(await m.getByTestId('strata-meter-estimated').isVisible(), false);
    await m.hover();
    const tip = p.byTestId('strata-tooltip');
    await tip.waitFor({ state: 'visible' });
    assert.match((await tip.textContent()) ?? '', /Counting the tokens of this chat’s next request/);
    await p.post({ type: 'meter', meter: meter({ used: 100_500, level: 'pruned' }) });
    await p.settle();
    assert.equal(await m.getAttribute('data-level'), 'pruned');
    assert.equal(await m.getAttribute('aria-busy'), null);
    assert.match((await m.textContent()) ?? '', /^101k of 123k budget \(128k window\) · pruned/);
  });

  it('layer bar: per-layer segments, hover shows tokens per layer, total, cached (reported or predicted) and usage', async () => {
    const p = await open();
    const b = bar({ layers: { L1: 1000, L2: 4000, L3: 0, L4: 3000, L5: 100 }, cached: 5000, cachedReported: false });
    await p.init(state({ messages: [userMessage(1, 'q'), assistantMessage(1, 'a', { bar: b })] }));
    const barEl = p.byTestId('strata-layer-bar');
    assert.equal(await barEl.locator('.bar-seg').count(), 4, 'no segment for an empty layer');
    const widths = await barEl.locator('.bar-seg').evaluateAll((els) => els.map((e) => e.getBoundingClientRect().width));
    assert.ok(widths[1] > widths[2] && widths[2] > widths[0] && widths[0] > widths[3], `proportional widths ${widths.join(',')}`);
    await barEl.hover();
    const tip = p.byTestId('strata-tooltip');
    await tip.waitFor({ state: 'visible' });
    const text = (await tip.textContent()) ?? '';
    for (const expected of [
      'System1,000',
      'Attachments4,000',
      'This turn0',
      'History3,000',
      'Your message100',
      'Total8,100',
      'Cached5,000',
      'predicted by Strata',
      'Input12,245',
      'Cache read7,837',
      'Output412',
    ]) {
      assert.ok(text.includes(expected), `tooltip has "${expected}": ${text}`);
    }
    assert.match((await barEl.getAttribute('aria-label')) ?? '', /Request 8,100 tokens: System \(L1\) 1,000/);
    assert.equal(await p.page.locator('.msg-usage').textContent(), '8.1k in, 62% cached');
  });

  it('layer bar: the cached part of each layer is shaded, in proportion, and listed in the tooltip', async () => {
    const p = await open();
    const b = bar({
      layers: { L1: 1000, L2: 4000, L3: 0, L4: 3000, L5: 100 },
      cached: 5000,
      cachedReported: true,
      cachedByLayer: { L1: 1000, L2: 4000, L3: 0, L4: 0, L5: 0 },
    });
    await p.init(state({ messages: [userMessage(1, 'q'), assistantMessage(1, 'a', { bar: b })] }));
    const barEl = p.byTestId('strata-layer-bar');
    const shaded = await barEl.locator('.bar-seg').evaluateAll((els) =>
      els.map((e) => {
        const c = e.querySelector('.bar-seg-cached');
        return c ? c.getBoundingClientRect().width / e.getBoundingClientRect().width : 0;
      }),
    );
    assert.deepEqual(
      shaded.map((x) => Math.round(x * 100)),
      [100, 100, 0, 0],
      `shaded fractions ${shaded.join(',')}`,
    );
    await barEl.hover();
    const tip = p.byTestId('strata-tooltip');
    await tip.waitFor({ state: 'visible' });
    const text = (await tip.textContent()) ?? '';
    assert.ok(text.includes('4,000 cached'), text);
    assert.ok(text.includes('reported by the provider'), text);
  });

  it('banners: an error banner with its actions; Dismiss hides it and tells the host', async () => {
    const p = await open();
    const banners: BannerView[] = [
      {
        id: 'b1',
        severity: 'error',
        message: 'OpenAI rejected the API key (401).',
        actions: ['setApiKey', 'openSettings', 'showLog', 'dismiss'],
      },
      { id: 'b2', severity: 'warning', message: 'The provider is slow to answer.', actions: ['retry', 'selectModel'] },
    ];
    await p.init(state({ banners, notices: [{ id: 'restricted', message: 'Restricted Mode: project instruction files are not read.' }] }));
    const error = p.byTestId('strata-error');
    assert.equal(await error.count(), 1);
    assert.match((await error.textContent()) ?? '', /rejected the API key/);
    assert.equal(await error.getAttribute('role'), 'alert');
    const labels = await error.getByTestId('strata-banner-action').allTextContents();
    assert.deepEqual(labels, ['Set API Key', 'Open Settings', 'Show Log']);
    assert.equal(await p.byTestId('strata-warning').getByTestId('strata-banner-action').count(), 2);
    assert.match((await p.byTestId('strata-notice').textContent()) ?? '', /Restricted Mode/);

    await error.getByText('Set API Key').click();
    const action = await p.waitForRequest('bannerAction');
    assert.deepEqual(action.request, { kind: 'bannerAction', bannerId: 'b1', action: 'setApiKey' });
    await p.respond(action.requestId, { ok: true });
    await p.byTestId('strata-warning').getByText('Retry').click();
    await until('retry', async () => (await p.requests()).filter((r) => r.request.kind === 'bannerAction').length === 2);
    assert.deepEqual((await p.waitForRequest('bannerAction')).request, { kind: 'bannerAction', bannerId: 'b2', action: 'retry' });

    await error.getByTestId('strata-banner-dismiss').click();
    await until('dismiss', async () => (await p.requests()).filter((r) => r.request.kind === 'bannerAction').length === 3);
    assert.deepEqual((await p.waitForRequest('bannerAction')).request, { kind: 'bannerAction', bannerId: 'b1', action: 'dismiss' });
    assert.equal(await error.isVisible(), false);
    await p.post({ type: 'banners', banners: [banners[1]] });
    await p.settle();
    assert.equal(await p.byTestId('strata-error').count(), 0);
  });

  it('a long error banner in a short view never pushes the input out of sight', async () => {
    const p = await open({ width: 300, height: 300 });
    const long =
      'Model "gpt-4o" was not found at http://127.0.0.1:35651 (HTTP 404). Check the model name (Strata: Select Model) and the base URL. '.repeat(
        3,
      );
    await p.init(
      state({
        messages: longChat(6),
        banners: [{ id: 'b1', severity: 'error', message: long, actions: ['selectModel', 'openSettings', 'dismiss'] }],
      }),
    );
    await p.settle();
    const input = await p.byTestId('strata-input').boundingBox();
    const send = await p.byTestId('strata-send').boundingBox();
    assert.ok(input && send, 'the input and Send are laid out');
    assert.ok(
      input.y + input.height <= 300 && send.y + send.height <= 300,
      `the input ends at ${input.y + input.height}px in a 300px view`,
    );
    const area = await p.page.locator('.banner-area').boundingBox();
    assert.ok(area && area.height <= 300 * 0.4 + 1, `the banner area takes ${area?.height}px (it scrolls past 40% of the view)`);
    // The message shows its first lines, so the actions are in sight without scrolling; a click shows it all.
    const action = await p.byTestId('strata-error').getByTestId('strata-banner-action').first().boundingBox();
    assert.ok(
      action && action.y + action.height <= area.y + area.height + 1,
      `the first action ends at ${action ? action.y + action.height : '?'}px, below the banner area (${area.y + area.height}px)`,
    );
    const message = p.byTestId('strata-banner-message');
    const more = p.byTestId('strata-banner-more');
    const clampedHeight = (await message.boundingBox())!.height;
    assert.equal(await more.getAttribute('aria-expanded'), 'false');
    await message.click();
    assert.equal(await more.getAttribute('aria-expanded'), 'true');
    assert.ok((await message.boundingBox())!.height > clampedHeight + 10, 'a click shows the whole message');
    assert.equal((await p.requests()).filter((r) => r.request.kind === 'bannerAction').length, 0, 'clicking the message is not an action');
  });

  it('empty state in a short view: read from its top, not scrolled to its end', async () => {
    const p = await open({ height: 320 });
    await p.init(state());
    const conv = p.byTestId('strata-conversation');
    const empty = p.byTestId('strata-empty');
    await empty.waitFor({ state: 'visible' });
    const [c, e] = [(await conv.boundingBox())!, (await empty.boundingBox())!];
    assert.ok(e.height > c.height, `the view is shorter than the empty state (${c.height}px vs ${e.height}px): the case this covers`);
    assert.equal(await conv.evaluate((el) => el.scrollTop), 0);
    assert.ok(e.y >= c.y - 1, `the empty state's first line is in view (its top ${e.y}px, the view's ${c.y}px)`);
  });

  it('request preview: the exact request in a collapsible monospace block, and how to configure a provider', async () => {
    const p = await open();
    await p.init(state({ model: model({ provider: 'none', model: '', label: 'No model configured', configured: false }) }));
    assert.equal(await p.page.getByTestId('strata-empty-select-model').isVisible(), true);
    const request =
      '{\n  "messages": [\n    { "role": "system", "content": "You are Strata…" },\n    { "role": "user", "content": "<file path=\\"a.ts\\">x < y & z</file>" }\n  ]\n}';
    const howTo =
      'Set `strata.provider`, then run **Strata: Set API Key**.\n\n```json\n{ "strata.provider": "openai" }\n```\n\n[evil](command:workbench.action.openSettings)';
    await p.post({ type: 'preview', preview: { request, promptTokens: 1234, howTo } });
    await p.settle();
    const preview = p.byTestId('strata-request-preview');
    assert.equal(await preview.isVisible(), true);
    assert.equal(await p.byTestId('strata-empty').isVisible(), false);
    assert.equal(await preview.getByTestId('strata-preview-request').textContent(), request);
    assert.equal(
      await preview
        .getByTestId('strata-preview-request')
        .evaluate((el) => (globalThis as unknown as PageGlobals).getComputedStyle(el).whiteSpace),
      'pre',
    );
    assert.match((await preview.getByTestId('strata-preview-toggle').getAttribute('title')) ?? '', /1,234 prompt tokens/);
    const howToEl = preview.getByTestId('strata-preview-howto');
    assert.equal(await howToEl.locator('code').first().textContent(), 'strata.provider');
    assert.equal(await howToEl.locator('a[href]').count(), 0);
    // Collapse, and the choice is kept in the UI state.
    await preview.getByTestId('strata-preview-toggle').click({ position: { x: 40, y: 10 } });
    await until('collapsed', async () => (await preview.getByTestId('strata-preview-request').isVisible()) === false);
    await until('ui state saved', async () => {
      const ui = await p.page.evaluate(() => (globalThis as WithDriver).strataTest.uiState());
      return isObj(ui) && ui.requestCollapsed === true;
    });
    await preview.getByTestId('strata-preview-toggle').click({ position: { x: 40, y: 10 } });
    await preview.getByTestId('strata-preview-request').waitFor({ state: 'visible' });
    await p.autoRespond({ copy: { ok: true } });
    await preview.getByTestId('strata-preview-copy').click();
    assert.equal((await p.waitForRequest('copy')).request.text, request);
    await p.post({ type: 'preview', preview: null });
    await p.settle();
    assert.equal(await preview.count(), 0);
    assert.equal(await p.byTestId('strata-empty').isVisible(), true);
  });

  it('long chats: the newest messages first, older ones loaded on scroll without moving the view', async () => {
    const p = await open({ height: 600 });
    const all = longChat(120);
    await p.init(state({ messages: all.slice(70), hasOlder: true }));
    assert.equal(await p.byTestId('strata-message').count(), 50);
    // At the bottom to start with.
    const conv = p.byTestId('strata-conversation');
    const metrics = () => conv.evaluate((el) => ({ top: el.scrollTop, max: el.scrollHeight - el.clientHeight }));
    const start = await metrics();
    assert.ok(start.max - start.top <= 2, `starts at the bottom ${JSON.stringify(start)}`);
    assert.equal((await p.requests()).filter((r) => r.request.kind === 'loadOlder').length, 0);

    await userScrollTo(conv, 300);
    await conv.evaluate((el) => el.dispatchEvent(new Event('scroll')));
    const load = await p.waitForRequest('loadOlder');
    assert.deepEqual(load.request, { kind: 'loadOlder', chatId: CHAT_ID, beforeTurn: 36 });
    assert.equal(await p.byTestId('strata-loading-older').isVisible(), true);
    // Scrolling more while loading asks nothing more.
    await userScrollTo(conv, 200);
    await p.settle();
    assert.equal((await p.requests()).filter((r) => r.request.kind === 'loadOlder').length, 1);

    const anchorId = '36:user';
    const before = await p.page.locator(`[data-message-id="${anchorId}"]`).evaluate((el) => el.getBoundingClientRect().top);
    await p.respond(load.requestId, { ok: true });
    await p.post({ type: 'olderMessages', chatId: CHAT_ID, messages: all.slice(20, 70), hasOlder: true });
    await p.settle();
    assert.equal(await p.byTestId('strata-message').count(), 100);
    const after = await p.page.locator(`[data-message-id="${anchorId}"]`).evaluate((el) => el.getBoundingClientRect().top);
    assert.ok(Math.abs(after - before) <= 2, `the view stays still: ${before} → ${after}`);
    const ids = await p.byTestId('strata-message').evaluateAll((els) => els.map((e) => e.getAttribute('data-message-id')));
    assert.deepEqual(
      ids,
      all.slice(20).map((m) => m.id),
    );

    // The rest; a duplicate delivery is ignored; then nothing more is requested.
    await userScrollTo(conv, 0);
    await until('second loadOlder', async () => (await p.requests()).filter((r) => r.request.kind === 'loadOlder').length === 2);
    assert.equal((await p.waitForRequest('loadOlder')).request.beforeTurn, 11);
    await p.post({ type: 'olderMessages', chatId: CHAT_ID, messages: all.slice(0, 22), hasOlder: false });
    await p.settle();
    assert.equal(await p.byTestId('strata-message').count(), 120);
    assert.equal(await p.byTestId('strata-load-older').count(), 0);
    await userScrollTo(conv, 0);
    await p.settle();
    assert.equal((await p.requests()).filter((r) => r.request.kind === 'loadOlder').length, 2);
  });

  it('auto-scroll follows the stream only while the user is at the bottom', async () => {
    const p = await open({ height: 500 });
    await p.init(state({ messages: longChat(20) }));
    const conv = p.byTestId('strata-conversation');
    await p.post({
      type: 'turnStarted',
      chatId: CHAT_ID,
      turnId: 't',
      user: userMessage(11, 'go'),
      assistant: assistantMessage(11, '', { status: 'streaming' }),
    });
    for (let i = 0; i < 8; i++) await p.post({ type: 'chunk', chatId: CHAT_ID, turnId: 't', seq: i, text: `Paragraph ${i}\n\n` });
    await p.settle();
    const gap = () => conv.evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight);
    assert.ok((await gap()) <= 2, 'follows at the bottom');
    await conv.hover();
    await p.page.mouse.wheel(0, -300);
    await until('scrolled up', async () => (await gap()) >= 250);
    await p.settle();
    const top = await conv.evaluate((el) => el.scrollTop);
    for (let i = 8; i < 16; i++) await p.post({ type: 'chunk', chatId: CHAT_ID, turnId: 't', seq: i, text: `Paragraph ${i}\n\n` });
    await p.settle();
    assert.equal(await conv.evaluate((el) => el.scrollTop), top, 'stays where the user scrolled');
    assert.ok((await gap()) > 300);
  });

  it('opens at the end and stays there while banners, chips and lazily laid-out messages change the geometry', async () => {
    const p = await open({ width: 300, height: 640 });
    await p.init(
      state({
        messages: [
          ...longChat(6),
          userMessage(4, 'Summarize the whole repository.'),
          assistantMessage(4, '', { status: 'error', error: 'Over the context window.', bar: undefined }),
        ],
        banners: [
          {
            id: 'auth',
            severity: 'error',
            message: 'OpenAI rejected the API key (401 Unauthorized).',
            actions: ['setApiKey', 'openSettings', 'showLog', 'dismiss'],
          },
        ],
        notices: [{ id: 'r', message: 'Restricted Mode: project instruction files are not read.' }],
      }),
    );
    const conv = p.byTestId('strata-conversation');
    const gap = () => conv.evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight);
    await p.settle();
    assert.ok((await gap()) <= 2, `at the end after opening (${await gap()} px above it)`);
    assert.equal(await p.page.locator('[data-message-id="4:assistant"]').getByTestId('strata-message-error').isVisible(), true);
    await p.post({ type: 'chips', chips });
    await p.post({ type: 'banners', banners: [] });
    await p.settle();
    await p.settle();
    assert.ok((await gap()) <= 2, `still at the end (${await gap()} px above it)`);
  });

  it('Stop while busy; a stopped reply is marked; Regenerate on the last reply', async () => {
    const p = await open();
    await p.init(state({ messages: [userMessage(1, 'q'), assistantMessage(1, 'done')] }));
    assert.equal(await p.byTestId('strata-regenerate').count(), 1);
    await p.post({
      type: 'turnStarted',
      chatId: CHAT_ID,
      turnId: 't2',
      user: userMessage(2, 'more'),
      assistant: assistantMessage(2, '', { status: 'streaming' }),
    });
    await p.post({ type: 'chunk', chatId: CHAT_ID, turnId: 't2', seq: 0, text: 'Partial answ' });
    await p.settle();
    assert.equal(await p.byTestId('strata-regenerate').count(), 0, 'no Regenerate while busy');
    await p.byTestId('strata-stop').click();
    const stop = await p.waitForRequest('stop');
    assert.deepEqual(stop.request, { kind: 'stop' });
    await p.respond(stop.requestId, { ok: true });
    await p.post({
      type: 'turnEnded',
      chatId: CHAT_ID,
      turnId: 't2',
      kept: true,
      assistant: assistantMessage(2, 'Partial answ', { status: 'stopped' }),
    });
    await p.settle();
    const last = p.page.locator('[data-message-id="2:assistant"]');
    assert.equal(await last.getAttribute('data-status'), 'stopped');
    assert.equal(await last.getByTestId('strata-message-stopped').textContent(), 'Stopped');
    assert.equal(await p.byTestId('strata-stop').isVisible(), false);
    const regen = p.byTestId('strata-regenerate');
    assert.equal(await regen.count(), 1);
    assert.equal(await last.getByTestId('strata-regenerate').count(), 1, 'on the last reply');
    await regen.click();
    assert.deepEqual((await p.waitForRequest('regenerate')).request, { kind: 'regenerate' });
    // Regenerate: the host removes the last turn and starts it again.
    await p.post({ type: 'removeTurn', chatId: CHAT_ID, turn: 2 });
    await p.settle();
    assert.equal(await p.byTestId('strata-message').count(), 2);
  });

  it('a reply that failed shows its error; a turn that was not kept disappears', async () => {
    const p = await open();
    await p.init(state({ messages: [userMessage(1, 'q'), assistantMessage(1, 'a')] }));
    await p.post({
      type: 'turnStarted',
      chatId: CHAT_ID,
      turnId: 't2',
      user: userMessage(2, 'x'),
      assistant: assistantMessage(2, '', { status: 'streaming' }),
    });
    await p.post({ type: 'chunk', chatId: CHAT_ID, turnId: 't2', seq: 0, text: 'Some text' });
    await p.post({
      type: 'turnEnded',
      chatId: CHAT_ID,
      turnId: 't2',
      kept: true,
      assistant: assistantMessage(2, 'Some text', { status: 'error', error: 'Connection reset by the provider.' }),
    });
    await p.settle();
    assert.match(
      (await p.page.locator('[data-message-id="2:assistant"]').getByTestId('strata-message-error').textContent()) ?? '',
      /Connection reset/,
    );
    await p.post({
      type: 'turnStarted',
      chatId: CHAT_ID,
      turnId: 't3',
      user: userMessage(3, 'y'),
      assistant: assistantMessage(3, '', { status: 'streaming' }),
    });
    await p.post({
      type: 'turnEnded',
      chatId: CHAT_ID,
      turnId: 't3',
      kept: false,
      assistant: assistantMessage(3, '', { status: 'error', error: '401' }),
    });
    await p.post({ type: 'setInput', text: 'y' });
    await p.settle();
    assert.equal(await p.page.locator('[data-turn="3"]').count(), 0);
    assert.equal(await p.byTestId('strata-input').inputValue(), 'y');
    assert.equal(await p.byTestId('strata-stop').isVisible(), false);
  });

  it('chat list: switch, rename inline, delete after a confirmation; New Chat', async () => {
    const p = await open();
    await p.init(state());
    await p.autoRespond({ switchChat: { ok: true }, renameChat: { ok: true }, deleteChat: { ok: true }, newChat: { ok: true } });
    assert.equal(await p.byTestId('strata-chat-title').textContent(), 'Refactor the tokenizer cache');
    await p.byTestId('strata-chat-title').click();
    const list = p.byTestId('strata-chat-list');
    await list.waitFor({ state: 'visible' });
    assert.equal(await list.getByTestId('strata-chat-item').count(), 3);
    assert.equal(await list.locator('[data-current="true"]').getAttribute('data-chat-id'), CHAT_ID);
    await list.locator('[data-chat-id="chat-2"] .chat-open').click();
    assert.deepEqual((await p.waitForRequest('switchChat')).request, { kind: 'switchChat', chatId: 'chat-2' });
    assert.equal(await list.isVisible(), false);

    await p.byTestId('strata-chat-title').click();
    await list.locator('[data-chat-id="chat-3"]').getByTestId('strata-chat-rename').click();
    const field = list.getByTestId('strata-chat-rename-input');
    await field.waitFor({ state: 'visible' });
    await p.page.keyboard.press('Control+A');
    await p.page.keyboard.type('CSP review, part 2');
    await p.page.keyboard.press('Enter');
    assert.deepEqual((await p.waitForRequest('renameChat')).request, { kind: 'renameChat', chatId: 'chat-3', title: 'CSP review, part 2' });

    await list.locator('[data-chat-id="chat-2"]').getByTestId('strata-chat-delete').click();
    await list.getByTestId('strata-chat-delete-cancel').click();
    assert.equal((await p.requests()).filter((r) => r.request.kind === 'deleteChat').length, 0);
    await list.locator('[data-chat-id="chat-2"]').getByTestId('strata-chat-delete').click();
    assert.match((await list.locator('[data-chat-id="chat-2"]').textContent()) ?? '', /Delete “Why does the prefix cache break\?”\?/);
    await list.getByTestId('strata-chat-delete-confirm').click();
    assert.deepEqual((await p.waitForRequest('deleteChat')).request, { kind: 'deleteChat', chatId: 'chat-2' });
    await p.page.keyboard.press('Escape');
    await p.byTestId('strata-new-chat').click();
    assert.deepEqual((await p.waitForRequest('newChat')).request, { kind: 'newChat' });
    await p.post({
      type: 'chats',
      chats: [{ id: 'chat-9', title: 'New Chat', turns: 0, updatedAt: new Date().toISOString() }],
      chatId: 'chat-9',
      chatTitle: 'New Chat',
    });
    await p.settle();
    assert.equal(await p.byTestId('strata-chat-title').textContent(), 'New Chat');
  });

  it('model picker: shows the label (clearly when it is the local imitation), lists and selects models', async () => {
    const p = await open();
    await p.init(state({ model: model({ label: 'gpt-4o', imitation: true }) }));
    const button = p.byTestId('strata-model');
    assert.equal(await button.textContent(), 'Local imitation server · gpt-4o');
    assert.equal(await button.getAttribute('data-imitation'), 'true');
    await p.post({ type: 'model', model: model() });
    await p.settle();
    assert.equal(await button.textContent(), 'OpenAI · gpt-4o');

    await button.click();
    const list = await p.waitForRequest('listModels');
    assert.equal(await p.byTestId('strata-model-menu').isVisible(), true);
    await p.respond(list.requestId, {
      ok: true,
      value: [
        { provider: 'openai', model: 'gpt-4o', label: 'OpenAI · gpt-4o' },
        { provider: 'anthropic', model: 'claude-sonnet-4', label: 'Anthropic · claude-sonnet-4', detail: 'estimated tokens' },
        { provider: 'vscode-lm', model: 'copilot-gpt-4.1', label: 'VS Code · GPT-4.1' },
      ],
    });
    const options = p.byTestId('strata-model-option');
    assert.equal(await options.count(), 3);
    assert.equal(await options.nth(0).getAttribute('aria-checked'), 'true');
    await options.nth(1).click();
    assert.deepEqual((await p.waitForRequest('selectModel')).request, {
      kind: 'selectModel',
      provider: 'anthropic',
      model: 'claude-sonnet-4',
    });
    assert.equal(await p.byTestId('strata-model-menu').isVisible(), false);

    await button.click();
    const again = await p.waitForRequest('listModels');
    await p.respond(again.requestId, { ok: false, error: 'vscode.lm is not available' });
    assert.match((await p.byTestId('strata-model-menu').textContent()) ?? '', /vscode\.lm is not available/);
    await p.byTestId('strata-model-more').click();
    await until('quick pick request', async () => (await p.requests()).filter((r) => r.request.kind === 'selectModel').length === 2);
    assert.deepEqual((await p.waitForRequest('selectModel')).request, { kind: 'selectModel' });
  });

  it('keeps the draft and the scroll position when the view is hidden and shown again', async () => {
    const p = await open({ height: 500 });
    await p.reload({ clearUiState: true });
    const s = state({ messages: longChat(40) });
    await p.init(s);
    await p.byTestId('strata-input').fill('half-written question');
    const conv = p.byTestId('strata-conversation');
    await userScrollTo(conv, 1200);
    await new Promise((r) => setTimeout(r, 400));
    const anchorBefore = await p.page.evaluate(() => {
      const ui = (globalThis as WithDriver).strataTest.uiState() as { anchorId?: string; anchorOffset?: number };
      return ui;
    });
    assert.ok(anchorBefore.anchorId, 'an anchor was saved');

    // VS Code destroys a hidden webview and loads it again; getState() survives.
    await p.reload();
    await p.init(s);
    assert.equal(await p.byTestId('strata-input').inputValue(), 'half-written question');
    const offset = await p.page
      .locator(`[data-message-id="${anchorBefore.anchorId}"]`)
      .evaluate((el) => el.getBoundingClientRect().top - (el.closest('main')?.getBoundingClientRect().top ?? 0));
    assert.ok(Math.abs(offset - (anchorBefore.anchorOffset ?? 0)) <= 2, `restored at ${offset}, saved ${anchorBefore.anchorOffset}`);
  });

  it("a draft belongs to its chat: switching chats parks it and brings back the other chat's, also after the view is loaded again", async () => {
    const p = await open();
    await p.reload({ clearUiState: true });
    const input = p.byTestId('strata-input');
    const inChat = (chatId: string, turns = 0) =>
      state({
        chatId,
        chatTitle: chatId,
        messages: turns > 0 ? [userMessage(turns, `asked in ${chatId}`), assistantMessage(turns, 'answered')] : [],
      });
    await p.init(inChat(CHAT_ID, 1));
    await input.fill('A question about the tokenizer cache');
    await p.post({ type: 'state', state: inChat('chat-2') });
    assert.equal(await input.inputValue(), '', "the first chat's draft is not in the chat switched to");
    assert.equal(await p.byTestId('strata-send').getAttribute('aria-disabled'), 'true', 'nothing to send');
    await input.fill('Why does the prefix break here?');
    await p.post({ type: 'state', state: inChat(CHAT_ID, 1) });
    assert.equal(await input.inputValue(), 'A question about the tokenizer cache', 'back in the first chat: its draft');
    await p.post({ type: 'state', state: inChat('chat-3') });
    assert.equal(await input.inputValue(), '');
    await p.post({ type: 'state', state: inChat('chat-2') });
    assert.equal(await input.inputValue(), 'Why does the prefix break here?');
    // Emptied in a chat: nothing is parked for it.
    await input.fill('');
    await p.post({ type: 'state', state: inChat(CHAT_ID, 1) });
    await p.post({ type: 'state', state: inChat('chat-2') });
    assert.equal(await input.inputValue(), '');
    // The view loaded again (VS Code destroys a hidden webview): each chat keeps its own draft.
    await p.post({ type: 'state', state: inChat(CHAT_ID, 1) });
    assert.equal(await input.inputValue(), 'A question about the tokenizer cache');
    await new Promise((r) => setTimeout(r, 300)); // the UI state is written within 100 ms
    await p.reload();
    await p.init(inChat('chat-3'));
    assert.equal(await input.inputValue(), '', 'the view came back in another chat than the draft was written in');
    await p.post({ type: 'state', state: inChat(CHAT_ID, 1) });
    assert.equal(await input.inputValue(), 'A question about the tokenizer cache');
    // What a broken saved state holds is ignored, not shown.
    await p.page.evaluate(() =>
      (globalThis as WithDriver).strataTest.replaceUiState({
        draft: '',
        atBottom: true,
        requestCollapsed: false,
        parked: { 'chat-2': { text: 42 }, 'chat-3': 'x' },
      }),
    );
    await p.reload();
    await p.init(inChat(CHAT_ID, 1));
    for (const chatId of ['chat-2', 'chat-3']) {
      await p.post({ type: 'state', state: inChat(chatId) });
      assert.equal(await input.inputValue(), '', chatId);
    }
  });

  it('New Chat takes the draft along (the new chat has no context yet); an existing empty chat does not', async () => {
    const p = await open();
    await p.reload({ clearUiState: true });
    const input = p.byTestId('strata-input');
    const base = state();
    const created = { id: 'chat-new', title: 'New Chat', turns: 0, updatedAt: new Date().toISOString() };
    await p.init(state({ messages: [userMessage(1, 'q'), assistantMessage(1, 'a')] }));
    await input.fill('Start over: how is the cache keyed?');
    // The host answers New Chat with the new chat's state; its list now has the new chat.
    await p.post({ type: 'state', state: state({ chatId: 'chat-new', chatTitle: 'New Chat', chats: [created, ...base.chats] }) });
    assert.equal(await input.inputValue(), 'Start over: how is the cache keyed?', 'the text moved to the new chat');
    await p.post({
      type: 'state',
      state: state({ chats: [created, ...base.chats], messages: [userMessage(1, 'q'), assistantMessage(1, 'a')] }),
    });
    assert.equal(await input.inputValue(), '', 'and is not left behind in the chat it was begun in');
    await p.post({ type: 'state', state: state({ chatId: 'chat-new', chatTitle: 'New Chat', chats: [created, ...base.chats] }) });
    assert.equal(await input.inputValue(), 'Start over: how is the cache keyed?', 'parked in the new chat when left');
    // An empty chat already in the list is another chat: the draft stays where it was written.
    await p.post({ type: 'state', state: state({ chatId: 'chat-3', chatTitle: 'Webview CSP review', chats: [created, ...base.chats] }) });
    assert.equal(await input.inputValue(), '');
  });

  it('a message that was not sent goes back to the chat it was written in, with what was typed since', async () => {
    const p = await open();
    await p.reload({ clearUiState: true });
    const input = p.byTestId('strata-input');
    const inChat = (chatId: string) =>
      state({ chatId, chatTitle: chatId, messages: [userMessage(1, `asked in ${chatId}`), assistantMessage(1, 'answered')] });
    await p.init(inChat(CHAT_ID));

    // Refused by the host after the user switched chats: kept as the first chat's draft, not put in the chat shown.
    await input.fill('Why is the prefix broken at turn 3?');
    await input.press('Enter');
    const send = await p.waitForRequest('send');
    await p.post({ type: 'state', state: inChat('chat-2') });
    await input.fill('A question for the second chat');
    await p.respond(send.requestId, { ok: false, error: 'The model list could not be read.' });
    await until('the refusal is shown', async () => /could not be read/.test((await p.byTestId('strata-status').textContent()) ?? ''));
    assert.match((await p.byTestId('strata-status').textContent()) ?? '', /kept as the draft of the chat it was written in/);
    assert.equal(await input.inputValue(), 'A question for the second chat', 'the chat shown keeps its own text');
    await p.post({ type: 'state', state: inChat(CHAT_ID) });
    assert.equal(await input.inputValue(), 'Why is the prefix broken at turn 3?', 'back in its chat');

    // The host puts a failed turn's text back, naming its chat: another chat's draft is added after it.
    await p.post({ type: 'state', state: inChat('chat-2') });
    assert.equal(await input.inputValue(), 'A question for the second chat');
    await p.post({ type: 'setInput', chatId: CHAT_ID, text: 'Summarize the failing test' });
    await p.settle();
    assert.equal(await input.inputValue(), 'A question for the second chat', 'not put into the chat shown');
    await p.post({ type: 'state', state: inChat(CHAT_ID) });
    assert.equal(
      await input.inputValue(),
      'Summarize the failing test\n\nWhy is the prefix broken at turn 3?',
      'both kept, the failed message first',
    );

    // In the chat shown: what was typed while the reply streamed stays, after the failed message.
    await input.fill('typed while it streamed');
    await p.post({ type: 'setInput', chatId: CHAT_ID, text: 'Explain the cache miss' });
    await p.settle();
    assert.equal(await input.inputValue(), 'Explain the cache miss\n\ntyped while it streamed');
    // A refusal in the same chat with nothing typed since: the text comes back as it was.
    await input.fill('Retry this');
    await input.press('Enter');
    await until('a second send', async () => (await p.requests()).filter((r) => r.request.kind === 'send').length === 2);
    const again = await p.waitForRequest('send');
    await p.respond(again.requestId, { ok: false, error: 'Another turn is running.' });
    await until('the text is back', async () => (await input.inputValue()) === 'Retry this');
  });

  it('a draft saved before its own send (the window reloaded before the editor saved the view again) is not offered again', async () => {
    const p = await open();
    const reloadWith = async (messages: MessageView[]) => {
      await new Promise((r) => setTimeout(r, 300)); // the UI state is written within 100 ms
      await p.reload();
      await p.init(state({ messages }));
    };
    const input = p.byTestId('strata-input');
    const asked = [userMessage(1, 'Why is the tax added per line?'), assistantMessage(1, 'Because each line has its own rate.')];
    await p.reload({ clearUiState: true });
    await p.init(state({ messages: [] }));
    // Saved mid-typing; the message was sent after, and the view comes back with that older draft.
    await input.fill('Why is the tax adde');
    await reloadWith(asked);
    assert.equal(await input.inputValue(), '', 'the sent message (or its start) is not back in the input');
    await new Promise((r) => setTimeout(r, 300));
    assert.equal((await p.page.evaluate(() => (globalThis as WithDriver).strataTest.uiState() as { draft: string })).draft, '');
    // A draft begun after that message stays, even when it is the start of it.
    await input.fill('Why');
    await reloadWith(asked);
    assert.equal(await input.inputValue(), 'Why');
    await input.fill('And the discount?');
    await reloadWith(asked);
    assert.equal(await input.inputValue(), 'And the discount?');
    // A draft saved by an earlier version (without where it was begun): dropped only when it is the message exactly.
    for (const [draft, kept] of [
      ['Why is the tax added per line?', ''],
      ['Why is the tax', 'Why is the tax'],
    ]) {
      await p.page.evaluate(
        (d) => (globalThis as WithDriver).strataTest.replaceUiState({ draft: d, atBottom: true, requestCollapsed: false }),
        draft,
      );
      await p.reload();
      await p.init(state({ messages: asked }));
      assert.equal(await input.inputValue(), kept, `old draft "${draft}"`);
    }
  });

  it('a view shown again mid-turn keeps appending the stream (turnId and nextSeq on the message)', async () => {
    const p = await open();
    const streaming = assistantMessage(2, 'Already **streamed** part', { status: 'streaming', turnId: 't2', nextSeq: 3 });
    await p.init(state({ messages: [userMessage(1, 'q'), assistantMessage(1, 'a'), userMessage(2, 'q2'), streaming], busy: true }));
    assert.equal(await p.byTestId('strata-stop').isVisible(), true);
    await p.post({ type: 'chunk', chatId: CHAT_ID, turnId: 't2', seq: 2, text: ' DUPLICATE' });
    await p.post({ type: 'chunk', chatId: CHAT_ID, turnId: 't2', seq: 3, text: ' and more' });
    await p.settle();
    assert.equal(
      (await p.page.locator('[data-message-id="2:assistant"] [data-testid="strata-message-body"]').textContent())?.trim(),
      'Already streamed part and more',
    );
  });

  it('drives every request kind, each valid for the host', async () => {
    const p = await open();
    const all = longChat(10, 3, 5);
    await p.init(
      state({ messages: all, hasOlder: true, chips, banners: [{ id: 'b', severity: 'error', message: 'x', actions: ['retry'] }] }),
    );
    await p.autoRespond({
      send: { ok: true },
      stop: { ok: true },
      regenerate: { ok: true },
      newChat: { ok: true },
      switchChat: { ok: true },
      renameChat: { ok: true },
      deleteChat: { ok: true },
      attach: { ok: true },
      removeChip: { ok: true },
      pinChip: { ok: true },
      attachDefinitions: { ok: true, value: [] },
      selectModel: { ok: true },
      listModels: { ok: true, value: [{ provider: 'openai', model: 'gpt-4.1', label: 'OpenAI · gpt-4.1' }] },
      insertCode: { ok: true },
      copy: { ok: true },
      bannerAction: { ok: true },
    });
    await userScrollTo(p.byTestId('strata-conversation'), 0);
    await p.waitForRequest('loadOlder');
    await p.byTestId('strata-input').fill('hi');
    await p.byTestId('strata-input').press('Enter');
    await p.byTestId('strata-regenerate').click();
    await p.byTestId('strata-new-chat').click();
    await p.byTestId('strata-attach-selection').click();
    await p.byTestId('strata-chip').nth(0).getByTestId('strata-chip-pin').click();
    await p.byTestId('strata-chip').nth(1).getByTestId('strata-chip-definitions').click();
    await p.byTestId('strata-chip').nth(1).getByTestId('strata-chip-remove').click();
    await p.byTestId('strata-error').getByText('Retry').click();
    await p.page.getByTestId('strata-code-copy').last().click();
    await p.page.getByTestId('strata-code-insert').last().click();
    await p.byTestId('strata-model').click();
    await p.byTestId('strata-model-option').click();
    await p.byTestId('strata-chat-title').click();
    await p.page.locator('[data-chat-id="chat-2"] .chat-open').click();
    await p.byTestId('strata-chat-title').click();
    await p.page.locator('[data-chat-id="chat-3"]').getByTestId('strata-chat-rename').click();
    await p.byTestId('strata-chat-rename-input').waitFor();
    await p.page.keyboard.type(' renamed');
    await p.page.keyboard.press('Enter');
    await p.page.locator('[data-chat-id="chat-3"]').getByTestId('strata-chat-delete').click();
    await p.byTestId('strata-chat-delete-confirm').click();
    await p.post({
      type: 'turnStarted',
      chatId: CHAT_ID,
      turnId: 'tz',
      user: userMessage(20, 'z'),
      assistant: assistantMessage(20, '', { status: 'streaming' }),
    });
    await p.settle();
    await p.byTestId('strata-stop').click();
    await until('every kind posted', async () => {
      const kinds = new Set((await p.requests()).map((r) => r.request.kind));
      return ALL_KINDS.every((k) => kinds.has(k));
    });
    const ids = (await p.requests()).map((r) => r.requestId);
    assert.equal(new Set(ids).size, ids.length, 'request ids are unique');
  });

  it('fits a 300 px sidebar: nothing overflows sideways', async () => {
    const p = await open({ width: 300 });
    await p.init(
      state({
        messages: longChat(6),
        chips,
        banners: [
          {
            id: 'b',
            severity: 'error',
            message: 'OpenAI rejected the API key (401): check the key in Strata: Set API Key.',
            actions: ['setApiKey', 'openSettings', 'dismiss'],
          },
        ],
        model: model({ label: 'Anthropic · claude-sonnet-4-20250514 (a long model name)' }),
      }),
    );
    const overflow = await p.page.evaluate(() => {
      const d = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document;
      return d.documentElement.scrollWidth - d.documentElement.clientWidth;
    });
    assert.equal(overflow, 0);
    const conv = p.byTestId('strata-conversation');
    assert.equal(await conv.evaluate((el) => el.scrollWidth - el.clientWidth), 0);
    const toolbarFits = await p.page.locator('.input-toolbar').evaluate((el) => el.scrollWidth <= el.clientWidth);
    assert.equal(toolbarFits, true);
  });

  it('a protocol version mismatch is shown, not ignored', async () => {
    const p = await open();
    await p.post({ type: 'init', protocolVersion: 1, extensionVersion: '0.0.9', state: state() });
    await p.settle();
    assert.match((await p.byTestId('strata-error').textContent()) ?? '', /protocol 2.*protocol 1/);
  });

  it('covered every request kind across the suite', () => {
    assert.deepEqual(
      ALL_KINDS.filter((k) => !seenKinds.has(k)),
      [],
    );
  });
});
