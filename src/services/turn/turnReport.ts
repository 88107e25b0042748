/** The per-turn facts the turn pipeline logs and hands to the panel, and their one-line log form. */
import type { PromptContextEngine, TurnEnvelope } from '../../engine/engine';
import type { LayerId } from '../../engine/types';
import { providerCachePrediction } from '../cacheModel';
import { expiryAccuracy } from '../pricing/cacheExpiry';
import type { ProviderUsage } from '../providers/types';
import type { ToolLoopState } from './toolLoopState';

export type TurnStatus = 'done' | 'stopped' | 'error' | 'blocked' | 'preview';

/** The per-turn facts for the log and the panel. */
export interface TurnReport {
  conversationId: string;
  turn: number;
  status: TurnStatus;
  layout: string;
  /** First 12 hex digits of each layer's hash. */
  layerHashes: Partial<Record<LayerId, string>>;
  layerTokens: Partial<Record<LayerId, number>>;
  promptTokens: number;
  prefixHash?: string;
  prefixBreak: boolean;
  prefixBreakReason?: string;
  /** Tokens the engine predicts the provider's cache serves. */
  predictedCached: number;
  /** What the provider reported (cache read), when it did. */
  reportedCached?: number;
  reportedCacheWrite?: number;
  reportedInput?: number;
  cuts: number;
  rejections: number;
  buildMs: number;
  /** From the provider call to its first text chunk. */
  firstTokenMs?: number;
  totalMs: number;
  prunedHarder: boolean;
  errorCode?: string;
  /** Tool rounds of the turn (model calls − 1), and the tokens their results added. */
  toolSteps?: number;
  toolTokens?: number;
  /** Per tool round: the tools' run time, and the time to append their results to the request (ms). */
  stepMs?: { toolsMs: number; appendMs: number }[];
  /** The cache-expiry model said the provider's cache had likely expired when the turn was sent (absent: no prediction). */
  cacheExpired?: boolean;
}

/** What the pipeline measured during a turn. */
export interface TurnTimings {
  buildMs: number;
  prunedHarder: boolean;
  firstTokenMs?: number;
  usage?: ProviderUsage;
}

/** Milliseconds to three decimals: the log stays short and the figures stay comparable. */
export const roundMs = (ms: number): number => Math.round(ms * 1000) / 1000;

/** The report of a turn of `engine` (the chat's engine once the turn is over) that built `env`. */
export function buildTurnReport(
  engine: PromptContextEngine,
  env: TurnEnvelope | undefined,
  status: TurnStatus,
  timings: TurnTimings,
  totalMs: number,
  errorCode: string | undefined,
  providerKind: string | undefined,
  tools: ToolLoopState,
): TurnReport {
  const r: TurnReport = {
    conversationId: engine.options.conversationId,
    turn: env?.turn ?? engine.state.completedTurns + 1,
    status,
    layout: engine.options.layout,
    layerHashes: {},
    layerTokens: {},
    promptTokens: env?.totalTokens ?? 0,
    prefixBreak: env?.prefixBreak ?? false,
    // As the provider reports it (OpenAI's 128-token steps), so the log compares like with like.
    predictedCached: providerCachePrediction(providerKind, env?.ledger.cachedTokens ?? 0),
    cuts: env?.pruned.length ?? 0,
    rejections: env?.rejections.length ?? 0,
    buildMs: roundMs(timings.buildMs),
    totalMs: roundMs(totalMs),
    prunedHarder: timings.prunedHarder,
  };
  for (const l of env?.layers ?? []) {
    r.layerHashes[l.id] = l.hash.slice(0, 12);
    r.layerTokens[l.id] = l.tokens;
  }
  if (env) r.prefixHash = env.prefixHash.slice(0, 12);
  if (env?.prefixBreakReason) r.prefixBreakReason = env.prefixBreakReason;
  if (timings.usage) {
    r.reportedCached = timings.usage.cacheRead;
    r.reportedCacheWrite = timings.usage.cacheWrite;
    r.reportedInput = timings.usage.input;
  }
  if (timings.firstTokenMs !== undefined) r.firstTokenMs = roundMs(timings.firstTokenMs);
  if (errorCode) r.errorCode = errorCode;
  if (tools.requests.length > 0) {
    r.toolSteps = tools.requests.length;
    r.toolTokens = tools.views.reduce((n, v) => n + (v.resultTokens ?? 0), 0);
    r.stepMs = tools.timings;
  }
  return r;
}

/** The expiry model against what the provider served: "cache predicted expired, 0 reported cached: right". */
function expiryVerdict(r: TurnReport): string {
  if (r.cacheExpired === undefined) return '';
  const said = `cache predicted ${r.cacheExpired ? 'expired' : 'warm'}`;
  if (r.reportedCached === undefined) return `${said}, not reported`;
  const verdict = expiryAccuracy(r.cacheExpired, r.predictedCached, r.reportedCached);
  return `${said}, ${r.reportedCached} reported cached: ${verdict ?? 'nothing to expire'}`;
}

/** The turn report as one log line. */
export function formatTurnReport(r: TurnReport): string {
  const layers = (['L1', 'L2', 'L3', 'L4', 'L5'] as const)
    .map((id) => `${id} ${r.layerHashes[id] ?? '-'} (${r.layerTokens[id] ?? 0})`)
    .join(', ');
  const cache = `cached ${r.predictedCached} predicted / ${r.reportedCached !== undefined ? `${r.reportedCached} reported` : 'not reported'}`;
  const prefix = r.prefixBreak ? `prefix changed${r.prefixBreakReason ? ` (${r.prefixBreakReason})` : ''}` : 'prefix kept';
  const times = `build ${r.buildMs.toFixed(1)} ms${r.firstTokenMs !== undefined ? `, first token ${r.firstTokenMs.toFixed(0)} ms` : ''}, total ${r.totalMs.toFixed(0)} ms`;
  const tools = r.toolSteps
    ? `${r.toolSteps} tool step(s), ${r.toolTokens ?? 0} tokens of results, steps ${(r.stepMs ?? []).map((t) => `${t.toolsMs.toFixed(1)}+${t.appendMs.toFixed(1)}`).join(', ')} ms (tools+append)`
    : '';
  const extra = [
    tools,
    expiryVerdict(r),
    r.prunedHarder ? 'pruned harder after a context-length error' : '',
    r.cuts ? `${r.cuts} cut(s)` : '',
    r.rejections ? `${r.rejections} rejection(s)` : '',
    r.errorCode ? `error ${r.errorCode}` : '',
  ]
    .filter(Boolean)
    .join('; ');
  return `[${r.conversationId}] turn ${r.turn} ${r.status}: ${layers}; prompt ${r.promptTokens}, ${cache}; ${prefix}; ${times}${extra ? `; ${extra}` : ''}`;
}
