import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import type { SuggestionView } from '../../src/protocol/mentions';
import type { PanelState } from '../../src/protocol/messages';
import { assistantMessage, bar, CHAT_ID, chips, meter, model, state, userMessage } from './fixtures';
import type { Browser } from 'playwright-core';
import { launchBrowser, Panel } from './harness';
import { PanelServer, type ThemeKind } from './server';

/** axe-core's browser build, evaluated in the page (a script tag would break the page's CSP). */
const AXE_SOURCE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[]; failureSummary?: string }[];
}

/** Runs axe over the whole page; returns the serious and critical violations, one line each. */
async function seriousViolations(p: Panel): Promise<string[]> {
  await p.settle();
  // The panel's own checks first: axe adds inline styles the page's CSP reports.
  assert.deepEqual(await p.problems(), { violations: [], errors: [] });
  await p.page.evaluate(AXE_SOURCE);
  const violations = await p.page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(ctx: unknown, opts: unknown): Promise<{ violations: AxeViolation[] }> } }).axe;
    const result = await axe.run((globalThis as unknown as { document: unknown }).document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'] },
      resultTypes: ['violations'],
    });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.slice(0, 3).map((n) => ({ target: n.target, failureSummary: n.failureSummary })),
    }));
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) => `${v.impact} ${v.id} (${v.help}): ${v.nodes.map((n) => `${JSON.stringify(n.target)} ${n.failureSummary ?? ''}`).join(' | ')}`,
    );
}

const REPLY = [
  'The prefix breaks because `renderLibrary()` re-sorts the blocks. Keep the first-seen order:',
  '```ts\nexport function renderLibrary(items: readonly Artifact[]): string {\n  return items.map(block).join("\\n");\n}\n```',
  '- The **L2** library only grows.\n- See [the notes](https://example.com/design).',
].join('\n\n');

function chat(): PanelState['messages'] {
  return [
    userMessage(1, 'Why does the cache miss?', ['src/engine/library.ts', 'src/engine/cache.ts:L12-30']),
    assistantMessage(1, REPLY, {
      cost: { text: '$0.021, saved $0.012', usd: 0.0213, savedUsd: 0.0123 },
      toolSteps: [
        {
          id: 'c1',
          step: 1,
          name: 'read_file',
          label: 'read_file src/engine/library.ts',
          args: '{"path":"src/engine/library.ts"}',
          status: 'done',
          summary: 'src/engine/library.ts, 80 lines',
          resultTokens: 900,
          textOffset: 40,
        },
      ],
    }),
    userMessage(2, 'And the transcript layout?'),
    assistantMessage(2, 'Each request is a pure append of the previous one.', { status: 'stopped' }),
  ];
}

/** The active editor's selection, offered next to the chips (and one the isolation refuses). */
const SUGGESTION: SuggestionView = {
  label: 'render.ts:21-26',
  detail: 'src/render.ts:21-26',
  ref: { kind: 'range', path: 'src/render.ts', startLine: 21, endLine: 26 },
  available: true,
};

async function suggest(p: Panel, suggestion: SuggestionView): Promise<void> {
  await p.post({ type: 'suggestion', suggestion });
  await p.settle();
}

/** A reply that cites files: a range, a backticked path in prose and one in a list (all validated by the host). */
const CITING = [
  'The order is set in src/engine/library.ts:12-30, and `src/engine/cache.ts` reads it back:',
  '- `src/engine/cache.ts` keys each block by its hash.',
].join('\n\n');

/** The citations' colour contrast as axe measured it: each link's ratio, and the links axe did not decide. */
async function citationContrast(p: Panel): Promise<{ ratios: number[]; undecided: string[] }> {
  await p.page.evaluate(AXE_SOURCE);
  return p.page.evaluate(async () => {
    type Node = { target: string[]; any: { data?: { contrastRatio?: number } }[] };
    const g = globalThis as unknown as {
      axe: {
        run(
          ctx: unknown,
          opts: unknown,
        ): Promise<{ passes: { nodes: Node[] }[]; violations: { nodes: Node[] }[]; incomplete: { nodes: Node[] }[] }>;
      };
      document: { querySelector(s: string): { closest(s: string): unknown } | null };
    };
    const result = await g.axe.run(
      { include: [['[data-testid="strata-citation"]']] },
      {
        runOnly: { type: 'rule', values: ['color-contrast'] },
        resultTypes: ['passes', 'violations', 'incomplete'],
      },
    );
    const isCitation = (n: Node) => g.document.querySelector(n.target[0])?.closest('[data-testid="strata-citation"]') != null;
    const ratio = (n: Node) => n.any[0]?.data?.contrastRatio ?? 0;
    const decided = [...result.passes, ...result.violations].flatMap((r) => r.nodes).filter(isCitation);
    const undecided = result.incomplete
      .flatMap((r) => r.nodes)
      .filter(isCitation)
      .map((n) => n.target.join(' '));
    return { ratios: decided.map(ratio), undecided };
  });
}

/** The panel's states, each checked with axe in the four theme kinds. */
const STATES: Record<string, (p: Panel) => Promise<void>> = {
  empty: (p) =>
    p.init(
      state({
        chatTitle: 'New Chat',
        model: model({ provider: 'none', model: '', label: 'No model configured', configured: false }),
        meter: meter({ used: 0, lastCachedShare: undefined }),
      }),
    ),
  'replies and code blocks': (p) => p.init(state({ messages: chat() })),
  citations: async (p) => {
    await p.init(state({ messages: [...chat(), userMessage(3, 'Where is the order kept?'), assistantMessage(3, CITING)] }));
    const asked = await p.waitForRequest('resolveCitations');
    await p.respond(asked.requestId, { ok: true, value: ['src/engine/library.ts', 'src/engine/cache.ts'] });
    await p.byTestId('strata-citation').nth(2).waitFor({ state: 'visible' });
  },
  'chips attached': (p) => p.init(state({ messages: chat(), chips })),
  'chips folded': (p) =>
    p.init(
      state({
        messages: chat(),
        model: model({ label: 'gpt-4o', imitation: true }),
        chips: Array.from({ length: 5 }, (_, i) => ({
          id: `chip-${i + 1}`,
          kind: 'file' as const,
          label: `src/module${i + 1}/component${i + 1}.ts`,
          tokens: 25_000 + i,
          pinned: i === 0,
        })),
      }),
    ),
  'a chip removed, with Undo': async (p) => {
    const removed = 'src/engine/tokenizer.ts: removed from next message. Removing: next message ~4,180 → ~768 uncached tokens.';
    await p.init(state({ messages: chat(), chips: [{ ...chips[0], removed: { message: removed } }, chips[1]] }));
    await p.byTestId('strata-chip-undo').focus();
  },
  'suggestion after the chips': async (p) => {
    await p.init(state({ messages: chat(), chips }));
    await suggest(p, SUGGESTION);
  },
  'suggestion refused, chips folded': async (p) => {
    await STATES['chips folded'](p);
    await suggest(p, {
      ...SUGGESTION,
      label: '.env',
      detail: '.env',
      ref: { kind: 'file', path: '.env' },
      available: false,
      reason: '.env is excluded',
    });
  },
  'in context open, chat cost beside the meter': async (p) => {
    await p.init(state({ messages: chat(), meter: meter({ chatCost: 'Chat: no price known', chatPriceMissing: true }) }));
    await p.post({
      type: 'inContext',
      inContext: {
        items: [
          { ref: 'instructions:AGENTS.md', kind: 'instructions', label: 'AGENTS.md', tokens: 212, pinned: false },
          { ref: 'file:src/cart.ts', kind: 'file', label: 'src/cart.ts', tokens: 0, pinned: false, pending: 'detach' },
          { ref: 'file:src/catalog.ts', kind: 'file', label: 'src/catalog.ts', tokens: 5_640, pinned: true },
        ],
        tokens: 5_852,
      },
    });
    await p.byTestId('strata-in-context-toggle').click();
    await p.byTestId('strata-in-context-undo').focus();
  },
  history: async (p) => {
    await p.init(state({ messages: chat() }));
    await p.byTestId('strata-history-button').click();
    await p.byTestId('strata-history-search').fill('cache');
    const asked = await p.waitForRequest('searchChats');
    await p.respond(asked.requestId, { ok: true, value: { hits: [{ chatId: 'chat-2', excerpt: '…the prompt cache…' }], complete: true } });
  },
  'error banner': (p) =>
    p.init(
      state({
        messages: [
          ...chat().slice(0, 2),
          userMessage(2, 'Summarize the repository.'),
          assistantMessage(2, '', { status: 'error', error: 'The request is over the context window.', bar: undefined, usage: undefined }),
        ],
        banners: [
          { id: 'auth', severity: 'error', message: 'OpenAI rejected the API key (401).', actions: ['setApiKey', 'showLog', 'dismiss'] },
        ],
        notices: [{ id: 'restricted', message: 'Restricted Mode: project instruction files are not read.' }],
        meter: meter({ used: 131_072, level: 'over' }),
      }),
    ),
  'refusal banner with its actions, a cut error with More': async (p) => {
    await p.init(
      state({
        messages: chat(),
        banners: [
          {
            id: 'size',
            severity: 'warning',
            message: 'logs/server.log is 20 MB (limit 8 MB); nothing of it was sent.',
            actions: ['attachHead', 'raiseLimit', 'dismiss'],
            setting: 'strata.context.maxFileBytes',
            path: 'logs/server.log',
          },
          {
            id: 'connection',
            severity: 'error',
            message:
              'Cannot connect to http://127.0.0.1:9/v1: connection refused. Is the server running? Check that the server is started and listening on that port, and that strata.baseUrl names it (OpenAI-compatible servers usually end in /v1).',
            actions: ['retry', 'editBaseUrl', 'showLog', 'dismiss'],
          },
        ],
      }),
    );
    await p.byTestId('strata-error').getByTestId('strata-banner-more').waitFor({ state: 'visible' });
    await p.byTestId('strata-warning').getByTestId('strata-banner-action').first().focus();
  },
  'picker marks refused files': async (p) => {
    await p.init(state({ messages: chat() }));
    await p.byTestId('strata-input').click();
    await p.page.keyboard.type('@');
    const asked = await p.waitForRequest('mentions');
    await p.respond(asked.requestId, {
      ok: true,
      value: [
        { kind: 'file', label: 'src/app.ts', detail: 'src', ref: { kind: 'file', path: 'src/app.ts' } },
        {
          kind: 'file',
          label: 'logs/server.log',
          detail: 'logs',
          ref: { kind: 'file', path: 'logs/server.log' },
          refused: '20 MB (limit 8 MB)',
        },
        {
          kind: 'file',
          label: 'media/logo.png',
          detail: 'media',
          ref: { kind: 'file', path: 'media/logo.png' },
          refused: 'binary (PNG image)',
        },
      ],
    });
    await p.byTestId('strata-picker-refused').nth(1).waitFor({ state: 'visible' });
    await p.page.keyboard.press('ArrowDown');
  },
  streaming: async (p) => {
    await p.init(state({ messages: chat(), chips: [chips[0]] }));
    await p.post({
      type: 'turnStarted',
      chatId: CHAT_ID,
      turnId: 't3',
      user: userMessage(3, 'Show me the fix.'),
      assistant: assistantMessage(3, '', { status: 'streaming', usage: undefined, bar: bar() }),
    });
    await p.post({ type: 'chunk', chatId: CHAT_ID, turnId: 't3', seq: 0, text: 'Keep the order:\n\n```ts\nconst seen = new Map();\n' });
    await p.post({ type: 'state', state: state({ messages: chat(), busy: true }) });
  },
};

describe('accessibility of the panel: axe-core, no serious or critical violation (real browser)', function () {
  this.timeout(120_000);
  const server = new PanelServer();
  let browser: Browser;
  const themes: readonly ThemeKind[] = ['dark', 'light', 'hc', 'hc-light'];

  before(async () => {
    await server.start();
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await server.stop();
  });

  for (const theme of themes) {
    for (const [name, show] of Object.entries(STATES)) {
      it(`${name}, ${theme} theme`, async () => {
        const p = await Panel.open(browser, server, { theme, width: name === 'chips folded' ? 300 : 400, height: 700 });
        try {
          await show(p);
          assert.deepEqual(await seriousViolations(p), []);
        } finally {
          await p.close();
        }
      });
    }
    it(`citations: at least 4.5:1 contrast, measured by axe, ${theme} theme`, async () => {
      const p = await Panel.open(browser, server, { theme, width: 400, height: 700 });
      try {
        await STATES.citations(p);
        assert.equal(await p.byTestId('strata-citation').count(), 3);
        const { ratios, undecided } = await citationContrast(p);
        assert.deepEqual(undecided, [], 'citations whose contrast axe could not decide');
        assert.equal(ratios.length, 3, 'citations axe measured');
        for (const r of ratios) assert.ok(r >= 4.5, `a citation at ${r}:1 (ratios ${ratios.join(', ')})`);
      } finally {
        await p.close();
      }
    });
  }
});
