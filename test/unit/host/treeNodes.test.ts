/**
 * The Context Layers tree of a chat just opened: built without counting the next request when the
 * meter has not counted it yet (a long chat's first count is made in time slices).
 */
import { modelInfo } from '../../../src/services/modelInfo';
import * as assert from 'node:assert/strict';
import { treeNodes } from '../../../src/host/views/treeSource';
import type { StrataController } from '../../../src/host/strataController';
import type { ChatSession } from '../../../src/services/chatSession';
import type { TurnMeta } from '../../../src/services/store/chatStore';

describe('the Context Layers tree of a long chat just opened', () => {
  it('does not count the next request until the meter has it', () => {
    let counted = 0;
    const metas = [{ turn: 1, at: '2026-01-01T00:00:00.000Z', budget: 14_000 }] as unknown as TurnMeta[];
    const session = {
      activeChatId: 'c1',
      meterIfReady: () => undefined,
      meter: () => {
        counted++;
        throw new Error('counted on the open path');
      },
      predictedEnvelope: () => {
        counted++;
        throw new Error('counted on the open path');
      },
      turnMetas: () => metas,
      chips: () => [],
      engine: { options: { limits: { contextWindow: 16_000, maxOutputTokens: 1024 } } },
      modelInfo: modelInfo('ollama', 'llama3.2', { contextWindow: 16_000, source: 'server' }),
    } as unknown as ChatSession;
    const controller = { sentRequests: () => new Map(), lastSent: () => undefined } as unknown as StrataController;
    const nodes = treeNodes(controller, session);
    assert.equal(counted, 0);
    assert.deepEqual(
      nodes.map((n) => n.id),
      ['window', 'last', 'next', 'requests'],
    );
    assert.equal(nodes[0].label, '16k window · from the server');
  });

  it('leads the cache-expired row with its figure, the sentence with the price in the tooltip', () => {
    const metas = [{ turn: 1, at: '2026-01-01T00:00:00.000Z', budget: 14_000 }] as unknown as TurnMeta[];
    const notice = 'cache likely expired — the next message costs ~$0.0051 (2,039 tokens uncached)';
    const session = {
      activeChatId: 'c1',
      meterIfReady: () => ({ budget: 14_000, cacheExpired: notice, nextCost: notice }),
      predictedEnvelope: () => ({ totalTokens: 2039, layers: [] }),
      turnMetas: () => metas,
      chips: () => [],
      engine: { options: { limits: { contextWindow: 16_000, maxOutputTokens: 1024 } } },
      modelInfo: modelInfo('ollama', 'llama3.2', { contextWindow: 16_000, source: 'server' }),
    } as unknown as ChatSession;
    const controller = { sentRequests: () => new Map(), lastSent: () => undefined } as unknown as StrataController;
    const [row] = treeNodes(controller, session);
    assert.equal(row.id, 'cache-expired');
    assert.equal(row.label, '2,039 tokens uncached · cache likely expired');
    assert.equal(row.tooltip, notice);
    assert.equal(row.accessibility, notice);
  });
});
