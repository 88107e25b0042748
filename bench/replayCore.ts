/**
 * Runs a trajectory turn by turn through the turn pipeline (src/services/turnPipeline.ts),
 * the same code the extension runs: apply the turn's edits to the virtual workspace, then resolve and
 * isolate attachments, recheck and re-read recoverable files, build, check, stream the reply and
 * commit. The reply comes from a scripted provider that streams the trajectory's `reply`; the
 * `--provider` mode passes a real provider instead and records the scripted reply (`replayAsync`).
 */
import type { ChangedFilesPolicy, IHasher, ITokenizer, Layout, PruneReport } from '../src/engine/types';
import { PromptContextEngine, type AttachmentRef, type TurnEnvelope, type TurnInput } from '../src/engine/engine';
import type { IsolationPolicy, Rejection } from '../src/engine/isolation';
import type { Violation } from '../src/engine/invariants';
import { TurnPipeline, type SendOptions, type TurnOutcome } from '../src/services/turnPipeline';
import type { TurnAttachment, TurnRequest } from '../src/services/turn/turnRequest';
import { ScriptedProvider } from '../src/services/providers/scripted';
import type { ChatProvider } from '../src/services/providers/types';
import type { AttachmentSpec } from '../src/services/workspacePort';
import { CODE_TOOL_NAMES, toolDefinitionsFor } from '../src/services/tools/definitions';
import { DEFAULT_TOOL_LIMITS, ToolExecutor } from '../src/services/tools/executor';
import { attachmentLabel, VirtualWorkspace, type Trajectory, type TrajectoryAttachment, type TrajectoryTurn } from './trajectory';
import { CodeIntelWorkspace } from './codeIntelWorkspace';
import { isThenable } from '../src/common/steps';
import { DEFAULT_IMPORT_BUDGET, DEFAULT_IMPORT_DEPTH, filesWithImports } from '../src/services/codeIntel/importGraph';
import { DEFAULT_DEFINITIONS_BUDGET, definitionsForSelection } from '../src/services/codeIntel/selectionDefinitions';
import { definitionAttachments, importAttachments } from '../src/services/codeIntel/contextAttachments';
import { NODE_HASHER } from '../src/services/nodeHasher';

/** The id the replay gives the k-th (1-based) tool call of a turn; the tools-plain baseline uses the same. */
export function replayToolCallId(turn: number, k: number): string {
  return `call_${turn}_${k}`;
}

/** The trajectory scripts tool calls: the replay offers the workspace tools. */
export function usesTools(traj: Trajectory): boolean {
  return traj.turns.some((t) => (t.tools?.length ?? 0) > 0);
}

/**
 * The trajectory uses code intelligence (a code tool, or an `attach` with imports or definitions):
 * its workspace answers code-intelligence calls and the code tools are offered with the others.
 */
export function usesCodeIntel(traj: Trajectory): boolean {
  const codeTools: readonly string[] = CODE_TOOL_NAMES;
  return traj.turns.some(
    (t) => (t.tools ?? []).some((c) => codeTools.includes(c.name)) || (t.attach ?? []).some((a) => a.withImports || a.withDefinitions),
  );
}

/** The answer of a code-intelligence walk over the in-memory workspace, which answers synchronously. */
function now<T>(v: T | Promise<T>): T {
  if (isThenable(v)) throw new Error('the in-memory workspace answered a code-intelligence call with a promise');
  return v;
}

/** The extension's defaults (strata.tools.maxSteps, strata.tools.maxTurnTokens). */
export const REPLAY_TOOL_STEPS = 8;
export const REPLAY_TOOL_TURN_TOKENS = 60_000;

export interface ReplayOptions {
  layout: Layout;
  policy: ChangedFilesPolicy;
  tokenizer: ITokenizer;
  /** Called after turn N is committed; may return a fresh engine (reload through the chat store). */
  afterTurn?: (turn: number, engine: PromptContextEngine) => PromptContextEngine | void;
  /**
   * Which recoverable files the workspace reports as fresh before a turn: the ones whose content
   * changed since it last reported them (default, as the extension's watcher does), or all of them.
   * The requests are the same either way; `all` only makes the engine compare more.
   */
  fresh?: 'all' | 'changed';
  /** The engine's hashing port (default: Node's native sha256, as the extension). */
  hasher?: IHasher;
  /** Run the invariants checker on every envelope (default true). */
  check?: boolean;
  /** Called with the engine before each turn is built (the benchmark changes limits for a last turn). */
  beforeTurn?: (turn: number, engine: PromptContextEngine) => void;
  /** Build the last turn without committing it (a preview: nothing streamed, the turn is abandoned). */
  previewLast?: boolean;
}

export interface ReplayTurn {
  turn: number;
  envelope: TurnEnvelope;
  rejections: Rejection[];
  pruned: PruneReport[];
  violations: Violation[];
  /** `buildTurn` alone, ms. */
  buildMs: number;
  /** The engine input the pipeline assembled. */
  input: TurnInput;
  outcome: TurnOutcome;
  /** The turn's earlier requests when it called tools (`envelope` is the last one). */
  requests: TurnEnvelope[];
}

export function engineFor(traj: Trajectory, opts: Pick<ReplayOptions, 'layout' | 'policy' | 'tokenizer' | 'hasher'>): PromptContextEngine {
  return new PromptContextEngine({
    hasher: opts.hasher ?? NODE_HASHER,
    conversationId: traj.name,
    layout: opts.layout,
    policy: opts.policy,
    tokenizer: opts.tokenizer,
    system: traj.system,
    limits: { contextWindow: traj.model.contextWindow, maxOutputTokens: traj.model.maxOutputTokens },
    ...(usesTools(traj) ? { tools: true } : {}),
  });
}

/** A trajectory attachment as the workspace port's spec. */
export function specOf(a: TrajectoryAttachment): AttachmentSpec {
  return a.selection
    ? { kind: 'selection', path: a.selection.file, startLine: a.selection.startLine, endLine: a.selection.endLine }
    : { kind: 'file', path: a.file! };
}

function toRef(a: TrajectoryAttachment, isolation: IsolationPolicy): AttachmentRef | undefined {
  const p = a.selection ? a.selection.file : a.file!;
  const checked = isolation.checkPath(p);
  if (!checked.ok) return undefined;
  return a.selection
    ? { kind: 'selection', uri: checked.path, range: { startLine: a.selection.startLine, endLine: a.selection.endLine } }
    : { kind: 'file', uri: checked.path };
}

/** The pipeline request of `traj.turns[i]`: its text, attachments, and pin / unpin / detach names. */
export function turnRequest(traj: Trajectory, i: number, isolation: IsolationPolicy): TurnRequest {
  const t = traj.turns[i];
  const rejections: Rejection[] = [];
  const refs = (list: TrajectoryAttachment[] | undefined): AttachmentRef[] => {
    const out: AttachmentRef[] = [];
    for (const a of list ?? []) {
      const ref = toRef(a, isolation);
      if (ref) out.push(ref);
      else
        rejections.push({
          attachment: attachmentLabel(a),
          reason: 'not-found',
          message: `${attachmentLabel(a)} is not attached in this chat.`,
        });
    }
    return out;
  };
  const pin = refs(t.pin);
  const unpin = refs(t.unpin);
  const detach = refs(t.detach);
  return { userText: t.user, attachments: (t.attach ?? []).map(specOf), pin, unpin, detach, rejections };
}

/** One replay: the virtual workspace, the pipeline over it, and the scripted provider. */
export class ReplayRun {
  readonly ws: VirtualWorkspace;
  readonly pipeline: TurnPipeline;
  private reply = '';
  readonly scripted = new ScriptedProvider(() => this.reply);

  private readonly tools: ToolExecutor | undefined;

  constructor(
    readonly traj: Trajectory,
    readonly opts: ReplayOptions,
  ) {
    const wsOptions = { fresh: opts.fresh ?? 'changed' } as const;
    this.ws = usesCodeIntel(traj) ? new CodeIntelWorkspace(traj.files, wsOptions) : new VirtualWorkspace(traj.files, wsOptions);
    this.pipeline = new TurnPipeline({ engine: engineFor(traj, opts), port: this.ws, check: opts.check ?? true });
    if (usesTools(traj)) this.tools = new ToolExecutor(this.ws, opts.tokenizer, DEFAULT_TOOL_LIMITS);
  }

  get engine(): PromptContextEngine {
    return this.pipeline.engine;
  }

  /** Everything before the pipeline: the turn's edits, and what it asks for. */
  prepare(i: number): { request: TurnRequest; send: SendOptions; preview: boolean } {
    const t = this.traj.turns[i];
    this.ws.applyEdits(t.edits);
    this.ws.applyEditor(t);
    this.reply = t.reply;
    this.opts.beforeTurn?.(i + 1, this.pipeline.engine);
    const send: SendOptions = { model: this.traj.model.id, maxOutputTokens: this.traj.model.maxOutputTokens };
    if (this.tools) {
      // The scripted model calls the turn's tools one per step, then answers with the reply.
      const calls = t.tools ?? [];
      this.scripted.push(
        ...calls.map((c, k) => ({ text: '', toolCalls: [{ id: replayToolCallId(i + 1, k + 1), name: c.name, args: c.args }] })),
      );
      send.tools = {
        definitions: toolDefinitionsFor(this.ws),
        executor: this.tools,
        maxSteps: Math.max(REPLAY_TOOL_STEPS, calls.length),
        maxTurnTokens: REPLAY_TOOL_TURN_TOKENS,
      };
    }
    const request = turnRequest(this.traj, i, this.ws.isolation);
    this.expandCodeIntel(t, request);
    return {
      request,
      send,
      preview: !!this.opts.previewLast && i === this.traj.turns.length - 1,
    };
  }

  /**
   * The `attach` forms with code intelligence, expanded as the editor's commands expand them (the
   * same functions): a file with its imports, a selection with its definitions.
   */
  private expandCodeIntel(t: TrajectoryTurn, request: TurnRequest): void {
    const list = t.attach ?? [];
    if (!list.some((a) => a.withImports || a.withDefinitions) || !(this.ws instanceof CodeIntelWorkspace)) return;
    const ws = this.ws;
    const countTokens = (text: string) => this.opts.tokenizer.count(text);
    const plain = list.filter((a) => !a.withImports && !a.withDefinitions).map(specOf);
    const attachments: TurnAttachment[] = [];
    const rejections = [...(request.rejections ?? [])];
    for (const a of list) {
      if (a.withImports) {
        const closure = now(
          filesWithImports(ws, [a.file!], {
            depth: a.depth ?? DEFAULT_IMPORT_DEPTH,
            budgetTokens: a.budget ?? DEFAULT_IMPORT_BUDGET,
            countTokens,
          }),
        );
        attachments.push(...importAttachments(closure, this.pipeline.engine.state, plain));
        rejections.push(...closure.rejections);
      } else if (a.withDefinitions) {
        const sel = a.selection!;
        attachments.push(specOf(a));
        const defs = now(
          definitionsForSelection(
            ws,
            { path: sel.file, startLine: sel.startLine, endLine: sel.endLine },
            { budgetTokens: a.budget ?? DEFAULT_DEFINITIONS_BUDGET, countTokens },
          ),
        );
        // A refused selection is reported once, by the pipeline resolving it.
        if (!defs.selection) continue;
        attachments.push(...definitionAttachments(defs, this.pipeline.engine.state, plain));
        rejections.push(...defs.rejections);
      } else attachments.push(specOf(a));
    }
    // A file reached twice (two closures, or a closure and a chip) is attached once.
    const files = new Set<string>();
    request.attachments = attachments.filter((a) => {
      if (a.kind !== 'file') return true;
      if (files.has(a.path)) return false;
      files.add(a.path);
      return true;
    });
    request.rejections = rejections;
  }

  /** What the caller sees of a turn's outcome; throws on an outcome the replay cannot continue from. */
  result(i: number, outcome: TurnOutcome): ReplayTurn {
    if (!outcome.envelope || !outcome.input || outcome.status === 'error' || outcome.status === 'stopped') {
      const why = outcome.status === 'error' ? `${outcome.error.code}: ${outcome.error.message}` : outcome.status;
      throw new ReplayTurnError(i + 1, why, outcome);
    }
    const env = outcome.envelope;
    return {
      turn: i + 1,
      envelope: env,
      rejections: env.rejections,
      pruned: env.pruned,
      violations: outcome.violations,
      buildMs: outcome.buildMs,
      input: outcome.input,
      outcome,
      requests: outcome.requests,
    };
  }

  /** After a committed turn: the reload hook may swap the engine. */
  after(i: number, outcome: TurnOutcome): void {
    if (outcome.status !== 'done') return;
    const next = this.opts.afterTurn?.(i + 1, this.pipeline.engine);
    if (next) this.pipeline.engine = next;
  }
}

/** A turn the replay could not complete (a provider error in `--provider` mode). */
export class ReplayTurnError extends Error {
  constructor(
    readonly turn: number,
    readonly why: string,
    readonly outcome: TurnOutcome,
  ) {
    super(`turn ${turn}: ${why}`);
    this.name = 'ReplayTurnError';
  }
}

/** The replay, synchronously, with the scripted provider (tests, the CLI, the benchmark). */
export function* replay(traj: Trajectory, opts: ReplayOptions): Generator<ReplayTurn> {
  const run = new ReplayRun(traj, opts);
  for (let i = 0; i < traj.turns.length; i++) {
    const { request, send, preview } = run.prepare(i);
    const outcome = run.pipeline.runSync(request, preview ? undefined : run.scripted, send);
    yield run.result(i, outcome);
    run.after(i, outcome);
  }
}

/**
 * The replay through `provider` (a real endpoint): each turn's request is sent as the pipeline builds
 * it, and the scripted reply is what the chat records.
 */
export async function* replayAsync(
  traj: Trajectory,
  opts: ReplayOptions,
  provider: ChatProvider,
  send: Partial<SendOptions> = {},
): AsyncGenerator<ReplayTurn> {
  const run = new ReplayRun(traj, opts);
  for (let i = 0; i < traj.turns.length; i++) {
    const prepared = run.prepare(i);
    const outcome = await run.pipeline.run(prepared.request, provider, { ...prepared.send, ...send, recordReply: traj.turns[i].reply });
    yield run.result(i, outcome);
    run.after(i, outcome);
  }
}
