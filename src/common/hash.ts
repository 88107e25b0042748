import { sha256 } from '@noble/hashes/sha256';
import { utf8ToBytes } from '@noble/hashes/utils';

const HEX = '0123456789abcdef';
const codes = new Array<number>(64);

/**
 * sha256 hex of the UTF-8 bytes of `text`. Pure JS: usable in the engine, the webview and Node.
 * The hex is made as one flat string (a string built by 32 concatenations is a chain of ~30 nodes
 * in V8, ~1 KB instead of ~80 bytes, and the engine keeps thousands of hashes).
 */
export function sha256Hex(text: string): string {
  const d = sha256(utf8ToBytes(text));
  for (let i = 0; i < 32; i++) {
    codes[2 * i] = HEX.charCodeAt(d[i] >> 4);
    codes[2 * i + 1] = HEX.charCodeAt(d[i] & 15);
  }
  return String.fromCharCode.apply(null, codes);
}
