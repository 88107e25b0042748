/**
 * How long each provider keeps a prompt prefix cached, as it documents it, and whether this chat's
 * cache has likely expired by now: the time since the chat's last request against that lifetime.
 * The clock is passed in, so the model is tested with a fake one.
 */

export interface CacheLifetime {
  seconds: number;
  /** The provider's page that states the lifetime. */
  source: string;
}

/**
 * Anthropic keeps a cached prefix 5 minutes after its last use, or 1 hour when written with the
 * 1-hour lifetime; OpenAI clears its automatic cache after 5 to 10 minutes of inactivity (always
 * within an hour), so the shorter figure is the one a prediction can rely on.
 */
export const CACHE_LIFETIMES: Readonly<Record<'anthropic-5m' | 'anthropic-1h' | 'openai', CacheLifetime>> = {
  'anthropic-5m': { seconds: 5 * 60, source: 'https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching' },
  'anthropic-1h': { seconds: 60 * 60, source: 'https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching' },
  openai: { seconds: 5 * 60, source: 'https://platform.openai.com/docs/guides/prompt-caching' },
};

/**
 * The lifetime to assume for `provider`: `overrideSeconds` when above 0 (`strata.cache.lifetimeSeconds`),
 * else the documented one. Undefined for providers whose cache Strata does not know.
 */
export function cacheLifetimeSeconds(provider: string | undefined, anthropicTtl: '5m' | '1h', overrideSeconds: number): number | undefined {
  if (provider !== 'openai' && provider !== 'anthropic') return undefined;
  if (overrideSeconds > 0) return overrideSeconds;
  return provider === 'openai' ? CACHE_LIFETIMES.openai.seconds : CACHE_LIFETIMES[`anthropic-${anthropicTtl}`].seconds;
}

export interface ExpiryStatus {
  /** Milliseconds since the epoch of the chat's last request, when one is known. */
  lastRequestAt?: number;
  /** When the cache likely expires (or expired). */
  expiresAt?: number;
  expired: boolean;
}

/** The time of each chat's last request, and what follows for its cache. */
export class CacheExpiry {
  private readonly sentAt = new Map<string, number>();

  constructor(private readonly now: () => number = () => Date.now()) {}

  /** A request of `chatId` is going out now. */
  sent(chatId: string): void {
    this.sentAt.set(chatId, this.now());
  }

  /** The chat's last request: the one sent in this window, else the saved time of its last turn. */
  lastRequestAt(chatId: string, savedAt?: string): number | undefined {
    const mine = this.sentAt.get(chatId);
    const saved = savedAt ? Date.parse(savedAt) : NaN;
    if (mine === undefined) return Number.isFinite(saved) ? saved : undefined;
    return Number.isFinite(saved) ? Math.max(mine, saved) : mine;
  }

  /** Whether the cache of `chatId` has likely expired, for a lifetime of `lifetimeSeconds` (undefined: unknown, never expired). */
  status(chatId: string, lifetimeSeconds: number | undefined, savedAt?: string): ExpiryStatus {
    const last = this.lastRequestAt(chatId, savedAt);
    if (last === undefined || lifetimeSeconds === undefined)
      return last === undefined ? { expired: false } : { lastRequestAt: last, expired: false };
    const expiresAt = last + lifetimeSeconds * 1000;
    return { lastRequestAt: last, expiresAt, expired: this.now() >= expiresAt };
  }
}

/**
 * How the expiry prediction fared once the provider reported the request: `right` when it predicted
 * expired and nothing was served from the cache, or warm and something was; `wrong` otherwise;
 * undefined when nothing was predicted cached either way (there was nothing to expire).
 */
export function expiryAccuracy(predictedExpired: boolean, warmCachedTokens: number, reportedCached: number): 'right' | 'wrong' | undefined {
  if (warmCachedTokens <= 0) return undefined;
  return predictedExpired === (reportedCached === 0) ? 'right' : 'wrong';
}
