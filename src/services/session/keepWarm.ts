/**
 * Keep-warm for Anthropic (`strata.cache.keepWarm`, off by default): shortly before the open chat's
 * prompt cache expires, while the user is active, one tiny request re-reads the cached prefix so the
 * next message reads it from the cache instead of writing it again. The ping is the chat's last
 * request cut at its last cache breakpoint, sent through the same provider with `max_tokens` 1: the
 * provider renders it as it rendered that request, so the prefix is the same bytes. It is sent only
 * when the next message's predicted saving exceeds the ping's own cost; its cost is counted in the
 * chat's, and the cache lifetime restarts from it. The clock and timers are injected for tests.
 */
import type { ChatMessage } from '../../engine/types';
import { providerCachePrediction } from '../cacheModel';
import { cacheLifetimeSeconds } from '../pricing/cacheExpiry';
import { pricesForLabel, type PricingSettings } from '../pricing/chatCost';
import { predictedPromptCost, turnCost } from '../pricing/cost';
import { collectReply } from '../providers/stream';
import type { ChatProvider, ChatRequest, ProviderUsage, StreamEvent } from '../providers/types';

/**
 * A send or any request from the panel within this long counts as activity. Ten minutes is two of
 * Anthropic's default 5-minute lifetimes: a user silent for longer has likely stepped away, and
 * every ping is paid for, so at most two pings follow the last sign of activity.
 */
export const ACTIVE_WITHIN_MS = 10 * 60_000;

/**
 * How long before the expiry the ping goes out: 30 seconds leaves room for a slow request to reach
 * the provider in time; a lifetime shorter than 2.5 minutes (a test setting) gets a fifth of itself.
 */
export function pingLeadMs(lifetimeMs: number): number {
  return Math.min(30_000, lifetimeMs / 5);
}

/**
 * Pings never go out closer together than this, whatever a setting says: each is billed, and a
 * lifetime read from a (possibly cloned) setting must not turn one send into hundreds of pings.
 */
export const MIN_PING_INTERVAL_MS = 4 * 60_000;

/** At most this many pings follow one sign of the user's activity. */
export const MAX_PINGS_PER_ACTIVITY = 2;

export interface KeepWarmClock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const realClock: KeepWarmClock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};

export interface KeepWarmDeps {
  /** `strata.cache.keepWarm`. */
  enabled(): boolean;
  pricing(): PricingSettings;
  /** The chat open in this window and the model its next message goes to (`provider · model` as the turn records it). */
  current(): { chatId: string; label: string | undefined; windowActive: boolean };
  /** A ping completed: its usage and cost belong to `chatId`, and its cache lifetime restarts now. */
  pinged(chatId: string, usage: ProviderUsage, usd: number): void;
  log(line: string): void;
  clock?: KeepWarmClock;
}

/** The chat's last request that completed, as the provider sent it. */
interface LastRequest {
  chatId: string;
  provider: ChatProvider;
  label: string;
  request: ChatRequest;
  /** Tokens up to its last breakpoint, as the provider reported them (read plus written). */
  prefixTokens: number;
}

/** Why a ping was not sent (the log's words, and the tests'). */
export type SkipReason =
  | 'off'
  | 'not-anthropic'
  | 'chat-closed'
  | 'model-changed'
  | 'window-inactive'
  | 'user-inactive'
  | 'no-price'
  | 'saving-below-cost'
  | 'ping-cap';

/**
 * The request's messages up to and including its last cache breakpoint, or undefined when it has
 * none. A message cut inside keeps only the blocks up to the breakpoint (its tool calls come after).
 */
export function cachedPrefix(messages: readonly ChatMessage[]): ChatMessage[] | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    for (let j = m.content.length - 1; j >= 0; j--) {
      if (!m.content[j].cacheBreakpoint) continue;
      if (j === m.content.length - 1) return messages.slice(0, i + 1);
      const cut: ChatMessage = { role: m.role, content: m.content.slice(0, j + 1) };
      if (m.toolCallId !== undefined) cut.toolCallId = m.toolCallId;
      return [...messages.slice(0, i), cut];
    }
  }
  return undefined;
}

/** What a ping would cost and what it would save the next message, in US dollars. */
export function pingEconomics(prefixTokens: number, pricing: PricingSettings, label: string): { saving: number; cost: number } | undefined {
  const prices = pricesForLabel('anthropic', label, pricing);
  if (!prices) return undefined;
  const ttl = pricing.anthropicCacheTtl;
  // Cold, the next message writes the prefix again; warm, it reads it (nothing shorter than 1,024 tokens is cached).
  const cold = predictedPromptCost('anthropic', prefixTokens, 0, prices.prices, ttl).usd;
  const warm = predictedPromptCost('anthropic', prefixTokens, providerCachePrediction('anthropic', prefixTokens), prices.prices, ttl).usd;
  const cost = turnCost({ input: prefixTokens, cacheRead: prefixTokens, cacheWrite: 0, output: 1 }, prices.prices, ttl).usd;
  return { saving: cold - warm, cost };
}

export class KeepWarm {
  private readonly clock: KeepWarmClock;
  private last: LastRequest | undefined;
  private timer: unknown;
  private inFlight: AbortController | undefined;
  private lastActivity = -Infinity;
  /** Pings sent since the user's last activity. */
  private pingsSinceActivity = 0;

  constructor(private readonly deps: KeepWarmDeps) {
    this.clock = deps.clock ?? realClock;
  }

  /** A send, or anything else the user did in the panel. */
  activity(): void {
    this.lastActivity = this.clock.now();
    this.pingsSinceActivity = 0;
  }

  /**
   * Wraps the provider a turn sends through: each request that completes with reported usage
   * becomes the one a ping would repeat. Pings go to the wrapped provider itself. A provider
   * resolved again (its settings, key or models changed) ends the pings of the one before.
   */
  watch(provider: ChatProvider, label: string): ChatProvider {
    this.cancel();
    if (provider.kind !== 'anthropic') return provider;
    const watched: ChatProvider = {
      kind: provider.kind,
      label: provider.label,
      stream: (req) => this.observe(provider, label, req),
    };
    if (provider.supportsTools !== undefined) Object.assign(watched, { supportsTools: provider.supportsTools });
    const list = provider.listModels;
    if (list) watched.listModels = (signal) => list.call(provider, signal);
    return watched;
  }

  private async *observe(provider: ChatProvider, label: string, req: ChatRequest): AsyncGenerator<StreamEvent> {
    // A request of a turn is the user's doing (a send, a regenerate), and supersedes the last one.
    this.activity();
    this.cancel();
    for await (const ev of provider.stream(req)) {
      if (ev.type === 'done' && ev.usage) this.completed(provider, label, req, ev.usage);
      yield ev;
    }
  }

  /** A request of `req.conversationId` (the chat id) completed at this moment with `usage`. */
  completed(provider: ChatProvider, label: string, req: ChatRequest, usage: ProviderUsage): void {
    const request: ChatRequest = { ...req };
    delete request.signal;
    this.last = { chatId: req.conversationId, provider, label, request, prefixTokens: usage.cacheRead + usage.cacheWrite };
    this.schedule(this.clock.now());
  }

  /** No ping for the current request: the chat closed, the model changed, the window went away. */
  cancel(): void {
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.inFlight?.abort();
    this.inFlight = undefined;
    this.last = undefined;
  }

  dispose(): void {
    this.cancel();
  }

  /** Whether a ping is waiting for its moment (tests, the log). */
  get scheduled(): boolean {
    return this.timer !== undefined;
  }

  private schedule(sentAt: number): void {
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    const last = this.last;
    if (!last || !this.deps.enabled() || last.provider.kind !== 'anthropic') return;
    const p = this.deps.pricing();
    // The provider's documented lifetime: `strata.cache.lifetimeSeconds` shapes the meter's
    // prediction, never how often a billed ping goes out.
    const lifetime = cacheLifetimeSeconds('anthropic', p.anthropicCacheTtl, 0);
    if (lifetime === undefined) return;
    const lifetimeMs = lifetime * 1000;
    const at = sentAt + Math.max(MIN_PING_INTERVAL_MS, lifetimeMs - pingLeadMs(lifetimeMs));
    this.timer = this.clock.setTimeout(
      () => {
        this.timer = undefined;
        void this.fire();
      },
      Math.max(0, at - this.clock.now()),
    );
  }

  /** Why no ping goes out now (undefined: one does). */
  skipReason(): SkipReason | undefined {
    const last = this.last;
    if (!last || !this.deps.enabled()) return 'off';
    if (last.provider.kind !== 'anthropic') return 'not-anthropic';
    const now = this.deps.current();
    if (now.chatId !== last.chatId) return 'chat-closed';
    if (now.label !== last.label) return 'model-changed';
    if (!now.windowActive) return 'window-inactive';
    if (this.clock.now() - this.lastActivity > ACTIVE_WITHIN_MS) return 'user-inactive';
    if (this.pingsSinceActivity >= MAX_PINGS_PER_ACTIVITY) return 'ping-cap';
    const e = pingEconomics(last.prefixTokens, this.deps.pricing(), last.label);
    if (!e) return 'no-price';
    if (!(e.saving > e.cost)) return 'saving-below-cost';
    return undefined;
  }

  private async fire(): Promise<void> {
    const last = this.last;
    const why = this.skipReason();
    if (!last || why) {
      if (last) this.deps.log(`keep-warm: no ping for chat ${last.chatId} (${why})`);
      return;
    }
    const messages = cachedPrefix(last.request.messages);
    if (!messages) return;
    const abort = new AbortController();
    this.inFlight = abort;
    const sentAt = this.clock.now();
    this.pingsSinceActivity++;
    try {
      const reply = await collectReply(last.provider.stream({ ...last.request, messages, maxOutputTokens: 1, signal: abort.signal }));
      if (this.inFlight !== abort || this.last !== last) return;
      this.inFlight = undefined;
      const usage = reply.usage ?? { input: 0, cacheRead: 0, cacheWrite: 0, output: 0 };
      const prices = pricesForLabel('anthropic', last.label, this.deps.pricing());
      const usd = prices ? turnCost(usage, prices.prices, this.deps.pricing().anthropicCacheTtl).usd : 0;
      this.deps.log(
        `keep-warm: pinged chat ${last.chatId}: ${usage.cacheRead} tokens read from the cache, ${usage.cacheWrite} written, $${usd.toFixed(6)}`,
      );
      this.deps.pinged(last.chatId, usage, usd);
      this.schedule(sentAt);
    } catch (e) {
      if (this.inFlight === abort) this.inFlight = undefined;
      if (!abort.signal.aborted) this.deps.log(`keep-warm: the ping for chat ${last.chatId} failed: ${(e as Error)?.message ?? String(e)}`);
    }
  }
}
