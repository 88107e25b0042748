/**
 * Pin, Unpin and Remove from the Context Layers tree (or on a chip) say at once what they do and
 * cost: the predicted uncached tokens of the next request before and after, a banner in the panel
 * with Undo, and the tree's rows and "Next message" marked (src/services/pendingTree.ts). Undo takes
 * the operation back (a chip taken off the next message is attached again).
 */
import type { ChatSession } from '../services/chatSession';
import { pendingMessage, uncachedTokens, type PendingItem } from '../services/session/pendingCost';
import { artifactIdOf } from '../services/pendingTree';
import type { AttachmentSpec } from '../services/workspacePort';
import type { StrataController } from './strataController';

interface Shown extends PendingItem {
  bannerId?: string;
  /** The chat and its number of turns when it was set: a send or a chat switch settles it. */
  chatId: string;
  turns: number;
  /** A chip taken off the next message: what Undo attaches again. */
  spec?: AttachmentSpec;
}

/** `path` or `path:L3-9` (a chip's label) as what attaches it again. */
function specOfLabel(label: string, kind: 'file' | 'selection'): AttachmentSpec {
  const m = /^(.*):L(\d+)-(\d+)$/.exec(label);
  return kind === 'selection' && m
    ? { kind: 'selection', path: m[1], startLine: Number(m[2]), endLine: Number(m[3]) }
    : { kind: 'file', path: label };
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
    return [...this.shown.values()].map(({ bannerId: _b, spec: _s, chatId: _c, turns: _t, ...p }) => p);
  }

  /** Pins or unpins `ref` (a chip or an item of the chat) and says what it costs. */
  setPinned(ref: string, pinned: boolean): boolean {
    return this.run(ref, pinned ? 'pin' : 'unpin', () => this.controller.setPinned(ref, pinned));
  }

  /** Removes `ref` from the next message on and says what it costs. */
  remove(ref: string): boolean {
    return this.run(ref, 'detach', () => this.controller.remove(ref));
  }

  /** Takes back the pending operation named by a tree row (`ref`) or the panel's banner (`bannerId`). */
  async undo(arg: { ref?: string; bannerId?: string }): Promise<boolean> {
    this.settle();
    const entry = [...this.shown.values()].find(
      (s) => (arg.bannerId !== undefined && s.bannerId === arg.bannerId) || (arg.ref !== undefined && s.id === artifactIdOf(arg.ref)),
    );
    if (!entry) return false;
    this.forget(entry);
    if (entry.spec) {
      await this.controller.attachSpecs([{ ok: true, spec: entry.spec }]);
      return true;
    }
    this.session.cancelItemOp(entry.id);
    this.controller.refreshMeter();
    this.controller.notifyChanged();
    return true;
  }

  private run(ref: string, op: 'pin' | 'unpin' | 'detach', act: () => boolean): boolean {
    const chip = this.session.chips().find((c) => c.id === ref);
    const item = chip ? undefined : this.session.chatItems().find((i) => i.key === ref || i.id === artifactIdOf(ref));
    const provider = this.controller.currentModel()?.provider;
    const before = uncachedTokens(this.session.predictedEnvelope(), provider);
    if (!act()) return false;
    // A chip's pin shows on the chip itself; only taking a chip off the next message needs an Undo.
    if (chip && op !== 'detach') return true;
    const after = uncachedTokens(this.session.predictedEnvelope(), provider);
    const id = chip ? chip.id : (item?.id ?? artifactIdOf(ref));
    const old = this.shown.get(id);
    if (old) this.forget(old);
    const kind = (chip?.kind ?? item?.kind) === 'selection' ? 'selection' : 'file';
    const entry: Shown = {
      id,
      op: chip ? 'unattach' : op,
      label: chip?.label ?? item?.label ?? ref,
      kind,
      chatId: this.session.activeChatId,
      turns: this.session.turnMetas().length,
    };
    if (before !== undefined && after !== undefined) Object.assign(entry, { before, after });
    if (chip) entry.spec = specOfLabel(chip.label, kind);
    // Pinning or unpinning back to what the item is cancels the pending one: nothing to show.
    if (!chip && !this.session.chatItems().some((i) => i.id === id && i.pending)) {
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

  /** Drops what the session no longer holds pending: the message was sent, or the chat changed. */
  private settle(): void {
    if (this.shown.size === 0) return;
    const pending = new Set(
      this.session
        .chatItems()
        .filter((i) => i.pending)
        .map((i) => i.id),
    );
    const chips = new Set(this.session.chips().map((c) => c.label));
    for (const s of [...this.shown.values()]) {
      const moved = s.chatId !== this.session.activeChatId || s.turns !== this.session.turnMetas().length;
      const gone = moved || (s.spec ? chips.has(s.label) : !pending.has(s.id));
      if (gone) this.forget(s);
    }
  }
}
