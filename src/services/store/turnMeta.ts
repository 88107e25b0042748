/**
 * The metadata a saved turn records (`TurnMeta`): what went out with it (attachments, pins, the
 * request's layer hashes, prefix and tokens), what the provider reported, and what the user asked for.
 */
import type { ToolStepView } from '../../protocol/messages';
import type { AppendTurnInput, StoredTurnRequest, TurnAttachmentMeta, TurnMeta } from './chatTypes';

/** The meta of the turn `input.state` just completed; `now` stamps it (display only). */
export function buildTurnMeta(input: AppendTurnInput, now: () => Date): TurnMeta {
  const s = input.state;
  const record = s.turns.length > 0 && s.turns[s.turns.length - 1].turn === s.completedTurns ? s.turns[s.turns.length - 1] : undefined;
  // One pass over the entries for the five lists (a long chat has hundreds).
  const pinned: string[] = [];
  const detached: string[] = [];
  const pruned: string[] = [];
  const compacted: string[] = [];
  const missing: string[] = [];
  for (const k of s.order) {
    const e = s.entries.get(k)!;
    if (e.presence === 'present') {
      if (e.essential) pinned.push(k);
      if (e.compacted) compacted.push(k);
    } else if (e.presence === 'detached') detached.push(k);
    else if (e.presence === 'pruned') pruned.push(k);
    if (e.missing) missing.push(k);
  }
  const meta: TurnMeta = {
    turn: s.completedTurns,
    at: now().toISOString(),
    attachments: (record?.items ?? []).map((i) => {
      const a = s.entries.get(i.key)!.artifact;
      const m: TurnAttachmentMeta = {
        key: i.key,
        id: a.id,
        kind: a.kind,
        version: a.version,
        contentHash: a.contentHash,
        uri: a.source.uri,
        mode: i.mode,
      };
      if (a.source.range) m.range = { ...a.source.range };
      return m;
    }),
    pinned,
    detached,
    pruned,
    compacted,
    missing,
  };
  if (s.summary) meta.summaryThrough = s.summary.throughTurn;
  const env = input.envelope;
  const layerHashes = input.layerHashes ?? (env?.layers ? Object.fromEntries(env.layers.map((l) => [l.id, l.hash])) : undefined);
  if (layerHashes) meta.layerHashes = layerHashes;
  if (env?.prefixHash) meta.prefixHash = env.prefixHash;
  if (env?.prefixBreak) meta.prefixBreak = env.prefixBreakReason ?? 'the prefix changed';
  if (env?.ledger?.budget !== undefined) meta.budget = env.ledger.budget;
  if (env?.totalTokens !== undefined) meta.predicted = { promptTokens: env.totalTokens, cachedTokens: env.ledger?.cachedTokens ?? 0 };
  if (env?.pruned && env.pruned.length > 0) meta.prunedReports = env.pruned.map((p) => ({ ...p }));
  if (env?.rejections && env.rejections.length > 0)
    meta.rejections = env.rejections.map((r) => ({ attachment: r.attachment, reason: r.reason }));
  if (input.usage)
    meta.usage = {
      input: input.usage.input,
      cacheRead: input.usage.cacheRead,
      cacheWrite: input.usage.cacheWrite,
      output: input.usage.output,
    };
  if (input.stepUsage && input.stepUsage.length > 0)
    meta.stepUsage = input.stepUsage.map((u) => ({ input: u.input, cacheRead: u.cacheRead, cacheWrite: u.cacheWrite, output: u.output }));
  if (env?.layers && env.layers.every((l) => typeof l.tokens === 'number'))
    meta.layerTokens = Object.fromEntries(env.layers.map((l) => [l.id, l.tokens as number]));
  if (env?.ledger?.layers && env.ledger.cachedTokens > 0) {
    meta.layerCached = Object.fromEntries(env.ledger.layers.map((l) => [l.id, l.items.reduce((n, i) => n + (i.cached ? i.tokens : 0), 0)]));
  }
  if (input.model) meta.model = input.model;
  if (input.provider) meta.provider = input.provider;
  if (input.stopped) meta.stopped = true;
  if (input.request) meta.request = JSON.parse(JSON.stringify(input.request)) as StoredTurnRequest;
  if (input.rebased) meta.rebased = { builtAfterTurn: input.rebased.builtAfterTurn };
  if (input.toolSteps && input.toolSteps.length > 0) meta.toolSteps = JSON.parse(JSON.stringify(input.toolSteps)) as ToolStepView[];
  if (input.serverCut) meta.serverCut = { sent: input.serverCut.sent, reported: input.serverCut.reported };
  return meta;
}
