/**
 * The state of the chats' code blocks (Applied, Rejected, Undone) for ChatSession: each decision is
 * saved with its chat (the store keeps it beside the chat file), the active chat's messages carry it
 * at once, and Undo is offered only where the host can still undo (its Undo records live as long as
 * the window).
 */
import type { ChatStore } from '../store/chatStore';
import type { AppliedBlock, TurnMeta } from '../store/chatTypes';
import type { Undoable } from './messageViews';

/** The active chat as the blocks' states need it. */
export interface AppliedChat {
  store: ChatStore;
  chatId: string;
  /** The active chat's turn metas (the session's own array: a saved state is set in it). */
  metas: TurnMeta[];
}

export class AppliedBlocks {
  /** Whether the host can still undo the applied change of block `block` of turn `turn` of chat `chatId` (the host sets it). */
  canUndo: (chatId: string, turn: number, block: number) => boolean = () => false;

  constructor(private readonly active: () => AppliedChat) {}

  /**
   * Saves the state of block `mark.block` of turn `turn`'s reply of chat `chatId` (its change
   * accepted, partly accepted, rejected or undone), so the chat shows it when opened again.
   */
  record(chatId: string, turn: number, mark: AppliedBlock): void {
    const { store, chatId: activeId, metas } = this.active();
    const meta = store.setApplied(chatId, turn, mark);
    if (chatId === activeId && metas[turn - 1]?.turn === turn) metas[turn - 1] = { ...metas[turn - 1], applied: meta.applied };
  }

  /** Undo's availability for the active chat's blocks, as its message views ask. */
  undoable(): Undoable {
    const { chatId } = this.active();
    return (turn, block) => this.canUndo(chatId, turn, block);
  }
}
