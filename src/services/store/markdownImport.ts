/**
 * Reading back a chat exported by `chatToMarkdown` (markdownExport.ts): the hidden payload is decoded
 * and checked (format, shapes, every turn's metadata field by field, every snapshot against its hash;
 * the title is cut to 200 characters), and every attachment path is checked
 * with `isAllowedPath` (the host's workspace isolation guard): disallowed ones are dropped with
 * everything that named them, and reported. Writing the chat is the store's part.
 */
import type { ChatState } from '../../engine/state';
import {
  checkEncodedShape,
  decodeEngineMetaOf,
  decodeState,
  encodeState,
  withoutEntries,
  type EncodedState,
  type EngineMeta,
} from '../../engine/stateCodec';
import { isObj } from '../../common/guards';
import { MAX_TITLE_CHARS } from '../../protocol/messages';
import { sha256HexNode } from '../nodeHasher';
import { base64Utf8Steps } from '../textSteps';
import { EXPORT_FORMAT, FORMAT_VERSION, HEX64 } from './chatFormat';
import { ChatStoreError, type ImportResult, type TurnMeta } from './chatTypes';
import { turnMetaProblem } from './turnMetaCheck';
import { runStepsSync, type Step } from '../../common/steps';

/** A chat read from an export, ready to be written as a new chat. */
export interface ParsedExport {
  /** The chat's id and title in the workspace it came from. */
  chat: { id: string; title: string };
  state: ChatState;
  engine: EngineMeta | undefined;
  /** The state encoded again (without the dropped attachments). */
  full: EncodedState;
  /** Per-turn metadata, without the dropped attachments. */
  turns: TurnMeta[];
  dropped: ImportResult['dropped'];
  warnings: string[];
}

/** `title` on one line, at most {@link MAX_TITLE_CHARS} characters. */
export function capTitle(title: string): string {
  const line = title.replace(/\s+/g, ' ').trim();
  return line.length <= MAX_TITLE_CHARS ? line : `${line.slice(0, MAX_TITLE_CHARS - 1).trimEnd()}…`;
}

/** Reads the chat an exported Markdown holds; `invalid-import` when there is none or it is damaged. */
export function parseChatExport(text: string, isAllowedPath: (path: string) => boolean): ParsedExport {
  return runStepsSync(parseChatExportSteps(text, isAllowedPath));
}

/** Turns checked between two steps of `parseChatExportSteps`. */
const TURNS_PER_STEP = 50;

/**
 * `parseChatExport` as steps, for a driver that gives the event loop a turn between them: a long
 * chat's export is megabytes to decode and a thousand turns to check.
 */
export function* parseChatExportSteps(text: string, isAllowedPath: (path: string) => boolean): Step<ParsedExport> {
  const payloadText = lastPayload(text);
  if (payloadText === undefined)
    throw new ChatStoreError(
      'invalid-import',
      'this Markdown has no Strata chat metadata (<!-- strata-chat: … -->); only chats exported by Strata can be imported',
    );
  yield;
  // Decoded, then parsed, in separate steps: each is tens of milliseconds for a long chat's export.
  const json = yield* base64Utf8Steps(payloadText);
  yield;
  let payload: unknown;
  try {
    payload = JSON.parse(json);
  } catch {
    throw new ChatStoreError('invalid-import', 'the Strata chat metadata is damaged (not base64 JSON)');
  }
  const bad = (why: string): never => {
    throw new ChatStoreError('invalid-import', `the Strata chat metadata is invalid: ${why}`);
  };
  if (!isObj(payload) || payload.format !== EXPORT_FORMAT) bad(`format must be ${EXPORT_FORMAT}`);
  const p = payload as Record<string, unknown>;
  if (p.v !== FORMAT_VERSION) bad(`version ${String(p.v)} is not supported`);
  const rawChat = p.chat;
  if (!isObj(rawChat) || typeof rawChat.id !== 'string' || typeof rawChat.title !== 'string') bad('chat must be {id, title}');
  const chat = { id: (rawChat as { id: string }).id, title: capTitle((rawChat as { title: string }).title) };
  const blobs = p.blobs;
  if (!isObj(blobs)) bad('blobs must be an object');
  yield;
  for (const [h, t] of Object.entries(blobs as Record<string, unknown>)) {
    if (!HEX64.test(h) || typeof t !== 'string') bad(`blob ${h.slice(0, 16)} is not a sha256-named string`);
    if (sha256HexNode(t as string) !== h) bad(`blob ${h.slice(0, 12)}… does not match its hash`);
    yield;
  }
  if (!Array.isArray(p.turns)) bad('turns must be an array');
  for (const [i, t] of (p.turns as unknown[]).entries()) {
    const problem = turnMetaProblem(t, i + 1);
    if (problem) bad(problem);
    if ((i + 1) % TURNS_PER_STEP === 0) yield;
  }
  let enc: EncodedState;
  try {
    enc = checkEncodedShape(p.state);
  } catch (e) {
    return bad((e as Error).message);
  }
  // Workspace isolation: every path is re-checked here, in this workspace.
  const byPath = new Map<string, string[]>();
  for (const e of enc.entries) {
    const list = byPath.get(e.artifact.source.uri) ?? [];
    list.push(e.key);
    byPath.set(e.artifact.source.uri, list);
  }
  const dropped: ImportResult['dropped'] = [];
  const drop = new Set<string>();
  for (const [uri, keys] of byPath) {
    let ok = false;
    try {
      ok = isAllowedPath(uri) === true;
    } catch {
      ok = false;
    }
    if (!ok) {
      dropped.push({ path: uri, keys, reason: 'not-allowed' });
      for (const k of keys) drop.add(k);
    }
  }
  enc = withoutEntries(enc, drop);
  yield;
  const blobMap = blobs as Record<string, string>;
  let state: ChatState;
  try {
    state = decodeState(enc, (h) => {
      const t = blobMap[h];
      if (t === undefined) throw new Error(`blob ${h.slice(0, 12)}… is not in the export`);
      return t;
    });
  } catch (e) {
    return bad((e as Error).message);
  }
  if ((p.turns as unknown[]).length !== state.completedTurns)
    bad(`it records ${(p.turns as unknown[]).length} turn(s) for a chat of ${state.completedTurns}`);
  yield;
  const engine = decodeEngineMetaOf(enc);
  // Code blocks applied elsewhere are not applied here: an import drops their states (an export holds none).
  const turns = (p.turns as TurnMeta[]).map(({ applied: _applied, ...t }) => ({
    ...t,
    attachments: t.attachments.filter((a) => !drop.has(a.key)),
  }));
  const full = encodeState(state, { engine });
  const warnings: string[] = [];
  if (typeof p.omitted === 'number' && p.omitted > 0)
    warnings.push(
      `it was exported without its attached files: ${p.omitted} attached item(s) are not in it, and the chat continues without them`,
    );
  if (dropped.length > 0)
    warnings.push(
      `${dropped.length} attachment path(s) are not allowed in this workspace and were left out: ${dropped.map((d) => d.path).join(', ')}`,
    );
  return { chat, state, engine, full, turns, dropped, warnings };
}

/** The base64 of the last `<!-- strata-chat: … -->` comment (the export's payload), found from the end. */
function lastPayload(text: string): string | undefined {
  const open = '<!-- strata-chat: ';
  for (let at = text.lastIndexOf(open); at >= 0; at = at > 0 ? text.lastIndexOf(open, at - 1) : -1) {
    const from = at + open.length;
    const end = text.indexOf(' -->', from);
    if (end > from && /^[A-Za-z0-9+/=]+$/.test(text.slice(from, end))) return text.slice(from, end);
  }
  return undefined;
}
