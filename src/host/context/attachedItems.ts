/**
 * Everything a pin / unpin / remove command can name, for its quick pick: the composer's chips (the
 * next message), then the chat's files and selections that are not removed.
 */
import type { ChatSession } from '../../services/chatSession';

export interface AttachedItem {
  /** A chip id, or an item's artifact id or version key. */
  ref: string;
  label: string;
  pinned: boolean;
  /** A chip of the next message (not yet in the chat). */
  pending: boolean;
  detail: string;
}

export function attachedItems(session: ChatSession): AttachedItem[] {
  const chips = session.chips().map((c) => ({
    ref: c.id,
    label: c.label,
    pinned: c.pinned,
    pending: true,
    detail: `${c.tokens.toLocaleString('en-US')} tokens · next message`,
  }));
  const items = session
    .chatItems()
    .filter((i) => i.status !== 'detached' && (i.kind === 'file' || i.kind === 'selection'))
    .map((i) => ({
      ref: i.key,
      label: i.label,
      pinned: i.pending === 'pin' || (i.pinned && i.pending !== 'unpin'),
      pending: false,
      detail: `${i.status}${i.missing ? ', deleted' : ''}${i.pending ? ` · ${i.pending} at the next message` : ''}`,
    }));
  return [...chips, ...items];
}
