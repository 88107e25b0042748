/**
 * The context meter: the predicted next request (history + chips + pending operations + an empty
 * message), built and abandoned, shown as used tokens against the budget. It is built again only
 * after something it depends on changed (`invalidate`), and not while a turn streams.
 */
import type { BuildHint, PromptContextEngine, TurnEnvelope, TurnInput } from '../../engine/engine';
import { computeBudget, DEFAULT_THRESHOLDS, safetyMargin } from '../../engine/budget';
import type { MeterLevel, MeterView } from '../../protocol/messages';
import { providerCachePrediction } from '../cacheModel';
import type { TurnMeta } from '../store/chatStore';
import { sha256HexSliced } from '../nodeHasher';
import type { TimeSlice } from '../timeSlice';

/**
 * A chat at least this long that was just opened in this window gets its first meter after the panel
 * shows its messages (see `ContextMeter.ifReady`): that build renders its whole history, and pruning
 * it for a smaller window costs a few hundred milliseconds at 1,000 turns.
 */
export const METER_DEFERRED_TURNS = 200;

/** What the meter reads from the session, each time it is built. */
export interface MeterSource {
  engine(): PromptContextEngine;
  /** The next request as an engine input, without reading the workspace. */
  nextInput(): TurnInput;
  /** The last completed turn's metadata (was it cut, what did the cache serve). */
  lastMeta(): TurnMeta | undefined;
  /** The model's tokenizer is an estimate. */
  tokenizerEstimated(): boolean;
  /** Where the model's window came from. */
  windowSource?(): MeterView['windowSource'];
  /** A turn is streaming: the last meter stands. */
  streaming(): boolean;
  /** Called after each build, with the engine it used. */
  built(engine: PromptContextEngine): void;
  /** Adds what changes with time rather than with the chat (the next message's cost, the cache expiry) at each read. */
  withCost?(view: MeterView, predicted: TurnEnvelope | undefined): MeterView;
}

export class ContextMeter {
  private view: MeterView | undefined;
  private stale = true;
  /** Calls to `invalidate` (a sliced build in progress compares it). */
  private changes = 0;
  /** The engine the last meter was built with (its caches hold the chat's history). */
  private meteredEngine: PromptContextEngine | undefined;
  private predicted: TurnEnvelope | undefined;

  constructor(private readonly source: MeterSource) {}

  /** Something the meter depends on changed: the next read builds it again. */
  invalidate(): void {
    this.stale = true;
    this.changes++;
  }

  /**
   * The meter as `current` gives it, built with the event loop given a turn every few ms: the first
   * build of a long chat just opened renders its whole history and, for a smaller window, cuts it
   * many times. Undefined when something else changed the chat, the engine or the next request
   * meanwhile (whoever did refreshes the meter), or a turn started.
   */
  async currentSliced(slice: TimeSlice): Promise<MeterView | undefined> {
    if (this.view && (this.source.streaming() || !this.stale)) return this.current();
    const engine = this.source.engine();
    const changes = this.changes;
    const superseded = () => this.source.engine() !== engine || this.source.streaming() || this.changes !== changes;
    const tokenizer = engine.options.tokenizer as { warm?(text: string): Promise<void> };
    for (const warm = engine.warmSteps(); ;) {
      const step = warm.next();
      if (step.done) break;
      // A long text the build will count: counted in slices by a tokenizer that can.
      if (step.value && tokenizer.warm) await tokenizer.warm(step.value.countText);
      else if (!slice.due) continue;
      await slice.pause();
      if (superseded()) return undefined;
    }
    const builds = engine.builds + 1;
    const steps = engine.buildTurnSteps(this.source.nextInput());
    let r = steps.next();
    while (!r.done) {
      const hint = r.value as BuildHint | undefined;
      if (hint) {
        // A text of megabytes the build hashes and counts next: hashed and counted here in slices,
        // the build then finds both in the memos.
        await sha256HexSliced(hint.hashText, slice);
        if (hint.countText !== undefined && tokenizer.warm) await tokenizer.warm(hint.countText);
      }
      if (hint || slice.due) {
        await slice.pause();
        if (superseded() || engine.builds !== builds) {
          steps.return(undefined as never);
          return undefined;
        }
      }
      r = steps.next();
    }
    engine.abandonTurn();
    this.keep(engine, r.value);
    return this.current();
  }

  /** The meter now (while a turn streams, the last value). */
  current(): MeterView {
    const view = this.built();
    return this.source.withCost ? this.source.withCost(view, this.predicted) : view;
  }

  private built(): MeterView {
    if (this.view && (this.source.streaming() || !this.stale)) return this.view;
    const engine = this.source.engine();
    const env = engine.buildTurn(this.source.nextInput());
    engine.abandonTurn();
    return this.keep(engine, env);
  }

  private keep(engine: PromptContextEngine, env: TurnEnvelope): MeterView {
    this.source.built(engine);
    this.predicted = env;
    this.meteredEngine = engine;
    this.view = meterView(env, engine, this.source.lastMeta(), this.source.tokenizerEstimated());
    const source = this.source.windowSource?.();
    if (source) this.view.windowSource = source;
    this.stale = false;
    return this.view;
  }

  /**
   * The meter when it is at hand: the last one while nothing changed, or a new one for a chat short
   * enough to count at once; undefined for a long chat not counted yet in this window (its first
   * build renders, and perhaps prunes, its whole history: the panel shows the messages first).
   */
  ifReady(): MeterView | undefined {
    if (this.view && (this.source.streaming() || !this.stale)) return this.current();
    const engine = this.source.engine();
    if (engine.state.completedTurns >= METER_DEFERRED_TURNS && this.meteredEngine !== engine) return undefined;
    return this.current();
  }

  /** The predicted next request the meter shows. */
  predictedEnvelope(): TurnEnvelope | undefined {
    this.built();
    return this.predicted;
  }
}

function meterView(env: TurnEnvelope, engine: PromptContextEngine, lastMeta: TurnMeta | undefined, estimated: boolean): MeterView {
  const t = engine.options.thresholds ?? DEFAULT_THRESHOLDS;
  const limits = engine.options.limits;
  const budget = computeBudget(limits);
  const used = env.totalTokens;
  const cutNow = env.pruned.some((p) => p.reason !== 'detached');
  const cutLast = !!lastMeta?.prunedReports?.some((p) => p.reason !== 'detached');
  let level: MeterLevel = 'ok';
  if (env.blocked || used > budget) level = 'over';
  else if (cutNow || cutLast) level = 'pruned';
  else if (used > (budget * t.warnPercent) / 100) level = 'warn';
  const view: MeterView = {
    used,
    budget,
    contextWindow: limits.contextWindow,
    reservedOutput: limits.maxOutputTokens,
    margin: safetyMargin(limits.contextWindow),
    warnPercent: t.warnPercent,
    compactPercent: t.compactPercent,
    targetPercent: t.targetPercent,
    level,
    estimated,
  };
  const share = lastMeta ? cachedShare(lastMeta) : undefined;
  if (share !== undefined) view.lastCachedShare = share;
  return view;
}

/** The share of the last request the provider's cache served (reported when known, else predicted). */
function cachedShare(meta: TurnMeta): number | undefined {
  if (meta.usage && meta.usage.input > 0) return meta.usage.cacheRead / meta.usage.input;
  if (meta.predicted && meta.predicted.promptTokens > 0)
    return providerCachePrediction(meta.provider, meta.predicted.cachedTokens) / meta.predicted.promptTokens;
  return undefined;
}
