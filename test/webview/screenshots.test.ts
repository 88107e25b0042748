import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import type { Browser } from 'playwright-core';
import type { PanelState } from '../../src/protocol/messages';
import { assistantMessage, bar, CHAT_ID, chips, meter, model, state, userMessage } from './fixtures';
import { launchBrowser, Panel } from './harness';
import { PanelServer, type ThemeKind } from './server';

const THEMES: readonly ThemeKind[] = ['dark', 'light', 'hc'];
const WIDTHS = [300, 500] as const;

const REPLY = [
  'The prefix breaks because `renderLibrary()` re-sorts the blocks on every turn. Keep the first-seen order and the cache holds:',
  '```ts\nexport function renderLibrary(items: readonly Artifact[]): string {\n  // first-seen order: never sort\n  return items.map((a) => block(a)).join("\\n");\n}\n```',
  '- The **L2** library only grows.\n- Each version is sent once.',
  'See the [design notes](https://example.com/design) for the exact rule.',
].join('\n\n');

function conversation(): PanelState['messages'] {
  return [
    userMessage(1, 'Why does the provider cache miss on every turn?', ['src/engine/library.ts', 'src/engine/cache.ts:L12-30']),
    assistantMessage(1, REPLY, {
      bar: bar({ cached: 9_800, cachedReported: true }),
      cost: { text: '$0.021, saved $0.012', usd: 0.0213, savedUsd: 0.0123 },
    }),
    userMessage(2, 'And with the transcript layout?'),
    assistantMessage(
      2,
      'With `transcript` each request is a pure append of the previous one, so everything but the new turn can be served from the cache.',
      {
        bar: bar({ layers: { L1: 1_200, L2: 6_400, L3: 420, L4: 3_900, L5: 40 }, cached: 11_200 }),
        usage: { input: 11_960, cacheRead: 11_200, cacheWrite: 0, output: 96 },
        cost: { text: '$0.017, saved $0.014', usd: 0.017, savedUsd: 0.014 },
      },
    ),
  ];
}

/**
 * Screenshots of the panel in the three theme kinds at a narrow (300 px) and a wide (500 px)
 * sidebar: the empty state, a streamed reply with code and the layer bars (one hovered), an error
 * banner, the request preview, the chat list and the model menu. Saved to .harness/webview/screenshots/.
 */
describe('chat panel screenshots (real browser)', function () {
  this.timeout(180_000);
  const server = new PanelServer();
  let browser: Browser;
  const saved: string[] = [];

  before(async () => {
    await server.start();
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await server.stop();
    if (saved.length > 0) console.log(`saved ${saved.length} screenshots to ${saved[0].replace(/[^/]+$/, '')}`);
  });

  for (const theme of THEMES) {
    for (const width of WIDTHS) {
      it(`${theme} theme at ${width} px`, async () => {
        const shot = async (p: Panel, name: string) => {
          const file = await p.screenshot(`${theme}-${width}-${name}`);
          assert.ok(fs.statSync(file).size > 1000);
          saved.push(file);
        };
        const open = () => Panel.open(browser, server, { theme, width, height: 640 });

        // Empty state: a new chat, nothing configured yet, one selection attached.
        let p = await open();
        await p.init(
          state({
            chatTitle: 'New Chat',
            model: model({ provider: 'none', model: '', label: 'No model configured', configured: false }),
            chips: [chips[1]],
            meter: meter({ used: 1_480, lastCachedShare: undefined }),
          }),
        );
        await shot(p, 'empty');
        await p.close();

        // A long chat just opened: its messages at once, the meter still counting.
        p = await open();
        await p.init(state({ messages: conversation(), chips: [], meter: undefined }));
        await shot(p, 'meter-counting');
        await p.close();

        // A reply streaming in after two answered turns, a hovered layer bar.
        p = await open();
        await p.init(
          state({
            messages: conversation(),
            chips,
            meter: meter({
              used: 15_902,
              lastCachedShare: 0.94,
              cacheExpired: 'cache likely expired — the next message costs ~$0.040 (15,902 tokens uncached)',
            }),
          }),
        );
        await p.post({
          type: 'turnStarted',
          chatId: CHAT_ID,
          turnId: 't3',
          user: userMessage(3, 'Show me the fix for the library order.'),
          assistant: assistantMessage(3, '', {
            status: 'streaming',
            usage: undefined,
            bar: bar({ layers: { L1: 1_200, L2: 6_400, L3: 510, L4: 4_050, L5: 52 }, cached: 11_650, cachedReported: false }),
          }),
        });
        const pieces = [
          'Keep the library in first-seen order:\n\n',
          '```ts\nconst seen = new Map<string, Artifact>();\n',
          'for (const a of attached) {\n  if (!seen.has(a.id)) seen.set(a.id, a);\n}\n',
        ];
        for (let i = 0; i < pieces.length; i++) await p.post({ type: 'chunk', chatId: CHAT_ID, turnId: 't3', seq: i, text: pieces[i] });
        await p.settle();
        await shot(p, 'streaming');
        await p.byTestId('strata-layer-bar').first().hover();
        await p.byTestId('strata-tooltip').waitFor({ state: 'visible' });
        await shot(p, 'layer-tooltip');
        await p.byTestId('strata-meter').hover();
        await p.page.waitForFunction(() => {
          const g = globalThis as unknown as { document: { querySelector(s: string): { textContent: string | null } | null } };
          return (g.document.querySelector('#strata-tooltip')?.textContent ?? '').includes('Context window');
        });
        await shot(p, 'meter-tooltip');
        await p.close();

        // An error: a banner with actions, the reply that failed, the meter over budget.
        p = await open();
        await p.init(
          state({
            messages: [
              ...conversation().slice(0, 2),
              userMessage(2, 'Summarize the whole repository.'),
              assistantMessage(2, '', {
                status: 'error',
                error: 'The request is over the model’s context window (131,072 > 128,000 tokens).',
                bar: undefined,
                usage: undefined,
              }),
            ],
            banners: [
              {
                id: 'auth',
                severity: 'error',
                message: 'OpenAI rejected the API key (401 Unauthorized).',
                actions: ['setApiKey', 'openSettings', 'showLog', 'dismiss'],
              },
            ],
            notices: [{ id: 'restricted', message: 'Restricted Mode: project instruction files are not read.' }],
            meter: meter({ used: 131_072, level: 'over' }),
          }),
        );
        await shot(p, 'error');
        await p.close();

        // The request preview (no provider configured).
        p = await open();
        await p.init(
          state({
            messages: [userMessage(1, 'What does buildTurn return?', ['src/engine/engine.ts'])],
            model: model({ provider: 'none', model: '', label: 'No model configured', configured: false }),
          }),
        );
        await p.post({
          type: 'preview',
          preview: {
            promptTokens: 2_431,
            request: JSON.stringify(
              {
                provider: 'none',
                messages: [
                  { role: 'system', content: 'You are Strata, a careful coding assistant…' },
                  {
                    role: 'user',
                    content:
                      '<file path="src/engine/engine.ts" version="1">\nexport function buildTurn(input: TurnInput): Envelope {\n…\n</file>\n\nWhat does buildTurn return?',
                  },
                ],
              },
              null,
              2,
            ),
            howTo:
              'No model provider is configured. Choose one:\n\n- **OpenAI**: set `strata.provider` to `openai`, then run **Strata: Set API Key**.\n- **Anthropic**: set `strata.provider` to `anthropic`.\n- **VS Code language models**: `vscode-lm` (for example Copilot).\n\n```json\n{ "strata.provider": "openai", "strata.model": "gpt-4o" }\n```',
          },
        });
        await p.settle();
        await shot(p, 'preview');
        await p.close();

        // The chat list, with one row confirming a delete.
        p = await open();
        await p.init(state({ messages: conversation() }));
        await p.byTestId('strata-chat-title').click();
        await p.page.locator('[data-chat-id="chat-2"]').getByTestId('strata-chat-delete').click();
        await p.settle();
        await shot(p, 'chat-list');
        await p.page.keyboard.press('Escape');

        // The model picker's menu.
        await p.byTestId('strata-model').click();
        const list = await p.waitForRequest('listModels');
        await p.respond(list.requestId, {
          ok: true,
          value: [
            { provider: 'openai', model: 'gpt-4o', label: 'OpenAI · gpt-4o' },
            { provider: 'openai', model: 'gpt-4.1-mini', label: 'OpenAI · gpt-4.1-mini' },
            { provider: 'anthropic', model: 'claude-sonnet-4', label: 'Anthropic · claude-sonnet-4', detail: 'estimated tokens' },
            { provider: 'vscode-lm', model: 'copilot-gpt-4.1', label: 'VS Code · GPT-4.1', detail: 'Copilot' },
          ],
        });
        await shot(p, 'model-menu');
        await p.close();
      });
    }
  }
});
