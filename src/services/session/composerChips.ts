/**
 * The composer's attachment chips: files and selections attached to the next message. A selection's
 * snapshot is final when it is attached; a file is read again when the message is sent.
 */
import type { AttachmentRef } from '../../engine/engine';
import type { NewArtifactInput } from '../../engine/artifacts';
import type { ChipView } from '../../protocol/messages';
import type { TurnAttachment } from '../turn/turnRequest';
import type { AttachmentSpec } from '../workspacePort';
import { inputLabel, refOf } from './attachmentNames';

interface Chip {
  id: string;
  spec: AttachmentSpec;
  /** A selection's snapshot (sent as is); a file's content when attached (re-read at send). */
  input: NewArtifactInput;
  pinned: boolean;
  tokens: number;
  label: string;
  detail: string;
}

function countLines(text: string): number {
  let n = 1;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

export class ComposerChips {
  private list: Chip[] = [];
  /** Chip ids stay unique for the session's lifetime (a removed chip's id is never reused). */
  private lastId = 0;

  views(): ChipView[] {
    return this.list.map((c) => ({
      id: c.id,
      kind: c.input.kind === 'selection' ? 'selection' : 'file',
      label: c.label,
      tokens: c.tokens,
      pinned: c.pinned,
      detail: c.detail,
    }));
  }

  /** Adds the resolved `input` of `spec` (`tokens` long); attaching the same file or selection again refreshes its chip. */
  put(spec: AttachmentSpec, input: NewArtifactInput, tokens: number): ChipView {
    const same = this.list.find(
      (c) =>
        c.input.kind === input.kind &&
        c.input.uri === input.uri &&
        (input.kind !== 'selection' ||
          (c.input.range?.startLine === input.range?.startLine &&
            c.input.range?.endLine === input.range?.endLine &&
            c.input.content === input.content)),
    );
    const lines = countLines(input.content);
    const detail = `${input.uri}${input.range ? `, lines ${input.range.startLine}-${input.range.endLine}` : ''}: ${lines} line${lines === 1 ? '' : 's'}, ${tokens} tokens${input.requestedEndLine !== undefined ? ` (the file ends at line ${input.range!.endLine})` : ''}`;
    if (same) {
      same.input = input;
      same.tokens = tokens;
      same.detail = detail;
      return this.views().find((c) => c.id === same.id)!;
    }
    const chip: Chip = { id: `chip-${++this.lastId}`, spec, input, pinned: false, tokens, label: inputLabel(input), detail };
    this.list.push(chip);
    return this.views()[this.list.length - 1];
  }

  remove(id: string): boolean {
    const n = this.list.length;
    this.list = this.list.filter((c) => c.id !== id);
    return this.list.length !== n;
  }

  setPinned(id: string, pinned: boolean): boolean {
    const chip = this.list.find((c) => c.id === id);
    if (!chip) return false;
    chip.pinned = pinned;
    return true;
  }

  /** The chips as the turn's attachments: selections as their snapshots, files as specs read at send. */
  turnAttachments(): TurnAttachment[] {
    return this.list.map((c) => (c.input.kind === 'selection' ? { kind: 'snapshot', input: c.input, label: c.label } : c.spec));
  }

  /** The chips' content as attached (the meter's prediction, without reading the workspace). */
  inputs(): NewArtifactInput[] {
    return this.list.map((c) => c.input);
  }

  /** References of the chips pinned in the composer. */
  pinnedRefs(): AttachmentRef[] {
    const pin: AttachmentRef[] = [];
    for (const c of this.list) {
      const ref = c.pinned ? refOf(c.input) : undefined;
      if (ref) pin.push(ref);
    }
    return pin;
  }

  /** Empties the composer (the chip ids go on counting). */
  reset(): void {
    this.list = [];
  }
}
