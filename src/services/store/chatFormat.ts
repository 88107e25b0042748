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
 * version 1 are read (their digest checked as version 1); a newer version is refused, not moved aside.
 */
export const LINE_VERSION = 2;

export interface ChatLine {
  format: typeof CHAT_FORMAT;
  v: 1 | 2;
  /** Completed turns after this line. */
  turn: number;
  delta: StateDelta;
  /** `stateDigest` of the full encoded state after this line (digest version = line version `v`). */
  stateHash: string;
  meta?: TurnMeta;
  imported?: { from: string; turns: TurnMeta[] };
}

export const CHAT_ID = /^[a-z0-9][a-z0-9_-]{0,127}$/;
/** A chat file's name (the id in group 1). */
export const CHAT_FILE = /^([a-z0-9][a-z0-9_-]{0,127})\.jsonl$/;
/** A chat file moved aside as damaged (the id in group 1). */
export const CORRUPT_NAME = /^([a-z0-9][a-z0-9_-]{0,127})\.corrupt-(\d+)\.jsonl$/;
/** A sha256 in hex: blob names, state digests. */
export const HEX64 = /^[0-9a-f]{64}$/;
/** Names Windows reserves for devices, with any extension. */
const WINDOWS_DEVICE = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])$/;

/** Checks the shape of a parsed chat line (its delta is checked as the chain applies it). */
export function checkLine(v: unknown): ChatLine {
  if (!isObj(v)) throw new Error('not an object');
  if (v.format !== CHAT_FORMAT) throw new Error(`format must be ${CHAT_FORMAT}`);
  if (v.v !== 1 && v.v !== LINE_VERSION) throw new Error(`version ${String(v.v)} is not supported`);
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

/** The title a chat gets from its first message. */
export function titleFrom(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length === 0) return 'New chat';
  return flat.length <= 60 ? flat : `${flat.slice(0, 59)}…`;
}
