import * as crypto from 'node:crypto';
import type { IHasher } from '../engine/types';

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
