import type { ChipView, LayerBar, MessageView, MeterView, ModelView, PanelState } from '../../src/protocol/messages';
import { prng as rng } from '../../bench/perf/generate';

export const CHAT_ID = 'chat-1';

export function meter(over: Partial<MeterView> = {}): MeterView {
  return {
    used: 12_345,
    budget: 122_904,
    contextWindow: 128_000,
    reservedOutput: 4_096,
    margin: 1_000,
    warnPercent: 70,
    compactPercent: 80,
    targetPercent: 60,
    lastCachedShare: 0.64,
    level: 'ok',
    estimated: false,
    ...over,
  };
}

export function model(over: Partial<ModelView> = {}): ModelView {
  return { provider: 'openai', model: 'gpt-4o', label: 'OpenAI · gpt-4o', configured: true, imitation: false, ...over };
}

export function state(over: Partial<PanelState> = {}): PanelState {
  return {
    chatId: CHAT_ID,
    chatTitle: 'Refactor the tokenizer cache',
    chats: [
      { id: CHAT_ID, title: 'Refactor the tokenizer cache', turns: 3, updatedAt: new Date(Date.now() - 5 * 60_000).toISOString() },
      { id: 'chat-2', title: 'Why does the prefix cache break?', turns: 12, updatedAt: new Date(Date.now() - 26 * 3600_000).toISOString() },
      { id: 'chat-3', title: 'Webview CSP review', turns: 1, updatedAt: '2025-01-10T10:00:00.000Z' },
    ],
    messages: [],
    hasOlder: false,
    chips: [],
    meter: meter(),
    model: model(),
    busy: false,
    banners: [],
    notices: [],
    ...over,
  };
}

export function bar(over: Partial<LayerBar> = {}): LayerBar {
  const layers = { L1: 1_200, L2: 6_400, L3: 1_850, L4: 2_700, L5: 95, ...(over.layers ?? {}) };
  const total = layers.L1 + layers.L2 + layers.L3 + layers.L4 + layers.L5;
  // As a transcript request is cached: the system message and everything sent before this turn.
  const cachedByLayer = { L1: layers.L1, L2: layers.L2, L3: 0, L4: layers.L4, L5: 0 };
  return { total, cached: layers.L1 + layers.L2 + layers.L4, cachedReported: true, cachedByLayer, ...over, layers };
}

export function userMessage(turn: number, text: string, attachments?: string[]): MessageView {
  return { id: `${turn}:user`, turn, role: 'user', text, status: 'complete', attachments };
}

export function assistantMessage(turn: number, text: string, over: Partial<MessageView> = {}): MessageView {
  return {
    id: `${turn}:assistant`,
    turn,
    role: 'assistant',
    text,
    status: 'complete',
    bar: bar(),
    usage: { input: 12_245, cacheRead: 7_837, cacheWrite: 0, output: 412 },
    model: 'OpenAI · gpt-4o',
    ...over,
  };
}

export const chips: ChipView[] = [
  {
    id: 'chip-1',
    kind: 'file',
    label: 'src/engine/tokenizer.ts',
    tokens: 3_412,
    pinned: false,
    detail: '/work/app/src/engine/tokenizer.ts · 182 lines',
  },
  {
    id: 'chip-2',
    kind: 'selection',
    label: 'src/engine/cache.ts:L12-30',
    tokens: 240,
    pinned: true,
    detail: 'Lines 12–30 of /work/app/src/engine/cache.ts · unsaved changes',
  },
];

const WORDS =
  'the cache prefix request token budget layer history library attachment version selection engine provider stream message reply function returns value because when which each file block render hash order'.split(
    ' ',
  );

function sentence(r: () => number, min = 8, max = 20): string {
  const n = min + Math.floor(r() * (max - min));
  const words = Array.from({ length: n }, () => WORDS[Math.floor(r() * WORDS.length)]);
  if (r() < 0.3) words[Math.floor(r() * n)] = '`buildTurn()`';
  const s = words.join(' ');
  return `${s[0].toUpperCase()}${s.slice(1)}.`;
}

function codeBlock(r: () => number, lines: number): string {
  const body: string[] = [];
  body.push(`export function step${Math.floor(r() * 1000)}(input: readonly Item[], budget: number): Result {`);
  for (let i = 0; i < lines; i++) {
    body.push(
      `  const v${i} = input.filter((x) => x.tokens < budget && x.id !== '${WORDS[i % WORDS.length]}').length; // ${sentence(r, 3, 6)}`,
    );
  }
  body.push('  return { ok: true, value: v0 };', '}');
  return `\`\`\`ts\n${body.join('\n')}\n\`\`\``;
}

/** A realistic assistant reply: paragraphs, a list, a code block, inline code. */
export function reply(r: () => number): string {
  const parts = [`${sentence(r)} ${sentence(r)}`, `- ${sentence(r, 5, 10)}\n- ${sentence(r, 5, 10)}\n- ${sentence(r, 5, 10)}`];
  if (r() < 0.8) parts.push(codeBlock(r, 6 + Math.floor(r() * 12)));
  parts.push(`${sentence(r)} ${sentence(r)} ${sentence(r)}`);
  if (r() < 0.3) parts.push(`| layer | tokens |\n|---|--:|\n| L1 | 1,200 |\n| L2 | 6,400 |`);
  return parts.join('\n\n');
}

/** `count` messages (user/assistant alternating), turns 1…count/2, oldest first. */
export function longChat(count: number, seed = 7, firstTurn = 1): MessageView[] {
  const r = rng(seed);
  const out: MessageView[] = [];
  for (let i = 0; out.length < count; i++) {
    const turn = firstTurn + i;
    out.push(
      userMessage(
        turn,
        `${sentence(r, 6, 16).replace(/\.$/, '?')} Look at the selection.`,
        r() < 0.5 ? ['src/engine/cache.ts:L12-30'] : undefined,
      ),
    );
    if (out.length < count) out.push(assistantMessage(turn, reply(r)));
  }
  return out;
}

export const STREAM_TEXTS = [
  'The prefix',
  ' stays cached because',
  ' each request appends',
  ' to the previous one;',
  ' only the `L3` block',
  ' changes.\n\n',
  '- first point',
  '\n- second `point`\n\n',
  'More text follows here',
  ' and the reply keeps growing',
];
