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

/**
 * A head cut further to the first lines that fit `room` tokens (what the next message leaves of the
 * budget): 8 MB of a log is millions of tokens, which the pruner would drop whole. The cut is found
 * from the text's own characters-per-token, counted on prefixes (a few counts, never the whole 8 MB
 * when little fits; `count` is asynchronous so the caller counts in slices that yield), and lands
 * after a whole line. `undefined` when not even the first line fits.
 */
export async function fitHeadToRoom(
  head: { input: NewArtifactInput; lines: number; of: number },
  room: number,
  count: (text: string) => Promise<number>,
): Promise<{ input: NewArtifactInput; lines: number; of: number } | undefined> {
  const text = head.input.content;
  /** The prefix of whole lines within `chars` characters (at least the first line when it is all there is). */
  const prefix = (chars: number): string => {
    if (chars >= text.length) return text;
    const lf = text.lastIndexOf('\n', chars);
    return lf < 0 ? '' : text.slice(0, text[lf - 1] === '\r' ? lf - 1 : lf);
  };
  // Start at four characters a token, then scale by what the count of that prefix says.
  let chars = Math.min(text.length, room * 4);
  let best = '';
  for (let attempt = 0; attempt < 8; attempt++) {
    const candidate = prefix(chars);
    const tokens = candidate.length === 0 ? 0 : await count(candidate);
    if (tokens <= room) {
      if (candidate.length > best.length) best = candidate;
      // All of it, or within 2% of the room: good enough.
      if (candidate.length === text.length || tokens >= room * 0.98 || candidate.length === 0) break;
      chars = Math.floor((candidate.length * room * 0.99) / Math.max(1, tokens));
    } else {
      chars = Math.floor((candidate.length * room * 0.97) / tokens);
    }
    if (chars <= best.length) break;
  }
  if (best.length === 0) return undefined;
  if (best.length === text.length) return head;
  let lines = 1;
  for (let i = best.indexOf('\n'); i >= 0; i = best.indexOf('\n', i + 1)) lines++;
  return {
    input: { ...head.input, content: best, range: { startLine: 1, endLine: lines } },
    lines,
    of: head.of,
  };
}
