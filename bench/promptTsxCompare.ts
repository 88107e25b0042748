/**
 * Side by side with @vscode/prompt-tsx: the same prioritized chunks under the same budget.
 *
 * The chunks are the request of the last turn of a trajectory (default long-session-20) as Strata's
 * transcript layout builds it with no pruning: the system prompt, every artifact block (each version
 * once, in the turn that first sent it), every earlier turn (its message text, references included,
 * and its reply), and the current message. Priorities are Strata's: essential = system
 * prompt, current message and the last turn; selections 3; other attachments and history turns 5;
 * superseded versions 10; ties oldest first. prompt-tsx gets them as `TextChunk` priorities (higher =
 * kept longer: (10 − p) · 10⁵ + turn · 10² + position) and a tokenizer adapter over our tokenizer
 * with the same message framing as the replay's count.
 *
 * Methods, for each budget (a fraction of the unpruned request):
 * - `prompt-tsx`: `PromptRenderer.render()` in plain Node (Raw output mode);
 * - `optimizeForLimit`: Strata's `AttachmentManager.optimizeForLimit` over the same chunks (history
 *   turns entered as text items, the last turn pinned), limit = budget − the essential tokens;
 * - `engine 80→60%`: the real engine rebuilding that turn with the budget as its limit and the default
 *   thresholds (prune when over 80% of the budget, down to 60%: the cache-aware hysteresis, which also
 *   compacts and summarizes instead of only dropping);
 * - `engine →99%`: the same with thresholds set to prune only above 100% and down to 99%.
 * Tokens used are counted the same way for all (the exact count of the messages sent, framing included).
 */
import * as path from 'path';
import {
  AssistantMessage,
  OutputMode,
  PromptElement,
  PromptRenderer,
  Raw,
  SystemMessage,
  TextChunk,
  UserMessage,
  type BasePromptElementProps,
  type ITokenizer as PtsxTokenizer,
  type PromptElementCtor,
  type PromptPiece,
  type PromptPieceChild,
} from '@vscode/prompt-tsx';
import type { ChatMessage, Role } from '../src/engine/types';
import type { TurnEnvelope, TurnInput } from '../src/engine/engine';
import { AttachmentManager } from '../src/engine/attachmentManager';
import { emptyState } from '../src/engine/state';
import { DEFAULT_THRESHOLDS, computeBudget, type ModelLimits, type Thresholds } from '../src/engine/budget';
import { sha256Hex } from '../src/common/hash';
import { frameHeader, requestTokenCount } from '../src/services/cacheModel';
import { getTokenizer, type Tokenizer } from '../src/services/tokenizer';
import type { Trajectory } from './trajectory';
import { driveEngine } from './perf/drive';
import { round, stats } from './perf/stats';

/** One piece of a message: part of an artifact chunk (its full block) or of the turn's history chunk. */
interface Piece {
  text: string;
  /** Set when this piece is an artifact's full block (the artifact chunk). */
  artifact?: string;
  /** Set when this piece is a reference to an artifact block. */
  ref?: string;
}

interface TurnChunks {
  turn: number;
  pieces: Piece[];
  reply?: string;
}

interface ArtifactChunk {
  key: string;
  turn: number;
  seq: number;
  text: string;
  tokens: number;
  priority: number;
  input: {
    kind: 'file' | 'selection' | 'diagnostics' | 'folder' | 'tool' | 'text';
    uri: string;
    range?: { startLine: number; endLine: number };
    content: string;
    id: string;
  };
}

export interface ChunkSet {
  trajectory: string;
  system: string;
  turns: TurnChunks[];
  artifacts: Map<string, ArtifactChunk>;
  /** Tokens of each earlier turn's history chunk (its text pieces, reply and two message framings). */
  historyTokens: Map<number, number>;
  lastTurn: number;
  totalTokens: number;
  essentialTokens: number;
}

export interface MethodResult {
  method: string;
  budget: number;
  usedTokens: number;
  usedRatio: number;
  fits: boolean;
  artifactsFull: number;
  artifactsCompacted: number;
  artifactsTotal: number;
  historyVerbatim: number;
  historySummarized: number;
  historyTotal: number;
  /** References whose block is not in the request. */
  danglingRefs: number;
  ms: number;
}

export interface PromptTsxComparison {
  trajectory: string;
  totalTokens: number;
  essentialTokens: number;
  runs: number;
  rows: MethodResult[];
}

function framing(tok: Tokenizer, role: Role): number {
  return tok.count(frameHeader(role)) + tok.count('\n');
}

function textOf(m: ChatMessage): string {
  return m.content.map((b) => b.text).join('');
}

/** Drives the engine through the trajectory (no pruning) and cuts the last request into chunks. */
export function extractChunks(traj: Trajectory, tok: Tokenizer): { chunks: ChunkSet; envelopes: TurnEnvelope[]; lastInput: TurnInput } {
  const envelopes: TurnEnvelope[] = [];
  let lastInput: TurnInput | undefined;
  const { engine } = driveEngine(traj, {
    layout: 'transcript',
    policy: 'append-version',
    tokenizer: tok,
    onBuilt: (_t, _ms, env) => envelopes.push(env),
    onInput: (_t, input) => (lastInput = input),
  });
  const last = envelopes[envelopes.length - 1];
  if (envelopes.some((e) => e.pruned.some((p) => p.reason !== 'detached') || e.blocked))
    throw new Error(`${traj.name} needs pruning already: pick a trajectory that fits its window`);
  const state = engine.state; // committed after the last turn: superseded flags as of the last turn
  const artifacts = new Map<string, ArtifactChunk>();
  const turns: TurnChunks[] = [];
  let seq = 0;
  envelopes.forEach((env, i) => {
    const turn = i + 1;
    const current = [...env.layers[2].segments, ...env.layers[4].segments];
    const pieces: Piece[] = current.map((g) => {
      if (g.kind === 'artifact' && g.artifactKey) {
        const e = state.entries.get(g.artifactKey)!;
        const a = e.artifact;
        const priority = e.essential ? 0 : e.superseded ? 10 : a.priority;
        artifacts.set(g.artifactKey, {
          key: g.artifactKey,
          turn,
          seq: seq++,
          text: g.text,
          tokens: tok.count(g.text),
          priority,
          input: {
            kind: a.kind,
            uri: a.source.uri,
            ...(a.source.range ? { range: { ...a.source.range } } : {}),
            content: a.content,
            id: a.id,
          },
        });
        return { text: g.text, artifact: g.artifactKey };
      }
      return g.kind === 'reference' && g.artifactKey ? { text: g.text, ref: g.artifactKey } : { text: g.text };
    });
    turns.push({ turn, pieces, ...(turn < envelopes.length ? { reply: traj.turns[i].reply } : {}) });
  });
  const lastTurn = turns.length;
  const historyTokens = new Map<number, number>();
  for (const t of turns) {
    if (t.reply === undefined) continue;
    let n = framing(tok, 'user') + framing(tok, 'assistant') + tok.count(t.reply);
    for (const p of t.pieces) if (!p.artifact) n += tok.count(p.text);
    historyTokens.set(t.turn, n);
  }
  const chunks: ChunkSet = {
    trajectory: traj.name,
    system: textOf(last.messages[0]),
    turns,
    artifacts,
    historyTokens,
    lastTurn,
    totalTokens: 0,
    essentialTokens: 0,
  };
  // The chunks put back together must be the engine's request, byte for byte.
  const all = renderKept(chunks, new Set(artifacts.keys()), new Set(historyTokens.keys()));
  const a = JSON.stringify(all);
  const b = JSON.stringify(last.messages.map((m) => ({ role: m.role, content: [{ type: 'text', text: textOf(m) }] })));
  if (a !== b) throw new Error('chunk extraction does not reproduce the engine request');
  chunks.totalTokens = requestTokenCount(all, tok);
  chunks.essentialTokens = requestTokenCount(renderKept(chunks, new Set(), new Set([lastTurn - 1])), tok);
  return { chunks, envelopes, lastInput: lastInput! };
}

/** The transcript request holding only the kept artifact blocks and history turns. */
function renderKept(c: ChunkSet, keptArtifacts: ReadonlySet<string>, keptHistory: ReadonlySet<number>): ChatMessage[] {
  const msgs: ChatMessage[] = [{ role: 'system', content: [{ type: 'text', text: c.system }] }];
  for (const t of c.turns) {
    const isCurrent = t.reply === undefined;
    const history = isCurrent || keptHistory.has(t.turn);
    let text = '';
    for (const p of t.pieces) if (p.artifact ? keptArtifacts.has(p.artifact) : history) text += p.text;
    if (text) msgs.push({ role: 'user', content: [{ type: 'text', text }] });
    if (!isCurrent && history) msgs.push({ role: 'assistant', content: [{ type: 'text', text: t.reply! }] });
  }
  return msgs;
}

function dangling(c: ChunkSet, keptArtifacts: ReadonlySet<string>, keptHistory: ReadonlySet<number>): number {
  let n = 0;
  for (const t of c.turns) {
    if (t.reply !== undefined && !keptHistory.has(t.turn)) continue;
    for (const p of t.pieces) if (p.ref && !keptArtifacts.has(p.ref)) n++;
  }
  return n;
}

// ---------------------------------------------------------------------------------------------
// prompt-tsx

const MAX = Number.MAX_SAFE_INTEGER;

function el<P>(
  ctor: PromptElementCtor<P & BasePromptElementProps, unknown>,
  props: P & BasePromptElementProps,
  ...children: PromptPieceChild[]
): PromptPiece {
  return { ctor, props, children };
}

/** prompt-tsx priority (higher = kept longer) for a Strata priority (lower = more important). */
function ptsxPriority(strataPriority: number, turn: number, position: number): number {
  return (10 - strataPriority) * 100_000 + turn * 100 + position;
}

interface ChunkProps extends BasePromptElementProps {
  chunks: ChunkSet;
}

class StrataChunksPrompt extends PromptElement<ChunkProps> {
  render(): PromptPiece {
    const c = this.props.chunks;
    const messages: PromptPiece[] = [el(SystemMessage, {}, el(TextChunk, { priority: MAX }, c.system))];
    for (const t of c.turns) {
      const isCurrent = t.reply === undefined;
      const historyPriority = isCurrent || t.turn === c.lastTurn - 1 ? MAX : ptsxPriority(5, t.turn, 99);
      const parts = t.pieces.map((p) => {
        const a = p.artifact ? c.artifacts.get(p.artifact)! : undefined;
        const priority = a ? (a.priority === 0 ? MAX : ptsxPriority(a.priority, a.turn, a.seq % 99)) : historyPriority;
        return el(TextChunk, { priority }, p.text);
      });
      messages.push(el(UserMessage, {}, ...parts));
      if (!isCurrent) messages.push(el(AssistantMessage, {}, el(TextChunk, { priority: historyPriority }, t.reply!)));
    }
    return { ctor: Fragment, props: {}, children: messages };
  }
}

/** What `<>…</>` compiles to: the renderer flattens its children in place and never calls it. */
const Fragment = Object.assign(
  function Fragment(): never {
    throw new Error('a fragment is flattened by the renderer, never rendered');
  },
  { isFragment: true },
) as unknown as PromptElementCtor<BasePromptElementProps, unknown>;

const ROLES: Record<number, Role> = { [Raw.ChatRole.System]: 'system', [Raw.ChatRole.User]: 'user', [Raw.ChatRole.Assistant]: 'assistant' };

/** prompt-tsx tokenizer over ours, with the replay's framing: `<|role|>\n` + text + `\n`. */
export function ptsxTokenizer(tok: Tokenizer): PtsxTokenizer<OutputMode.Raw> {
  const text = (part: Raw.ChatCompletionContentPart): string => (part.type === Raw.ChatCompletionContentPartKind.Text ? part.text : '');
  return {
    mode: OutputMode.Raw,
    tokenLength: (part) => tok.count(text(part)),
    countMessageTokens: (m) => framing(tok, ROLES[m.role] ?? 'user') + m.content.reduce((n, p) => n + tok.count(text(p)), 0),
  };
}

function fromRaw(messages: readonly Raw.ChatMessage[]): ChatMessage[] {
  return messages.map((m) => ({
    role: ROLES[m.role] ?? 'user',
    content: [{ type: 'text', text: m.content.map((p) => (p.type === Raw.ChatCompletionContentPartKind.Text ? p.text : '')).join('') }],
  }));
}

async function runPromptTsx(c: ChunkSet, budget: number, tok: Tokenizer, runs: number): Promise<MethodResult> {
  const times: number[] = [];
  let out: Raw.ChatMessage[] = [];
  for (let r = 0; r < runs; r++) {
    const renderer = new PromptRenderer({ modelMaxPromptTokens: budget }, StrataChunksPrompt, { chunks: c }, ptsxTokenizer(tok));
    const t0 = performance.now();
    const res = await renderer.render();
    times.push(performance.now() - t0);
    out = res.messages;
  }
  const messages = fromRaw(out);
  const all = messages.map(textOf).join('\u0000');
  const keptArtifacts = new Set([...c.artifacts.values()].filter((a) => all.includes(a.text)).map((a) => a.key));
  const keptHistory = new Set<number>();
  for (const t of c.turns) {
    if (t.reply === undefined) continue;
    const userText = t.pieces.filter((p) => !p.artifact).map((p) => p.text);
    if (all.includes(t.reply) && userText.every((s) => all.includes(s))) keptHistory.add(t.turn);
  }
  return result('prompt-tsx', c, budget, requestTokenCount(messages, tok), keptArtifacts, keptHistory, stats(times).median);
}

// ---------------------------------------------------------------------------------------------
// Strata

function result(
  method: string,
  c: ChunkSet,
  budget: number,
  used: number,
  keptArtifacts: ReadonlySet<string>,
  keptHistory: ReadonlySet<number>,
  ms: number,
  extra: Partial<MethodResult> = {},
): MethodResult {
  return {
    method,
    budget,
    usedTokens: used,
    usedRatio: round(used / budget),
    fits: used <= budget,
    artifactsFull: keptArtifacts.size,
    artifactsCompacted: 0,
    artifactsTotal: c.artifacts.size,
    historyVerbatim: keptHistory.size,
    historySummarized: 0,
    historyTotal: c.historyTokens.size,
    danglingRefs: dangling(c, keptArtifacts, keptHistory),
    ms: round(ms),
    ...extra,
  };
}

function runOptimizeForLimit(c: ChunkSet, budget: number, tok: Tokenizer, runs: number): MethodResult {
  const times: number[] = [];
  let kept: string[] = [];
  let byKey = new Map<string, { artifact?: string; history?: number }>();
  for (let r = 0; r < runs; r++) {
    const state = emptyState();
    const tokens = new Map<string, number>();
    byKey = new Map();
    const am = new AttachmentManager(state, { sha256Hex }, (e) => tokens.get(e.key) ?? 0);
    for (const t of c.turns) {
      for (const p of t.pieces) {
        if (!p.artifact) continue;
        const a = c.artifacts.get(p.artifact)!;
        const e = am.addVersion(a.input, a.turn, a.input.id);
        tokens.set(e.key, a.tokens);
        byKey.set(e.key, { artifact: a.key });
        if (a.priority === 0) am.pin(e.key);
      }
      if (t.reply === undefined) continue;
      const text =
        t.pieces
          .filter((p) => !p.artifact)
          .map((p) => p.text)
          .join('') + t.reply;
      const e = am.addVersion({ kind: 'text', uri: `history/turn-${t.turn}`, content: text }, t.turn, `history:${t.turn}`);
      tokens.set(e.key, c.historyTokens.get(t.turn)!);
      byKey.set(e.key, { history: t.turn });
      if (t.turn === c.lastTurn - 1) am.pin(e.key);
    }
    const lastHistory = c.historyTokens.get(c.lastTurn - 1) ?? 0;
    const limit = budget - (c.essentialTokens - lastHistory);
    const t0 = performance.now();
    const r1 = am.optimizeForLimit(limit, c.lastTurn);
    times.push(performance.now() - t0);
    kept = r1.kept;
  }
  const keptArtifacts = new Set<string>();
  const keptHistory = new Set<number>();
  for (const k of kept) {
    const m = byKey.get(k)!;
    if (m.artifact) keptArtifacts.add(m.artifact);
    if (m.history !== undefined) keptHistory.add(m.history);
  }
  const used = requestTokenCount(renderKept(c, keptArtifacts, keptHistory), tok);
  return result('optimizeForLimit', c, budget, used, keptArtifacts, keptHistory, stats(times).median);
}

/** Limits whose budget is exactly `budget` (or the largest one below it). */
export function limitsForBudget(budget: number): ModelLimits {
  let w = budget;
  while (computeBudget({ contextWindow: w + 1, maxOutputTokens: 0 }) <= budget) w++;
  return { contextWindow: w, maxOutputTokens: 0 };
}

function runEngine(
  method: string,
  traj: Trajectory,
  c: ChunkSet,
  budget: number,
  thresholds: Thresholds,
  tok: Tokenizer,
  runs: number,
): MethodResult {
  // Turns 1..n-1 as in the trajectory; the last turn rebuilt under the budget.
  let input: TurnInput | undefined;
  const { engine } = driveEngine(traj, {
    layout: 'transcript',
    policy: 'append-version',
    tokenizer: tok,
    commitLast: false,
    onInput: (_t, i) => (input = i),
  });
  engine.updateOptions({ limits: limitsForBudget(budget), thresholds });
  const times: number[] = [];
  let env: TurnEnvelope | undefined;
  for (let r = 0; r < runs; r++) {
    const t0 = performance.now();
    env = engine.buildTurn(input!);
    times.push(performance.now() - t0);
  }
  const e = env!;
  const segs = e.layers.flatMap((l) => l.segments);
  const full = new Set(segs.filter((g) => g.kind === 'artifact' && g.artifactKey).map((g) => g.artifactKey!));
  const compacted = new Set(segs.filter((g) => g.kind === 'compacted' && g.artifactKey).map((g) => g.artifactKey!));
  const verbatim = new Set(segs.filter((g) => g.kind === 'reply' && g.turn !== undefined).map((g) => g.turn!));
  const summaryText = segs.find((g) => g.kind === 'summary')?.text;
  const summarized = summaryText ? Number(/turns="1-(\d+)"/.exec(summaryText)?.[1] ?? 0) : 0;
  const refs = segs.filter((g) => g.kind === 'reference' && g.artifactKey);
  const used = e.blocked ? 0 : requestTokenCount(e.messages, tok);
  return {
    ...result(method, c, budget, used, full, verbatim, stats(times).median),
    artifactsCompacted: compacted.size,
    historySummarized: summarized,
    danglingRefs: refs.filter((g) => !full.has(g.artifactKey!) && !compacted.has(g.artifactKey!)).length,
  };
}

export const COMPARE_FRACTIONS = [0.25, 0.5, 0.75] as const;

export async function comparePromptTsx(
  traj: Trajectory,
  runs: number,
  fractions: readonly number[] = COMPARE_FRACTIONS,
): Promise<PromptTsxComparison> {
  const tok = getTokenizer(traj.model.encoding);
  const { chunks } = extractChunks(traj, tok);
  const rows: MethodResult[] = [];
  const fill: Thresholds = { warnPercent: 100, compactPercent: 100, targetPercent: 99 };
  for (const f of fractions) {
    const budget = Math.floor(chunks.totalTokens * f);
    rows.push(await runPromptTsx(chunks, budget, tok, runs));
    rows.push(runOptimizeForLimit(chunks, budget, tok, runs));
    rows.push(runEngine('engine 80→60%', traj, chunks, budget, DEFAULT_THRESHOLDS, tok, runs));
    rows.push(runEngine('engine →99%', traj, chunks, budget, fill, tok, runs));
  }
  return { trajectory: traj.name, totalTokens: chunks.totalTokens, essentialTokens: chunks.essentialTokens, runs, rows };
}

export function defaultCompareTrajectory(): string {
  return path.resolve(__dirname, '../../test/fixtures/trajectories/long-session-20.json');
}
