import type { Artifact, ArtifactKind, IHasher, LineRange } from './types';

/** Default priorities. Lower is more important. */
export const PRIORITY = {
  essential: 0,
  selection: 3,
  medium: 5,
  low: 10,
} as const;

/** Files, folders and diagnostics can be read again; so can a tool's output, by calling the tool. */
export function isRecoverableKind(kind: ArtifactKind): boolean {
  return kind === 'file' || kind === 'folder' || kind === 'diagnostics' || kind === 'tool';
}

/**
 * The key of one artifact version as written everywhere: the id alone for v1,
 * `id@vN` for later versions. Stable: it never changes when later versions appear.
 */
export function versionKey(id: string, version: number): string {
  return version === 1 ? id : `${id}@v${version}`;
}

export function fileId(path: string): string {
  return `file:${path}`;
}

export function selectionId(path: string, range: LineRange, contentHash: string): string {
  return `sel:${path}#L${range.startLine}-L${range.endLine}@${contentHash.slice(0, 8)}`;
}

export function textId(contentHash: string): string {
  return `text:${contentHash.slice(0, 16)}`;
}

/**
 * Splits text into lines the way VS Code does: `\r\n`, `\n` and `\r` end a line; U+2028/U+2029 do not.
 * Returns [start, endWithoutBreak] offsets for each line.
 */
export function lineSpans(text: string): [number, number][] {
  const spans: [number, number][] = [];
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10 /* \n */) {
      spans.push([start, i]);
      start = i + 1;
    } else if (c === 13 /* \r */) {
      spans.push([start, i]);
      if (text.charCodeAt(i + 1) === 10) i++;
      start = i + 1;
    }
  }
  spans.push([start, text.length]);
  return spans;
}

/**
 * The selection snapshot: from the start of `startLine` to the end of `endLine`
 * without its final line break; 1-based inclusive; `endLine` past the end is clamped.
 * Returns undefined when the range is empty or starts past the end of the text.
 * Walks the lines only up to `endLine` (the same spans as `lineSpans`): a selection near the top of a
 * 5 MB file costs nothing.
 */
export function sliceLines(text: string, range: LineRange): { content: string; range: LineRange } | undefined {
  if (!Number.isInteger(range.startLine) || !Number.isInteger(range.endLine)) return undefined;
  if (range.startLine < 1 || range.endLine < range.startLine) return undefined;
  const n = text.length;
  let line = 1;
  let start = 0;
  let sliceStart = -1;
  for (;;) {
    if (line === range.startLine) sliceStart = start;
    let end = n;
    let next = -1;
    for (let j = start; j < n; j++) {
      const c = text.charCodeAt(j);
      if (c === 10 /* \n */) {
        end = j;
        next = j + 1;
        break;
      }
      if (c === 13 /* \r */) {
        end = j;
        next = text.charCodeAt(j + 1) === 10 ? j + 2 : j + 1;
        break;
      }
    }
    if (line === range.endLine || next < 0) {
      if (sliceStart < 0) return undefined;
      return { content: text.slice(sliceStart, end), range: { startLine: range.startLine, endLine: line } };
    }
    line++;
    start = next;
  }
}

export interface NewArtifactInput {
  kind: ArtifactKind;
  uri: string;
  range?: LineRange;
  content: string;
  /** Overrides the id derived from kind/uri/range/content (tool outputs name themselves). */
  id?: string;
  /** A selection's endLine as the user gave it, when it was past the end of the file (clamped). */
  requestedEndLine?: number;
  /** `tool` artifacts: the tool that produced it (the id is `tool:<name>@<hash8>`). */
  tool?: string;
}

export function makeArtifact(input: NewArtifactInput, version: number, hasher: IHasher): Artifact {
  const contentHash = hasher.sha256Hex(input.content);
  const id = input.id ?? deriveId(input, contentHash);
  const recoverable = isRecoverableKind(input.kind);
  return {
    id,
    kind: input.kind,
    source: input.range ? { uri: input.uri, range: { ...input.range } } : { uri: input.uri },
    recoverable,
    content: input.content,
    contentHash,
    version,
    priority: input.kind === 'selection' ? PRIORITY.selection : PRIORITY.medium,
    essential: false,
  };
}

function deriveId(input: NewArtifactInput, contentHash: string): string {
  switch (input.kind) {
    case 'file':
      return input.uri.startsWith('untitled:') ? input.uri : fileId(input.uri);
    case 'selection':
      if (!input.range) throw new Error('a selection needs a line range');
      return selectionId(input.uri, input.range, contentHash);
    case 'diagnostics':
      return `diag:${input.uri}`;
    case 'folder':
      return `folder:${input.uri}`;
    case 'tool':
      return `tool:${input.tool ?? input.uri}@${contentHash.slice(0, 8)}`;
    case 'text':
      return textId(contentHash);
  }
}

export function describeArtifact(a: Pick<Artifact, 'kind' | 'source'>): string {
  const r = a.source.range;
  return r ? `${a.source.uri} lines ${r.startLine}-${r.endLine}` : a.source.uri;
}
