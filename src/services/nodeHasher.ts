import * as crypto from 'node:crypto';
import type { IHasher } from '../engine/types';
import type { TimeSlice } from './timeSlice';

/**
 * One-shot `crypto.hash` (Node 20.12+, every VS Code this extension supports): no Hash object per
 * call, 3–4× faster than `createHash` on the short texts the engine hashes most (chain steps, block
 * signatures); `createHash` where it is missing.
 */
const oneShot = (crypto as { hash?: (algorithm: string, data: string, outputEncoding: 'hex') => string }).hash;

const sha256Native: (text: string) => string = oneShot
  ? (text) => oneShot('sha256', text, 'hex')
  : (text) => crypto.createHash('sha256').update(text, 'utf8').digest('hex');

/** Texts at least this long keep their hash in `longHashes`: hashing one takes milliseconds. */
const LONG_HASHED = 1_000_000;
/** Long texts whose hashes are kept, the least recently used leaving first. */
const LONG_HASHES_KEPT = 4;
/**
 * Hashes of the last long texts: a large attachment's content is hashed when the workspace reads it,
 * then twice more by the request build that follows (the artifact it is checked against, then its new
 * version), and that build runs in one piece. A text is its own key (a map compares long strings by
 * their characters), so a hit is always the hash of exactly this text.
 */
const longHashes = new Map<string, string>();

function keepLongHash(text: string, hex: string): void {
  longHashes.delete(text);
  longHashes.set(text, hex);
  while (longHashes.size > LONG_HASHES_KEPT) longHashes.delete(longHashes.keys().next().value as string);
}

/** Node's native sha256 (hex of the UTF-8 bytes): ~10× faster than the engine's pure-JS one (src/common/hash.ts). */
export function sha256HexNode(text: string): string {
  if (text.length < LONG_HASHED) return sha256Native(text);
  const known = longHashes.get(text);
  const hex = known ?? sha256Native(text);
  keepLongHash(text, hex);
  return hex;
}

/**
 * Tells the port the hash of a text taken another way (of the bytes it was decoded from, which are
 * its UTF-8): the next `sha256HexNode` of that text answers without hashing it again.
 */
export function rememberSha256(text: string, hex: string): void {
  if (text.length >= LONG_HASHED) keepLongHash(text, hex);
}

/** Characters (or bytes) hashed between two looks at the slice's clock: ~1 ms of native sha256. */
const HASH_PIECE = 512 * 1024;

/**
 * `sha256HexNode(text)`, hashed a piece at a time with the event loop given a turn whenever `slice`
 * is due; the result is kept as `rememberSha256` keeps it, so the synchronous hash that follows
 * answers at once. Pieces end between the halves of a surrogate pair never: each piece's UTF-8 is
 * then that of its characters, and the pieces' bytes together are the text's.
 */
export async function sha256HexSliced(text: string, slice: TimeSlice): Promise<string> {
  if (text.length < LONG_HASHED) return sha256HexNode(text);
  const known = longHashes.get(text);
  if (known !== undefined) return known;
  const h = crypto.createHash('sha256');
  for (let start = 0; start < text.length;) {
    let end = Math.min(text.length, start + HASH_PIECE);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end--;
    h.update(text.slice(start, end), 'utf8');
    start = end;
    if (slice.due) await slice.pause();
  }
  const hex = h.digest('hex');
  keepLongHash(text, hex);
  return hex;
}

/** `sha256HexBytes(bytes)`, a piece at a time, giving the event loop a turn whenever `slice` is due. */
export async function sha256HexBytesSliced(bytes: Uint8Array, slice: TimeSlice): Promise<string> {
  const h = crypto.createHash('sha256');
  for (let start = 0; start < bytes.length; start += HASH_PIECE) {
    h.update(bytes.subarray(start, Math.min(bytes.length, start + HASH_PIECE)));
    if (slice.due) await slice.pause();
  }
  return h.digest('hex');
}

/** sha256 (hex) of bytes as they are: for a text, its UTF-8 bytes give `sha256HexNode(text)`. */
export function sha256HexBytes(bytes: Uint8Array): string {
  return crypto.createHash('sha256').update(bytes).digest('hex');
}

/**
 * The hashing port every Node caller gives the engine: the extension's chat sessions, the replay
 * and the benchmark (one path for one job). The engine itself stays free of Node built-ins
 * (docs/design.md#isolation).
 */
export const NODE_HASHER: IHasher = { sha256Hex: sha256HexNode };
