import type { EncodedState } from './encodedState';
import { sha256Hex } from '../common/hash';

/** Digests of an encoded state: equal digests mean equal states. */

/** JSON with object keys sorted: the same value always gives the same text. */
export function canonicalJson(v: unknown): string {
  if (v === undefined) return 'null';
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map((x) => (x === undefined ? 'null' : canonicalJson(x))).join(',')}]`;
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o)
    .filter((k) => o[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`).join(',')}}`;
}

/** Elements per link of a list digest (`listDigest`). */
export const DIGEST_LINK = 16;

/**
 * The digest of a list (each array of the state): its elements taken `DIGEST_LINK` at a time, each
 * link's sha256 (hex) over its elements' canonical JSON joined by commas, then the sha256 of the links'
 * hashes joined. A store saving turn after turn keeps each link's hash while its elements are the same
 * objects, so a save hashes the links that changed (the last one, where a turn was added or an entry
 * replaced) and the list of link hashes, not the whole chat.
 */
export function listDigest(items: readonly unknown[]): string {
  let links = '';
  for (let i = 0; i < items.length; i += DIGEST_LINK)
    links += sha256Hex(
      items
        .slice(i, i + DIGEST_LINK)
        .map((x) => canonicalJson(x))
        .join(','),
    );
  return sha256Hex(links);
}

/** The arrays of an encoded state (a version-2 state digest takes each by its `listDigest`). */
export const LISTED_ARRAYS = ['entries', 'latest', 'order', 'previousBlocks', 'turns', 'versions'] as const;

/**
 * The state digest: equal digests ⇔ equal states. Version 1 (chat lines of format 1): sha256 of the
 * canonical JSON of the whole state, which made every save hash the whole chat. Version 2: the same
 * with each array replaced by its `listDigest` (a hex string).
 */
export function stateDigest(enc: EncodedState, version: 1 | 2 = 2): string {
  if (version === 1) return sha256Hex(canonicalJson(enc));
  const o: Record<string, unknown> = { ...enc };
  for (const k of LISTED_ARRAYS) o[k] = listDigest(enc[k]);
  return sha256Hex(canonicalJson(o));
}
