/**
 * The chat file format: the format names and versions, one line of a chat file (`ChatLine`) and its
 * check, and the names a chat may have (`validateChatId`, `chatIdFor`).
 *
 * Layout of a store's root:
 *   index.json                      chat list (id, title, turns, created/updated) — written atomically
 *   chats/<id>.jsonl                one line per completed turn: the state delta, a digest of the full
 *                                   state after it, and the turn's metadata
 *   chats/<id>.corrupt-<n>.jsonl    a chat file that failed to load, moved aside
 *   blobs/<hash[0..2]>/<hash>       artifact snapshots (and compacted previews), named by the sha256
 *                                   of their bytes; written once (tmp + rename), verified on read
 *   counts/<id>.jsonl               token counts of the chat's texts (a cache, see tokenCounts.ts)
 *   store.lock                      held by the one writer of the moment (storeLock.ts)
 */
import type { StateDelta } from '../../engine/stateCodec';
import { CHAT_ID, CHAT_ID_SOURCE } from '../../common/chatId';
import { isObj } from '../../common/guards';
import { sha256Hex } from '../../common/hash';
import { ChatStoreError, type TurnMeta } from './chatTypes';

export const CHAT_FORMAT = 'strata-chat';
export const INDEX_FORMAT = 'strata-chat-index';
export const EXPORT_FORMAT = 'strata-chat-export';
/** Version of the index and of the export payload. */
export const FORMAT_VERSION = 1;
/**
 * Version of the chat lines this build writes. 2: `stateHash` is `stateDigest` version 2 (each array
 * of the state by its list digest: a save hashes the links it changed, not the whole chat). Lines of
 * an older version are upgraded (`LINE_UPGRADES`) before the checks; a newer version is refused, not
 * moved aside.
 */
export const LINE_VERSION = 2;
/** The versions of chat lines this build reads: the one it writes and those an upgrade step leads from. */
export type LineVersion = 1 | typeof LINE_VERSION;

/** A chat line in the current format (an older line once upgraded). */
export interface ChatLine {
  format: typeof CHAT_FORMAT;
  v: typeof LINE_VERSION;
  /** Completed turns after this line. */
  turn: number;
  delta: StateDelta;
  /** `stateDigest` of the full encoded state after this line (digest version = the version the line was written in). */
  stateHash: string;
  meta?: TurnMeta;
  imported?: { from: string; turns: TurnMeta[] };
}

export { CHAT_ID };
/** A chat file's name (the id in group 1). */
export const CHAT_FILE = new RegExp(`^(${CHAT_ID_SOURCE})\\.jsonl$`);
/** A chat file moved aside as damaged (the id in group 1). */
export const CORRUPT_NAME = new RegExp(`^(${CHAT_ID_SOURCE})\\.corrupt-(\\d+)\\.jsonl$`);
/** A sha256 in hex: blob names, state digests. */
export const HEX64 = /^[0-9a-f]{64}$/;
/** Names Windows reserves for devices, with any extension. */
const WINDOWS_DEVICE = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])$/;

/**
 * One step per older line version: a line of version k, as parsed, becomes a line of version k + 1.
 * The steps run in order before the checks, so the checks and everything after them see the current
 * format only. A bump of `LINE_VERSION` adds the step from the version before it (and a stored chat
 * of that version under test/fixtures/chats/ with its test).
 */
export const LINE_UPGRADES: Readonly<Record<number, (line: Record<string, unknown>) => Record<string, unknown>>> = {
  // 1 → 2: the same fields. Only the digest differs, and the line keeps its version-1 digest: the
  // chain checks it as the version the line was written in (`UpgradedLine.written`).
  1: (line) => ({ ...line, v: 2 }),
};

/** Runs the upgrade steps from the line's version to `LINE_VERSION`; anything else is left for the checks. */
export function upgradeLine(parsed: unknown): unknown {
  if (!isObj(parsed) || parsed.format !== CHAT_FORMAT) return parsed;
  let line: Record<string, unknown> = parsed;
  // Own numeric keys only: a version such as "constructor" names no step. Each step raises `v` by one.
  while (typeof line.v === 'number' && line.v < LINE_VERSION && Object.hasOwn(LINE_UPGRADES, line.v)) line = LINE_UPGRADES[line.v](line);
  return line;
}

/**
 * Reads a parsed chat line: upgrades it, then checks it. `written` is the version the line was
 * written in, which is the version of its `stateHash`.
 */
export function readLine(parsed: unknown): { line: ChatLine; written: LineVersion } {
  const written = isObj(parsed) && parsed.v === 1 ? 1 : LINE_VERSION;
  return { line: checkLine(upgradeLine(parsed)), written };
}

/** Checks the shape of a chat line in the current format (its delta is checked as the chain applies it). */
export function checkLine(v: unknown): ChatLine {
  if (!isObj(v)) throw new Error('not an object');
  if (v.format !== CHAT_FORMAT) throw new Error(`format must be ${CHAT_FORMAT}`);
  if (v.v !== LINE_VERSION) throw new Error(`version ${String(v.v)} is not supported`);
  if (typeof v.turn !== 'number' || !Number.isInteger(v.turn) || v.turn < 0) throw new Error('turn must be an integer');
  if (!isObj(v.delta)) throw new Error('delta must be an object');
  if (typeof v.stateHash !== 'string' || !HEX64.test(v.stateHash)) throw new Error('stateHash must be a sha256');
  if (v.meta !== undefined && (!isObj(v.meta) || !Array.isArray(v.meta.attachments))) throw new Error('meta must be an object');
  if (v.imported !== undefined && (!isObj(v.imported) || !Array.isArray(v.imported.turns)))
    throw new Error('imported must be {from, turns}');
  return v as unknown as ChatLine;
}

/** Validates a chat id: lowercase letters, digits, `-` and `_` (so never a path, and the same on case-insensitive disks). */
export function validateChatId(id: unknown): string {
  if (typeof id !== 'string' || !CHAT_ID.test(id) || WINDOWS_DEVICE.test(id)) {
    throw new ChatStoreError(
      'invalid-id',
      `invalid chat id ${JSON.stringify(id)}: use 1–128 lowercase letters, digits, "-" or "_", starting with a letter or digit`,
    );
  }
  return id;
}

/** A valid chat id derived from any text (a trajectory name, an imported id): stable for the same text. */
export function chatIdFor(seed: string): string {
  const base = seed
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^[-_]+/, '')
    .slice(0, 100);
  if (base.length > 0 && base === seed && !WINDOWS_DEVICE.test(base)) return base;
  const h = sha256Hex(seed).slice(0, 8);
  return base.length > 0 ? `${base.replace(/-+$/, '')}-${h}` : `chat-${h}`;
}

/** `base`, or `base-2`, `base-3`, … (within the id's 128 characters): the first that is not `taken`. */
export function freeChatId(base: string, taken: (id: string) => boolean): string {
  if (!taken(base)) return base;
  for (let n = 2; ; n++) {
    const suffix = `-${n}`;
    const id = base.slice(0, 128 - suffix.length) + suffix;
    if (!taken(id)) return id;
  }
}

/** The title a chat gets from its first message. */
export function titleFrom(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length === 0) return 'New chat';
  return flat.length <= 60 ? flat : `${flat.slice(0, 59)}…`;
}
