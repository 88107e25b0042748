import type { ApplyStateKind } from '../src/protocol/messages';
import { h, icon } from './dom';

/** A change's state as the host sent it for one code block. */
export interface BlockApplyState {
  state: ApplyStateKind;
  accepted: number;
  total: number;
  /** false: the host no longer holds what Undo needs (a saved state after a reload): "Applied" without Undo. */
  undo?: boolean;
}

/** The id Apply sends with a code block and the host's `applyState` names: `<chatId>/<messageId>/<block number>`. */
export function blockIdOf(chatId: string, messageId: string, index: number): string {
  return `${chatId}/${messageId}/${index}`;
}

/** The parts of a block id (undefined when it is not one). */
export function parseBlockId(blockId: string): { chatId: string; messageId: string; index: number } | undefined {
  const last = blockId.lastIndexOf('/');
  const first = blockId.indexOf('/');
  if (first <= 0 || last <= first) return undefined;
  const index = Number(blockId.slice(last + 1));
  if (!Number.isInteger(index) || index < 0) return undefined;
  return { chatId: blockId.slice(0, first), messageId: blockId.slice(first + 1, last), index };
}

/** What the block says: "Applied", "Applied 1 of 2 changes", "Rejected", "Undone". */
export function applyStateText(s: BlockApplyState): string {
  if (s.state === 'rejected') return 'Rejected';
  if (s.state === 'undone') return 'Undone';
  return s.accepted < s.total ? `Applied ${s.accepted} of ${s.total} changes` : 'Applied';
}

/**
 * Shows the state under the block's header (replacing an earlier one): the host decided it; the
 * panel only renders it. Applied offers Undo, which asks the host (`undo-apply`), unless the host said
 * it cannot (`undo: false`).
 */
export function paintApplyState(codeBlock: Element, blockId: string, s: BlockApplyState): void {
  codeBlock.querySelector(':scope > .code-status')?.remove();
  const status = h(
    'div',
    { class: `code-status code-status-${s.state}`, 'data-testid': 'strata-applied', 'data-state': s.state, role: 'status' },
    icon(s.state === 'applied' ? 'check' : s.state === 'rejected' ? 'close' : 'discard'),
    h('span', { class: 'code-status-text' }, applyStateText(s)),
  );
  if (s.state === 'applied' && s.undo !== false) {
    status.append(
      h('span', { class: 'code-status-sep', 'aria-hidden': 'true' }, '·'),
      h(
        'button',
        {
          type: 'button',
          class: 'code-status-undo',
          'data-testid': 'strata-undo-apply',
          'data-action': 'undo-apply',
          'data-block-id': blockId,
          title: 'Put the file back as it was before this change',
        },
        'Undo',
      ),
    );
  }
  const header = codeBlock.querySelector(':scope > .code-header');
  if (header) header.after(status);
  else codeBlock.prepend(status);
}
