/**
 * What a pending pin, unpin or remove costs the next request, said when it is set: the predicted
 * uncached tokens of the next request without it and with it. Removing an item that earlier turns
 * sent changes the request from that point on, so the provider's cache cannot serve what follows.
 */
import type { TurnEnvelope } from '../../engine/engine';
import { providerCachePrediction } from '../cacheModel';
import { fmt } from '../ledgerTree';
import type { ItemOp } from './pendingOperations';

/** A pending operation on an item (or a chip taken off the next message), with its predicted cost. */
export interface PendingItem {
  /** Artifact id (items of the chat) or chip id (chips): what Undo restores. */
  id: string;
  op: ItemOp | 'unattach';
  label: string;
  kind: 'file' | 'selection';
  /** Predicted uncached prompt tokens of the next request before and after the operation. */
  before?: number;
  after?: number;
}

/** The next request's prompt tokens the provider's cache is not predicted to serve. */
export function uncachedTokens(
  next: Pick<TurnEnvelope, 'totalTokens' | 'ledger'> | undefined,
  provider: string | undefined,
): number | undefined {
  if (!next) return undefined;
  return Math.max(0, next.totalTokens - providerCachePrediction(provider, next.ledger.cachedTokens));
}

const VERB: Record<PendingItem['op'], string> = {
  pin: 'pinned from the next message on',
  unpin: 'unpinned from the next message on',
  detach: 'removed from next message',
  unattach: 'removed from next message',
};

/** `src/a.ts: removed from next message` (the row's and the banner's first words). */
export function pendingStatus(p: Pick<PendingItem, 'op'>): string {
  return VERB[p.op];
}

/**
 * What the operation costs: "Removing breaks the cache: next message ~1,240 → ~9,870 uncached
 * tokens", or that it keeps the cache, or nothing when no prediction was at hand.
 */
export function pendingCostText(p: Pick<PendingItem, 'op' | 'before' | 'after'>): string | undefined {
  if (p.before === undefined || p.after === undefined) return undefined;
  const verb = p.op === 'pin' ? 'Pinning' : p.op === 'unpin' ? 'Unpinning' : 'Removing';
  const figures = `next message ~${fmt(p.before)} → ~${fmt(p.after)} uncached tokens`;
  if (p.after > p.before) return `${verb} breaks the cache: ${figures}`;
  if (p.after === p.before) return `${verb} keeps the cache: next message ~${fmt(p.after)} uncached tokens`;
  return `${verb}: ${figures}`;
}

/** The whole sentence the panel's banner and the tree's tooltip show. */
export function pendingMessage(p: PendingItem): string {
  const cost = pendingCostText(p);
  return `${p.label}: ${pendingStatus(p)}.${cost ? ` ${cost}.` : ''}`;
}
