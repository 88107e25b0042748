import type { ChipView } from '../src/protocol/messages';
import { h, icon } from './dom';

/**
 * A chip taken off the next message, shown in its place until the message is sent: its name struck
 * through, "removed from next message" and Undo (Enter or Space on it puts the chip back as it was;
 * Escape forgets it, see Composer). What the removal costs is in its title and in Undo's name, so a
 * screen reader says it when the keyboard lands there.
 */
export function removedChipElement(chip: ChipView & { removed: { message: string } }): HTMLElement {
  const message = chip.removed.message;
  const undo = h(
    'button',
    {
      type: 'button',
      class: 'chip-undo',
      'data-testid': 'strata-chip-undo',
      'data-action': 'undo',
      // Starts with what it shows, so speech input can name it.
      'aria-label': `Undo — ${message}`,
      title: `Put ${chip.label} back on the next message (Enter). Escape forgets it.`,
    },
    'Undo',
  );
  return h(
    'li',
    {
      class: 'chip removed',
      'data-testid': 'strata-chip-removed',
      'data-chip-id': chip.id,
      'data-kind': chip.kind,
      title: `${message}\nUndo puts it back; sending the message removes it for good.`,
    },
    icon('trash', 'chip-icon'),
    h('span', { class: 'chip-label' }, chip.label),
    h('span', { class: 'chip-removed-tail' }, h('span', { class: 'chip-removed-note' }, 'removed from next message'), undo),
  );
}

/** Whether `chip` is one taken off the next message (kept for Undo). */
export function isRemovedChip(chip: ChipView): chip is ChipView & { removed: { message: string } } {
  return chip.removed !== undefined;
}
