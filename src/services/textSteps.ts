/**
 * Decoding megabytes of text a piece per step: a chat export or an imported chat's line is read on
 * the extension host, and decoding one in a single call holds it for tens of milliseconds on a busy
 * machine (docs/performance.md). Each function gives exactly the text its one-call equivalent gives.
 */
import type { Step } from '../common/steps';
import type { TimeSlice } from './timeSlice';

/** Bytes decoded per step: about a millisecond of UTF-8 decoding. */
const DECODE_PIECE = 256 * 1024;
/** Base64 characters decoded per step: whole 4-character groups, so each piece decodes alone. */
const BASE64_PIECE = 4 * 65_536;

/**
 * `new TextDecoder('utf-8', options).decode(bytes)`, a piece per step: the streaming decoder keeps a
 * character cut between two pieces and decodes it whole, and a byte order mark is dropped only at
 * the start, as in one call.
 */
export function* utf8DecodeSteps(bytes: Uint8Array, options?: { fatal?: boolean; ignoreBOM?: boolean }): Step<string> {
  const decoder = new TextDecoder('utf-8', options);
  if (bytes.length <= DECODE_PIECE) return decoder.decode(bytes);
  const parts: string[] = [];
  for (let at = 0; at < bytes.length; at += DECODE_PIECE) {
    const end = Math.min(bytes.length, at + DECODE_PIECE);
    parts.push(decoder.decode(bytes.subarray(at, end), { stream: end < bytes.length }));
    yield;
  }
  return parts.join('');
}

/**
 * `Buffer.from(b64, 'base64').toString('utf8')`, a piece per step. A text with padding before its
 * last two characters (damage) is decoded in one call, so it gives the same result.
 */
export function* base64Utf8Steps(b64: string): Step<string> {
  if (b64.length <= BASE64_PIECE || b64.slice(0, -2).includes('=')) return Buffer.from(b64, 'base64').toString('utf8');
  // A byte order mark stays, as `toString` keeps it.
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  const parts: string[] = [];
  for (let at = 0; at < b64.length; at += BASE64_PIECE) {
    const end = Math.min(b64.length, at + BASE64_PIECE);
    parts.push(decoder.decode(Buffer.from(b64.slice(at, end), 'base64'), { stream: end < b64.length }));
    yield;
  }
  return parts.join('');
}

/** Runs `steps`, giving the event loop a turn whenever `slice` is due. */
export async function runStepsSliced<T>(steps: Step<T>, slice: TimeSlice): Promise<T> {
  let r = steps.next();
  for (; !r.done; r = steps.next()) if (slice.due) await slice.pause();
  return r.value;
}
