/**
 * The active chat following the disk when another window of the folder changed it: reloaded when
 * its file is no longer the state shown (only what was appended is read), replaced by the most
 * recent other chat when it was deleted or found damaged, and read back after a save of this
 * window failed or was refused.
 */
import type { ChatState } from '../../engine/state';
import { ChatStoreError, type ChatBase, type ChatStore, type LoadedChat, type TurnMeta } from '../store/chatStore';

/** What `syncWithDisk` found. */
export interface DiskSync {
  /**
   * `unchanged`; `reloaded` (another window saved to the active chat: it shows what is saved now);
   * `removed` (the active chat was deleted or damaged elsewhere: another chat is open now); `busy` (a
   * turn is streaming: nothing was reloaded; the turn's save settles it).
   */
  chat: 'unchanged' | 'reloaded' | 'removed' | 'busy';
  /** Turns the active chat has now minus before (reloaded). */
  turnsAdded?: number;
  /** The chat that was removed. */
  removedId?: string;
}

/** The session as a sync sees it. */
export interface SyncedChat {
  store: ChatStore;
  /** The active chat and the saved state it shows. */
  id: string;
  base: ChatBase;
  /** The active chat's state in memory (its snapshots are reused by a reload). */
  state: () => ChatState;
  /** Shows chat `id` as loaded; `reload`: the same chat as saved now (the composer stays). */
  switchTo: (id: string, loaded: LoadedChat | undefined, reload?: boolean) => void;
  openChat: (id: string) => void;
  /** Shows a new chat. */
  openNew: () => void;
  log: (line: string) => void;
}

/** The active chat as saved now (see `ChatSession.syncWithDisk`). */
export function syncWithDisk(c: SyncedChat): DiskSync {
  const id = c.id;
  if (c.base.turns === 0 && !c.store.hasChat(id)) return { chat: 'unchanged' };
  let relation: ReturnType<ChatStore['chatStatus']>['relation'];
  try {
    relation = c.store.chatStatus(id, c.base).relation;
  } catch (e) {
    c.log(`chat ${id} could not be checked for changes from another window: ${(e as Error).message}`);
    return { chat: 'unchanged' };
  }
  if (relation === 'same') return { chat: 'unchanged' };
  const before = c.base.turns;
  if (relation !== 'missing') {
    try {
      const loaded = c.store.loadChat(id, { reuse: c.state() });
      for (const w of loaded.warnings) c.log(w);
      c.switchTo(id, loaded, true);
      c.log(
        `chat ${id} was changed in another window (${relation === 'appended' ? `${loaded.base.turns - before} turn(s) added` : 'a turn was replaced or removed'}); reloaded`,
      );
      return { chat: 'reloaded', turnsAdded: loaded.base.turns - before };
    } catch (e) {
      if (!(e instanceof ChatStoreError && (e.code === 'not-found' || e.code === 'corrupt'))) {
        c.log(`chat ${id} changed in another window but could not be reloaded: ${(e as Error).message}`);
        return { chat: 'unchanged' };
      }
      c.log((e as Error).message);
    }
  }
  c.log(`chat ${id} was deleted in another window`);
  const next = c.store.listChats()[0]?.id;
  try {
    if (next) c.openChat(next);
    else c.openNew();
  } catch (e) {
    c.log(`chat ${next} could not be opened: ${(e as Error).message}`);
    c.openNew();
  }
  return { chat: 'removed', removedId: id };
}

/**
 * A turn of chat `chatId` could not be saved (`persist-failed`) or was refused because another window
 * changed the chat (`chat-changed`): memory follows the disk again (the pipeline already dropped the
 * turn). A chat deleted meanwhile gives way to the most recent other one.
 */
export function followDiskAfterFailedSave(c: SyncedChat, chatId: string, code: 'persist-failed' | 'chat-changed'): void {
  try {
    if (c.store.hasChat(chatId)) c.switchTo(chatId, c.store.loadChat(chatId, { reuse: c.state() }), true);
    else if (code === 'chat-changed') {
      const next = c.store.listChats()[0]?.id;
      if (next) c.switchTo(next, c.store.loadChat(next));
      else c.openNew();
    }
  } catch (e) {
    c.log(`chat ${chatId} could not be reloaded after a failed save: ${(e as Error).message}`);
  }
}

/** The turn metas of chat `chatId` as saved (after a turn was rebuilt on another window's turns); undefined when they do not read back. */
export function savedMetas(store: ChatStore, chatId: string, log: (line: string) => void): TurnMeta[] | undefined {
  try {
    return store.turnMetas(chatId);
  } catch (e) {
    log(`chat ${chatId}: the saved turns could not be read back: ${(e as Error).message}`);
    return undefined;
  }
}
