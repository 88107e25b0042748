/**
 * Tokenizer speed: gpt-tokenizer (what src/services/tokenizer.ts uses) vs js-tiktoken, side by side.
 *
 *   npx tsc -p tsconfig.json && node out/bench/tokenizerSpeed.js [trajectory dir] [--json] [--encoding cl100k_base]
 *
 * Prints the cold load time of each library (require + ranks + first encode) and MB/s (UTF-8 bytes)
 * over the trajectories' texts: cold = the first pass after loading, warm = the best of the next
 * passes. Also our guarded tokenizer (encode, and count answered by the memo) and the long-run
 * guard on a pathological run. Texts with whitespace-free runs over 2,000 characters are left out
 * of the shared corpus (js-tiktoken needs ~70 s on the 20,000-character one). Timings vary with the
 * machine and its load; nothing here is asserted.
 */
import * as fs from 'fs';
import * as path from 'path';
import { performance } from 'perf_hooks';
import type { EncodingName } from '../src/services/tokenizer';

interface Encoder {
  encode(text: string): number[];
}

interface Row {
  name: string;
  loadMs?: number;
  coldMBps: number;
  warmMBps: number;
  tokens: number;
}

const args = process.argv.slice(2);
const json = args.includes('--json');
const encIdx = args.indexOf('--encoding');
const encoding: EncodingName = encIdx >= 0 ? (args[encIdx + 1] as EncodingName) : 'o200k_base';
const dirArg = args.find((a, i) => !a.startsWith('--') && args[i - 1] !== '--encoding');
const dir = dirArg ?? path.resolve(__dirname, '../../test/fixtures/trajectories');

function corpus(): string[] {
  const texts = new Set<string>();
  const expand = (v: unknown): string | undefined => {
    if (typeof v === 'string') return v;
    if (v && typeof v === 'object' && 'repeat' in v) {
      const r = v as { repeat: string; times: number };
      return r.repeat.repeat(r.times);
    }
    return undefined;
  };
  for (const f of fs
    .readdirSync(dir)
    .filter((n) => n.endsWith('.json'))
    .sort()) {
    const t = JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as {
      system?: string;
      files: Record<string, unknown>;
      turns: { user?: string; reply?: string; edits?: Record<string, unknown> }[];
    };
    const values: unknown[] = [t.system, ...Object.values(t.files)];
    for (const turn of t.turns) values.push(turn.user, turn.reply, ...Object.values(turn.edits ?? {}));
    for (const v of values) {
      const s = expand(v);
      if (s && !/\S{2001,}/.test(s)) texts.add(s);
    }
  }
  return [...texts];
}

function pass(enc: Encoder, texts: readonly string[]): { ms: number; tokens: number } {
  const t0 = performance.now();
  let tokens = 0;
  for (const t of texts) tokens += enc.encode(t).length;
  return { ms: performance.now() - t0, tokens };
}

function measure(name: string, load: () => Encoder, texts: readonly string[], bytes: number, warmPasses = 3): Row & { enc: Encoder } {
  const t0 = performance.now();
  const enc = load();
  enc.encode('warm up the first call');
  const loadMs = performance.now() - t0;
  const cold = pass(enc, texts);
  let warm = Infinity;
  for (let i = 0; i < warmPasses; i++) warm = Math.min(warm, pass(enc, texts).ms);
  return { name, loadMs, coldMBps: bytes / 1e6 / (cold.ms / 1000), warmMBps: bytes / 1e6 / (warm / 1000), tokens: cold.tokens, enc };
}

function main(): void {
  const texts = corpus();
  const bytes = texts.reduce((n, t) => n + Buffer.byteLength(t, 'utf8'), 0);
  const rows: Row[] = [];

  // gpt-tokenizer, unguarded (the library alone).
  const gpt = measure(
    `gpt-tokenizer ${encoding}`,
    () => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const m = require(`gpt-tokenizer/encoding/${encoding}`) as { encode(t: string, o?: object): number[] };
      const options = { disallowedSpecial: new Set<string>() };
      return { encode: (t: string) => m.encode(t, options) };
    },
    texts,
    bytes,
  );
  rows.push(gpt);

  // js-tiktoken (lite + ranks shipped in the package).
  const jt = measure(
    `js-tiktoken ${encoding}`,
    () => {
      /* eslint-disable @typescript-eslint/no-require-imports */
      const { Tiktoken } = require('js-tiktoken/lite') as {
        Tiktoken: new (r: unknown) => { encode(t: string, a?: string[], d?: string[]): number[] };
      };
      const ranks: unknown = require(`js-tiktoken/ranks/${encoding}`);
      /* eslint-enable @typescript-eslint/no-require-imports */
      const t = new Tiktoken(ranks);
      return { encode: (s: string) => t.encode(s, [], []) };
    },
    texts,
    bytes,
  );
  rows.push(jt);

  // Ours: the guard on top of gpt-tokenizer (already loaded above, so its load time is the wrapper's).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { GuardedTokenizer } = require('../src/services/tokenizer') as typeof import('../src/services/tokenizer');
  const ours = new GuardedTokenizer(encoding);
  rows.push(measure(`strata guarded encode`, () => ours, texts, bytes));
  ours.clearMemo();
  rows.push(measure(`strata count (memo)`, () => ({ encode: (t: string) => new Array<number>(ours.count(t)) }), texts, bytes));

  // The long-run guard on a pathological run (js-tiktoken left out: ~21 s for 10,000 letters).
  const patho: { input: string; unguardedMs: number; guardedMs: number; unguardedTokens: number; guardedTokens: number }[] = [];
  const inputs: [string, string][] = [
    ["20,000 × 'a'", 'a'.repeat(20_000)],
    ['20,000 spaces', `x${' '.repeat(20_000)}y`],
    ['20,000 random lowercase', Array.from({ length: 20_000 }, (_, i) => String.fromCharCode(97 + ((i * 7919) % 26))).join('')],
  ];
  for (const [input, s] of inputs) {
    const a = performance.now();
    const u = gpt.enc.encode(s).length;
    const b = performance.now();
    const g = new GuardedTokenizer(encoding).encode(s).length;
    const c = performance.now();
    patho.push({ input, unguardedMs: b - a, guardedMs: c - b, unguardedTokens: u, guardedTokens: g });
  }

  const report = {
    encoding,
    corpus: { texts: texts.length, chars: texts.reduce((n, t) => n + t.length, 0), bytes },
    libraries: rows.map(({ name, loadMs, coldMBps, warmMBps, tokens }) => ({ name, loadMs, coldMBps, warmMBps, tokens })),
    pathological: patho,
  };
  if (json) {
    process.stdout.write(JSON.stringify(report, null, 2) + '\n');
    return;
  }
  const f = (n: number | undefined, d = 1): string => (n === undefined ? '' : n.toFixed(d));
  console.log(`corpus: ${texts.length} texts, ${report.corpus.chars} chars, ${(bytes / 1e6).toFixed(2)} MB (${dir})`);
  console.log(
    ['library'.padEnd(28), 'load ms'.padStart(9), 'cold MB/s'.padStart(10), 'warm MB/s'.padStart(10), 'tokens'.padStart(9)].join(' '),
  );
  for (const r of report.libraries) {
    console.log(
      [
        r.name.padEnd(28),
        f(r.loadMs, 0).padStart(9),
        f(r.coldMBps, 2).padStart(10),
        f(r.warmMBps, 2).padStart(10),
        String(r.tokens).padStart(9),
      ].join(' '),
    );
  }
  console.log('long runs (gpt-tokenizer unguarded vs strata guarded):');
  for (const p of patho) {
    console.log(
      `  ${p.input.padEnd(26)} ${f(p.unguardedMs, 0).padStart(6)} ms → ${f(p.guardedMs, 0).padStart(5)} ms   tokens ${p.unguardedTokens} → ${p.guardedTokens}`,
    );
  }
}

main();
