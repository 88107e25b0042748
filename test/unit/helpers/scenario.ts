/**
 * Random chats over a small virtual workspace, for the engine's property tests.
 *
 * fast-check generates a compact, shrinkable *spec* (seeds and indexes); `buildTrajectory` turns it
 * into a real `Trajectory` (docs/design.md#trajectories) deterministically, so a failing case
 * prints a small spec and a trajectory that `npm run replay` can load.
 */
import * as fc from 'fast-check';
import type { ChangedFilesPolicy, ITokenizer, Layout } from '../../../src/engine/types';
import type { Trajectory, TrajectoryAttachment, TrajectoryTurn } from '../../../bench/trajectory';
import { prng } from '../../../bench/perf/generate';

/** Paths of the virtual workspace: the first 3–5 exist from the start, the others once an edit creates them. */
export const PATHS = ['src/app.ts', 'docs/guide.md', 'lib/util.js', 'src/big.ts', 'notes/todo.txt', 'src/extra.ts', 'docs/new.md'] as const;

export interface FileSpec {
  seed: number;
  lines: number;
  crlf: boolean;
}

export type EditSpec =
  | { op: 'change'; file: number; seed: number }
  | { op: 'create'; file: number; seed: number; lines: number }
  | { op: 'delete'; file: number }
  | { op: 'revert'; file: number; back: number };

export interface AttachSpec {
  kind: 'file' | 'selection' | 'unknown' | 'outside' | 'excluded';
  file: number;
  start: number;
  len: number;
}

export interface RefSpec {
  /** Index into the attachments written so far (modulo); ignored when `unknown`. */
  pick: number;
  unknown: boolean;
}

export interface TurnSpec {
  attach: AttachSpec[];
  edits: EditSpec[];
  pin: RefSpec[];
  unpin: RefSpec[];
  detach: RefSpec[];
  userSeed: number;
  userWords: number;
  replyWords: number;
}

export interface ModelSpec {
  contextWindow: number;
  maxOutputTokens: number;
}

export interface ScenarioSpec {
  files: FileSpec[];
  turns: TurnSpec[];
  layout: Layout;
  policy: ChangedFilesPolicy;
  model: ModelSpec;
  tokenizer: 'cheap' | 'real';
}

// ------------------------------------------------------------------ deterministic content

const WORDS = [
  'alpha',
  'beta',
  'queue',
  'retry',
  'parse',
  'token',
  'budget',
  'layer',
  'cache',
  'prefix',
  'value',
  'result',
  'error',
  'state',
  'async',
  'limit',
];

function words(rand: () => number, n: number): string {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(WORDS[Math.floor(rand() * WORDS.length)]);
  return out.join(' ');
}

function line(rand: () => number, k: number): string {
  const r = rand();
  if (r < 0.12) return `export function ${WORDS[k % WORDS.length]}${k}(x: number): number {`;
  if (r < 0.3) return `  return x + ${Math.floor(rand() * 1000)}; // ${words(rand, 2)}`;
  if (r < 0.38) return '}';
  if (r < 0.45) return `# ${words(rand, 3)}`;
  if (r < 0.5) return '';
  if (r < 0.55) return `class ${WORDS[k % WORDS.length].toUpperCase()}${k} {`;
  return `${' '.repeat(Math.floor(rand() * 4))}${words(rand, 2 + Math.floor(rand() * 8))}`;
}

export function fileContent(seed: number, lines: number, crlf: boolean): string {
  const rand = prng(seed);
  const out: string[] = [];
  for (let i = 0; i < lines; i++) out.push(line(rand, i));
  return out.join(crlf ? '\r\n' : '\n') + (rand() < 0.5 ? (crlf ? '\r\n' : '\n') : '');
}

/** A change to existing content: some lines replaced, inserted or removed. */
export function changeContent(old: string, seed: number): string {
  const rand = prng(seed);
  const eol = old.includes('\r\n') ? '\r\n' : '\n';
  const lines = old.split(eol);
  const n = 1 + Math.floor(rand() * 4);
  for (let i = 0; i < n; i++) {
    const at = Math.floor(rand() * (lines.length + 1));
    const r = rand();
    if (r < 0.4 && lines.length > 1) lines.splice(Math.min(at, lines.length - 1), 1, line(rand, at));
    else if (r < 0.7 || lines.length <= 1) lines.splice(at, 0, line(rand, at));
    else lines.splice(Math.min(at, lines.length - 1), 1);
  }
  const next = lines.join(eol);
  return next === old ? old + eol + 'changed' : next;
}

// ------------------------------------------------------------------ spec → trajectory

export function selectionLabel(file: string, startLine: number, endLine: number): string {
  return `${file}#L${startLine}-L${endLine}`;
}

export function buildTrajectory(spec: ScenarioSpec, name = 'property'): Trajectory {
  const files: Record<string, string> = {};
  const history = new Map<string, string[]>();
  spec.files.forEach((f, i) => {
    const p = PATHS[i];
    files[p] = fileContent(f.seed, f.lines, f.crlf);
    history.set(p, [files[p]]);
  });
  const current = new Map<string, string | null>(Object.entries(files));
  const written: TrajectoryAttachment[] = [];
  const turns: TrajectoryTurn[] = spec.turns.map((t, ti) => {
    const turn: TrajectoryTurn = { user: '', reply: '' };
    // Edits first: they apply at the start of the turn.
    if (t.edits.length > 0) {
      const edits: Record<string, string | null> = {};
      for (const e of t.edits) {
        const p = PATHS[e.file % PATHS.length];
        const now = p in edits ? edits[p] : (current.get(p) ?? null);
        const hist = history.get(p) ?? [];
        let next: string | null;
        switch (e.op) {
          case 'change':
            next = now === null ? fileContent(e.seed, 5, false) : changeContent(now, e.seed);
            break;
          case 'create':
            next = fileContent(e.seed, e.lines, e.seed % 3 === 0);
            break;
          case 'delete':
            next = null;
            break;
          case 'revert':
            next = hist.length > 0 ? hist[Math.max(0, hist.length - 1 - (e.back % hist.length))] : null;
            break;
        }
        edits[p] = next;
      }
      for (const [p, v] of Object.entries(edits)) {
        current.set(p, v);
        if (v !== null) history.set(p, [...(history.get(p) ?? []), v]);
      }
      turn.edits = edits;
    }
    const attach: TrajectoryAttachment[] = [];
    for (const a of t.attach) {
      const p = PATHS[a.file % PATHS.length];
      switch (a.kind) {
        case 'file':
          attach.push({ file: p });
          break;
        case 'selection':
          attach.push({ selection: { file: p, startLine: a.start, endLine: a.start + a.len } });
          break;
        case 'unknown':
          attach.push({ file: `missing/${p}` });
          break;
        case 'outside':
          attach.push(a.start % 2 === 0 ? { file: `../${p}` } : { file: `/etc/${p}` });
          break;
        case 'excluded':
          attach.push({ file: a.start % 2 === 0 ? '.env' : 'keys/server.pem' });
          break;
      }
    }
    const refs = (list: RefSpec[]): TrajectoryAttachment[] | undefined => {
      if (list.length === 0) return undefined;
      return list.map((r) => {
        if (r.unknown || written.length === 0) {
          return r.pick % 2 === 0
            ? { file: 'src/never-attached.ts' }
            : { selection: { file: PATHS[0], startLine: 900 + (r.pick % 7), endLine: 950 } };
        }
        return written[r.pick % written.length];
      });
    };
    // One item is named by at most one of detach / pin / unpin in a turn (their order is not part of
    // the format).
    const key = (a: TrajectoryAttachment) => JSON.stringify(a);
    turn.detach = refs(t.detach);
    const taken = new Set((turn.detach ?? []).map(key));
    turn.pin = refs(t.pin)?.filter((a) => !taken.has(key(a)));
    for (const a of turn.pin ?? []) taken.add(key(a));
    turn.unpin = refs(t.unpin)?.filter((a) => !taken.has(key(a)));
    for (const k of ['pin', 'unpin', 'detach'] as const) if (!turn[k]?.length) delete turn[k];
    if (attach.length > 0) turn.attach = attach;
    // Pin / unpin / detach name things attached earlier, as written: files, and selections that were
    // inside the file when attached (a past-the-end range is clamped, see the engine bug tests).
    for (const a of attach) {
      if (a.file !== undefined && PATHS.includes(a.file as (typeof PATHS)[number])) written.push(a);
      if (a.selection) {
        const text = current.get(a.selection.file);
        if (typeof text === 'string' && a.selection.endLine <= text.split(/\r\n|\r|\n/).length) written.push(a);
      }
    }
    const rand = prng(t.userSeed);
    turn.user = t.userWords === 0 ? '' : `Q${ti + 1}: ${words(rand, t.userWords)}`;
    turn.reply = `A${ti + 1}: ${words(rand, t.replyWords)}`;
    return turn;
  });
  return {
    name,
    model: {
      id: 'test-model',
      contextWindow: spec.model.contextWindow,
      maxOutputTokens: spec.model.maxOutputTokens,
      encoding: 'o200k_base',
    },
    system: 'You are a coding assistant. Answer from the attached context.',
    files,
    turns,
  };
}

// ------------------------------------------------------------------ arbitraries

const fileSpec: fc.Arbitrary<FileSpec> = fc.record({
  seed: fc.nat(),
  lines: fc.oneof({ arbitrary: fc.integer({ min: 1, max: 40 }), weight: 2 }, { arbitrary: fc.integer({ min: 60, max: 320 }), weight: 2 }),
  crlf: fc.boolean(),
});

const editSpec: fc.Arbitrary<EditSpec> = fc.oneof(
  { arbitrary: fc.record({ op: fc.constant('change' as const), file: fc.nat(4), seed: fc.nat() }), weight: 4 },
  {
    arbitrary: fc.record({ op: fc.constant('create' as const), file: fc.nat(6), seed: fc.nat(), lines: fc.integer({ min: 1, max: 60 }) }),
    weight: 1,
  },
  { arbitrary: fc.record({ op: fc.constant('delete' as const), file: fc.nat(6) }), weight: 1 },
  { arbitrary: fc.record({ op: fc.constant('revert' as const), file: fc.nat(4), back: fc.nat(4) }), weight: 2 },
);

const attachSpec: fc.Arbitrary<AttachSpec> = fc.record({
  kind: fc.oneof(
    { arbitrary: fc.constant('file' as const), weight: 5 },
    { arbitrary: fc.constant('selection' as const), weight: 5 },
    { arbitrary: fc.constant('unknown' as const), weight: 1 },
    { arbitrary: fc.constant('outside' as const), weight: 1 },
    { arbitrary: fc.constant('excluded' as const), weight: 1 },
  ),
  // Mostly the files every workspace has; sometimes one that exists only once an edit creates it.
  file: fc.oneof({ arbitrary: fc.nat(2), weight: 3 }, { arbitrary: fc.nat(6), weight: 1 }),
  // Mostly inside small files; sometimes past the end (clamped or rejected).
  start: fc.oneof({ arbitrary: fc.integer({ min: 1, max: 12 }), weight: 4 }, { arbitrary: fc.integer({ min: 1, max: 400 }), weight: 1 }),
  len: fc.oneof({ arbitrary: fc.integer({ min: 0, max: 8 }), weight: 3 }, { arbitrary: fc.integer({ min: 0, max: 500 }), weight: 1 }),
});

const refSpec: fc.Arbitrary<RefSpec> = fc.record({
  pick: fc.nat(),
  unknown: fc.oneof({ arbitrary: fc.constant(false), weight: 6 }, { arbitrary: fc.constant(true), weight: 1 }),
});

const turnSpec: fc.Arbitrary<TurnSpec> = fc.record({
  attach: fc.array(attachSpec, { maxLength: 4 }),
  edits: fc.oneof(
    { arbitrary: fc.constant([] as EditSpec[]), weight: 3 },
    { arbitrary: fc.array(editSpec, { minLength: 1, maxLength: 2 }), weight: 2 },
  ),
  pin: fc.oneof(
    { arbitrary: fc.constant([] as RefSpec[]), weight: 3 },
    { arbitrary: fc.array(refSpec, { minLength: 1, maxLength: 2 }), weight: 1 },
  ),
  unpin: fc.oneof(
    { arbitrary: fc.constant([] as RefSpec[]), weight: 6 },
    { arbitrary: fc.array(refSpec, { minLength: 1, maxLength: 1 }), weight: 1 },
  ),
  detach: fc.oneof(
    { arbitrary: fc.constant([] as RefSpec[]), weight: 6 },
    { arbitrary: fc.array(refSpec, { minLength: 1, maxLength: 1 }), weight: 1 },
  ),
  userSeed: fc.nat(),
  userWords: fc.oneof(
    { arbitrary: fc.integer({ min: 0, max: 12 }), weight: 10 },
    { arbitrary: fc.integer({ min: 100, max: 1500 }), weight: 1 },
  ),
  replyWords: fc.oneof(
    { arbitrary: fc.integer({ min: 1, max: 40 }), weight: 6 },
    { arbitrary: fc.integer({ min: 100, max: 900 }), weight: 1 },
  ),
});

const modelSpec: fc.Arbitrary<ModelSpec> = fc.oneof(
  // Small windows force pruning, sometimes blocking.
  { arbitrary: fc.record({ contextWindow: fc.integer({ min: 3000, max: 9000 }), maxOutputTokens: fc.constantFrom(256, 1024) }), weight: 4 },
  {
    arbitrary: fc.record({ contextWindow: fc.integer({ min: 9000, max: 20000 }), maxOutputTokens: fc.constantFrom(1024, 2048) }),
    weight: 2,
  },
  // A large window: pruning never needed.
  { arbitrary: fc.constant({ contextWindow: 200_000, maxOutputTokens: 4096 }), weight: 1 },
);

export function scenarioArb(opts: { maxTurns?: number; tokenizers?: ('cheap' | 'real')[] } = {}): fc.Arbitrary<ScenarioSpec> {
  return fc.record({
    files: fc.array(fileSpec, { minLength: 3, maxLength: 5 }),
    turns: fc.array(turnSpec, { minLength: 1, maxLength: opts.maxTurns ?? 12 }),
    layout: fc.constantFrom<Layout>('library', 'transcript'),
    policy: fc.constantFrom<ChangedFilesPolicy>('append-version', 'append-diff', 'refresh-in-place'),
    model: modelSpec,
    tokenizer: fc.constantFrom(...(opts.tokenizers ?? (['cheap', 'cheap', 'cheap', 'real'] as const))),
  });
}

/** `count = ceil(len / 4)`: cheap and deterministic, for fast property runs. */
export const cheapTokenizer: ITokenizer = { encoding: 'cheap', count: (text) => Math.ceil(text.length / 4) };
