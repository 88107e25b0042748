/**
 * Code in replies, in the production panel bundle: highlighted with grammars loaded on first use
 * (CSP intact), coloured with the theme's token colours, never highlighted again while the reply
 * around it streams; the header names the fenced file, Apply is a labelled button, a shell block
 * goes to the terminal, and the wrap toggle is remembered.
 */
import * as assert from 'node:assert/strict';
import { assistantMessage, CHAT_ID, state, userMessage } from './fixtures';
import type { Panel } from './harness';
import { panelSuite } from './suite';

async function until(what: string, fn: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await fn()) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const REPLY = [
  'Change the discount:',
  '',
  '```ts src/pricing.ts',
  'export function price(base: number): number {',
  '  // ten percent off',
  '  return base * 0.9;',
  '}',
  '```',
  '',
  'Then run:',
  '',
  '```bash',
  'npm test -- --grep "price"',
  '```',
  '',
  '```python',
  'def total(items):',
  '    return sum(items)',
  '```',
  '',
  '```json',
  '{ "discount": 0.1, "enabled": true }',
  '```',
  '',
  '```diff',
  '- return base;',
  '+ return base * 0.9;',
  '```',
].join('\n');

/** The computed text colour of an element (runs in the page). */
const colorOf = (el: unknown) => (globalThis as unknown as { getComputedStyle(e: unknown): { color: string } }).getComputedStyle(el).color;

/** The text of each token span of a class in the block of a grammar. */
async function tokens(p: Panel, grammar: string, cls: string): Promise<string[]> {
  return p.page.locator(`.code-block[data-grammar="${grammar}"] .tok-${cls}`).allTextContents();
}

describe('chat panel: code blocks', function () {
  this.timeout(60_000);
  const { open } = panelSuite();

  it('highlights TypeScript, shell, Python, JSON and diff with token spans, grammars loaded as chunks', async () => {
    const p = await open();
    await p.init(state({ messages: [userMessage(1, 'q'), assistantMessage(1, REPLY)] }));
    await until('all five blocks highlighted', async () => (await p.page.locator('pre code.tok-done').count()) === 5);
    assert.deepEqual(await tokens(p, 'typescript', 'keyword'), ['export', 'function', 'return']);
    assert.deepEqual(await tokens(p, 'typescript', 'comment'), ['// ten percent off']);
    assert.deepEqual(await tokens(p, 'typescript', 'number'), ['0.9']);
    assert.deepEqual(await tokens(p, 'bash', 'string'), ['"price"']);
    assert.deepEqual(await tokens(p, 'python', 'keyword'), ['def', 'return']);
    assert.deepEqual(await tokens(p, 'json', 'number'), ['0.1']);
    assert.deepEqual(await tokens(p, 'json', 'literal'), ['true']);
    assert.deepEqual(await tokens(p, 'diff', 'deletion'), ['- return base;']);
    assert.deepEqual(await tokens(p, 'diff', 'addition'), ['+ return base * 0.9;']);
    // The code itself is unchanged by highlighting (Copy and Apply send the block's text).
    assert.equal(
      await p.page.locator('.code-block[data-grammar="typescript"] pre code').textContent(),
      'export function price(base: number): number {\n  // ten percent off\n  return base * 0.9;\n}\n',
    );
    // Each grammar is a script of its own, loaded with the page's nonce (no CSP violation: see the suite's checks).
    const scripts = await p.page.evaluate(() =>
      (globalThis as unknown as { performance: { getEntriesByType(t: string): { name: string }[] } }).performance
        .getEntriesByType('resource')
        .map((e) => new URL(e.name).pathname.split('/').pop() ?? '')
        .filter((n) => n.startsWith('hl-'))
        .sort(),
    );
    assert.deepEqual(scripts, ['hl-bash.js', 'hl-diff.js', 'hl-json.js', 'hl-python.js', 'hl-typescript.js']);
  });

  for (const [theme, keyword, comment] of [
    ['dark', 'rgb(86, 156, 214)', 'rgb(106, 153, 85)'],
    ['light', 'rgb(0, 0, 255)', 'rgb(0, 128, 0)'],
    ['hc', 'rgb(86, 156, 214)', 'rgb(124, 166, 104)'],
  ] as const) {
    it(`colours tokens with the ${theme} theme's token colours`, async () => {
      const p = await open({ theme });
      await p.init(state({ messages: [userMessage(1, 'q'), assistantMessage(1, REPLY)] }));
      const kw = p.page.locator('.code-block[data-grammar="typescript"] .tok-keyword').first();
      await kw.waitFor();
      assert.equal(await kw.evaluate(colorOf), keyword);
      const cm = p.page.locator('.code-block[data-grammar="typescript"] .tok-comment').first();
      assert.equal(await cm.evaluate(colorOf), comment);
    });
  }

  it('highlights a block once, when its fence closes, not again on later chunks', async () => {
    const p = await open();
    await p.init(state({ messages: [userMessage(1, 'q'), assistantMessage(1, 'Earlier.')] }));
    // Load the grammar first, so what follows is synchronous.
    await p.post({ type: 'state', state: state({ messages: [userMessage(1, 'q'), assistantMessage(1, '```ts\nconst a = 1;\n```')] }) });
    await until('grammar loaded', async () => (await p.page.locator('pre code.tok-done').count()) === 1);

    const user = userMessage(2, 'more');
    const assistant = assistantMessage(2, '', { status: 'streaming', usage: undefined });
    await p.post({ type: 'turnStarted', chatId: CHAT_ID, turnId: 't2', user, assistant });
    let seq = 0;
    const chunk = async (text: string) => {
      await p.post({ type: 'chunk', chatId: CHAT_ID, turnId: 't2', seq: seq++, text });
      await p.settle();
    };
    const streamingBlock = p.page.locator('[data-message-id="2:assistant"] .code-block');
    await chunk('Here:\n\n```ts src/a.ts\nexport const x');
    assert.equal(await streamingBlock.getAttribute('data-open'), 'true');
    assert.equal(await streamingBlock.locator('.tok-keyword').count(), 0, 'an open block stays plain');
    await chunk(' = 2;\n');
    assert.equal(await streamingBlock.locator('.tok-keyword').count(), 0);

    const runs = () => p.page.evaluate(() => (globalThis as unknown as { strataHighlightRuns(): number }).strataHighlightRuns());
    const before = await runs();
    await chunk('```\n\nAnd');
    assert.equal(await streamingBlock.getAttribute('data-open'), null);
    assert.deepEqual(await streamingBlock.locator('.tok-keyword').allTextContents(), ['export', 'const']);
    assert.equal(await runs(), before + 1, 'the closed block is highlighted once');
    // A probe on the highlighted code (a property, not an attribute: the node stays equal to its re-render).
    await streamingBlock.locator('pre code').evaluate((el) => ((el as unknown as { probe: string }).probe = 'kept'));
    for (let i = 0; i < 20; i++) await chunk(` more words ${i}`);
    assert.equal(await runs(), before + 1, 'twenty chunks later: no highlighting again');
    assert.equal(await streamingBlock.locator('pre code').evaluate((el) => (el as unknown as { probe?: string }).probe), 'kept');
  });

  it('names the fenced file in the header; Apply is a labelled button; a shell block goes to the terminal', async () => {
    const p = await open();
    await p.init(state({ messages: [userMessage(1, 'q'), assistantMessage(1, REPLY)] }));
    await p.autoRespond({ resolveCitations: { ok: true, value: [] }, insertTerminal: { ok: true } });
    const ts = p.page.locator('.code-block').nth(0);
    assert.equal(await ts.getByTestId('strata-code-file').textContent(), 'src/pricing.ts');
    assert.equal(await ts.getByTestId('strata-code-file').getAttribute('title'), 'src/pricing.ts');
    const apply = ts.getByTestId('strata-apply');
    assert.equal((await apply.textContent())?.trim(), 'Apply to pricing.ts');
    assert.equal(await apply.getAttribute('aria-label'), 'Apply to pricing.ts');
    assert.deepEqual(await ts.locator('.code-header button').evaluateAll((bs) => bs.map((b) => b.getAttribute('data-testid'))), [
      'strata-code-wrap',
      'strata-code-copy',
      'strata-code-insert',
      'strata-apply',
    ]);
    // Every button has a name.
    const names = await p.page
      .locator('.code-header button')
      .evaluateAll((bs) => bs.map((b) => (b as unknown as { innerText: string }).innerText.trim() || b.getAttribute('aria-label')));
    assert.equal(names.filter((n) => !n).length, 0);

    const bash = p.page.locator('.code-block[data-grammar="bash"]');
    assert.equal(await bash.getByTestId('strata-apply').count(), 0);
    assert.equal(await bash.locator('.code-lang').textContent(), 'bash');
    const terminal = bash.getByTestId('strata-code-terminal');
    assert.equal((await terminal.textContent())?.trim(), 'Insert into Terminal');
    await terminal.focus();
    await p.page.keyboard.press('Enter');
    const sent = await p.waitForRequest('insertTerminal');
    assert.deepEqual(sent.request, { kind: 'insertTerminal', code: 'npm test -- --grep "price"' });
    // A block without a named file: Apply still labelled.
    assert.equal((await p.page.locator('.code-block[data-grammar="python"]').getByTestId('strata-apply').textContent())?.trim(), 'Apply…');
  });

  it('wraps long lines on request, and remembers it', async () => {
    const p = await open();
    const long = `\`\`\`ts\nconst s = "${'x'.repeat(400)}";\n\`\`\``;
    await p.init(state({ messages: [userMessage(1, 'q'), assistantMessage(1, long)] }));
    const pre = p.page.locator('.code-block pre');
    const wide = () => pre.evaluate((el) => el.scrollWidth > el.clientWidth);
    assert.equal(await wide(), true);
    const wrap = p.byTestId('strata-code-wrap');
    assert.equal(await wrap.getAttribute('aria-pressed'), 'false');
    await wrap.click();
    assert.equal(await wrap.getAttribute('aria-pressed'), 'true');
    assert.equal(await wide(), false);
    await until(
      'saved',
      async () =>
        ((
          await p.page.evaluate(() => (globalThis as unknown as { strataTest: { uiState(): { codeWrap?: boolean } } }).strataTest.uiState())
        )?.codeWrap ?? false) === true,
    );
    // Another chat: the choice is the user's, not the chat's.
    await p.post({ type: 'state', state: state({ chatId: 'chat-2', messages: [userMessage(1, 'other'), assistantMessage(1, long)] }) });
    await until(
      'the other chat shown',
      async () => (await p.page.locator('[data-message-id="1:user"]').textContent())?.includes('other') === true,
    );
    assert.equal(await p.byTestId('strata-code-wrap').getAttribute('aria-pressed'), 'true');
    assert.equal(await wide(), false);
    // A reload of the window (the panel's document made anew from its saved state).
    await p.reload();
    await p.init(state({ messages: [userMessage(1, 'q'), assistantMessage(1, long)] }));
    assert.equal(await p.byTestId('strata-code-wrap').getAttribute('aria-pressed'), 'true');
    assert.equal(await p.page.locator('.code-block pre').evaluate((el) => el.scrollWidth > el.clientWidth), false);
    // Turned off again, it stays off after a reload.
    await p.byTestId('strata-code-wrap').click();
    assert.equal(await wide(), true);
    await until(
      'saved off',
      async () =>
        ((
          await p.page.evaluate(() => (globalThis as unknown as { strataTest: { uiState(): { codeWrap?: boolean } } }).strataTest.uiState())
        )?.codeWrap ?? false) === false,
    );
    await p.reload();
    await p.init(state({ messages: [userMessage(1, 'q'), assistantMessage(1, long)] }));
    assert.equal(await p.byTestId('strata-code-wrap').getAttribute('aria-pressed'), 'false');
  });

  it('keeps a centred reading lane of about 90 characters in a 1920 px editor tab', async () => {
    const p = await open({ width: 1920, height: 800 });
    await p.init(state({ messages: [userMessage(1, 'q'), assistantMessage(1, `${'A long line of prose. '.repeat(40)}\n\n${REPLY}`)] }));
    const box = async (sel: string) => (await p.page.locator(sel).first().boundingBox())!;
    const lane = await box('.messages');
    const input = await box('.composer .input-box');
    const ch = await p.page.locator('.messages').evaluate((el) => {
      const probe = el.ownerDocument.createElement('span');
      probe.textContent = '0'.repeat(90);
      el.append(probe);
      const w = probe.getBoundingClientRect().width;
      probe.remove();
      return w;
    });
    assert.equal(Math.round(lane.width), Math.round(ch), 'the lane is 90 characters wide');
    assert.equal(Math.round(input.width), Math.round(ch), 'so is the composer');
    // Centred in the tab (the conversation's scroll bar aside).
    assert.ok(Math.abs(lane.x + lane.width / 2 - 960) <= 8, `centred: ${lane.x}`);
    assert.ok(Math.abs(input.x + input.width / 2 - 960) <= 8, `centred: ${input.x}`);
  });
});
