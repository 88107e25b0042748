/**
 * One turn, one implementation (issue 9, "One turn pipeline, two workspaces"): resolve this turn's
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
 * Another window saving to the same chat while a reply streams (two windows on one folder share the
 * chat store): the append names the saved state the turn was built on (`PersistTarget.base`), and the
 * store refuses it when the chat has moved on. When the other window only added turns, the turn is
 * rebuilt on top of them — same input (the attachments and file contents as read for this turn), same
 * reply — and saved after them, once (`saved.rebased`; the turn's meta says so). The reply was written
 * without those turns, which is what the user saw happen; nothing is lost and nothing is saved twice.
 * When the other window replaced or removed a turn this one followed (Regenerate), deleted the chat,
 * or the rebuilt turn no longer fits, nothing is saved: `error` with code `chat-changed`, and the
 * caller reloads the chat and offers to send the message again.
 */
import {
  PromptContextEngine,
  type AttachmentRef,
  type ToolStepInput,
  type ToolStepOutcome,
  type ToolStepResultInput,
  type TurnEnvelope,
  type TurnInput,
} from '../engine/engine';
import type { NewArtifactInput } from '../engine/artifacts';
import type { Rejection } from '../engine/isolation';
import { checkEnvelope, type Violation } from '../engine/invariants';
import type { IHasher, LayerId, ToolCall } from '../engine/types';
import type { ToolStepView } from '../protocol/messages';
import { callLabel, type ToolDefinition } from './tools/definitions';
import type { ToolExecutor, ToolResult } from './tools/executor';
import { sha256Hex } from '../common/hash';
import { isThenable, mapBounded, runSteps, runStepsSync, wait, type Step } from '../common/steps';
import { providerCachePrediction } from './cacheModel';
import {
  ChatStoreError,
  type AppendTurnInput,
  type AppendTurnResult,
  type ChatBase,
  type ChatStore,
  type StoredRef,
  type StoredTurnRequest,
  type TurnMeta,
} from './store/chatStore';
import {
  ProviderError,
  type ChatProvider,
  type ChatRequest,
  type ProviderErrorCode,
  type ProviderUsage,
  type StreamEvent,
} from './providers/types';
import { PORT_CONCURRENCY, type AttachmentSpec, type WorkspacePort } from './workspacePort';

/** An attachment of this turn: a spec read now (a file chip, a trajectory's attach), or a snapshot taken earlier (a selection chip). */
export type TurnAttachment = AttachmentSpec | { kind: 'snapshot'; input: NewArtifactInput; label?: string };

export interface TurnRequest {
  userText: string;
  attachments?: readonly TurnAttachment[];
  pin?: readonly AttachmentRef[];
  unpin?: readonly AttachmentRef[];
  detach?: readonly AttachmentRef[];
  /** Rejections the caller found itself (names it could not turn into a reference), reported with the turn's. */
  rejections?: readonly Rejection[];
  /** Compact now: cut down to this percent of the budget even below the compaction threshold. */
  targetPercentOverride?: number;
}

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
   * provider is called (DESIGN §8, "Assistant replies in the history are the scripted reply").
   */
  recordReply?: string;
  /** `provider · model`, kept in the turn's metadata. */
  modelLabel?: string;
  /** Workspace tools for this turn (issue 11); absent: none are offered. */
  tools?: ToolLoopOptions;
}

/** The tool loop of a turn (issue 11). */
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

/** Between the texts of two model steps of one turn, as streamed and as shown. */
export const STEP_TEXT_SEPARATOR = '\n\n';
/** The reply recorded when the model ended a tool loop without a word. */
export const TOOL_LIMIT_REPLY = '(The model answered with tool calls only.)';

/** Stored with the chat: where a completed turn is appended. */
export interface PersistTarget {
  store: ChatStore;
  chatId: string;
  /** Title for the chat's first saved turn (a new chat). */
  title?: () => string | undefined;
  /** Regenerate: the completed turn replaces the chat's last saved turn (in the same locked append). */
  replaceLast?: boolean;
  /**
   * The saved state the engine's state is (`ChatStore.loadChat(…).base`, then each save's): the
   * append is refused when the chat file has moved on (another window). Absent: not checked.
   */
  base?: () => ChatBase | undefined;
}

/** Where a kept turn was saved. */
export interface SavedTurn {
  /** The turn number in the chat (after another window's turns, when rebased). */
  turn: number;
  /** The chat as saved now. */
  base: ChatBase;
  /** Another window saved `otherTurns` turns while this one streamed: the turn was rebuilt after them. */
  rebased?: { builtAfterTurn: number; otherTurns: number };
}

export interface TurnPipelineOptions {
  engine: PromptContextEngine;
  port: WorkspacePort;
  persist?: PersistTarget;
  /** Run the invariants checker (DESIGN §7) on every envelope built (the replay; debug builds). */
  check?: boolean;
  /**
   * Counts new content ahead of the build without blocking (the tokenizer's `warm`); asynchronous,
   * so only for `run`.
   */
  warm?: (text: string, signal?: AbortSignal) => Promise<void>;
  /** One line per turn (layer hashes, prefix, cache, timings; never keys or file content). */
  log?: (line: string) => void;
}

export type TurnStatus = 'done' | 'stopped' | 'error' | 'blocked' | 'preview';

/** The per-turn facts for the log and the panel. */
export interface TurnReport {
  conversationId: string;
  turn: number;
  status: TurnStatus;
  layout: string;
  /** First 12 hex digits of each layer's hash. */
  layerHashes: Partial<Record<LayerId, string>>;
  layerTokens: Partial<Record<LayerId, number>>;
  promptTokens: number;
  prefixHash?: string;
  prefixBreak: boolean;
  prefixBreakReason?: string;
  /** Tokens the engine predicts the provider's cache serves. */
  predictedCached: number;
  /** What the provider reported (cache read), when it did. */
  reportedCached?: number;
  reportedCacheWrite?: number;
  reportedInput?: number;
  cuts: number;
  rejections: number;
  buildMs: number;
  /** From the provider call to its first text chunk. */
  firstTokenMs?: number;
  totalMs: number;
  prunedHarder: boolean;
  errorCode?: string;
  /** Tool rounds of the turn (model calls − 1), and the tokens their results added. */
  toolSteps?: number;
  toolTokens?: number;
  /** Per tool round: the tools' run time, and the time to append their results to the request (ms). */
  stepMs?: { toolsMs: number; appendMs: number }[];
}

export interface TurnError {
  /** `chat-changed`: another window changed the chat in a way this turn cannot be saved on top of. */
  code: ProviderErrorCode | 'persist-failed' | 'chat-changed' | 'internal';
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

export type TurnOutcome = OutcomeBase &
  (
    | { status: 'done'; reply: string; usage?: ProviderUsage; meta?: TurnMeta; saved?: SavedTurn }
    | { status: 'stopped'; kept: boolean; reply: string; usage?: ProviderUsage; meta?: TurnMeta; saved?: SavedTurn }
    | { status: 'error'; error: TurnError }
    | { status: 'blocked'; message: string }
    | { status: 'preview' }
  );

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

/** DESIGN §5: after a context-length error, cut to this percent of the budget and retry once. */
export const PRUNE_HARDER_PERCENT = 50;

const now = (): number => performance.now();
const round = (ms: number): number => Math.round(ms * 1000) / 1000;

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
    return runSteps(this.steps(request, provider, send, true));
  }

  /**
   * Runs one turn synchronously: the port and the provider must answer without promises
   * (`MemoryWorkspace`, `ScriptedProvider`). The replay and the benchmark use it.
   */
  runSync(request: TurnRequest, provider: ChatProvider | undefined, send: SendOptions): TurnOutcome {
    return runStepsSync(
      this.steps(request, provider, send, false),
      'TurnPipeline.runSync: the workspace port or the provider answered with a promise; use run()',
    );
  }

  private *steps(request: TurnRequest, provider: ChatProvider | undefined, send: SendOptions, async: boolean): Step<TurnOutcome> {
    const t0 = now();
    const engine = this.engine;
    const emit = (event: TurnEvent): void => {
      try {
        send.onEvent?.(event);
      } catch (e) {
        this.options.log?.(`turn event handler failed: ${(e as Error).message}`);
      }
    };
    const state = {
      buildMs: 0,
      violations: [] as Violation[],
      prunedHarder: false,
      firstTokenMs: undefined as number | undefined,
      usage: undefined as ProviderUsage | undefined,
    };
    let envelope: TurnEnvelope | undefined;
    let input: TurnInput | undefined;
    const rejections: Rejection[] = [];
    const tools: LoopState = { shownText: false, requests: [], views: [], stepUsage: [], timings: [], appends: [] };

    const finish = (o: { status: TurnStatus } & Record<string, unknown>, errorCode?: string): TurnOutcome => {
      const report = this.report(envelope, o.status, state, now() - t0, errorCode, provider?.kind);
      if (tools.requests.length > 0) {
        report.toolSteps = tools.requests.length;
        report.toolTokens = tools.views.reduce((n, v) => n + (v.resultTokens ?? 0), 0);
        report.stepMs = tools.timings;
      }
      const outcome = {
        ...o,
        envelope,
        input,
        buildMs: state.buildMs,
        violations: state.violations,
        rejections: envelope?.rejections ?? rejections,
        report,
        requests: tools.requests,
        toolSteps: tools.views,
      } as TurnOutcome;
      this.options.log?.(formatTurnReport(report));
      emit({ type: outcome.status, outcome } as TurnEvent);
      return outcome;
    };
    const fail = (error: TurnError): TurnOutcome => {
      engine.abandonTurn();
      return finish({ status: 'error', error }, error.code);
    };

    try {
      // 1. This turn's attachments: specs are resolved (isolated and read) now; snapshots are rechecked.
      const attachments: NewArtifactInput[] = [];
      for (const a of request.attachments ?? []) {
        if (a.kind === 'snapshot') {
          const bad = yield* wait(this.port.recheck(a.input.uri, a.label ?? labelOf(a.input)));
          if (bad) rejections.push(bad);
          else attachments.push(a.input);
          continue;
        }
        const r = yield* wait(this.port.resolve(a));
        if (r.ok) attachments.push(r.input);
        else rejections.push(r.rejection);
      }

      // 2. Isolation again for the recoverable files already in the chat: one that now fails (a
      //    symlink out, newly excluded, too large) is detached, reported, and not re-read.
      // 3. Freshness. A port that can do both in one pass (the editor's) does; otherwise the
      //    re-check, then the re-read of the files that passed it.
      const detach: AttachmentRef[] = [...(request.detach ?? [])];
      const refuse = (bad: Rejection, uri: string) => {
        rejections.push(bad);
        if (!detach.some((d) => d.kind === 'file' && d.uri === uri)) detach.push({ kind: 'file', uri });
      };
      const recoverable = engine.recoverableSources();
      let fresh: Map<string, string | null>;
      if (this.port.refresh && recoverable.length > 0) {
        const r = yield* wait(this.port.refresh(recoverable));
        for (const src of recoverable) {
          const bad = r.rejections.get(src.id);
          if (bad) refuse(bad, src.uri);
        }
        fresh = r.fresh;
      } else {
        // A long chat holds hundreds of files: checked a few at a time, not one after the other.
        const sources = [];
        const checks = yield* wait(mapBounded(recoverable, PORT_CONCURRENCY, (src) => this.port.recheck(src.uri, src.uri)));
        for (const [k, src] of recoverable.entries()) {
          const bad = checks[k];
          if (bad) refuse(bad, src.uri);
          else sources.push(src);
        }
        fresh = sources.length > 0 ? yield* wait(this.port.readFresh(sources)) : new Map<string, string | null>();
      }

      // Count big new content ahead of the synchronous build, yielding to the event loop.
      if (async && this.options.warm) {
        for (const a of attachments) yield* wait(this.options.warm(a.content, send.signal));
        for (const v of fresh.values()) if (v !== null) yield* wait(this.options.warm(v, send.signal));
      }

      // 4. Build (pruning inside).
      input = {
        userText: request.userText,
        attachments,
        fresh,
        pin: [...(request.pin ?? [])],
        unpin: [...(request.unpin ?? [])],
        detach,
        rejections: [...rejections, ...(request.rejections ?? [])],
      };
      if (request.targetPercentOverride !== undefined) input.targetPercentOverride = request.targetPercentOverride;
      envelope = this.build(engine, input, false, state, emit);
      if (envelope.blocked) {
        engine.abandonTurn();
        return finish({ status: 'blocked', message: envelope.blocked.message }, 'blocked');
      }
      if (!provider) {
        engine.abandonTurn();
        return finish({ status: 'preview' });
      }

      // 5. The provider (prune harder once after a context-length error, always before any output),
      //    and the tool loop (issue 11): while the model calls tools, run them and send the request
      //    again with the calls and results appended — every request a pure append of the one before.
      const loop = send.tools && send.tools.definitions.length > 0 && provider.supportsTools !== false ? send.tools : undefined;
      const maxSteps = loop ? Math.max(1, loop.maxSteps) : 0;
      let streamed = '';
      let seq = 0;
      let doneText: string | undefined;
      let toolRounds = 0;
      let toolTokens = 0;
      const steps = tools;
      for (;;) {
        const req: ChatRequest = {
          messages: envelope.messages,
          model: send.model,
          conversationId: send.conversationId ?? engine.options.conversationId,
          maxOutputTokens: send.maxOutputTokens,
        };
        if (loop) req.tools = loop.definitions;
        if (send.signal) req.signal = send.signal;
        if (send.timeoutMs !== undefined) req.timeoutMs = send.timeoutMs;
        const tSend = now();
        let calls: ToolCall[] = [];
        streamed = '';
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
                if (streamed.length === 0 && steps.shownText) emit({ type: 'text', text: STEP_TEXT_SEPARATOR, seq: seq++ });
                streamed += ev.text;
                steps.shownText = true;
                emit({ type: 'text', text: ev.text, seq: seq++ });
              } else if (ev.type === 'usage') {
                state.usage = ev.usage;
                emit({ type: 'usage', usage: ev.usage });
              } else if (ev.type === 'toolCall') {
                if (loop) emit({ type: 'toolCall', step: toolRounds + 1, id: ev.id, name: ev.name });
              } else {
                doneText = ev.text;
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
          if (doneText === undefined) throw new ProviderError('bad-response', `${provider.label} ended the reply without completing it.`);
        } catch (e) {
          const pe = ProviderError.is(e)
            ? e
            : new ProviderError(send.signal?.aborted ? 'aborted' : 'bad-response', (e as Error)?.message ?? String(e));
          if (pe.code === 'aborted' || send.signal?.aborted)
            return this.stopped(
              engine,
              streamed,
              envelope,
              input,
              { ...send, providerKind: provider?.kind },
              state,
              request,
              emit,
              finish,
              steps,
            );
          if (pe.code === 'context-length' && streamed.length === 0 && !state.prunedHarder && steps.requests.length === 0) {
            state.prunedHarder = true;
            const harder: TurnInput = {
              ...input,
              targetPercentOverride: Math.min(PRUNE_HARDER_PERCENT, input.targetPercentOverride ?? PRUNE_HARDER_PERCENT),
            };
            envelope = this.build(engine, harder, true, state, emit);
            input = harder;
            if (envelope.blocked) {
              engine.abandonTurn();
              return finish({ status: 'blocked', message: envelope.blocked.message }, 'blocked');
            }
            continue;
          }
          return fail({ code: pe.code, message: pe.message, ...(pe.retryAfterMs !== undefined ? { retryAfterMs: pe.retryAfterMs } : {}) });
        }
        if (!loop || calls.length === 0) break;
        // Past the step limit the calls are answered with a note, and the next answer ends the turn.
        if (toolRounds > maxSteps) break;
        toolRounds++;
        steps.stepUsage.push(state.usage);
        const tStep = now();
        const over = toolRounds > maxSteps;
        const inputs: ToolStepResultInput[] = [];
        const results: (ToolResult | undefined)[] = [];
        for (const call of calls) {
          emit({ type: 'toolCall', step: toolRounds, id: call.id, name: call.name, args: call.args });
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
          if (send.signal?.aborted)
            return this.stopped(
              engine,
              streamed,
              envelope,
              input,
              { ...send, providerKind: provider?.kind },
              state,
              request,
              emit,
              finish,
              steps,
            );
          inputs.push(toStepInput(result));
          results.push(result);
        }
        const tAppend = now();
        const stepInput: ToolStepInput = { text: doneText ?? '', calls, results: inputs };
        const stepLimits = { maxTokens: Math.max(0, loop.maxTurnTokens - toolTokens) };
        const appended = engine.appendToolStep(stepInput, stepLimits);
        steps.appends.push({ step: stepInput, limits: stepLimits });
        steps.timings.push({ toolsMs: round(tAppend - tStep), appendMs: round(now() - tAppend) });
        steps.requests.push(envelope);
        envelope = appended.envelope;
        appended.outcomes.forEach((o, i) => {
          toolTokens += o.tokens;
          const view = stepView(toolRounds, calls[i], results[i], o);
          steps.views.push(view);
          emit({ type: 'toolResult', step: toolRounds, view, outcome: o });
        });
        state.violations = this.options.check
          ? checkEnvelope(envelope, envelope.budget, { hasher: { sha256Hex }, ...engine.checkContext(), blocked: false })
          : [];
        emit({ type: 'built', envelope, buildMs: 0, pruneHarder: false, violations: state.violations });
        if (send.signal?.aborted)
          return this.stopped(engine, '', envelope, input, { ...send, providerKind: provider?.kind }, state, request, emit, finish, steps);
      }

      // 6. Complete, persist, done.
      fillStepCache(tools, envelope, state.usage, provider.kind);
      const reply =
        send.recordReply ?? (doneText && doneText.length > 0 ? doneText : steps.requests.length > 0 ? TOOL_LIMIT_REPLY : (doneText ?? ''));
      const saved = this.commit(engine, reply, envelope, input, { ...send, providerKind: provider?.kind }, false, state, request, steps);
      if (!saved.ok) return finish({ status: 'error', error: saved.error }, saved.error.code);
      if (saved.bytes !== undefined) emit({ type: 'persisted', turn: saved.saved?.turn ?? envelope.turn, bytes: saved.bytes });
      return finish({
        status: 'done',
        reply,
        ...(state.usage ? { usage: state.usage } : {}),
        ...(saved.meta ? { meta: saved.meta } : {}),
        ...(saved.saved ? { saved: saved.saved } : {}),
      });
    } catch (e) {
      const aborted = (e as Error)?.name === 'AbortError' || send.signal?.aborted;
      if (aborted) {
        engine.abandonTurn();
        return finish({ status: 'stopped', kept: false, reply: '' });
      }
      return fail({ code: 'internal', message: `The turn failed: ${(e as Error)?.message ?? String(e)}` });
    }
  }

  /** Stop: what streamed is the reply (committed, persisted, marked stopped); nothing streamed → dropped. */
  private stopped(
    engine: PromptContextEngine,
    streamed: string,
    envelope: TurnEnvelope,
    input: TurnInput,
    send: SendOptions & { providerKind?: string },
    state: { usage?: ProviderUsage },
    request: TurnRequest,
    emit: (e: TurnEvent) => void,
    finish: (o: { status: TurnStatus } & Record<string, unknown>, code?: string) => TurnOutcome,
    tools?: LoopState,
  ): TurnOutcome {
    // Nothing the user saw (no text, no tool step): the turn is dropped. Otherwise what streamed in the
    // last model call is the reply, after the tool steps already in the request.
    if (streamed.length === 0 && !(tools && tools.requests.length > 0)) {
      engine.abandonTurn();
      return finish({ status: 'stopped', kept: false, reply: '' });
    }
    const reply = streamed.length > 0 ? streamed : STOPPED_REPLY;
    if (tools) fillStepCache(tools, envelope, state.usage, send.providerKind);
    const saved = this.commit(engine, reply, envelope, input, send, true, state, request, tools);
    if (!saved.ok) return finish({ status: 'error', error: saved.error }, saved.error.code);
    if (saved.bytes !== undefined) emit({ type: 'persisted', turn: saved.saved?.turn ?? envelope.turn, bytes: saved.bytes });
    return finish({
      status: 'stopped',
      kept: true,
      reply,
      ...(state.usage ? { usage: state.usage } : {}),
      ...(saved.meta ? { meta: saved.meta } : {}),
      ...(saved.saved ? { saved: saved.saved } : {}),
    });
  }

  private build(
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

  /**
   * Commits the pending turn and appends it to the store. A failed save puts the engine back to the
   * state before the turn, so memory and disk agree. Another window's turns saved meanwhile: the turn
   * is rebuilt on top of them (see the file comment).
   */
  private commit(
    engine: PromptContextEngine,
    reply: string,
    envelope: TurnEnvelope | undefined,
    input: TurnInput | undefined,
    send: Pick<SendOptions, 'modelLabel'> & { providerKind?: string },
    stopped: boolean,
    state: { usage?: ProviderUsage },
    request: TurnRequest,
    tools?: LoopState,
  ): { ok: true; bytes?: number; meta?: TurnMeta; saved?: SavedTurn } | { ok: false; error: TurnError } {
    const before = engine.state;
    engine.completeTurn(reply);
    const target = this.persist;
    if (!target) return { ok: true };
    const record = (e: PromptContextEngine, base: ChatBase | undefined, rebased?: { builtAfterTurn: number }): AppendTurnInput => ({
      state: e.state,
      engine: e.options,
      envelope,
      usage: state.usage,
      model: send.modelLabel,
      provider: send.providerKind,
      stopped,
      request: storedRequest(request, e.options.hasher ?? { sha256Hex }),
      title: target.title?.(),
      ...(base ? { base } : {}),
      ...(target.replaceLast ? { replaceLast: true } : {}),
      ...(rebased ? { rebased } : {}),
      ...(tools && tools.views.length > 0 ? { toolSteps: tools.views } : {}),
    });
    const done = (r: AppendTurnResult, rebased?: SavedTurn['rebased']) => {
      for (const w of r.warnings) this.options.log?.(w);
      return { ok: true as const, bytes: r.bytes, meta: r.meta, saved: { turn: r.turn, base: r.base, ...(rebased ? { rebased } : {}) } };
    };
    const giveBack = () => {
      this.engine = new PromptContextEngine(engine.options, before);
    };
    try {
      return done(target.store.appendTurn(target.chatId, record(engine, target.base?.())));
    } catch (e) {
      const conflict = e instanceof ChatStoreError ? e.conflict : undefined;
      if (conflict?.reason === 'appended' && !target.replaceLast && input) {
        const r = this.rebuildOnTop(target, engine, before, input, reply, record, tools?.appends ?? []);
        if (r.ok) return done(r.result, r.rebased);
        giveBack();
        return { ok: false, error: r.error };
      }
      giveBack();
      if (conflict)
        return { ok: false, error: { code: 'chat-changed', message: chatChangedMessage(conflict.reason, !!target.replaceLast) } };
      return {
        ok: false,
        error: { code: 'persist-failed', message: `The reply could not be saved, so the turn was not kept: ${(e as Error).message}` },
      };
    }
  }

  /**
   * Another window saved turns after the state this turn was built on: build the same input on the
   * chat as saved now, complete it with the same reply, and append it there — all under the store
   * lock, so no third save can slip in between (the other window waits for one build).
   */
  private rebuildOnTop(
    target: PersistTarget,
    engine: PromptContextEngine,
    before: PromptContextEngine['state'],
    input: TurnInput,
    reply: string,
    record: (e: PromptContextEngine, base: ChatBase, rebased: { builtAfterTurn: number }) => AppendTurnInput,
    toolSteps: LoopState['appends'],
  ): { ok: true; result: AppendTurnResult; rebased: NonNullable<SavedTurn['rebased']> } | { ok: false; error: TurnError } {
    const builtAfterTurn = before.completedTurns;
    try {
      return target.store.exclusive(() => {
        const fresh = target.store.loadChat(target.chatId, { reuse: engine.state });
        const rebuilt = new PromptContextEngine(engine.options, fresh.state);
        const env = rebuilt.buildTurn(input);
        if (env.blocked) {
          rebuilt.abandonTurn();
          return {
            ok: false as const,
            error: {
              code: 'chat-changed' as const,
              message: `Another window saved turns to this chat while this reply streamed, and the reply no longer fits after them (${env.blocked.message}), so it was not saved. The chat now shows what is saved.`,
            },
          };
        }
        // The model's tool calls and what they returned are part of the turn: appended again on top.
        for (const a of toolSteps) rebuilt.appendToolStep(a.step, a.limits);
        rebuilt.completeTurn(reply);
        const result = target.store.appendTurn(target.chatId, record(rebuilt, fresh.base, { builtAfterTurn }));
        this.engine = rebuilt;
        const rebased = { builtAfterTurn, otherTurns: fresh.base.turns - builtAfterTurn };
        this.options.log?.(
          `[${engine.options.conversationId}] another window saved ${rebased.otherTurns} turn(s) after turn ${builtAfterTurn} while this reply streamed; the turn was saved after them as turn ${result.turn}`,
        );
        return { ok: true as const, result, rebased };
      });
    } catch (e) {
      const c = e instanceof ChatStoreError ? e.conflict : undefined;
      if (c) return { ok: false, error: { code: 'chat-changed', message: chatChangedMessage(c.reason, false) } };
      return {
        ok: false,
        error: { code: 'persist-failed', message: `The reply could not be saved, so the turn was not kept: ${(e as Error).message}` },
      };
    }
  }

  private report(
    env: TurnEnvelope | undefined,
    status: TurnStatus,
    state: { buildMs: number; prunedHarder: boolean; firstTokenMs?: number; usage?: ProviderUsage },
    totalMs: number,
    errorCode?: string,
    providerKind?: string,
  ): TurnReport {
    const r: TurnReport = {
      conversationId: this.engine.options.conversationId,
      turn: env?.turn ?? this.engine.state.completedTurns + 1,
      status,
      layout: this.engine.options.layout,
      layerHashes: {},
      layerTokens: {},
      promptTokens: env?.totalTokens ?? 0,
      prefixBreak: env?.prefixBreak ?? false,
      // As the provider reports it (OpenAI's 128-token steps), so the log compares like with like.
      predictedCached: providerCachePrediction(providerKind, env?.ledger.cachedTokens ?? 0),
      cuts: env?.pruned.length ?? 0,
      rejections: env?.rejections.length ?? 0,
      buildMs: round(state.buildMs),
      totalMs: round(totalMs),
      prunedHarder: state.prunedHarder,
    };
    for (const l of env?.layers ?? []) {
      r.layerHashes[l.id] = l.hash.slice(0, 12);
      r.layerTokens[l.id] = l.tokens;
    }
    if (env) r.prefixHash = env.prefixHash.slice(0, 12);
    if (env?.prefixBreakReason) r.prefixBreakReason = env.prefixBreakReason;
    if (state.usage) {
      r.reportedCached = state.usage.cacheRead;
      r.reportedCacheWrite = state.usage.cacheWrite;
      r.reportedInput = state.usage.input;
    }
    if (state.firstTokenMs !== undefined) r.firstTokenMs = round(state.firstTokenMs);
    if (errorCode) r.errorCode = errorCode;
    return r;
  }
}

/** What the user is told when another window's change keeps a turn from being saved. */
function chatChangedMessage(reason: 'appended' | 'diverged' | 'missing', regenerating: boolean): string {
  if (reason === 'missing') return 'This chat was deleted in another window while the reply streamed, so the reply was not saved.';
  if (regenerating)
    return 'This chat was changed in another window while the new reply streamed, so it was not saved: the turn it would have replaced is no longer the last one. The chat now shows what is saved.';
  return 'This chat was changed in another window while the reply streamed (a turn this one followed was regenerated or removed there), so the reply was not saved. The chat now shows what is saved.';
}

function storedRef(r: AttachmentRef): StoredRef {
  return r.range
    ? { kind: r.kind, uri: r.uri, range: { startLine: r.range.startLine, endLine: r.range.endLine } }
    : { kind: r.kind, uri: r.uri };
}

/** A turn request in the chat store's form (snapshots named by content hash). */
export function storedRequest(req: TurnRequest, hasher: IHasher): StoredTurnRequest {
  const out: StoredTurnRequest = {
    attachments: (req.attachments ?? []).map((a) => {
      if (a.kind !== 'snapshot') return { ...a };
      const i = a.input;
      return {
        kind: 'snapshot' as const,
        uri: i.uri,
        ...(i.range ? { range: { startLine: i.range.startLine, endLine: i.range.endLine } } : {}),
        contentHash: hasher.sha256Hex(i.content),
        ...(i.requestedEndLine !== undefined ? { requestedEndLine: i.requestedEndLine } : {}),
        ...(a.label ? { label: a.label } : {}),
      };
    }),
  };
  if (req.pin?.length) out.pin = req.pin.map(storedRef);
  if (req.unpin?.length) out.unpin = req.unpin.map(storedRef);
  if (req.detach?.length) out.detach = req.detach.map(storedRef);
  if (req.targetPercentOverride !== undefined) out.targetPercentOverride = req.targetPercentOverride;
  return out;
}

/** The turn report as one log line. */
export function formatTurnReport(r: TurnReport): string {
  const layers = (['L1', 'L2', 'L3', 'L4', 'L5'] as const)
    .map((id) => `${id} ${r.layerHashes[id] ?? '-'} (${r.layerTokens[id] ?? 0})`)
    .join(', ');
  const cache = `cached ${r.predictedCached} predicted / ${r.reportedCached !== undefined ? `${r.reportedCached} reported` : 'not reported'}`;
  const prefix = r.prefixBreak ? `prefix changed${r.prefixBreakReason ? ` (${r.prefixBreakReason})` : ''}` : 'prefix kept';
  const times = `build ${r.buildMs.toFixed(1)} ms${r.firstTokenMs !== undefined ? `, first token ${r.firstTokenMs.toFixed(0)} ms` : ''}, total ${r.totalMs.toFixed(0)} ms`;
  const tools = r.toolSteps
    ? `${r.toolSteps} tool step(s), ${r.toolTokens ?? 0} tokens of results, steps ${(r.stepMs ?? []).map((t) => `${t.toolsMs.toFixed(1)}+${t.appendMs.toFixed(1)}`).join(', ')} ms (tools+append)`
    : '';
  const extra = [
    tools,
    r.prunedHarder ? 'pruned harder after a context-length error' : '',
    r.cuts ? `${r.cuts} cut(s)` : '',
    r.rejections ? `${r.rejections} rejection(s)` : '',
    r.errorCode ? `error ${r.errorCode}` : '',
  ]
    .filter(Boolean)
    .join('; ');
  return `[${r.conversationId}] turn ${r.turn} ${r.status}: ${layers}; prompt ${r.promptTokens}, ${cache}; ${prefix}; ${times}${extra ? `; ${extra}` : ''}`;
}

/** The reply recorded when the user stopped a tool loop before the model said anything in its last call. */
export const STOPPED_REPLY = '(Stopped by the user.)';

/** Per-turn state of the tool loop. */
interface LoopState {
  /** Some text of this turn was streamed (the next step's text starts a new paragraph). */
  shownText: boolean;
  /** The requests before the current one (each tool step adds the one it extended). */
  requests: TurnEnvelope[];
  views: ToolStepView[];
  /** Usage reported by each model call that ended with tool calls. */
  stepUsage: (ProviderUsage | undefined)[];
  /** Per step: running the tools, and appending their results to the request (ms). */
  timings: { toolsMs: number; appendMs: number }[];
  /** Each step as appended to the engine (a turn rebuilt on another window's turns appends them again). */
  appends: { step: ToolStepInput; limits: { maxTokens?: number } }[];
}

/** An executor result as the engine's step input. */
export function toStepInput(result: ToolResult): ToolStepResultInput {
  const out: ToolStepResultInput = { callId: result.call.id, tool: result.call.name };
  const o = result.output;
  if (o.kind === 'text') out.note = o.text;
  else {
    out.artifact = o.input;
    if (o.whole) out.whole = o.whole;
    if (o.note !== undefined) out.note = o.note;
  }
  return out;
}

/** One tool call as the panel shows it. */
function stepView(step: number, call: ToolCall, result: ToolResult | undefined, outcome: ToolStepOutcome): ToolStepView {
  const refused = result?.output.kind === 'text' && result.output.refused !== undefined;
  const invalid = result?.output.kind === 'text' && result.output.refused === 'invalid-arguments';
  const view: ToolStepView = {
    id: call.id,
    step,
    name: call.name,
    label: callLabel(call),
    args: JSON.stringify(call.args),
    status: invalid ? 'error' : refused || !result || outcome.mode === 'over-budget' ? 'refused' : 'done',
    summary: !result
      ? 'not run: the step limit was reached'
      : outcome.mode === 'over-budget'
        ? `left out: over the budget (${result.summary})`
        : result.summary,
    resultTokens: outcome.tokens,
  };
  if (outcome.mode === 'reference') view.reused = true;
  if (outcome.key) view.key = outcome.key;
  return view;
}

/**
 * Each step's cached tokens: those of the model request that carried its results — reported by the
 * provider when it reports usage, else the engine's prediction as that provider would report it.
 */
function fillStepCache(tools: LoopState, last: TurnEnvelope, lastUsage: ProviderUsage | undefined, providerKind: string | undefined): void {
  for (const v of tools.views) {
    const k = v.step;
    const env = k < tools.requests.length ? tools.requests[k] : last;
    const usage = k < tools.stepUsage.length ? tools.stepUsage[k] : k === tools.stepUsage.length ? lastUsage : undefined;
    if (usage) {
      v.cachedTokens = usage.cacheRead;
      v.cachedReported = true;
    } else {
      v.cachedTokens = providerCachePrediction(providerKind, env.ledger.cachedTokens);
      v.cachedReported = false;
    }
  }
}
