/**
 * Reads a request the way a model (or an attacker's parser) would: from its text alone. Used to
 * prove that content cannot open or close blocks (docs/design.md#artifacts).
 */
import type { ChatMessage } from '../../../src/engine/types';

/**
 * The request as one text, framed per message as its tokens are counted (docs/design.md#replay):
 * `<|role|>\n` + text + `\n`.
 */
export function requestText(messages: readonly ChatMessage[]): string {
  return messages.map((m) => `<|${m.role}|>\n${m.content.map((b) => b.text).join('')}\n`).join('');
}

export interface ScannedBlock {
  kind: string;
  /** Attribute values as written (still escaped). */
  rawId: string;
  rawPath: string;
  id: string;
  path: string;
  version: number;
  sha: string;
  /** The whole opening tag line, without its `\n`. */
  openTag: string;
  body: string;
  /** Offsets in the scanned text: opening tag start, body start, body end, closing marker end. */
  openStart: number;
  bodyStart: number;
  bodyEnd: number;
  closeEnd: number;
  marker: string;
}

const OPEN =
  /<(file|selection|diagnostics|folder|tool|text) id="([^"\n]*)" version="(\d+)" path="([^"\n]*)"(?: lines="\d+-\d+")? sha="([0-9a-f]{8,}(?:-\d+)?)"[^>\n]*>\n/g;

export function unescapeAttribute(v: string): string {
  return v.replace(/&(quot|lt|gt|amp|#(\d+));/g, (_m, name: string, code?: string) => {
    if (code) return String.fromCodePoint(Number(code));
    return ({ quot: '"', lt: '<', gt: '>', amp: '&' } as Record<string, string>)[name];
  });
}

/**
 * Scans left to right: an opening tag at the start of a line opens a block, which ends at the first
 * following line that is exactly the closing marker the tag announces, `</kind:SHA>` with the tag's
 * `sha` value (the closing marker carries a short hash of the content, docs/design.md#artifacts).
 * Text inside a block is skipped, as a reader would. An opening tag whose marker never comes is
 * `unterminated` and scanning goes on after it.
 */
export function scanBlocks(text: string): { blocks: ScannedBlock[]; unterminated: string[] } {
  const blocks: ScannedBlock[] = [];
  const unterminated: string[] = [];
  let pos = 0;
  for (;;) {
    OPEN.lastIndex = pos;
    let m: RegExpExecArray | null;
    do m = OPEN.exec(text);
    while (m && m.index > 0 && text[m.index - 1] !== '\n');
    if (!m) return { blocks, unterminated };
    const [tag, kind, rawId, version, rawPath, sha] = m;
    const bodyStart = m.index + tag.length;
    const close = new RegExp(`\\n(</${kind}:${sha}>)\\n`, 'g');
    close.lastIndex = bodyStart;
    const c = close.exec(text);
    if (!c) {
      unterminated.push(tag.slice(0, -1));
      pos = bodyStart;
      continue;
    }
    blocks.push({
      kind,
      rawId,
      rawPath,
      id: unescapeAttribute(rawId),
      path: unescapeAttribute(rawPath),
      version: Number(version),
      sha,
      openTag: tag.slice(0, -1),
      body: text.slice(bodyStart, c.index),
      openStart: m.index,
      bodyStart,
      bodyEnd: c.index,
      closeEnd: c.index + c[0].length,
      marker: c[1],
    });
    pos = c.index + c[0].length;
  }
}

/** Opening tag lines (at a line start) in `text`, whatever follows them. */
export function openingTags(text: string): string[] {
  const out: string[] = [];
  OPEN.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = OPEN.exec(text))) if (m.index === 0 || text[m.index - 1] === '\n') out.push(m[0].slice(0, -1));
  return out;
}

/** Every index where `needle` occurs in `text`. */
export function occurrences(text: string, needle: string): number[] {
  const out: number[] = [];
  for (let i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + 1)) out.push(i);
  return out;
}
