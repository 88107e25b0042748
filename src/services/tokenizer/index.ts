/** The tokenizer's public surface: what the rest of the extension, the tests and the bench import. */
export { CHUNK_HASH_BITS, CHUNK_MAX, CHUNK_MIN, CHUNK_THRESHOLD, chunkEnd, chunkEnds, isChunkBoundary } from './chunking';
export type { ChunkParams } from './chunking';
export type { EncodingName } from './encodings';
export { GuardedTokenizer, WARM_SLICE_MS, getTokenizer } from './guardedTokenizer';
export type { MemoStats, Tokenizer, TokenizerOptions, WarmStats } from './guardedTokenizer';
export { LONG_RUN_LIMIT, LOOKAHEAD, MAX_ERROR_PER_CUT } from './longRunGuard';
export type { GuardStats } from './longRunGuard';
