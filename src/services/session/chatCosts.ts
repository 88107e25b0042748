/**
 * The session's money side: each reply's cost line, each chat's total for the chat list, the meter's
 * next-message prediction and the cache-expiry notice, and whether the cache had likely expired when
 * a request went out (the turn report checks it against what the provider served). The clock is
 * injected, so tests use a fake one.
 */
import type { TurnEnvelope } from '../../engine/engine';
import type { ChatSummaryView, CostView, MeterView } from '../../protocol/messages';
import { chatCostText } from '../../common/numberFormat';
import { providerCachePrediction } from '../cacheModel';
import { CacheExpiry, cacheLifetimeSeconds } from '../pricing/cacheExpiry';
import {
  chatCostReport,
  chatTotal,
  chatTotalText,
  costView,
  nextMessageCost,
  type ChatTotal,
  type KeepWarmSpent,
  type PricingSettings,
} from '../pricing/chatCost';
import type { TurnMeta } from '../store/chatTypes';

/**
 * A chat not open in this window with more turns than this gets no total in the chat list until it
 * is opened: its total means reading its whole file, and the list is built at every panel refresh.
 */
export const LISTED_TOTAL_MAX_TURNS = 200;
/** Saved chats read for their totals per chat list at most: a folder with many chats fills the list in over a few refreshes. */
export const LISTED_TOTAL_READS = 20;

/** The open chat, as costs need it. */
export interface ActiveChat {
  chatId: string;
  /** The provider kind the next request goes to (`openai`, `anthropic`, …). */
  provider: string;
  /** `provider · model` as the next turn will record it. */
  label: string | undefined;
  lastMeta: TurnMeta | undefined;
}

export interface CostSource {
  pricing(): PricingSettings;
  active(): ActiveChat;
  /** The saved turns of a chat not open in this window. */
  turnMetas(chatId: string): TurnMeta[];
  log(line: string): void;
}

export class ChatCosts {
  private readonly expiry: CacheExpiry;
  /** Chat id → its total, for the turn count, save time and prices it was computed with. */
  private readonly totals = new Map<string, { key: string; text: string | undefined }>();
  /** Chat id → the keep-warm pings sent for it in this window and what they cost. */
  private readonly pings = new Map<string, KeepWarmSpent>();

  constructor(
    private readonly source: CostSource,
    now?: () => number,
  ) {
    this.expiry = new CacheExpiry(now);
  }

  /** The line under a reply. */
  messageCost(meta: TurnMeta | undefined): CostView | undefined {
    return meta ? costView(meta, this.source.pricing()) : undefined;
  }

  /** A chat list row with the chat's total: from `metas` for the open chat, else from its saved turns (remembered). */
  summary(
    chat: { id: string; title: string; turns: number; updatedAt: string },
    metas: readonly TurnMeta[] | undefined,
    reads: { left: number } = { left: LISTED_TOTAL_READS },
  ): ChatSummaryView {
    const row: ChatSummaryView = { id: chat.id, title: chat.title, turns: chat.turns, updatedAt: chat.updatedAt };
    const cost = this.total(chat, metas, reads);
    if (cost) row.cost = cost;
    return row;
  }

  private total(
    chat: { id: string; turns: number; updatedAt: string },
    metas: readonly TurnMeta[] | undefined,
    reads: { left: number },
  ): string | undefined {
    const pricing = this.source.pricing();
    const pinged = this.pings.get(chat.id)?.usd ?? 0;
    const withPings = (t: ChatTotal): ChatTotal => ({ ...t, usd: t.usd + pinged });
    if (metas) return chatTotalText(withPings(chatTotal(metas, pricing)));
    const key = `${chat.turns}|${chat.updatedAt}|${pinged}|${JSON.stringify(pricing)}`;
    const known = this.totals.get(chat.id);
    if (known?.key === key) return known.text;
    if (chat.turns === 0 || chat.turns > LISTED_TOTAL_MAX_TURNS || reads.left <= 0) return undefined;
    reads.left--;
    let text: string | undefined;
    try {
      text = chatTotalText(withPings(chatTotal(this.source.turnMetas(chat.id), pricing)));
    } catch (e) {
      this.source.log(`chat ${chat.id}: its cost could not be read: ${(e as Error).message}`);
    }
    this.totals.set(chat.id, { key, text });
    return text;
  }

  /** "Strata: Show Chat Cost": the open chat's cost per turn, as Markdown. */
  report(title: string, metas: readonly TurnMeta[]): string {
    return chatCostReport(title, metas, this.source.pricing(), this.pings.get(this.source.active().chatId));
  }

  /** A keep-warm ping of `chatId` went out now: its cost counts in the chat's, and the cache lifetime restarts from it. */
  keptWarm(chatId: string, usd: number): void {
    this.expiry.sent(chatId);
    const had = this.pings.get(chatId) ?? { pings: 0, usd: 0 };
    this.pings.set(chatId, { pings: had.pings + 1, usd: had.usd + usd });
  }

  /** The keep-warm pings of `chatId` in this window. */
  keepWarmSpent(chatId: string): KeepWarmSpent | undefined {
    return this.pings.get(chatId);
  }

  /** The lifetime assumed for `provider`'s cache, in seconds (undefined: a provider whose cache is not known). */
  lifetimeSeconds(provider: string): number | undefined {
    const p = this.source.pricing();
    return cacheLifetimeSeconds(provider, p.anthropicCacheTtl, p.cacheLifetimeSeconds);
  }

  /**
   * A request of the open chat goes out now: whether its cache had likely expired (undefined for a
   * provider whose cache is not known). From now on the cache counts as used.
   */
  expiredAtSend(): boolean | undefined {
    const a = this.source.active();
    const lifetime = this.lifetimeSeconds(a.provider);
    const expired = lifetime === undefined ? undefined : !!a.lastMeta && this.expiry.status(a.chatId, lifetime, a.lastMeta.at).expired;
    this.expiry.sent(a.chatId);
    return expired;
  }

  /** When the open chat's cache likely expires (ms since the epoch), while it has not yet. */
  expiresAt(): number | undefined {
    const a = this.source.active();
    if (!a.lastMeta) return undefined;
    const s = this.expiry.status(a.chatId, this.lifetimeSeconds(a.provider), a.lastMeta.at);
    return s.expired ? undefined : s.expiresAt;
  }

  /** The meter with the next message's predicted cost and, once the cache has likely expired, the notice. */
  meter(shown: MeterView, next: TurnEnvelope | undefined): MeterView {
    const a = this.source.active();
    const view = this.withChatCost(shown, a.chatId);
    if (!next) return view;
    const warmCached = providerCachePrediction(a.provider, next.ledger.cachedTokens);
    const expired = !!a.lastMeta && this.expiry.status(a.chatId, this.lifetimeSeconds(a.provider), a.lastMeta.at).expired;
    const cost = nextMessageCost(
      { provider: a.provider, label: a.label, promptTokens: next.totalTokens, warmCached, expired },
      this.source.pricing(),
    );
    if (!cost) return view;
    const out: MeterView = { ...view, nextCost: cost.text };
    if (cost.expired) out.cacheExpired = cost.expired;
    return out;
  }

  /** The meter with the chat's total beside it ("Chat $0.052 · saved $0.024"), keep-warm pings included. */
  private withChatCost(view: MeterView, chatId: string): MeterView {
    const total = chatTotal(this.source.turnMetas(chatId), this.source.pricing());
    const pinged = this.pings.get(chatId)?.usd ?? 0;
    if (total.priced > 0 || pinged > 0) return { ...view, chatCost: chatCostText(total.usd + pinged, total.savedUsd, total.unpriced > 0) };
    if (total.unpriced > 0) return { ...view, chatCost: 'Chat: no price known', chatPriceMissing: true };
    return view;
  }
}
