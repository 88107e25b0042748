/**
 * A deterministic (seeded) long conversation for the scaling and memory cases: by default 200 turns
 * with ~2 MB of attached files of varied sizes, first attached evenly over the whole conversation,
 * re-attachments, an edit every few turns (a new version of an attached file) and a selection every
 * few turns. Content is real source text (the lines of the shared trajectories' files, reshuffled per
 * file), so token counts behave like code and prose, not like random bytes. The context window is
 * large enough that nothing is pruned: what is measured is how build time grows with the length of
 * the conversation when nothing else changes.
 */
import * as fs from 'fs';
import * as path from 'path';
import { expandFileValue, type Trajectory, type TrajectoryTurn } from './trajectory';

export interface GenerateOptions {
  seed?: number;
  turns?: number;
  /** Total size of the distinct files (first versions), in characters (= bytes: the text is ASCII). */
  fileBytes?: number;
  /** An edit of an attached file every N turns. */
  editEvery?: number;
  /** A selection from an attached file every N turns. */
  selectionEvery?: number;
  contextWindow?: number;
  /** Folder holding the source trajectories (default: test/fixtures/trajectories). */
  sourceDir?: string;
}

export const GENERATED_DEFAULTS = { seed: 20250101, turns: 200, fileBytes: 2_000_000, editEvery: 8, selectionEvery: 5, contextWindow: 2_000_000 } as const;

/** The long-chat case (issue 12): 1,000 turns, 5 MB of files, the same window (it cuts a few times near the end). */
export const LONG_CHAT = { turns: 1000, fileBytes: 5_000_000 } as const;

/**
 * The long chat in a window no cut reaches, as the 200-turn case is: with the 2 M window the chat is
 * pruned three times (turns 634, 786, 932), and files cut then are sent in full again when attached
 * later, so its last 20 turns send 16 new blocks against 10 in its first 20 — work a chat of that
 * length does not need when nothing is cut. Both are measured.
 */
export const LONG_CHAT_UNCUT = { ...LONG_CHAT, contextWindow: 4_000_000 } as const;

/** mulberry32: a tiny, good-enough seeded PRNG (deterministic across Node versions). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function defaultSourceDir(): string {
  // out/bench/perfGenerate.js → <repo>/test/fixtures/trajectories
  return path.resolve(__dirname, '../../test/fixtures/trajectories');
}

/** Printable-ASCII lines of the source trajectories' files (code and markdown), in a stable order. */
function sourceLines(dir: string): string[] {
  const lines: string[] = [];
  const seen = new Set<string>();
  for (const name of fs.readdirSync(dir).filter((n) => n.endsWith('.json') && n !== 'adversarial.json').sort()) {
    const t = JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8')) as Trajectory;
    for (const p of Object.keys(t.files).sort()) {
      const text = expandFileValue(t.files[p]);
      if (seen.has(text)) continue;
      seen.add(text);
      for (const l of text.split('\n')) if (/^[\x20-\x7e\t]*$/.test(l)) lines.push(l);
    }
  }
  if (lines.length < 1000) throw new Error(`not enough source text in ${dir} to generate a conversation`);
  return lines;
}

/**
 * A copy of `text` in V8's one-byte representation. Substrings of a JSON string that held any
 * non-Latin-1 character stay two-byte (2 bytes per character) even when they are ASCII; text read
 * from a file (UTF-8 decoded) is one-byte whenever it can be, so the generator does the same.
 */
function oneByte(text: string): string {
  return Buffer.from(text, 'utf8').toString('utf8');
}

export interface GeneratedInfo {
  files: number;
  fileBytes: number;
  edits: number;
  selections: number;
  reattachments: number;
}

/** The generated trajectory plus a summary of what it contains. */
export function generateConversation(options: GenerateOptions = {}): { trajectory: Trajectory; info: GeneratedInfo } {
  const o = { ...GENERATED_DEFAULTS, ...options };
  const rnd = prng(o.seed);
  const int = (lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1));
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
  const lines = sourceLines(o.sourceDir ?? defaultSourceDir());
  const words = [...new Set(lines.join(' ').split(/[^A-Za-z]+/).filter((w) => w.length >= 3 && w.length <= 12))].sort();

  const passage = (chars: number): string => {
    const out: string[] = [];
    let n = 0;
    while (n < chars) {
      const start = int(0, lines.length - 1);
      const len = int(20, 80);
      for (let k = start; k < Math.min(lines.length, start + len) && n < chars; k++) {
        out.push(lines[k]);
        n += lines[k].length + 1;
      }
    }
    return oneByte(out.join('\n'));
  };
  const prose = (chars: number): string => {
    const out: string[] = [];
    let n = 0;
    while (n < chars) {
      const sentence = Array.from({ length: int(6, 16) }, () => pick(words)).join(' ');
      const s = sentence[0].toUpperCase() + sentence.slice(1) + '.';
      out.push(s);
      n += s.length + 1;
    }
    return out.join(' ');
  };

  // Files of varied sizes (log-uniform 3–90 KB) until the total is reached.
  const files: Record<string, string> = {};
  const paths: string[] = [];
  let total = 0;
  while (total < o.fileBytes) {
    const i = paths.length;
    const size = Math.round(Math.exp(Math.log(3000) + rnd() * (Math.log(90_000) - Math.log(3000))));
    const ext = rnd() < 0.75 ? 'ts' : 'md';
    const p = `gen/mod${i % 8}/file${String(i).padStart(3, '0')}.${ext}`;
    const header = ext === 'ts' ? `// ${p}: generated for the Strata benchmark (seed ${o.seed})\n` : `# ${p}\n\nGenerated for the Strata benchmark (seed ${o.seed}).\n\n`;
    const text = oneByte(header + passage(size - header.length));
    files[p] = text;
    paths.push(p);
    total += text.length;
  }

  // First attachments spread evenly over the conversation, so early and late turns add as much new content.
  const firstTurn = new Map<number, string[]>();
  paths.forEach((p, k) => {
    const t = 1 + Math.floor((k * o.turns) / paths.length);
    firstTurn.set(t, [...(firstTurn.get(t) ?? []), p]);
  });

  const current = new Map(Object.entries(files));
  const attached: string[] = [];
  const turns: TrajectoryTurn[] = [];
  const info: GeneratedInfo = { files: paths.length, fileBytes: total, edits: 0, selections: 0, reattachments: 0 };
  for (let t = 1; t <= o.turns; t++) {
    const turn: TrajectoryTurn = { user: '', reply: '' };
    const attach: NonNullable<TrajectoryTurn['attach']> = [];
    if (t % o.editEvery === 0 && attached.length > 0) {
      // Replace a run of lines in an attached file: a new version (sent once, in full, under append-version).
      const p = pick(attached);
      const old = current.get(p)!.split('\n');
      const at = int(1, Math.max(1, old.length - 41));
      const repl = passage(int(400, 2500)).split('\n');
      const next = oneByte([...old.slice(0, at), ...repl, ...old.slice(at + int(10, 40))].join('\n'));
      current.set(p, next);
      turn.edits = { [p]: next };
      info.edits++;
    }
    for (const p of firstTurn.get(t) ?? []) {
      attach.push({ file: p });
      attached.push(p);
    }
    if (attached.length > 1 && rnd() < 0.6) {
      // 1–3 distinct files attached before. Drawn without replacement: drawing with replacement and
      // skipping repeats made early turns (few files to draw from) attach half as many as late ones,
      // so the scaling case compared windows doing different work.
      const pool = attached.filter((p) => !attach.some((a) => a.file === p));
      for (let r = Math.min(int(1, 3), pool.length); r > 0; r--) {
        const i = Math.floor(rnd() * pool.length);
        attach.push({ file: pool[i] });
        pool.splice(i, 1);
        info.reattachments++;
      }
    }
    if (t % o.selectionEvery === 0 && attached.length > 0) {
      const p = pick(attached);
      const n = current.get(p)!.split('\n').length;
      const start = int(1, Math.max(1, n - 60));
      attach.push({ selection: { file: p, startLine: start, endLine: Math.min(n, start + int(10, 60)) } });
      info.selections++;
    }
    turn.attach = attach;
    turn.user = `Turn ${t}. ${prose(int(80, 300))}`;
    turn.reply = prose(int(400, 1500));
    turns.push(turn);
  }
  const trajectory: Trajectory = {
    name: `generated-${o.turns}-turns`,
    model: { id: 'generated-large-context', contextWindow: o.contextWindow, maxOutputTokens: 8192, encoding: 'o200k_base' },
    system: 'You are a careful coding assistant. Answer precisely and cite file paths and line numbers.',
    files,
    turns,
  };
  return { trajectory, info };
}
