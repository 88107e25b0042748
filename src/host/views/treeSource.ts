/**
 * What the Context Layers tree shows, gathered from the session (the chat's turns, the predicted next
 * request, the chips) and the requests this window sent (their full ledgers). The nodes themselves
 * are built by the pure model in src/services/ledgerTree.ts.
 */
import { computeBudget } from '../../engine/budget';
import type { TurnEnvelope } from '../../engine/engine';
import type { LedgerNode, Segment } from '../../engine/types';
import { rebuildTurnLedger } from '../../services/session/pastLedger';
import type { ChatSession } from '../../services/chatSession';
import type { TurnMeta } from '../../services/store/chatStore';
import { buildLedgerTree, fmt, sourceOfKey, type LedgerTreeNode, type NextItem, type RequestRecord } from '../../services/ledgerTree';
import type { SentRequest } from './sentRequests';
import type { StrataController } from '../strataController';
import { providerCachePrediction } from '../../services/cacheModel';

/** One request as the tree shows it: from the request this window sent when it has it, else from the saved turn. */
export function recordOf(
  meta: TurnMeta,
  sent: SentRequest | undefined,
  fallbackBudget: number,
  loadLedger?: () => LedgerNode | undefined,
): RequestRecord {
  if (sent) {
    const env = sent.envelope;
    const r: RequestRecord = {
      turn: env.turn,
      ledger: env.ledger,
      promptTokens: env.totalTokens,
      budget: env.budget,
      predictedCached: providerCachePrediction(sent.provider, env.ledger.cachedTokens),
      prefixBreak: env.prefixBreak,
      model: sent.model,
      outcome:
        sent.status === 'done'
          ? 'complete'
          : sent.status === 'stopped' || sent.status === 'streaming' || sent.status === 'preview'
            ? sent.status
            : 'error',
      pruned: env.pruned,
    };
    if (env.prefixBreakReason) r.prefixBreakReason = env.prefixBreakReason;
    if (sent.usage) r.reported = { ...sent.usage };
    return r;
  }
  const r: RequestRecord = {
    turn: meta.turn,
    promptTokens: meta.predicted?.promptTokens ?? 0,
    budget: meta.budget ?? fallbackBudget,
    predictedCached: providerCachePrediction(meta.provider, meta.predicted?.cachedTokens ?? 0),
    prefixBreak: meta.prefixBreak !== undefined,
    outcome: meta.stopped ? 'stopped' : 'complete',
  };
  if (meta.prefixBreak) r.prefixBreakReason = meta.prefixBreak;
  if (loadLedger) r.loadLedger = loadLedger;
  if (meta.layerTokens) r.layerTokens = meta.layerTokens;
  if (meta.layerCached) r.layerCached = meta.layerCached;
  if (meta.model) r.model = meta.model;
  if (meta.usage) r.reported = { ...meta.usage };
  if (meta.prunedReports) r.pruned = meta.prunedReports;
  return r;
}

/** The chips attached for the next message, priced from the predicted next request's L3 segments. */
function nextItems(session: ChatSession, predicted: TurnEnvelope | undefined): NextItem[] {
  const l3: Segment[] = predicted?.layers.find((l) => l.id === 'L3')?.segments ?? [];
  const byLabel = new Map<string, Segment>();
  for (const g of l3) {
    const src = sourceOfKey(g.artifactKey);
    if (!src) continue;
    const label = src.startLine !== undefined ? `${src.path}:L${src.startLine}-${src.endLine}` : src.path;
    byLabel.set(label, g);
  }
  return session.chips().map((c) => {
    const g = byLabel.get(c.label);
    const source = c.kind === 'selection' ? selectionSource(c.label) : { path: c.label };
    const item: NextItem = {
      chipId: c.id,
      kind: c.kind,
      label: c.label,
      tokens: g?.tokens ?? c.tokens,
      reference: g?.kind === 'reference',
      pinned: c.pinned,
      source,
    };
    if (c.definitions?.length) item.definitions = c.definitions.map((d) => ({ ...d, source: selectionSource(d.label) }));
    if (c.partial) item.partial = { ...c.partial };
    return item;
  });
}

function selectionSource(label: string): { path: string; startLine?: number; endLine?: number } {
  const m = /^(.*):L(\d+)-(\d+)$/.exec(label);
  return m ? { path: m[1], startLine: Number(m[2]), endLine: Number(m[3]) } : { path: label };
}

/** Whether the tree has a request to show (a last request or saved turns): what `treeNodes` decides, without counting anything. */
export function hasRequest(controller: StrataController, session: ChatSession): boolean {
  return session.turnMetas().length > 0 || !!controller.lastSent();
}

export function treeNodes(controller: StrataController, session: ChatSession, suggested?: string): LedgerTreeNode[] {
  // The predicted next request only when the meter has it: the first count of a long chat just
  // opened is made in time slices (see `StrataController.statePosted`), and the tree is built again
  // when it lands. Counting it here would do it all at once as the workbench asks for the rows.
  const meter = session.meterIfReady();
  const predicted = meter ? session.predictedEnvelope() : undefined;
  const budget = meter?.budget ?? computeBudget(session.engine.options.limits);
  const sent = controller.sentRequests();
  const metas = session.turnMetas();
  // One record per turn, made when the Requests list is opened (not at every refresh of a long chat).
  // A request this window did not send lists its items too, rebuilt from the saved chat when opened.
  const chatId = session.activeChatId;
  const load = (turn: number) => () => rebuildTurnLedger(session.store, chatId, session.engine.options, metas, turn);
  const requests = { count: metas.length, records: () => metas.map((m) => recordOf(m, sent.get(m.turn), budget, load(m.turn))) };
  // The last request: the newest sent from this window (a preview included), else the last saved turn.
  const lastSent = controller.lastSent();
  let last: RequestRecord | undefined;
  if (lastSent && lastSent.turn >= (metas[metas.length - 1]?.turn ?? 0))
    last = recordOf(metas[lastSent.turn - 1] ?? ({ turn: lastSent.turn } as TurnMeta), lastSent, budget);
  else if (metas.length > 0) {
    const m = metas[metas.length - 1];
    last = recordOf(m, sent.get(m.turn), budget, load(m.turn));
  }
  const next = nextItems(session, predicted);
  const model = session.modelInfo;
  const limits = session.engine.options.limits;
  const window = {
    contextWindow: limits.contextWindow,
    reservedOutput: limits.maxOutputTokens,
    budget,
    source: model.windowSource,
    model: model.label ?? `${model.provider} · ${model.model}`,
  };
  const nodes = buildLedgerTree({ window, last, next, nextTotal: predicted?.totalTokens, budget, requests, suggested });
  if (!meter?.cacheExpired) return nodes;
  // The figure first, as on every row (a narrow side bar cuts the end); the sentence with the price in the tooltip.
  const uncached = predicted ? `${fmt(predicted.totalTokens)} tokens uncached · ` : '';
  const expired: LedgerTreeNode = {
    id: 'cache-expired',
    label: `${uncached}cache likely expired`,
    icon: 'warning',
    contextValue: 'info',
    accessibility: meter.cacheExpired,
    tooltip: meter.nextCost && meter.nextCost !== meter.cacheExpired ? `${meter.cacheExpired}\n\n${meter.nextCost}` : meter.cacheExpired,
  };
  return [expired, ...nodes];
}

/** The exact text the request sends for a tree item: its block in the last request, else its snapshot. */
export function contentOf(
  controller: StrataController,
  session: ChatSession,
  node: LedgerTreeNode,
): { title: string; text: string } | undefined {
  const ref = node.ref;
  if (!ref) return undefined;
  const chip = session.chips().find((c) => c.id === ref);
  if (chip) {
    const env = session.predictedEnvelope();
    const seg = env?.layers
      .find((l) => l.id === 'L3')
      ?.segments.find((g) => {
        const src = sourceOfKey(g.artifactKey);
        return src && (src.startLine !== undefined ? `${src.path}:L${src.startLine}-${src.endLine}` : src.path) === chip.label;
      });
    if (seg) return { title: `${chip.label} (next message)`, text: seg.text };
    return undefined;
  }
  const last = controller.lastSent();
  if (last) {
    for (const layer of last.envelope.layers) {
      const seg = layer.segments.find((g) => g.artifactKey === ref && g.kind !== 'reference');
      if (seg) return { title: `${node.name ?? node.label} (as sent in turn ${last.turn})`, text: seg.text };
    }
  }
  const entry = session.engine.state.entries.get(ref);
  if (entry) return { title: `${node.name ?? node.label} (snapshot)`, text: entry.artifact.content };
  return undefined;
}
