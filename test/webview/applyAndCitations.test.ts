/**
 * Apply on a reply's code blocks and citation links, in the production panel bundle: the panel
 * only asks (applyCode, resolveCitations, openCitation), and links only what the host validated.
 */
import * as assert from 'node:assert/strict';
import { assistantMessage, state, userMessage } from './fixtures';
import { panelSuite } from './suite';

async function until(what: string, fn: () => Promise<boolean>, timeoutMs = 4000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await fn()) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const REPLY = [
  'The bug is in src/math.ts:3-5 (see also `src/util.ts` and `.env`, and secrets/key.ts:1).',
  '',
  'In `src/math.ts`:',
  '',
  '```ts',
  'export function add(a: number, b: number): number {',
  '  return a + b;',
  '}',
  '```',
  '',
  '```py tools/gen.py',
  'print("hi")',
  '```',
].join('\n');

describe('chat panel: Apply and citation links', function () {
  this.timeout(60_000);
  const { open } = panelSuite();

  it('puts Apply next to Copy and Insert, and Apply posts the block with its hints', async () => {
    const p = await open();
    await p.init(state({ messages: [userMessage(1, 'q'), assistantMessage(1, REPLY)] }));
    await p.autoRespond({ applyCode: { ok: true }, resolveCitations: { ok: true, value: [] } });
    const applies = p.page.getByTestId('strata-apply');
    assert.equal(await applies.count(), 2);
    const header = p.page.locator('.code-header').first();
    assert.deepEqual(await header.locator('button').evaluateAll((bs) => bs.map((b) => b.getAttribute('data-testid'))), [
      'strata-code-wrap',
      'strata-code-copy',
      'strata-code-insert',
      'strata-apply',
    ]);
    // No file in the fence: the host picks the target (here from the line above) when asked.
    assert.equal(await applies.first().getAttribute('aria-label'), 'Apply to File');
    assert.equal(await applies.first().getAttribute('title'), 'Apply to File (review the diff first)');
    assert.equal((await applies.nth(1).textContent())?.trim(), 'Apply to gen.py');
    await applies.first().click();
    const first = await p.waitForRequest('applyCode');
    assert.deepEqual(first.request, {
      kind: 'applyCode',
      code: 'export function add(a: number, b: number): number {\n  return a + b;\n}',
      info: 'ts',
      lineAbove: 'In `src/math.ts`:',
      blockId: 'chat-1/1:assistant/0',
    });
    // Keyboard: focus and Enter.
    await applies.nth(1).focus();
    await p.page.keyboard.press('Enter');
    await until('second apply', async () => (await p.requests()).filter((r) => r.request.kind === 'applyCode').length === 2);
    const second = await p.waitForRequest('applyCode');
    assert.equal(second.request.info, 'py tools/gen.py');
    assert.equal(second.request.code, 'print("hi")');
    assert.equal(second.request.blockId, 'chat-1/1:assistant/1');
  });

  it('links only the cited paths the host validated, and a click asks the host to open the range', async () => {
    const p = await open();
    await p.init(state({ messages: [userMessage(1, 'q'), assistantMessage(1, REPLY)] }));
    const ask = await p.waitForRequest('resolveCitations');
    assert.deepEqual([...ask.request.paths].sort(), ['.env', 'secrets/key.ts', 'src/math.ts', 'src/util.ts']);
    assert.equal(await p.byTestId('strata-citation').count(), 0, 'no link before the host answers');
    await p.respond(ask.requestId, { ok: true, value: ['src/math.ts', 'src/util.ts'] });
    const links = p.byTestId('strata-citation');
    await until('links rendered', async () => (await links.count()) === 3);
    assert.deepEqual(await links.allTextContents(), ['src/math.ts:3-5', 'src/util.ts', 'src/math.ts']);
    assert.equal(await links.first().getAttribute('title'), 'Open src/math.ts, lines 3–5');
    const body = p.page.locator('[data-message-id="1:assistant"] [data-testid="strata-message-body"]');
    const text = (await body.textContent()) ?? '';
    assert.match(text, /secrets\/key\.ts:1/, 'a refused path stays plain text');
    assert.equal(await body.locator('a').count(), 0, 'no anchors, so nothing navigates');
    await links.first().click();
    const open1 = await p.waitForRequest('openCitation');
    assert.deepEqual(open1.request, { kind: 'openCitation', path: 'src/math.ts', startLine: 3, endLine: 5 });
    await p.respond(open1.requestId, { ok: true });
    await links.nth(1).focus();
    await p.page.keyboard.press('Enter');
    await until('second open', async () => (await p.requests()).filter((r) => r.request.kind === 'openCitation').length === 2);
    assert.deepEqual((await p.waitForRequest('openCitation')).request, { kind: 'openCitation', path: 'src/util.ts' });
  });

  it('does not link when the host refuses every path or the answer is malformed', async () => {
    const p = await open();
    await p.init(state({ messages: [userMessage(1, 'q'), assistantMessage(1, REPLY)] }));
    const ask = await p.waitForRequest('resolveCitations');
    await p.respond(ask.requestId, { ok: true, value: 'src/math.ts' });
    await p.settle();
    assert.equal(await p.byTestId('strata-citation').count(), 0);
  });

  it('offers no Apply on the request preview', async () => {
    const p = await open();
    await p.init(state({ messages: [userMessage(1, 'q'), assistantMessage(1, 'No code here.')] }));
    assert.equal(await p.byTestId('strata-apply').count(), 0);
  });
});
