/**
 * The next request of the active chat as the composer and the pending operations make it: the
 * pipeline's request for a message, and the same as an engine input for the meter's prediction
 * (built without reading the workspace).
 */
import type { TurnInput } from '../../engine/engine';
import type { ChatState } from '../../engine/state';
import { withCarriedFiles } from '../codeIntel/carriedRanges';
import type { TurnRequest } from '../turn/turnRequest';
import type { ComposerChips } from './composerChips';
import type { PendingOperations } from './pendingOperations';

/** What the next request is made of. */
export interface NextRequestParts {
  state: ChatState;
  composer: ComposerChips;
  pending: PendingOperations;
  /** The target percent of the budget a requested compaction cuts down to (read only then). */
  targetPercent: () => number;
}

/** The pipeline request for `text` with the chips and the pending operations. */
export function nextRequest(parts: NextRequestParts, text: string): TurnRequest {
  const { state, composer, pending } = parts;
  const attachments = withCarriedFiles(state, composer.turnAttachments());
  const ops = pending.refs(state);
  const req: TurnRequest = {
    userText: text,
    attachments,
    pin: [...composer.pinnedRefs(), ...ops.pin],
    unpin: ops.unpin,
    detach: ops.detach,
  };
  if (pending.compactionRequested) req.targetPercentOverride = parts.targetPercent();
  return req;
}

/** The same request as an engine input, without reading the workspace (the meter's prediction). */
export function predictedInput(parts: NextRequestParts): TurnInput {
  const req = nextRequest(parts, '');
  const input: TurnInput = {
    userText: '',
    attachments: parts.composer.inputs(),
    pin: [...(req.pin ?? [])],
    unpin: [...(req.unpin ?? [])],
    detach: [...(req.detach ?? [])],
  };
  if (req.targetPercentOverride !== undefined) input.targetPercentOverride = req.targetPercentOverride;
  return input;
}
