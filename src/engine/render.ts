import type { Artifact, ToolCall } from './types';
import { versionKey } from './artifacts';

/**
 * Rendering of artifact blocks. Content is sent verbatim; the closing marker carries a
 * prefix of the content hash long enough that the content cannot contain it, so no file can close
 * or forge a block. Attribute values are escaped.
 */

export function escapeAttribute(value: string): string {
  let out = '';
  for (const ch of value) {
    switch (ch) {
      case '&':
        out += '&amp;';
        break;
      case '"':
        out += '&quot;';
        break;
      case '<':
        out += '&lt;';
        break;
      case '>':
        out += '&gt;';
        break;
      default: {
        const c = ch.codePointAt(0)!;
        out += c < 0x20 || c === 0x7f || c === 0x2028 || c === 0x2029 ? `&#${c};` : ch;
      }
    }
  }
  return out;
}

function tagFor(a: Pick<Artifact, 'kind'>): string {
  return a.kind;
}

/** The closing marker for a block of `kind` with `content`: `</kind:hash8>`, longer if needed. */
export function closingMarker(kind: string, content: string, contentHash: string): string {
  for (let n = 8; n <= contentHash.length; n += 4) {
    const marker = `</${kind}:${contentHash.slice(0, n)}>`;
    if (!content.includes(marker)) return marker;
  }
  // A content that contains its own full hash as a marker is a fixed point of sha256; keep going anyway.
  let marker = `</${kind}:${contentHash}>`;
  let i = 0;
  while (content.includes(marker)) marker = `</${kind}:${contentHash}-${++i}>`;
  return marker;
}

/** The hash in a closing marker `</kind:HASH>`: the opening tag announces it as `sha="HASH"`. */
function markerHash(marker: string): string {
  return marker.slice(marker.indexOf(':') + 1, -1);
}

function attrs(a: Artifact, sha: string): string {
  let s = `id="${escapeAttribute(a.id)}" version="${a.version}" path="${escapeAttribute(a.source.uri)}"`;
  if (a.source.range) s += ` lines="${a.source.range.startLine}-${a.source.range.endLine}"`;
  return s + ` sha="${sha}"`;
}

/**
 * Full block. Format: opening tag line, content verbatim, `\n`, closing marker, `\n`. The opening
 * tag's `sha` is exactly the hash in the closing marker (lengthened when the content contains the
 * short one), so a reader looks for that marker and nothing in the content can end the block.
 */
export function renderFullBlock(a: Artifact): string {
  const { open, close } = fullBlockFrame(a);
  return `${open}${a.content}${close}`;
}

/** What a full block puts around the content: the opening tag line, and `\n`, the closing marker, `\n`. */
function fullBlockFrame(a: Artifact): { open: string; close: string } {
  const tag = tagFor(a);
  const marker = closingMarker(tag, a.content, a.contentHash);
  return { open: `<${tag} ${attrs(a, markerHash(marker))}>\n`, close: `\n${marker}\n` };
}

/** Full blocks by artifact object (a block depends on its artifact alone), shared by every engine. */
const fullBlocks = new WeakMap<Artifact, string>();

/**
 * The full block of `a`, memoized per artifact object; the first call also makes `a.content` a slice
 * of that block. The value is the same; V8 keeps a substring of a flat string as a
 * reference into it, so a version's text is held once, in the block that is sent, instead of once
 * there and once more as the artifact's content. Decoded chats and new versions alike.
 */
export function sharedFullBlock(a: Artifact): string {
  let block = fullBlocks.get(a);
  if (block === undefined) {
    const { open, close } = fullBlockFrame(a);
    block = `${open}${a.content}${close}`;
    // Same characters: only the representation changes (nothing can observe it but the heap).
    a.content = block.slice(open.length, open.length + a.content.length);
    fullBlocks.set(a, block);
  }
  return block;
}

/**
 * A block whose body is not the artifact's content (a diff, a compacted preview): `sha` announces
 * the body's marker, `content-sha` names the artifact version it stands for.
 */
export function renderDerivedBlock(a: Artifact, format: 'diff' | 'preview', body: string, extra: string, bodyHash: string): string {
  const tag = tagFor(a);
  const marker = closingMarker(tag, body, bodyHash);
  return `<${tag} ${attrs(a, markerHash(marker))} content-sha="${a.contentHash.slice(0, 8)}" format="${format}"${extra}>\n${body}\n${marker}\n`;
}

export function renderReference(a: Artifact): string {
  return `<ref id="${escapeAttribute(a.id)}" version="${a.version}" sha="${a.contentHash.slice(0, 8)}"/> (attached again, unchanged: its full block is earlier in this conversation)\n`;
}

/**
 * A reference in a tool result: the tool read something the request already carries.
 * `range`: the lines read, which are inside that block.
 */
export function renderToolReference(a: Artifact, range?: { startLine: number; endLine: number }): string {
  const what = range ? `lines ${range.startLine}-${range.endLine} of it are in its full block` : 'its full block is';
  return `<ref id="${escapeAttribute(a.id)}" version="${a.version}" sha="${a.contentHash.slice(0, 8)}"/> (read again, unchanged: ${what} earlier in this conversation)\n`;
}

/**
 * How a block left a request: removed by the user (`detached`), withdrawn by the check before the
 * request because its file is now excluded or outside the workspace, or cut to fit the budget.
 */
export type StubReason = 'detached' | 'excluded' | 'outside-workspace' | 'pruned' | 'pruned-tool';

/**
 * The wording depends only on how the block left (never on later state), so re-sent history stays
 * byte-identical. `pruned-tool`: what a tool read, cut under budget pressure (it can be read again).
 */
export function renderStub(a: Artifact, why: StubReason): string {
  const note =
    why === 'detached'
      ? 'removed from the context by the user'
      : why === 'excluded'
        ? 'removed from the context: its file is now excluded, so it is no longer sent'
        : why === 'outside-workspace'
          ? 'removed from the context: its file is now outside the workspace, so it is no longer sent'
          : why === 'pruned-tool'
            ? 'dropped to fit the context budget; call the tool again to see it'
            : 'dropped to fit the context budget; re-attach it to send it again';
  return `<removed id="${escapeAttribute(a.id)}" version="${a.version}"/> (${note})\n`;
}

/**
 * Takes a full block apart again: the body between the opening tag line and the closing marker.
 * Used by the invariants checker and tests to prove content went out verbatim.
 */
export function extractBody(block: string): string | undefined {
  const openEnd = block.indexOf('>\n');
  const m = /\n(<\/[a-z]+:[0-9a-f]+(?:-\d+)?>)\n$/.exec(block);
  if (openEnd < 0 || !m) return undefined;
  return block.slice(openEnd + 2, block.length - m[1].length - 2);
}

/** The JSON of an assistant message's tool calls, as sent and as the framing token rule counts it. */
export function toolCallsJson(calls: readonly ToolCall[]): string {
  return JSON.stringify(calls.map((c) => ({ id: c.id, name: c.name, args: c.args })));
}

export function blockLabel(a: Artifact): string {
  return versionKey(a.id, a.version);
}
