/**
 * Decoding a saved chat state with its snapshots fetched from the blobs (see `decodeChatState`).
 */
import * as crypto from 'crypto';
import type { ChatState } from '../../engine/state';
import { decodeState, type EncodedEntry, type EncodedState } from '../../engine/stateCodec';
import { isObj } from '../../common/guards';
import { sha256HexNode } from '../nodeHasher';
import type { BlobStore } from './blobStore';
import { HEX64 } from './chatFormat';
import { ChatStoreError } from './chatTypes';

const EMPTY_SHA256 = crypto.createHash('sha256').digest('hex');

/**
 * The state of an encoded chat state, its snapshots read from the blobs. `decodeState` checks every
 * field and reference; it also checks each snapshot against its sha256 with the engine's pure-JS
 * hash, which for a few MB of attachments costs more than everything else together. So the state is
 * decoded with each (well-formed) blob reference standing in for an empty snapshot, and the
 * snapshots are filled in afterwards, verified with node:crypto by `BlobStore.read` (or taken from
 * `reuse`, already verified). A reference that is not well-formed is left for `decodeState` to
 * report.
 */
export function decodeChatState(id: string, enc: EncodedState, blobs: BlobStore, reuse?: ChatState): ChatState {
  const known = new Map<string, string>();
  if (reuse) {
    for (const e of reuse.entries.values()) {
      known.set(e.artifact.contentHash, e.artifact.content);
      if (e.compacted) known.set(e.compacted.bodyHash, e.compacted.body);
    }
  }
  const shadowed: boolean[] = [];
  const shadow: EncodedState = {
    ...enc,
    entries: enc.entries.map((e, i) => {
      const s = shadowEntry(e);
      shadowed[i] = s !== e;
      return s;
    }),
  };
  let blobError: ChatStoreError | undefined;
  let state: ChatState;
  try {
    state = decodeState(shadow, (hash) => {
      if (hash === EMPTY_SHA256) return '';
      try {
        return blobs.read(hash);
      } catch (e) {
        if (e instanceof ChatStoreError) blobError = e;
        throw e;
      }
    });
  } catch (e) {
    if (blobError) throw new ChatStoreError('missing-blob', `chat ${id} cannot be loaded: ${(e as Error).message}`);
    throw e;
  }
  let i = 0;
  for (const entry of state.entries.values()) {
    const src = enc.entries[i];
    if (shadowed[i]) {
      const where = `chat state entries[${i}] (${entry.key})`;
      const a = src.artifact;
      entry.artifact.content = snapshot(blobs, id, a.contentHash, a.blob, a.blobEncoding, known, `${where} snapshot`);
      entry.artifact.contentHash = a.contentHash;
      if (src.compacted && entry.compacted) {
        const c = src.compacted;
        entry.compacted.body = snapshot(blobs, id, c.bodyHash, c.blob, c.blobEncoding, known, `${where} compacted preview`);
        entry.compacted.bodyHash = c.bodyHash;
      }
    }
    i++;
  }
  return state;
}

/** One snapshot's text: from memory when known, else its blob (verified), decoded and checked against `hash`. */
function snapshot(
  blobs: BlobStore,
  id: string,
  hash: string,
  blob: string | undefined,
  encoding: string | undefined,
  known: Map<string, string>,
  where: string,
): string {
  if (encoding === undefined && blob === undefined) {
    const mem = known.get(hash);
    if (mem !== undefined) return mem;
  }
  const name = blob ?? hash;
  let raw: string;
  try {
    raw = blobs.read(name);
  } catch (e) {
    if (e instanceof ChatStoreError) throw new ChatStoreError('missing-blob', `chat ${id} cannot be loaded: ${where}: ${e.message}`);
    throw e;
  }
  let text = raw;
  if (encoding === 'json') {
    try {
      text = JSON.parse(raw) as string;
    } catch {
      throw new Error(`${where}: blob ${name} is not a JSON string`);
    }
    if (typeof text !== 'string') throw new Error(`${where}: blob ${name} is not a JSON string`);
  }
  // A blob named by the content's hash was verified by BlobStore.read; any other name needs this check.
  if (name !== hash && sha256HexNode(text) !== hash)
    throw new Error(`${where}: blob ${name} does not match its sha256 ${hash.slice(0, 12)}…`);
  return text;
}

function shadowEntry(e: EncodedEntry): EncodedEntry {
  if (!isObj(e) || !isObj(e.artifact)) return e;
  const ok = (hash: unknown, blob: unknown, encoding: unknown) =>
    typeof hash === 'string' &&
    HEX64.test(hash) &&
    (blob === undefined || (typeof blob === 'string' && HEX64.test(blob))) &&
    (encoding === undefined || encoding === 'json');
  const a = e.artifact;
  if (!ok(a.contentHash, a.blob, a.blobEncoding)) return e;
  const c = e.compacted;
  if (c !== undefined && (!isObj(c) || !ok(c.bodyHash, c.blob, c.blobEncoding))) return e;
  const artifact = { ...a, contentHash: EMPTY_SHA256 };
  delete artifact.blob;
  delete artifact.blobEncoding;
  const out: EncodedEntry = { ...e, artifact };
  if (c) {
    const compacted = { ...c, bodyHash: EMPTY_SHA256 };
    delete compacted.blob;
    delete compacted.blobEncoding;
    out.compacted = compacted;
  }
  return out;
}
