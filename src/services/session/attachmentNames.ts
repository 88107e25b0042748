/** How the session names an attachment: its label in the panel, and the reference pin / unpin / remove act on. */
import type { AttachmentRef } from '../../engine/engine';
import type { NewArtifactInput } from '../../engine/artifacts';

/** `path` or `path:L12-30` (the chip label, ChipView). */
export function inputLabel(input: Pick<NewArtifactInput, 'uri' | 'range'>): string {
  return input.range ? `${input.uri}:L${input.range.startLine}-${input.range.endLine}` : input.uri;
}

/** The reference of a file or a selection; undefined for what cannot be referred to (a selection without its range). */
export function refOf(input: Pick<NewArtifactInput, 'kind' | 'uri' | 'range'>): AttachmentRef | undefined {
  if (input.kind === 'file') return { kind: 'file', uri: input.uri };
  if (input.kind === 'selection' && input.range) return { kind: 'selection', uri: input.uri, range: { ...input.range } };
  return undefined;
}
