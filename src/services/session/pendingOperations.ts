/**
 * What the next turn does to items already in the chat (pin, unpin, remove), and Compact now: set in
 * the panel or the Context Layers tree, sent with the next message, kept when the chat is reloaded
 * because another window saved to it.
 */
import type { AttachmentRef } from '../../engine/engine';
import type { ChatState, EntryState } from '../../engine/state';
import { inputLabel, refOf } from './attachmentNames';

export type ItemOp = 'pin' | 'unpin' | 'detach';

/** An item already in the active chat (for the Context Layers tree and the pin / remove commands). */
export interface ChatItemView {
  /** Artifact id (all versions). */
  id: string;
  /** Newest version's key (`id` or `id@vN`). */
  key: string;
  kind: string;
  label: string;
  pinned: boolean;
  status: 'present' | 'compacted' | 'pruned' | 'detached';
  missing: boolean;
  /** What the next turn will do to it. */
  pending?: ItemOp;
}

/** The newest version of an item, by artifact id or by any version's key. */
function latestEntry(state: ChatState, idOrKey: string): EntryState | undefined {
  const key =
    state.latest.get(idOrKey) ?? (state.entries.has(idOrKey) ? state.latest.get(state.entries.get(idOrKey)!.artifact.id) : undefined);
  return key ? state.entries.get(key) : undefined;
}

function entryRef(e: EntryState): AttachmentRef | undefined {
  return refOf({ kind: e.artifact.kind, uri: e.artifact.source.uri, range: e.artifact.source.range });
}

export class PendingOperations {
  /** By artifact id, in the order they were set (the order they reach the request). */
  private readonly items = new Map<string, ItemOp>();
  private compact = false;

  /** The attachments of the chat in `state` (newest version of each), with what the next turn does to them. */
  itemViews(state: ChatState): ChatItemView[] {
    const out: ChatItemView[] = [];
    for (const [id, key] of state.latest) {
      const e = state.entries.get(key)!;
      const status = e.presence === 'present' ? (e.compacted ? 'compacted' : 'present') : e.presence === 'detached' ? 'detached' : 'pruned';
      const item: ChatItemView = {
        id,
        key,
        kind: e.artifact.kind,
        label: inputLabel({ uri: e.artifact.source.uri, range: e.artifact.source.range }),
        pinned: e.essential,
        status,
        missing: e.missing,
      };
      const op = this.items.get(id);
      if (op) item.pending = op;
      out.push(item);
    }
    return out;
  }

  /** Pins or unpins item `id` from the next turn on; asking for what it already is cancels the pending one. */
  setPinned(state: ChatState, id: string, pinned: boolean): boolean {
    const e = latestEntry(state, id);
    if (!e || e.presence === 'detached') return false;
    // Kept by artifact id whichever version was named, so the item's view shows it.
    const key = e.artifact.id;
    if (e.essential === pinned) this.items.delete(key);
    else this.items.set(key, pinned ? 'pin' : 'unpin');
    return true;
  }

  /** Removes item `id` from the chat from the next turn on (a reported cut). */
  remove(state: ChatState, id: string): boolean {
    const e = latestEntry(state, id);
    if (!e || e.presence === 'detached' || !entryRef(e)) return false;
    this.items.set(e.artifact.id, 'detach');
    return true;
  }

  /** Forgets the pending operation on `id`; false when there was none. */
  cancel(id: string): boolean {
    return this.items.delete(id);
  }

  /** The references the pending operations act on (items no longer in `state` are skipped). */
  refs(state: ChatState): { pin: AttachmentRef[]; unpin: AttachmentRef[]; detach: AttachmentRef[] } {
    const out = { pin: [] as AttachmentRef[], unpin: [] as AttachmentRef[], detach: [] as AttachmentRef[] };
    for (const [id, op] of this.items) {
      const e = latestEntry(state, id);
      const ref = e && entryRef(e);
      if (!ref) continue;
      (op === 'pin' ? out.pin : op === 'unpin' ? out.unpin : out.detach).push(ref);
    }
    return out;
  }

  /** Compact now: the next request is cut down to the target percent of the budget. */
  requestCompaction(): void {
    this.compact = true;
  }

  get compactionRequested(): boolean {
    return this.compact;
  }

  /** A turn was kept: Compact now is done (the item operations stay when the turn did not come from the composer). */
  compactionDone(): void {
    this.compact = false;
  }

  reset(): void {
    this.items.clear();
    this.compact = false;
  }
}
