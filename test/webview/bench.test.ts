import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Browser } from 'playwright-core';
import { assistantMessage, CHAT_ID, longChat, state, STREAM_TEXTS, userMessage } from './fixtures';
import { BUNDLE, launchBrowser, Panel, SCREENSHOTS, type WithDriver } from './harness';
import { PanelServer } from './server';

/** The panel's speed and size targets. */
const BUNDLE_MAX_BYTES = 400 * 1024;
const INIT_500_MAX_MS = 300;
const CHUNK_MAX_MS = 16;

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

function p95(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(s.length * 0.95) - 1)];
}

const ms = (n: number) => `${n.toFixed(1)} ms`;

/**
 * The panel's speed targets, measured in Chromium on the production bundle, printed as one line:
 * bundle size; a 500-message chat (realistic markdown with code blocks) from `init` to painted (the
 * newest messages rendered, the others' markdown following while idle; that time is printed too);
 * one streamed chunk with those 500 messages on screen, from the message to the next frame.
 */
describe('chat panel benchmark (real browser; times printed, size checked)', function () {
  this.timeout(120_000);
  const server = new PanelServer();
  let browser: Browser;

  before(async () => {
    await server.start();
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await server.stop();
  });

  it('keeps the bundle under its size and renders all 500 messages and every chunk (prints the times beside their targets)', async () => {
    const bundleBytes = fs.statSync(BUNDLE).size;
    const messages = longChat(500);
    const markdownChars = messages.reduce((n, m) => n + m.text.length, 0);
    const init = { type: 'init', protocolVersion: 2, extensionVersion: '0.1.0', state: state({ messages }) } as const;

    // Three fresh pages; the median counts (the first run also pays for the JIT warming up).
    const inits: { handledMs: number; paintedMs: number; allMarkdownMs: number; messages: number }[] = [];
    let panel: Panel | undefined;
    for (let run = 0; run < 3; run++) {
      await panel?.close();
      panel = await Panel.open(browser, server, { width: 400, height: 800 });
      inits.push(await panel.page.evaluate((m) => (globalThis as WithDriver).strataTest.measureInit(m), init as unknown));
    }
    const p = panel!;
    assert.ok(
      inits.every((r) => r.messages === 500),
      'all 500 messages rendered',
    );
    const initMs = median(inits.map((r) => r.paintedMs));

    // Streaming with the 500 messages on screen.
    await p.post({
      type: 'turnStarted',
      chatId: CHAT_ID,
      turnId: 'bench',
      user: userMessage(251, 'Explain the cache.'),
      assistant: assistantMessage(251, '', { status: 'streaming' }),
    });
    await p.settle();
    const samples = await p.page.evaluate(
      ([chatId, texts]) => (globalThis as WithDriver).strataTest.measureChunks(chatId, 'bench', 0, 120, texts),
      [CHAT_ID, STREAM_TEXTS] as [string, string[]],
    );
    const warm = samples.slice(20);
    const toDom = warm.map((s) => s.handled);
    const toFrame = warm.map((s) => s.frame);
    const work = warm.map((s) => s.handled + s.layout);
    assert.ok(
      samples.every((s) => s.inDom && s.inFrame),
      'every chunk is in the DOM when its message has been handled, and in the next frame',
    );
    await p.screenshot('bench-500-messages-streaming');
    await p.close();

    const line =
      `webview bench: bundle ${(bundleBytes / 1024).toFixed(0)} KB (target ≤ ${BUNDLE_MAX_BYTES / 1024} KB)` +
      ` | 500 messages (${(markdownChars / 1024).toFixed(0)} KB markdown) init→painted median ${ms(initMs)} [${inits.map((r) => r.paintedMs.toFixed(0)).join(', ')}] (target ≤ ${INIT_500_MAX_MS} ms${initMs <= INIT_500_MAX_MS ? '' : ', over'}), every message's markdown rendered (idle) by ${ms(median(inits.map((r) => r.allMarkdownMs)))}` +
      ` | chunk→DOM median ${ms(median(toDom))} p95 ${ms(p95(toDom))}` +
      `, chunk→next frame laid out median ${ms(median(toFrame))} p95 ${ms(p95(toFrame))} max ${ms(Math.max(...toFrame))} (target ≤ ${CHUNK_MAX_MS} ms${median(toFrame) <= CHUNK_MAX_MS ? '' : ', over'})` +
      `, our work per chunk (handler + layout) p95 ${ms(p95(work))} (target ≤ ${CHUNK_MAX_MS} ms${p95(work) <= CHUNK_MAX_MS ? '' : ', over'})`;
    console.log(line);
    fs.mkdirSync(path.dirname(SCREENSHOTS), { recursive: true });
    fs.writeFileSync(
      path.join(path.dirname(SCREENSHOTS), 'bench.json'),
      JSON.stringify({ bundleBytes, initMs: inits, chunk: { toDom, toFrame, work } }, null, 2),
    );

    // The size is checked; the times are printed beside their targets, not checked: they are the
    // browser's wall clock, which a machine busy with other builds lengthens 3–4× (500 messages
    // painted in 115 ms quiet, 341–499 ms beside two builds) without the panel doing more.
    assert.ok(bundleBytes <= BUNDLE_MAX_BYTES, `bundle ${bundleBytes} B > ${BUNDLE_MAX_BYTES} B`);
  });
});
