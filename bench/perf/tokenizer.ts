/**
 * Token counting throughput (MB/s of UTF-8), cold and warm: our tokenizer (gpt-tokenizer behind the
 * long-run guard, `src/services/tokenizer.ts`) next to js-tiktoken, on the distinct file contents of
 * the shared trajectories (initial files and edited versions).
 *
 * - cold: a new tokenizer instance (empty memo; gpt-tokenizer's merge cache cleared) counts every text once;
 * - warm: the same instance counts every text again (our `count` answers from its memo; js-tiktoken
 *   has no memo, so its warm pass is its steady-state encoding speed);
 * - encode (ours): `encode` again, bypassing the memo: BPE speed with warm internal caches.
 * Both tokenizers get the same corpus. Whitespace-free runs longer than 2,000 characters are left out
 * (js-tiktoken needs ~70 s for the 20,000-character run of adversarial.json; our guard is measured in
 * tokenizer.test.ts), so the corpus is the texts cut into pieces around those runs.
 */
import * as fs from 'fs';
import * as path from 'path';
import { GuardedTokenizer, type EncodingName } from '../../src/services/tokenizer';
import { expandFileValue, type Trajectory } from '../trajectory';
import { round, stats, type Stats } from './stats';

const MAX_RUN = 2000;

interface JsTiktoken {
  encode(text: string, allowedSpecial?: string[] | 'all', disallowedSpecial?: string[] | 'all'): number[];
}

export interface TokenizerCorpus {
  encoding: EncodingName;
  pieces: string[];
  bytes: number;
  texts: number;
  excludedRuns: number;
  excludedChars: number;
}

/** Distinct file contents (initial and edited) of the trajectories in `dir`, cut around long runs. */
export function trajectoryCorpus(dir: string, encoding: EncodingName = 'o200k_base'): TokenizerCorpus {
  const texts = new Set<string>();
  for (const name of fs
    .readdirSync(dir)
    .filter((n) => n.endsWith('.json'))
    .sort()) {
    const t = JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8')) as Trajectory;
    if (t.model.encoding !== encoding) continue;
    for (const v of Object.values(t.files)) texts.add(expandFileValue(v));
    for (const turn of t.turns) for (const v of Object.values(turn.edits ?? {})) if (v !== null) texts.add(expandFileValue(v));
  }
  const pieces: string[] = [];
  let excludedRuns = 0;
  let excludedChars = 0;
  for (const text of texts) {
    let pos = 0;
    for (const m of text.matchAll(new RegExp(`\\S{${MAX_RUN + 1},}|\\s{${MAX_RUN + 1},}`, 'g'))) {
      if (m.index > pos) pieces.push(text.slice(pos, m.index));
      excludedRuns++;
      excludedChars += m[0].length;
      pos = m.index + m[0].length;
    }
    if (pos < text.length) pieces.push(text.slice(pos));
  }
  const bytes = pieces.reduce((n, p) => n + Buffer.byteLength(p, 'utf8'), 0);
  return { encoding, pieces, bytes, texts: texts.size, excludedRuns, excludedChars };
}

export interface ThroughputResult {
  corpus: { texts: number; pieces: number; bytes: number; excludedRuns: number; excludedChars: number };
  runs: number;
  /** MB/s (1 MB = 10^6 bytes of UTF-8) over the runs. */
  gptTokenizer: { cold: Stats; warm: Stats; encodeWarm: Stats };
  jsTiktoken: { cold: Stats; warm: Stats; constructMs: number; ranksLoadMs: number };
  /** Both give the same total token count on the corpus. */
  tokensAgree: boolean;
  tokens: number;
}

function mbPerS(bytes: number, ms: number): number {
  return ms > 0 ? bytes / 1e6 / (ms / 1000) : 0;
}

function pass(pieces: readonly string[], f: (s: string) => number): { ms: number; tokens: number } {
  let tokens = 0;
  const t0 = performance.now();
  for (const p of pieces) tokens += f(p);
  return { ms: performance.now() - t0, tokens };
}

function clearMergeCache(encoding: EncodingName): void {
  /* eslint-disable @typescript-eslint/no-require-imports -- the encoding module is chosen at run time */
  const mod = (
    encoding === 'o200k_base' ? require('gpt-tokenizer/encoding/o200k_base') : require('gpt-tokenizer/encoding/cl100k_base')
  ) as { clearMergeCache?: () => void };
  /* eslint-enable @typescript-eslint/no-require-imports */
  mod.clearMergeCache?.();
}

export function measureTokenizerThroughput(corpus: TokenizerCorpus, runs: number): ThroughputResult {
  const { pieces, bytes, encoding } = corpus;
  const ours = { cold: [] as number[], warm: [] as number[], encodeWarm: [] as number[] };
  let oursTokens = 0;
  for (let r = 0; r < runs; r++) {
    clearMergeCache(encoding);
    const tok = new GuardedTokenizer(encoding);
    tok.encode('x'); // ranks loaded (once per process), memo still empty
    const cold = pass(pieces, (s) => tok.count(s));
    const warm = pass(pieces, (s) => tok.count(s));
    const enc = pass(pieces, (s) => tok.encode(s).length);
    oursTokens = cold.tokens;
    ours.cold.push(mbPerS(bytes, cold.ms));
    ours.warm.push(mbPerS(bytes, warm.ms));
    ours.encodeWarm.push(mbPerS(bytes, enc.ms));
  }

  /* eslint-disable @typescript-eslint/no-require-imports */
  const t0 = performance.now();
  const ranks: unknown = encoding === 'o200k_base' ? require('js-tiktoken/ranks/o200k_base') : require('js-tiktoken/ranks/cl100k_base');
  const ranksLoadMs = performance.now() - t0;
  // js-tiktoken's typings are ESM-only; its CommonJS build is required directly.
  const { Tiktoken } = require('js-tiktoken/lite') as { Tiktoken: new (ranks: unknown) => JsTiktoken };
  /* eslint-enable @typescript-eslint/no-require-imports */
  const theirs = { cold: [] as number[], warm: [] as number[], construct: [] as number[] };
  let theirTokens = 0;
  for (let r = 0; r < runs; r++) {
    const c0 = performance.now();
    const tk = new Tiktoken(ranks);
    theirs.construct.push(performance.now() - c0);
    // Special-token strings are ordinary text: nothing allowed, nothing disallowed.
    const cold = pass(pieces, (s) => tk.encode(s, [], []).length);
    const warm = pass(pieces, (s) => tk.encode(s, [], []).length);
    theirTokens = cold.tokens;
    theirs.cold.push(mbPerS(bytes, cold.ms));
    theirs.warm.push(mbPerS(bytes, warm.ms));
  }
  const s = (xs: number[]) => stats(xs, 2);
  return {
    corpus: { texts: corpus.texts, pieces: pieces.length, bytes, excludedRuns: corpus.excludedRuns, excludedChars: corpus.excludedChars },
    runs,
    gptTokenizer: { cold: s(ours.cold), warm: s(ours.warm), encodeWarm: s(ours.encodeWarm) },
    jsTiktoken: {
      cold: s(theirs.cold),
      warm: s(theirs.warm),
      constructMs: round(stats(theirs.construct).median, 1),
      ranksLoadMs: round(ranksLoadMs, 1),
    },
    tokensAgree: oursTokens === theirTokens,
    tokens: oursTokens,
  };
}
