/**
 * The first lines of a file over `strata.context.maxFileBytes`, as a selection of lines 1–N that
 * fits the limit, with the file's line count M so the chip and the tree say "first N lines of M":
 * a head is never sent as if it were the whole file. The bytes come from the workspace port after
 * the same isolation as any attachment; binary content is refused as it is for a whole file. Pure.
 */
import type { NewArtifactInput } from '../engine/artifacts';
import { binaryRejection, type Rejection } from '../engine/isolation';
import { formatBytes } from '../common/numberFormat';

export type HeadResolved = { ok: true; input: NewArtifactInput; lines: number; of: number } | { ok: false; rejection: Rejection };

/** A file's first bytes (at most the limit), its size, and the line feeds of the whole file. */
export interface HeadBytes {
  head: Uint8Array;
  size: number;
  lineFeeds: number;
  endsWithLineFeed: boolean;
}

function lineFeedsIn(bytes: Uint8Array, end: number): number {
  let n = 0;
  for (let i = bytes.indexOf(0x0a); i >= 0 && i < end; i = bytes.indexOf(0x0a, i + 1)) n++;
  return n;
}

/**
 * Lines 1–N of `path` from its first bytes: cut after the last whole line the bytes hold (a line is
 * never sent in part), without the final line break, as a selection snapshot is.
 */
export function headOfBytes(path: string, r: HeadBytes, limit: number): HeadResolved {
  if (r.head.indexOf(0) >= 0) return { ok: false, rejection: binaryRejection(path, path, r.head.subarray(0, 16)) };
  const of = r.lineFeeds + (r.endsWithLineFeed || r.size === 0 ? 0 : 1);
  let end = r.head.length;
  let lines = of;
  if (r.head.length < r.size) {
    const lf = r.head.lastIndexOf(0x0a);
    if (lf < 0)
      return {
        ok: false,
        rejection: {
          attachment: path,
          reason: 'too-large',
          message: `${path}: its first line alone is over the ${formatBytes(limit)} limit; nothing of it was sent.`,
        },
      };
    end = lf;
    lines = lineFeedsIn(r.head, lf + 1);
  } else if (r.endsWithLineFeed && end > 0) end -= 1;
  let content = new TextDecoder('utf-8').decode(r.head.subarray(0, end));
  if (content.endsWith('\r')) content = content.slice(0, -1);
  return { ok: true, input: { kind: 'selection', uri: path, range: { startLine: 1, endLine: Math.max(1, lines) }, content }, lines, of };
}

/** The same for a document's text (an open editor's buffer): its UTF-8 bytes, the first `limit` of them. */
export function headOfText(path: string, text: string, limit: number): HeadResolved {
  const bytes = new TextEncoder().encode(text);
  const head = bytes.subarray(0, Math.min(limit, bytes.length));
  return headOfBytes(
    path,
    { head, size: bytes.length, lineFeeds: lineFeedsIn(bytes, bytes.length), endsWithLineFeed: bytes[bytes.length - 1] === 0x0a },
    limit,
  );
}
