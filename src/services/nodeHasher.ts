import { createHash } from 'node:crypto';
import type { IHasher } from '../engine/types';

/** Node's native sha256 (hex of the UTF-8 bytes): ~10× faster than the engine's pure-JS one (src/common/hash.ts). */
export function sha256HexNode(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/**
 * The hashing port every Node caller gives the engine: the extension's chat sessions, the replay and
 * the benchmark (one path for one job). The engine itself stays free of Node built-ins (DESIGN §3).
 */
export const NODE_HASHER: IHasher = { sha256Hex: sha256HexNode };
