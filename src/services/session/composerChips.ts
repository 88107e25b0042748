/**
 * The composer's attachment chips: files and selections attached to the next message. A selection's
 * snapshot is final when it is attached; a file is read again when the message is sent. A selection
 * may carry the definitions it uses (each a range of its file, sent with it); a file attached as its
 * outline is sent as that outline. A chip the user takes off the next message keeps its place (and
 * its snapshot) until the message is sent, so Undo puts back exactly what was there.
 */
import type { AttachmentRef } from '../../engine/engine';
import type { NewArtifactInput } from '../../engine/artifacts';
import { formatInt } from '../../common/numberFormat';
import type { ChipView, DefinitionView, LeftOutView } from '../../protocol/messages';
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
  /** Sent as attached, not read again at send: a selection, an outline. */
  snapshot: boolean;
  partial?: { lines: number; of: number };
  definitions?: ChipDefinition[];
  definitionsLeftOut?: LeftOutView[];
  /** Taken off the next message, kept for Undo: what the panel says about it (what it costs). */
  removal?: { message: string };
}

/** A declaration attached with a selection chip. */
export interface ChipDefinition {
  input: NewArtifactInput;
  symbol: string;
  usedBy: string;
  tokens: number;
}

/** How a chip carries extra content: definitions of a selection, or a file attached as its outline. */
export interface ChipExtras {
  definitions?: readonly ChipDefinition[];
  /** Declarations found but left out, with why (shown on the chip). */
  leftOut?: readonly LeftOutView[];
  outline?: boolean;
  /** The first lines of a file over the size limit: how many, of how many the file has (the chip says so). */
  partial?: { lines: number; of: number };
}

function definitionView(d: ChipDefinition): DefinitionView {
  return { label: inputLabel(d.input), symbol: d.symbol, usedBy: d.usedBy, tokens: d.tokens };
}

function countLines(text: string): number {
  let n = 1;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

function definitionCount(n: number): string {
  return `${n} definition${n === 1 ? '' : 's'}`;
}

export class ComposerChips {
  private list: Chip[] = [];
  /** Chip ids stay unique for the session's lifetime (a removed chip's id is never reused). */
  private lastId = 0;

  /** `changed`: a chip was added or refreshed (what the next request predicts changed). */
  constructor(private readonly changed: () => void = () => undefined) {}

  /** The chips the next message carries. */
  views(): ChipView[] {
    return this.live().map((c) => this.view(c));
  }

  /** The chips as the panel shows them: those taken off the next message too, in their places, marked. */
  panelViews(): ChipView[] {
    return this.list.map((c) => (c.removal ? { ...this.view(c), removed: { ...c.removal } } : this.view(c)));
  }

  private live(): Chip[] {
    return this.list.filter((c) => !c.removal);
  }

  private view(c: Chip): ChipView {
    const view: ChipView = {
      id: c.id,
      kind: c.input.kind === 'selection' ? 'selection' : 'file',
      label: c.label,
      tokens: c.tokens,
      pinned: c.pinned,
      detail: c.detail,
    };
    if (c.definitions) view.definitions = c.definitions.map(definitionView);
    if (c.definitionsLeftOut?.length) view.definitionsLeftOut = c.definitionsLeftOut.map((l) => ({ ...l }));
    if (c.snapshot && c.input.kind !== 'selection') view.outline = true;
    if (c.partial) view.partial = { ...c.partial };
    return view;
  }

  /**
   * Adds the resolved `input` of `spec` (`tokens` long); attaching the same file or selection again
   * refreshes its chip (and its definitions or outline: what was attached last is what is sent), and
   * puts it back on the next message if it had been taken off.
   */
  put(spec: AttachmentSpec, input: NewArtifactInput, tokens: number, extras: ChipExtras = {}): ChipView {
    const same = this.list.find(
      (c) =>
        (c.input.kind === input.kind || (c.spec.kind === 'file' && spec.kind === 'file')) &&
        c.input.uri === input.uri &&
        (input.kind !== 'selection' ||
          (c.input.range?.startLine === input.range?.startLine &&
            c.input.range?.endLine === input.range?.endLine &&
            c.input.content === input.content)),
    );
    const lines = countLines(input.content);
    const what = extras.partial
      ? `: the first ${formatInt(extras.partial.lines)} lines of ${formatInt(extras.partial.of)} (the file is over the size limit)`
      : extras.outline
        ? ': its outline (too large for the imports budget)'
        : '';
    const defs = extras.definitions?.length ? `; with ${definitionCount(extras.definitions.length)}` : '';
    const detail = `${input.uri}${input.range ? `, lines ${input.range.startLine}-${input.range.endLine}` : ''}${what}: ${lines} line${lines === 1 ? '' : 's'}, ${tokens} tokens${input.requestedEndLine !== undefined ? ` (the file ends at line ${input.range!.endLine})` : ''}${defs}`;
    const snapshot = input.kind !== 'file';
    const definitions = extras.definitions ? [...extras.definitions] : undefined;
    const definitionsLeftOut = extras.leftOut?.length ? extras.leftOut.map((l) => ({ ...l })) : undefined;
    if (same) {
      same.definitionsLeftOut = definitionsLeftOut;
      same.input = input;
      same.tokens = tokens;
      same.detail = detail;
      same.snapshot = snapshot;
      same.definitions = definitions;
      if (extras.partial) same.partial = { ...extras.partial };
      else delete same.partial;
      delete same.removal;
      this.changed();
      return this.view(same);
    }
    const chip: Chip = {
      id: `chip-${++this.lastId}`,
      spec,
      input,
      pinned: false,
      tokens,
      label: inputLabel(input),
      detail,
      snapshot,
      definitions,
      definitionsLeftOut,
      ...(extras.partial ? { partial: { ...extras.partial } } : {}),
    };
    this.list.push(chip);
    this.changed();
    return this.view(chip);
  }

  /** Removes chip `id` for good (whether or not it was taken off the next message). */
  remove(id: string): boolean {
    const n = this.list.length;
    this.list = this.list.filter((c) => c.id !== id);
    return this.list.length !== n;
  }

  /**
   * Takes chip `id` off the next message: it is no longer sent, counted or pinned, but keeps its
   * place, content and id until the message is sent, for Undo. `message` is what the panel says.
   */
  takeOff(id: string, message: string): boolean {
    const chip = this.live().find((c) => c.id === id);
    if (!chip) return false;
    chip.removal = { message };
    this.changed();
    return true;
  }

  /** Says something else about a chip taken off (its cost, once it is known). */
  describeRemoval(id: string, message: string): boolean {
    const chip = this.list.find((c) => c.id === id && c.removal);
    if (!chip) return false;
    chip.removal = { message };
    return true;
  }

  /** Undo: chip `id` goes back on the next message, in its place, as it was. */
  restore(id: string): boolean {
    const chip = this.list.find((c) => c.id === id && c.removal);
    if (!chip) return false;
    delete chip.removal;
    this.changed();
    return true;
  }

  /** Whether chip `id` is held, taken off the next message, for Undo. */
  isTakenOff(id: string): boolean {
    return this.list.some((c) => c.id === id && c.removal);
  }

  /** Forgets chip `id` taken off the next message (no Undo any more). */
  dismiss(id: string): boolean {
    return this.isTakenOff(id) && this.remove(id);
  }

  /** Forgets every chip taken off the next message (their Undo belongs to the chat they were taken off in). */
  dismissTakenOff(): boolean {
    const n = this.list.length;
    this.list = this.list.filter((c) => !c.removal);
    return this.list.length !== n;
  }

  setPinned(id: string, pinned: boolean): boolean {
    const chip = this.live().find((c) => c.id === id);
    if (!chip) return false;
    chip.pinned = pinned;
    return true;
  }

  /** A chip's spec (what "with definitions" reads again for a selection chip). */
  spec(id: string): AttachmentSpec | undefined {
    return this.live().find((c) => c.id === id)?.spec;
  }

  /**
   * The chips as the turn's attachments: selections and outlines as their snapshots, files as specs
   * read at send; a selection's definitions right after it.
   */
  turnAttachments(): TurnAttachment[] {
    return this.live().flatMap((c): TurnAttachment[] => [
      c.snapshot ? { kind: 'snapshot', input: c.input, label: c.label } : c.spec,
      ...(c.definitions ?? []).map((d): TurnAttachment => ({ kind: 'snapshot', input: d.input, label: inputLabel(d.input) })),
    ]);
  }

  /** The chips' content as attached (the meter's prediction, without reading the workspace). */
  inputs(): NewArtifactInput[] {
    return this.live().flatMap((c) => [c.input, ...(c.definitions ?? []).map((d) => d.input)]);
  }

  /** References of the chips pinned in the composer. */
  pinnedRefs(): AttachmentRef[] {
    const pin: AttachmentRef[] = [];
    for (const c of this.live()) {
      const ref = c.pinned ? refOf(c.input) : undefined;
      if (ref) pin.push(ref);
    }
    return pin;
  }

  /** Empties the composer, chips taken off included (the chip ids go on counting). */
  reset(): void {
    this.list = [];
  }
}
