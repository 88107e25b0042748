/**
 * One turn, one implementation: resolve this turn's
 * attachments through the workspace port (isolation on each) → isolation again for everything about
 * to be sent → freshness → `buildTurn` (pruning inside) → the provider's stream (a context-length error
 * prunes harder and retries once) → `completeTurn` → the chat store → done. The extension, the replay
 * and the benchmark all run turns through this class; they differ only in the port (editor or
 * memory), the provider (a real one or `ScriptedProvider`) and whether a store is given.
 *
 * The turn is written once, as a generator of steps, and driven two ways: `run` awaits what the port
 * and the provider return (the extension), `runSync` requires them to answer synchronously (the
 * replay and the benchmark, whose public APIs are synchronous). Same steps, same order, same bytes.
 *
 * Outcomes: `done` (committed and persisted before the `done` event), `stopped` (Stop: the text the
 * user saw is committed, persisted and marked stopped; with nothing streamed yet the turn is dropped),
 * `error` (nothing committed or persisted; the provider's error code), `blocked` (the essentials alone
 * exceed the budget: nothing sent), `preview` (no provider: the exact request is returned, nothing
 * committed).
 *
 * Another window saving to the same chat while a reply streams is settled when the turn is saved
 * (see `turn/turnPersistence.ts`): the turn is rebuilt after the other window's turns, or refused as
 * `chat-changed`.
 */
import type {
  PromptContextEngine,
  AttachmentRef,
  ToolStepInput,
  ToolStepOutcome,
  ToolStepResultInput,
  TurnEnvelope,
  TurnInput,
} from '../engine/engine';
import type { NewArtifactInput } from '../engine/artifacts';
import type { Rejection } from '../engine/isolation';
import { checkEnvelope, type Violation } from '../engine/invariants';
import type { ToolCall } from '../engine/types';
import type { WithdrawnReason } from '../engine/turnTypes';
import type { ToolStepView } from '../protocol/messages';
import type { ToolDefinition } from './tools/definitions';
import type { ToolExecutor, ToolResult } from './tools/executor';
import { sha256Hex } from '../common/hash';
import { isThenable, mapBounded, runSteps, runStepsSync, wait, type Step } from '../common/steps';
import type { TurnMeta } from './store/chatStore';
import {
  ProviderError,
  type ChatProvider,
  type ChatRequest,
  type ProviderErrorCode,
  type ProviderUsage,
  type StreamEvent,
} from './providers/types';
import { PORT_CONCURRENCY, type WorkspacePort } from './workspacePort';
import {
  fillStepCachedTokens,
  newToolLoopState,
  STEP_TEXT_SEPARATOR,
  STOPPED_REPLY,
  TOOL_LIMIT_REPLY,
  toStepInput,
  toolStepView,
} from './turn/toolLoopState';
import { buildTurnReport, formatTurnReport, roundMs, type TurnReport, type TurnTimings } from './turn/turnReport';
import {
  completeAndSave,
  type FinishedTurn,
  type PersistTarget,
  type SaveError,
  type SaveResult,
  type SavedTurn,
} from './turn/turnPersistence';
import type { TurnRequest } from './turn/turnRequest';
import { checkExcerpts } from './turn/excerptCheck';
import { detectServerCut } from './turn/serverCut';

export interface SendOptions {
  /** Model id sent to the provider. */
  model: string;
  maxOutputTokens: number;
  /** Default: the engine's conversation id (the chat id; OpenAI's `prompt_cache_key`). */
  conversationId?: string;
  timeoutMs?: number;
  /** Stop. */
  signal?: AbortSignal;
  onEvent?: (event: TurnEvent) => void;
  /**
   * The reply recorded in the chat instead of the streamed one: the replay's scripted reply when a real
   * provider is called, so a trajectory's history is the same whichever provider answers.
   */
  recordReply?: string;
  /** `provider · model`, kept in the turn's metadata. */
  modelLabel?: string;
  /** Workspace tools for this turn; absent: none are offered. */
  tools?: ToolLoopOptions;
  /** The provider's cache had likely expired when the turn was sent (absent: not predicted); the report judges it. */
  cacheExpired?: boolean;
  /**
   * Compare the prompt tokens the server reports with the request's (./turn/serverCut.ts); `estimated`:
   * the model's counts are an estimate, so they may differ more. Absent: no check (a provider's own
   * endpoint refuses a prompt that is too long rather than cutting it).
   */
  cutCheck?: { estimated: boolean };
}

/** The tool loop of a turn. */
export interface ToolLoopOptions {
  /** The tools offered to the model (the same list in every request of a chat). */
  definitions: readonly ToolDefinition[];
  /** Runs them over the turn's workspace port. */
  executor: ToolExecutor;
  /** Tool rounds per turn (`strata.tools.maxSteps`); past it, calls get a note and the next answer ends the turn. */
  maxSteps: number;
  /** Tokens all tool results of the turn may add (`strata.tools.maxTurnTokens`). */
  maxTurnTokens: number;
}

export interface TurnPipelineOptions {
  engine: PromptContextEngine;
  port: WorkspacePort;
  persist?: PersistTarget;
  /** Run the invariants checker on every envelope built (the replay; debug builds). */
  check?: boolean;
  /**
   * Counts new content ahead of the build without blocking (the tokenizer's `warm`); asynchronous,
   * so only for `run`.
   */
  warm?: (text: string, signal?: AbortSignal) => Promise<void>;
  /** One line per turn (layer hashes, prefix, cache, timings; never keys or file content). */
  log?: (line: string) => void;
}

export interface TurnError {
  /** `chat-changed`: another window changed the chat in a way this turn cannot be saved on top of. */
  code: ProviderErrorCode | SaveError['code'] | 'internal';
  message: string;
  retryAfterMs?: number;
}

interface OutcomeBase {
  /** The last envelope built (absent only when the turn failed before building). */
  envelope?: TurnEnvelope;
  /** The engine input it was built from. */
  input?: TurnInput;
  /** `buildTurn` alone, ms (the last build when it was rebuilt to prune harder). */
  buildMs: number;
  /** The turn's earlier requests when it called tools, in order (the last one is `envelope`). */
  requests: TurnEnvelope[];
  /** The tool calls of the turn, as the panel shows them. */
  toolSteps: ToolStepView[];
  violations: Violation[];
  rejections: Rejection[];
  report: TurnReport;
}

/** How a turn ended, and what only that ending has. */
export type TurnResult =
  | { status: 'done'; reply: string; usage?: ProviderUsage; meta?: TurnMeta; saved?: SavedTurn }
  | { status: 'stopped'; kept: boolean; reply: string; usage?: ProviderUsage; meta?: TurnMeta; saved?: SavedTurn }
  | { status: 'error'; error: TurnError }
  | { status: 'blocked'; message: string }
  | { status: 'preview' };

export type TurnOutcome = OutcomeBase & TurnResult;

export type TurnEvent =
  | { type: 'built'; envelope: TurnEnvelope; buildMs: number; pruneHarder: boolean; violations: Violation[] }
  | { type: 'text'; text: string; seq: number }
  /** The model called a tool (`args` once the call is complete and about to run). */
  | { type: 'toolCall'; step: number; id: string; name: string; args?: Record<string, unknown> }
  /** A tool call's result went into the request (a new `built` envelope follows). */
  | { type: 'toolResult'; step: number; view: ToolStepView; outcome: ToolStepOutcome }
  | { type: 'usage'; usage: ProviderUsage }
  | { type: 'persisted'; turn: number; bytes: number }
  | { type: 'done'; outcome: TurnOutcome }
  | { type: 'stopped'; outcome: TurnOutcome }
  | { type: 'error'; outcome: TurnOutcome }
  | { type: 'blocked'; outcome: TurnOutcome }
  | { type: 'preview'; outcome: TurnOutcome };

/** After a provider's context-length error (its count exceeded ours), cut to this percent of the budget and retry once. */
export const PRUNE_HARDER_PERCENT = 50;

const now = (): number => performance.now();

function labelOf(input: NewArtifactInput): string {
  return input.range ? `${input.uri}#L${input.range.startLine}-L${input.range.endLine}` : input.uri;
}

export class TurnPipeline {
  /** The active chat's engine (replaced by the caller on a reload, or here when a save fails). */
  engine: PromptContextEngine;
  readonly port: WorkspacePort;
  persist: PersistTarget | undefined;
  private readonly options: TurnPipelineOptions;

  constructor(options: TurnPipelineOptions) {
    this.engine = options.engine;
    this.port = options.port;
    this.persist = options.persist;
    this.options = options;
  }

  /** Runs one turn, awaiting the port and the provider. Never throws: failures are `error` outcomes. */
  async run(request: TurnRequest, provider: ChatProvider | undefined, send: SendOptions): Promise<TurnOutcome> {
    return runSteps(this.turnSteps(request, provider, send, true));
  }

  /**
   * Runs one turn synchronously: the port and the provider must answer without promises
   * (`MemoryWorkspace`, `ScriptedProvider`). The replay and the benchmark use it.
   */
  runSync(request: TurnRequest, provider: ChatProvider | undefined, send: SendOptions): TurnOutcome {
    return runStepsSync(
      this.turnSteps(request, provider, send, false),
      'TurnPipeline.runSync: the workspace port or the provider answered with a promise; use run()',
    );
  }

  private *turnSteps(request: TurnRequest, provider: ChatProvider | undefined, send: SendOptions, async: boolean): Step<TurnOutcome> {
    return yield* new TurnRun(this, this.options, request, provider, send, async).steps();
  }

  /** @internal Builds the request (pruning inside), checks it when asked, and says so. */
  build(
    engine: PromptContextEngine,
    input: TurnInput,
    pruneHarder: boolean,
    state: { buildMs: number; violations: Violation[] },
    emit: (e: TurnEvent) => void,
  ): TurnEnvelope {
    const t0 = now();
    const envelope = engine.buildTurn(input);
    state.buildMs = now() - t0;
    state.violations = this.options.check
      ? checkEnvelope(envelope, envelope.budget, { hasher: { sha256Hex }, ...engine.checkContext(), blocked: !!envelope.blocked })
      : [];
    emit({ type: 'built', envelope, buildMs: state.buildMs, pruneHarder, violations: state.violations });
    return envelope;
  }

  /** @internal Completes and saves the turn; the chat's engine follows when the save gave the state back or rebuilt it. */
  save(turn: FinishedTurn): SaveResult {
    const saved = completeAndSave(turn, this.persist, this.options.log);
    if (saved.engine) this.engine = saved.engine;
    return saved;
  }
}

/** A tool loop the turn runs: the tools are offered and the provider can call them. */
type ActiveLoop = ToolLoopOptions;

/** One model call: its tool calls, or the error it ended with. */
type ModelCall = { ok: true; calls: ToolCall[] } | { ok: false; error: ProviderError };

/**
 * One turn being run: what it was asked, what it has built and streamed so far, and the steps that
 * run it, in order: resolve → check the library → warm → build → converse (model calls and tool
 * rounds) → complete. Every ending goes through `finish`, typed per outcome.
 */
class TurnRun {
  private readonly t0 = now();
  /** The chat's engine when the turn started (a save may give the pipeline another). */
  private readonly engine: PromptContextEngine;
  private readonly state: TurnTimings & { violations: Violation[] } = {
    buildMs: 0,
    violations: [],
    prunedHarder: false,
    firstTokenMs: undefined,
    usage: undefined,
  };
  private envelope: TurnEnvelope | undefined;
  private input: TurnInput | undefined;
  private readonly rejections: Rejection[] = [];
  private readonly tools = newToolLoopState();
  /** The text of the current model call, as shown. */
  private streamed = '';
  private seq = 0;
  /** The current model call's complete text (undefined until it completes). */
  private doneText: string | undefined;
  private toolRounds = 0;
  private toolTokens = 0;

  constructor(
    private readonly pipeline: TurnPipeline,
    private readonly options: TurnPipelineOptions,
    private readonly request: TurnRequest,
    private readonly provider: ChatProvider | undefined,
    private readonly send: SendOptions,
    private readonly async: boolean,
  ) {
    this.engine = pipeline.engine;
  }

  *steps(): Step<TurnOutcome> {
    try {
      const attachments = yield* this.resolveAttachments();
      const { detach, fresh } = yield* this.checkLibrary();
      // The same check for excerpts of workspace files (selections, ranged reads, search lines).
      const excerpts = yield* checkExcerpts(this.pipeline.port, this.engine.excerptSources());
      this.rejections.push(...excerpts.rejections);
      detach.push(...excerpts.detach);
      attachments.push(...excerpts.replacements);
      yield* this.warm(attachments, fresh);
      const input = (this.input = this.newInput(attachments, fresh, detach));
      const envelope = this.build(input, false);
      if (envelope.blocked) return this.blocked(envelope.blocked.message);
      if (!this.provider) {
        this.engine.abandonTurn();
        return this.finish({ status: 'preview' });
      }
      return yield* this.converse(this.provider);
    } catch (e) {
      const aborted = (e as Error)?.name === 'AbortError' || this.send.signal?.aborted;
      if (aborted) {
        this.engine.abandonTurn();
        return this.finish({ status: 'stopped', kept: false, reply: '' });
      }
      return this.fail({ code: 'internal', message: `The turn failed: ${(e as Error)?.message ?? String(e)}` });
    }
  }

  private emit(event: TurnEvent): void {
    try {
      this.send.onEvent?.(event);
    } catch (e) {
      this.options.log?.(`turn event handler failed: ${(e as Error).message}`);
    }
  }

  /** Every ending: the report, the outcome and its event. */
  private finish(result: TurnResult, errorCode?: string): TurnOutcome {
    const { state, tools, envelope } = this;
    const report = buildTurnReport(
      this.pipeline.engine,
      envelope,
      result.status,
      state,
      now() - this.t0,
      errorCode,
      this.provider?.kind,
      tools,
    );
    if (this.send.cacheExpired !== undefined) report.cacheExpired = this.send.cacheExpired;
    const outcome: TurnOutcome = {
      ...result,
      envelope,
      input: this.input,
      buildMs: state.buildMs,
      violations: state.violations,
      rejections: envelope?.rejections ?? this.rejections,
      report,
      requests: tools.requests,
      toolSteps: tools.views,
    };
    this.options.log?.(formatTurnReport(report));
    this.emit({ type: outcome.status, outcome });
    return outcome;
  }

  private fail(error: TurnError): TurnOutcome {
    this.engine.abandonTurn();
    return this.finish({ status: 'error', error }, error.code);
  }

  private blocked(message: string): TurnOutcome {
    this.engine.abandonTurn();
    return this.finish({ status: 'blocked', message }, 'blocked');
  }

  /** 1. This turn's attachments: specs are resolved (isolated and read) now; snapshots are rechecked. */
  private *resolveAttachments(): Step<NewArtifactInput[]> {
    const port = this.pipeline.port;
    const attachments: NewArtifactInput[] = [];
    for (const a of this.request.attachments ?? []) {
      if (a.kind === 'snapshot') {
        const bad = yield* wait(port.recheck(a.input.uri, a.label ?? labelOf(a.input)));
        if (bad) this.rejections.push(bad);
        else attachments.push(a.input);
        continue;
      }
      const r = yield* wait(port.resolve(a));
      if (r.ok) attachments.push(r.input);
      else this.rejections.push(r.rejection);
    }
    return attachments;
  }

  /**
   * 2. Isolation again for the recoverable files already in the chat: one that now fails (a symlink
   * out, newly excluded, too large) is detached, reported, and not re-read. 3. Freshness. A port that
   * can do both in one pass (the editor's) does; otherwise the re-check, then the re-read of the files
   * that passed it.
   */
  private *checkLibrary(): Step<{ detach: AttachmentRef[]; fresh: Map<string, string | null> }> {
    const port = this.pipeline.port;
    const detach: AttachmentRef[] = [...(this.request.detach ?? [])];
    const refuse = (bad: Rejection, uri: string) => {
      this.rejections.push(bad);
      if (detach.some((d) => d.kind === 'file' && d.uri === uri)) return;
      const privacy = bad.reason === 'excluded' || bad.reason === 'outside-workspace';
      detach.push(privacy ? { kind: 'file', uri, withdrawn: bad.reason as WithdrawnReason } : { kind: 'file', uri });
    };
    const recoverable = this.engine.recoverableSources();
    if (port.refresh && recoverable.length > 0) {
      const r = yield* wait(port.refresh(recoverable));
      for (const src of recoverable) {
        const bad = r.rejections.get(src.id);
        if (bad) refuse(bad, src.uri);
      }
      return { detach, fresh: r.fresh };
    }
    // A long chat holds hundreds of files: checked a few at a time, not one after the other.
    const sources = [];
    const checks = yield* wait(mapBounded(recoverable, PORT_CONCURRENCY, (src) => port.recheck(src.uri, src.uri)));
    for (const [k, src] of recoverable.entries()) {
      const bad = checks[k];
      if (bad) refuse(bad, src.uri);
      else sources.push(src);
    }
    const fresh = sources.length > 0 ? yield* wait(port.readFresh(sources)) : new Map<string, string | null>();
    return { detach, fresh };
  }

  /** Counts big new content ahead of the synchronous build, yielding to the event loop. */
  private *warm(attachments: NewArtifactInput[], fresh: Map<string, string | null>): Step<void> {
    const warm = this.options.warm;
    if (!this.async || !warm) return;
    for (const a of attachments) yield* wait(warm(a.content, this.send.signal));
    for (const v of fresh.values()) if (v !== null) yield* wait(warm(v, this.send.signal));
  }

  private newInput(attachments: NewArtifactInput[], fresh: Map<string, string | null>, detach: AttachmentRef[]): TurnInput {
    const request = this.request;
    const input: TurnInput = {
      userText: request.userText,
      attachments,
      fresh,
      pin: [...(request.pin ?? [])],
      unpin: [...(request.unpin ?? [])],
      detach,
      rejections: [...this.rejections, ...(request.rejections ?? [])],
    };
    if (request.targetPercentOverride !== undefined) input.targetPercentOverride = request.targetPercentOverride;
    return input;
  }

  /** 4. Build (pruning inside); the request becomes the turn's. */
  private build(input: TurnInput, pruneHarder: boolean): TurnEnvelope {
    this.envelope = this.pipeline.build(this.engine, input, pruneHarder, this.state, (e) => this.emit(e));
    return this.envelope;
  }

  /**
   * 5. The provider (prune harder once after a context-length error, always before any output), and
   * the tool loop: while the model calls tools, run them and send the request again with the calls
   * and results appended — every request a pure append of the one before.
   */
  private *converse(provider: ChatProvider): Step<TurnOutcome> {
    const send = this.send;
    const loop: ActiveLoop | undefined =
      send.tools && send.tools.definitions.length > 0 && provider.supportsTools !== false ? send.tools : undefined;
    const maxSteps = loop ? Math.max(1, loop.maxSteps) : 0;
    for (;;) {
      const call = yield* this.callModel(provider, loop);
      if (!call.ok) {
        const pe = call.error;
        if (pe.code === 'aborted' || send.signal?.aborted) return this.stopped(this.streamed);
        if (pe.code === 'context-length' && this.streamed.length === 0 && !this.state.prunedHarder && this.tools.requests.length === 0) {
          this.state.prunedHarder = true;
          const input = this.input!;
          const harder: TurnInput = {
            ...input,
            targetPercentOverride: Math.min(PRUNE_HARDER_PERCENT, input.targetPercentOverride ?? PRUNE_HARDER_PERCENT),
          };
          const envelope = this.build(harder, true);
          this.input = harder;
          if (envelope.blocked) return this.blocked(envelope.blocked.message);
          continue;
        }
        return this.fail({
          code: pe.code,
          message: pe.message,
          ...(pe.retryAfterMs !== undefined ? { retryAfterMs: pe.retryAfterMs } : {}),
        });
      }
      if (!loop || call.calls.length === 0) break;
      // Past the step limit the calls are answered with a note, and the next answer ends the turn.
      if (this.toolRounds > maxSteps) break;
      const stop = yield* this.toolRound(loop, maxSteps, call.calls);
      if (stop) return stop;
    }
    return this.complete(provider);
  }

  /** One request to the model, its stream shown as it comes. */
  private *callModel(provider: ChatProvider, loop: ActiveLoop | undefined): Step<ModelCall> {
    const { send, state, tools } = this;
    const envelope = this.envelope!;
    const req: ChatRequest = {
      messages: envelope.messages,
      model: send.model,
      conversationId: send.conversationId ?? this.engine.options.conversationId,
      maxOutputTokens: send.maxOutputTokens,
    };
    if (loop) req.tools = loop.definitions;
    if (send.signal) req.signal = send.signal;
    if (send.timeoutMs !== undefined) req.timeoutMs = send.timeoutMs;
    const tSend = now();
    let calls: ToolCall[] = [];
    this.streamed = '';
    state.usage = undefined;
    try {
      const stream = provider.stream(req);
      const sync = (stream as Partial<Iterable<StreamEvent>>)[Symbol.iterator];
      const it: Iterator<StreamEvent> | AsyncIterator<StreamEvent> =
        typeof sync === 'function' ? sync.call(stream) : stream[Symbol.asyncIterator]();
      let completed = false;
      try {
        for (;;) {
          const r = (yield* wait(it.next())) as IteratorResult<StreamEvent>;
          if (r.done) break;
          const ev = r.value;
          if (ev.type === 'text') {
            if (ev.text.length === 0) continue;
            state.firstTokenMs ??= now() - tSend;
            // Text of an earlier step and this one's are shown as separate paragraphs.
            if (this.streamed.length === 0 && tools.shownText) this.emit({ type: 'text', text: STEP_TEXT_SEPARATOR, seq: this.seq++ });
            this.streamed += ev.text;
            tools.shownText = true;
            this.emit({ type: 'text', text: ev.text, seq: this.seq++ });
          } else if (ev.type === 'usage') {
            state.usage = ev.usage;
            this.emit({ type: 'usage', usage: ev.usage });
          } else if (ev.type === 'toolCall') {
            if (loop) this.emit({ type: 'toolCall', step: this.toolRounds + 1, id: ev.id, name: ev.name });
          } else {
            this.doneText = ev.text;
            if (ev.usage) state.usage = ev.usage;
            if (ev.toolCalls && loop) calls = ev.toolCalls;
            completed = true;
            break;
          }
        }
      } finally {
        if (!completed) {
          const closing = it.return?.();
          if (isThenable(closing)) Promise.resolve(closing).catch(() => {});
        }
      }
      if (this.doneText === undefined) throw new ProviderError('bad-response', `${provider.label} ended the reply without completing it.`);
      return { ok: true, calls };
    } catch (e) {
      const error = ProviderError.is(e)
        ? e
        : new ProviderError(send.signal?.aborted ? 'aborted' : 'bad-response', (e as Error)?.message ?? String(e));
      return { ok: false, error };
    }
  }

  /** One round of tool calls: run (or past the limit, answered with a note) and appended to the request. Stop ends the turn. */
  private *toolRound(loop: ActiveLoop, maxSteps: number, calls: ToolCall[]): Step<TurnOutcome | undefined> {
    const { send, state, tools } = this;
    this.toolRounds++;
    const round = this.toolRounds;
    tools.stepUsage.push(state.usage);
    const tStep = now();
    const over = round > maxSteps;
    const inputs: ToolStepResultInput[] = [];
    const results: (ToolResult | undefined)[] = [];
    for (const call of calls) {
      this.emit({ type: 'toolCall', step: round, id: call.id, name: call.name, args: call.args });
      if (over) {
        inputs.push({
          callId: call.id,
          tool: call.name,
          note: `[${call.name} was not run: the limit of ${maxSteps} tool steps in one turn was reached (strata.tools.maxSteps). Answer with what you have.]`,
        });
        results.push(undefined);
        continue;
      }
      const result = yield* loop.executor.execute(call, send.signal);
      if (send.signal?.aborted) return this.stopped(this.streamed);
      inputs.push(toStepInput(result));
      results.push(result);
    }
    const tAppend = now();
    const stepInput: ToolStepInput = { text: this.doneText ?? '', calls, results: inputs };
    const stepLimits = { maxTokens: Math.max(0, loop.maxTurnTokens - this.toolTokens) };
    const appended = this.engine.appendToolStep(stepInput, stepLimits);
    tools.appends.push({ step: stepInput, limits: stepLimits });
    tools.timings.push({ toolsMs: roundMs(tAppend - tStep), appendMs: roundMs(now() - tAppend) });
    tools.requests.push(this.envelope!);
    const envelope = (this.envelope = appended.envelope);
    appended.outcomes.forEach((o, i) => {
      this.toolTokens += o.tokens;
      const view = toolStepView(round, calls[i], results[i], o);
      tools.views.push(view);
      this.emit({ type: 'toolResult', step: round, view, outcome: o });
    });
    state.violations = this.options.check
      ? checkEnvelope(envelope, envelope.budget, { hasher: { sha256Hex }, ...this.engine.checkContext(), blocked: false })
      : [];
    this.emit({ type: 'built', envelope, buildMs: 0, pruneHarder: false, violations: state.violations });
    if (send.signal?.aborted) return this.stopped('');
    return undefined;
  }

  /** 6. Complete, persist, done. */
  private complete(provider: ChatProvider): TurnOutcome {
    const { send, state, tools } = this;
    const envelope = this.envelope!;
    const doneText = this.doneText;
    fillStepCachedTokens(tools, envelope, state.usage, provider.kind);
    const reply =
      send.recordReply ?? (doneText && doneText.length > 0 ? doneText : tools.requests.length > 0 ? TOOL_LIMIT_REPLY : (doneText ?? ''));
    const serverCut = send.cutCheck ? detectServerCut(envelope.totalTokens, state.usage?.input, send.cutCheck.estimated) : undefined;
    return this.saved(this.save(reply, false, serverCut), { status: 'done', reply });
  }

  /** Stop: what streamed is the reply (committed, persisted, marked stopped); nothing the user saw → dropped. */
  private stopped(streamed: string): TurnOutcome {
    const { state, tools } = this;
    // Nothing the user saw (no text, no tool step): the turn is dropped. Otherwise what streamed in the
    // last model call is the reply, after the tool steps already in the request.
    if (streamed.length === 0 && tools.requests.length === 0) {
      this.engine.abandonTurn();
      return this.finish({ status: 'stopped', kept: false, reply: '' });
    }
    const envelope = this.envelope!;
    const reply = streamed.length > 0 ? streamed : STOPPED_REPLY;
    fillStepCachedTokens(tools, envelope, state.usage, this.provider?.kind);
    return this.saved(this.save(reply, true), { status: 'stopped', kept: true, reply });
  }

  /** Completes the turn with `reply` and saves it (the pipeline's engine follows a rebuilt one). */
  private save(reply: string, stopped: boolean, serverCut?: ReturnType<typeof detectServerCut>): SaveResult {
    return this.pipeline.save({
      engine: this.engine,
      reply,
      envelope: this.envelope!,
      input: this.input!,
      request: this.request,
      usage: this.state.usage,
      modelLabel: this.send.modelLabel,
      providerKind: this.provider?.kind,
      stopped,
      tools: this.tools,
      serverCut,
    });
  }

  /** The ending of a saved turn: its error, or `result` with the usage and what the save recorded. */
  private saved(saved: SaveResult, result: Extract<TurnResult, { status: 'done' | 'stopped' }>): TurnOutcome {
    if (!saved.ok) return this.finish({ status: 'error', error: saved.error }, saved.error.code);
    const envelope = this.envelope!;
    if (saved.bytes !== undefined) this.emit({ type: 'persisted', turn: saved.saved?.turn ?? envelope.turn, bytes: saved.bytes });
    const usage = this.state.usage;
    return this.finish({
      ...result,
      ...(usage ? { usage } : {}),
      ...(saved.meta ? { meta: saved.meta } : {}),
      ...(saved.saved ? { saved: saved.saved } : {}),
    });
  }
}
