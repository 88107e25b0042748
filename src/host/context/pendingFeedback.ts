/**
 * Pin, Unpin and Remove from the Context Layers tree (or on a chip) say at once what they do and
 * cost: the predicted uncached tokens of the next request before and after, and the tree's rows and
 * "Next message" marked (src/services/pendingTree.ts). An item of the chat gets a banner in the panel
 * with Undo; a chip taken off the next message says it in its own place in the composer, with Undo.
 * Undo takes the operation back (a chip comes back as it was: same id, same place, same content).
 */
import type { ChatSession } from '../../services/chatSession';
import { pendingMessage, pendingStatus, uncachedTokens, type PendingItem } from '../../services/session/pendingCost';
import { artifactIdOf } from '../../services/pendingTree';
import type { StrataController } from '../strataController';

interface Shown extends PendingItem {
  bannerId?: string;
  /** The chat and its number of turns when it was set: a send or a chat switch settles it. */
  chatId: string;
  turns: number;
}

export class PendingFeedback {
  private readonly shown = new Map<string, Shown>();

  constructor(
    private readonly controller: StrataController,
    private readonly session: ChatSession,
  ) {}

  /** The pending operations as the tree shows them (those the session no longer holds are dropped). */
  items(): PendingItem[] {
    this.settle();
    return [...this.shown.values()].map(({ bannerId: _b, chatId: _c, turns: _t, ...p }) => p);
  }

  /** Pins or unpins `ref` (a chip or an item of the chat) and says what it costs. */
  setPinned(ref: string, pinned: boolean): boolean {
    return this.run(ref, pinned ? 'pin' : 'unpin', () => this.controller.setPinned(ref, pinned));
  }

  /**
   * Removes `ref` from the next message on and says what it costs. A chip is taken off the next
   * message and kept in its place until the message is sent, so Undo gives back exactly that chip.
   */
  remove(ref: string): boolean {
    const composer = this.session.composer;
    if (this.session.chips().some((c) => c.id === ref))
      return this.run(ref, 'detach', () => composer.takeOff(ref, `${this.labelOf(ref)}: ${pendingStatus({ op: 'unattach' })}.`));
    return this.run(ref, 'detach', () => this.controller.remove(ref));
  }

  /** Takes back the pending operation named by a tree row (`ref`), the panel's banner (`bannerId`) or a chip. */
  async undo(arg: { ref?: string; bannerId?: string }): Promise<boolean> {
    this.settle();
    const entry = [...this.shown.values()].find(
      (s) => (arg.bannerId !== undefined && s.bannerId === arg.bannerId) || (arg.ref !== undefined && s.id === artifactIdOf(arg.ref)),
    );
    if (!entry) return false;
    this.forget(entry);
    if (entry.op === 'unattach') {
      if (!this.session.composer.restore(entry.id)) return false;
      this.controller.refreshChips();
      return true;
    }
    this.session.cancelItemOp(entry.id);
    this.controller.refreshMeter();
    this.controller.notifyChanged();
    return true;
  }

  /** Forgets chip `chipId` taken off the next message: it goes now, without waiting for the send, and with it its Undo. */
  dismiss(chipId: string): boolean {
    if (!this.session.composer.dismiss(chipId)) return false;
    const entry = this.shown.get(chipId);
    if (entry) this.forget(entry);
    this.controller.refreshChips();
    return true;
  }

  private labelOf(chipId: string): string {
    return this.session.chips().find((c) => c.id === chipId)?.label ?? chipId;
  }

  private run(ref: string, op: 'pin' | 'unpin' | 'detach', act: () => boolean): boolean {
    const chip = this.session.chips().find((c) => c.id === ref);
    const item = chip ? undefined : this.session.chatItems().find((i) => i.key === ref || i.id === artifactIdOf(ref));
    const provider = this.controller.currentModel()?.provider;
    const before = uncachedTokens(this.session.predictedEnvelope(), provider);
    if (!act()) return false;
    // A chip's pin shows on the chip itself; only taking a chip off the next message is pending.
    if (chip && op !== 'detach') return true;
    const after = uncachedTokens(this.session.predictedEnvelope(), provider);
    const id = chip ? chip.id : (item?.id ?? artifactIdOf(ref));
    const old = this.shown.get(id);
    if (old) this.forget(old);
    const entry: Shown = {
      id,
      op: chip ? 'unattach' : op,
      label: chip?.label ?? item?.label ?? ref,
      kind: (chip?.kind ?? item?.kind) === 'selection' ? 'selection' : 'file',
      chatId: this.session.activeChatId,
      turns: this.session.turnMetas().length,
    };
    if (before !== undefined && after !== undefined) Object.assign(entry, { before, after });
    if (chip) {
      // The chip says it in its place, with its own Undo: a banner would say it twice.
      this.session.composer.describeRemoval(id, pendingMessage(entry));
      this.shown.set(id, entry);
      this.controller.refreshChips();
      return true;
    }
    // Pinning or unpinning back to what the item is cancels the pending one: nothing to show.
    if (!this.session.chatItems().some((i) => i.id === id && i.pending)) {
      this.controller.notifyChanged();
      return true;
    }
    entry.bannerId = this.controller.showBanner('info', pendingMessage(entry), ['undo']);
    this.shown.set(id, entry);
    this.controller.notifyChanged();
    return true;
  }

  private forget(entry: Shown): void {
    this.shown.delete(entry.id);
    if (entry.bannerId) this.controller.clearBanners((b) => b.id === entry.bannerId);
  }

  /**
   * Drops what the session no longer holds pending: the message was sent, or the chat changed. A chip
   * taken off stays pending while the composer holds it so (the composer outlives a chat switch).
   */
  private settle(): void {
    if (this.shown.size === 0) return;
    const pending = new Set(
      this.session
        .chatItems()
        .filter((i) => i.pending)
        .map((i) => i.id),
    );
    for (const s of [...this.shown.values()]) {
      const moved = s.chatId !== this.session.activeChatId || s.turns !== this.session.turnMetas().length;
      const gone = s.op === 'unattach' ? !this.session.composer.isTakenOff(s.id) : moved || !pending.has(s.id);
      if (gone) this.forget(s);
    }
  }
}
