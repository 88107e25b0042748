/**
 * A deterministic (seeded) long conversation for the scaling and memory cases: by default 200 turns
 * with ~2 MB of attached files of varied sizes, a few attached with the first message and the rest
 * first attached evenly over the whole conversation,
 * re-attachments, an edit every few turns (a new version of an attached file) and a selection every
 * few turns. Content is real source text (the lines of the shared trajectories' files, reshuffled per
 * file), so token counts behave like code and prose, not like random bytes. The context window is
 * large enough that nothing is pruned: what is measured is how build time grows with the length of
 * the conversation when nothing else changes.
 */
import * as fs from 'fs';
import * as path from 'path';
import { expandFileValue, type Trajectory, type TrajectoryTurn } from '../trajectory';

export interface GenerateOptions {
  seed?: number;
  turns?: number;
  /** Total size of the distinct files (first versions), in characters (= bytes: the text is ASCII). */
  fileBytes?: number;
  /** An edit of an attached file every N turns. */
  editEvery?: number;
  /** A selection from an attached file every N turns. */
  selectionEvery?: number;
  /**
   * The last N turns repeat the first N turns' shapes (default 20, the scaling case's windows; 0:
   * off): as many new files of the same sizes, as many files attached again, an edit of a file of
   * about the same size, a selection of as many lines, messages and replies of the same lengths.
   * The two windows the scaling case compares then do the same work and differ only in the chat
   * before them; drawn independently, one window can re-attach far more files than the other.
   */
  mirrorLast?: number;
  /**
   * Files attached with the first message (the rest are spread over the conversation). Turns
   * re-attach 1–3 files attached before: with one new file every few turns, the first turns would
   * otherwise have fewer than that to draw from and re-attach fewer files than the last ones, and the
   * scaling case would compare windows doing different work.
   */
  openingFiles?: number;
  contextWindow?: number;
  /** Folder holding the source trajectories (default: test/fixtures/trajectories). */
  sourceDir?: string;
}

export const GENERATED_DEFAULTS = {
  seed: 20250101,
  turns: 200,
  fileBytes: 2_000_000,
  editEvery: 8,
  selectionEvery: 5,
  openingFiles: 4,
  mirrorLast: 20,
  contextWindow: 2_000_000,
} as const;

/** The long-chat case: 1,000 turns, 5 MB of files, the same window (it cuts a few times near the end). */
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
  // out/bench/perf/generate.js → <repo>/test/fixtures/trajectories
  return path.resolve(__dirname, '../../../test/fixtures/trajectories');
}

/** Printable-ASCII lines of the source trajectories' files (code and markdown), in a stable order. */
function sourceLines(dir: string): string[] {
  const lines: string[] = [];
  const seen = new Set<string>();
  for (const name of fs
    .readdirSync(dir)
    .filter((n) => n.endsWith('.json') && n !== 'adversarial.json')
    .sort()) {
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

/** What a turn does, apart from which files it names (the repeated window copies it). */
interface TurnShape {
  edit: { fileChars: number; replChars: number; removed: number } | undefined;
  reattach: number;
  selectionLines: number;
  userChars: number;
  replyChars: number;
}

/** The path among `paths` whose current text is closest in length to `chars`. */
function closestInSize(paths: readonly string[], current: ReadonlyMap<string, string>, chars: number): string {
  let best = paths[0];
  for (const p of paths) if (Math.abs(current.get(p)!.length - chars) < Math.abs(current.get(best)!.length - chars)) best = p;
  return best;
}

/** The generated trajectory plus a summary of what it contains. */
export function generateConversation(options: GenerateOptions = {}): { trajectory: Trajectory; info: GeneratedInfo } {
  const o = { ...GENERATED_DEFAULTS, ...options };
  const rnd = prng(o.seed);
  const int = (lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1));
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
  const lines = sourceLines(o.sourceDir ?? defaultSourceDir());
  const words = [
    ...new Set(
      lines
        .join(' ')
        .split(/[^A-Za-z]+/)
        .filter((w) => w.length >= 3 && w.length <= 12),
    ),
  ].sort();

  const passage = (chars: number): string => {
    const out: string[] = [];
    let n = 0;
    // n counts a separator after each line: the joined text is n − 1 long.
    while (n <= chars) {
      const start = int(0, lines.length - 1);
      const len = int(20, 80);
      for (let k = start; k < Math.min(lines.length, start + len) && n <= chars; k++) {
        out.push(lines[k]);
        n += lines[k].length + 1;
      }
    }
    // Exactly `chars` characters: a repeated turn's texts are as long as its model's.
    return oneByte(out.join('\n').slice(0, chars));
  };
  const prose = (chars: number): string => {
    const out: string[] = [];
    let n = 0;
    while (n <= chars) {
      const sentence = Array.from({ length: int(6, 16) }, () => pick(words)).join(' ');
      const s = sentence[0].toUpperCase() + sentence.slice(1) + '.';
      out.push(s);
      n += s.length + 1;
    }
    return out.join(' ').slice(0, chars);
  };

  // Sizes of the files (log-uniform 3–90 KB) until the total is reached, and their extensions.
  const sizes: number[] = [];
  const exts: ('ts' | 'md')[] = [];
  for (let total = 0; total < o.fileBytes;) {
    const size = Math.round(Math.exp(Math.log(3000) + rnd() * (Math.log(90_000) - Math.log(3000))));
    sizes.push(size);
    exts.push(rnd() < 0.75 ? 'ts' : 'md');
    total += size;
  }

  // A few files with the first message; the others' first attachments spread evenly over the
  // conversation, so early and late turns add as much new content.
  const opening = Math.min(o.openingFiles, sizes.length);
  const firstTurnOf = sizes.map((_, k) =>
    k < opening ? 1 : 1 + Math.floor(((k - opening) * o.turns) / Math.max(1, sizes.length - opening)),
  );
  // The last window repeats the first one's turns (see `mirrorLast`): the same number of new files
  // per turn, of the same sizes, taken from the end of the list.
  const w = o.mirrorLast > 0 && o.turns >= 2 * o.mirrorLast ? o.mirrorLast : 0;
  if (w > 0) {
    const early = firstTurnOf.filter((t) => t <= w).length;
    // The last `early` files take the first ones' sizes: more files between, until the total is reached again.
    const mirroredTotal = () =>
      sizes.slice(0, sizes.length - early).reduce((a, b) => a + b, 0) + sizes.slice(0, early).reduce((a, b) => a + b, 0);
    while (sizes.length >= 2 * early + 1 && mirroredTotal() < o.fileBytes) {
      sizes.splice(sizes.length - early, 0, Math.round(Math.exp(Math.log(3000) + rnd() * (Math.log(90_000) - Math.log(3000)))));
      exts.splice(exts.length - early, 0, rnd() < 0.75 ? 'ts' : 'md');
      firstTurnOf.push(o.turns);
    }
    const n = sizes.length;
    if (n >= 2 * early + 1) {
      // Files early..n-early-1 spread over the turns between the windows; the last `early` files
      // come in the last window as the first ones came in the first.
      const middle = n - 2 * early;
      for (let j = 0; j < middle; j++) firstTurnOf[early + j] = w + 1 + Math.floor((j * (o.turns - 2 * w)) / middle);
      for (let j = 0; j < early; j++) {
        firstTurnOf[n - early + j] = o.turns - w + firstTurnOf[j];
        sizes[n - early + j] = sizes[j];
        exts[n - early + j] = exts[j];
      }
    }
  }

  const files: Record<string, string> = {};
  const paths: string[] = [];
  let total = 0;
  sizes.forEach((size, i) => {
    const ext = exts[i];
    const p = `gen/mod${i % 8}/file${String(i).padStart(3, '0')}.${ext}`;
    const header =
      ext === 'ts'
        ? `// ${p}: generated for the Strata benchmark (seed ${o.seed})\n`
        : `# ${p}\n\nGenerated for the Strata benchmark (seed ${o.seed}).\n\n`;
    const text = oneByte(header + passage(size - header.length));
    files[p] = text;
    paths.push(p);
    total += text.length;
  });
  const firstTurn = new Map<number, string[]>();
  paths.forEach((p, k) => firstTurn.set(firstTurnOf[k], [...(firstTurn.get(firstTurnOf[k]) ?? []), p]));

  const current = new Map(Object.entries(files));
  const attached: string[] = [];
  const turns: TrajectoryTurn[] = [];
  const shapes: TurnShape[] = [];
  const info: GeneratedInfo = { files: paths.length, fileBytes: total, edits: 0, selections: 0, reattachments: 0 };
  for (let t = 1; t <= o.turns; t++) {
    const mirrored = w > 0 && t > o.turns - w ? shapes[t - (o.turns - w) - 1] : undefined;
    const shape: TurnShape = mirrored ?? {
      edit: t % o.editEvery === 0 && attached.length > 0 ? { fileChars: 0, replChars: int(400, 2500), removed: int(10, 40) } : undefined,
      // 1–3 distinct files attached before. Drawn without replacement: drawing with replacement and
      // skipping repeats would make early turns (few files to draw from) attach fewer than late
      // ones, and the scaling case would compare windows doing different work.
      reattach: attached.length > 1 && rnd() < 0.6 ? int(1, 3) : 0,
      selectionLines: t % o.selectionEvery === 0 && attached.length > 0 ? int(10, 60) : 0,
      userChars: int(80, 300),
      replyChars: int(400, 1500),
    };
    const turn: TrajectoryTurn = { user: '', reply: '' };
    const attach: NonNullable<TrajectoryTurn['attach']> = [];
    if (shape.edit && attached.length > 0) {
      // Replace a run of lines in an attached file: a new version (sent once, in full, under
      // append-version). A repeated turn edits the attached file closest in size to the one its
      // model edited, as the new version's size is the turn's work.
      const p = mirrored ? closestInSize(attached, current, shape.edit.fileChars) : pick(attached);
      if (!mirrored) shape.edit.fileChars = current.get(p)!.length;
      const old = current.get(p)!.split('\n');
      const at = int(1, Math.max(1, old.length - 41));
      const repl = passage(shape.edit.replChars).split('\n');
      const next = oneByte([...old.slice(0, at), ...repl, ...old.slice(at + shape.edit.removed)].join('\n'));
      current.set(p, next);
      turn.edits = { [p]: next };
      info.edits++;
    }
    for (const p of firstTurn.get(t) ?? []) {
      attach.push({ file: p });
      attached.push(p);
    }
    if (shape.reattach > 0) {
      const pool = attached.filter((p) => !attach.some((a) => a.file === p));
      for (let r = Math.min(shape.reattach, pool.length); r > 0; r--) {
        const i = Math.floor(rnd() * pool.length);
        attach.push({ file: pool[i] });
        pool.splice(i, 1);
        info.reattachments++;
      }
    }
    if (shape.selectionLines > 0 && attached.length > 0) {
      const p = pick(attached);
      const n = current.get(p)!.split('\n').length;
      const start = int(1, Math.max(1, n - 60));
      attach.push({ selection: { file: p, startLine: start, endLine: Math.min(n, start + shape.selectionLines) } });
      info.selections++;
    }
    turn.attach = attach;
    turn.user = `Turn ${t}. ${prose(shape.userChars)}`;
    turn.reply = prose(shape.replyChars);
    turns.push(turn);
    shapes.push(shape);
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
