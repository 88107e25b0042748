/**
 * One predicted-cache figure in every view: the Context Layers tree, "Show Last Request", a turn's
 * bar in the panel and a tool step show the same number for the same request, and it equals what the
 * imitation servers report (they follow the same provider rules, docs/design.md), tool steps included.
 * The turns are the `npm start -- --imitate` demo's: the demo model reads a file the message names.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { lastRequestDocument } from '../../../src/host/commands/lastRequestDocument';
import type { TurnEnvelope } from '../../../src/engine/engine';
import type { WholeRequest } from '../../../src/host/views/sentRequests';
import { recordOf } from '../../../src/host/views/treeSource';
import { providerCachePrediction } from '../../../src/services/cacheModel';
import { ChatSession } from '../../../src/services/chatSession';
import { buildLedgerTree } from '../../../src/services/ledgerTree';
import { MemoryWorkspace } from '../../../src/services/memoryWorkspace';
import { modelInfo } from '../../../src/services/modelInfo';
import { AnthropicProvider, OpenAIProvider, type ChatProvider } from '../../../src/services/providers';
import { layerBar } from '../../../src/services/session/messageViews';
import { getTokenizer } from '../../../src/services/tokenizer';
import type { TurnOutcome } from '../../../src/services/turnPipeline';
import { startAnthropicImitation, startOpenAIImitation, type ReplyContext, type ScriptedResponse } from '../../support/imitationServers';
import { tempDir } from '../../support/tempDir';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const demo = require(path.join(__dirname, '..', '..', '..', '..', 'scripts', 'lib', 'imitation.js')) as {
  describeRequest(c: ReplyContext): ScriptedResponse;
};

const SAMPLE = path.join(__dirname, '..', '..', '..', '..', 'samples', 'workspace');
const FILES = ['src/index.ts', 'src/tax.ts', 'src/money.ts', 'src/render.ts', 'src/invoice.ts', 'AGENTS.md'];

function sampleWorkspace(): MemoryWorkspace {
  return new MemoryWorkspace(Object.fromEntries(FILES.map((f) => [f, fs.readFileSync(path.join(SAMPLE, f), 'utf8')])));
}

/** The figure "Show Last Request" prints on its `// Cached:` line. */
function documentFigure(doc: string): number {
  const m = /^\/\/ Cached: ([\d,]+) predicted;/m.exec(doc);
  assert.ok(m, doc.slice(0, 400));
  return Number(m[1].replace(/,/g, ''));
}

/** The figure the tree's request row prints ("N predicted cached" in its tooltip). */
function treeFigure(tooltip: string | undefined): number {
  const m = /Cache: ([\d,]+) predicted cached/.exec(tooltip ?? '');
  assert.ok(m, tooltip);
  return Number(m[1].replace(/,/g, ''));
}

async function demoTurns(kind: 'openai' | 'anthropic'): Promise<void> {
  const server =
    kind === 'openai'
      ? await startOpenAIImitation({ replyFor: demo.describeRequest })
      : await startAnthropicImitation({ replyFor: demo.describeRequest });
  try {
    const model = kind === 'openai' ? modelInfo('openai', 'gpt-4o') : modelInfo('anthropic', 'claude-sonnet-4-5');
    const provider: ChatProvider =
      kind === 'openai'
        ? new OpenAIProvider({ apiKey: 'sk-test', baseURL: server.url })
        : new AnthropicProvider({ apiKey: 'sk-ant-test', baseURL: server.url });
    const session = ChatSession.open({
      storeRoot: tempDir('strata-cache-views-'),
      port: sampleWorkspace(),
      tokenizer: (e) => getTokenizer(e),
      settings: () => ({
        layout: 'transcript',
        policy: 'append-version',
        tools: { enabled: true, maxSteps: 8, maxResultTokens: 6000, maxTurnTokens: 60_000 },
      }),
      log: () => undefined,
      model,
      store: { durable: false },
      newChatId: () => 'demo',
    });
    for (const f of ['src/invoice.ts', 'src/money.ts', 'src/render.ts']) await session.attach({ kind: 'file', path: f });
    const outcomes: TurnOutcome[] = [];
    // The demo model reads the file a message names with a tool: a turn of two requests, then turns after it.
    const built: TurnEnvelope[] = [];
    for (const text of ['What does this code do?', 'And what is in src/tax.ts?', 'Thanks, anything else?'])
      outcomes.push(await session.send(text, provider, model, undefined, (e) => e.type === 'built' && built.push(e.envelope)));
    const metas = session.turnMetas();
    assert.ok(server.chatRequests.length > outcomes.length, 'a turn made a tool step');
    // Every request, the tool step's included, is predicted as the server reports it.
    assert.deepEqual(
      built.map((e) => providerCachePrediction(kind, e.ledger.cachedTokens)),
      server.chatRequests.map((r) => r.usage?.cacheRead),
    );
    let compared = 0;
    for (const [i, o] of outcomes.entries()) {
      assert.equal(o.status, 'done');
      const sent: WholeRequest = {
        chatId: 'demo',
        turn: i + 1,
        envelope: o.envelope!,
        status: 'done',
        usage: o.usage,
        model: kind,
        provider: kind,
      };
      const record = recordOf(metas[i], sent, 100_000);
      const [tree] = buildLedgerTree({ last: record, next: [], budget: record.budget, requests: [] });
      const fromTree = treeFigure(tree.tooltip);
      const fromDocument = documentFigure(lastRequestDocument(sent));
      // The saved turn (what a reloaded window shows) and the panel's bar, without the usage.
      const saved = recordOf(metas[i], undefined, 100_000);
      const bar = layerBar({ ...metas[i], usage: undefined });
      assert.equal(fromDocument, fromTree, `turn ${i + 1}: tree and Show Last Request`);
      assert.equal(saved.predictedCached, fromTree, `turn ${i + 1}: a reloaded tree`);
      assert.equal(bar?.cached, fromTree, `turn ${i + 1}: the turn's bar`);
      assert.equal(o.usage!.cacheRead, fromTree, `turn ${i + 1}: reported = predicted (no ⚠)`);
      assert.ok(!tree.description?.includes('⚠'), tree.description);
      if (fromTree > 0) compared++;
    }
    assert.equal(compared, kind === 'openai' ? 3 : 2, 'the later turns were cache hits');
  } finally {
    await server.close();
  }
}

describe('one predicted-cache figure in every view', () => {
  it('OpenAI: the tree, Show Last Request, the bar and the imitation agree on every turn, a tool turn included', () => demoTurns('openai'));
  it('Anthropic: the same, at the breakpoints the imitation reads', () => demoTurns('anthropic'));
});
