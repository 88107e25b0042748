import type { Artifact, PruneReport, Segment } from './types';
import type { Rejection } from './isolation';
import type { ChatState, StepResult, ToolStepRecord, TurnRecord } from './state';
import type { BlockedTurn, EngineOptions, ToolStepInput, ToolStepOutcome, TurnEnvelope, TurnInput } from './turnTypes';
import { cloneState, emptyState, settleState } from './state';
import { computeBudget, DEFAULT_THRESHOLDS, validateThresholds } from './budget';
import { sharedFullBlock, toolCallsJson } from './render';
import { AttachmentManager } from './attachmentManager';
import { HistoryManager } from './historyManager';
import { ExtractiveSummarizer, type HistoryTurnText, type ISummarizer } from './summarizer';
import { sha256Hex } from '../common/hash';
import { TextHashes } from './textHashes';
import { MessageFraming } from './messageFraming';
import { SegmentRenderer } from './segmentRenderer';
import { PastTurnCache } from './pastTurns';
import { RequestRenderer } from './requestRenderer';
import { Pruner } from './pruner';
import { Ledger } from './ledger';
import { EnvelopeBuilder } from './envelopeBuilder';
import { TurnInputApplier } from './turnInput';
import { excerptSources, type ExcerptSource } from './excerptSources';
import { runStepsSync, type Step } from '../common/steps';

export type {
  AttachmentRef,
  BlockedTurn,
  EngineOptions,
  Instruction,
  ToolStepInput,
  ToolStepOutcome,
  ToolStepResultInput,
  TurnEnvelope,
  TurnInput,
} from './turnTypes';

/**
 * The deterministic context envelope engine. `buildTurn` is synchronous and pure with respect to
 * the outside world: same committed state + same input ⇒ byte-identical envelope. A built turn is
 * pending until `completeTurn` records the reply, so a failed provider call leaves no half-recorded
 * turn and "prune harder" can rebuild the same turn.
 *
 * The work is done by collaborators that each own their memos: the input applier (pins, detach,
 * freshness, attachments), the segment renderer, message framing, the past-turn cache, the request
 * renderer, the pruner, the ledger and the envelope builder. Changing the options resets them.
 */
/**
 * Texts this long are announced by `buildTurnSteps` before the build hashes or counts them (each
 * costs tens of milliseconds in one piece at a few megabytes).
 */
export const LONG_INPUT = 1_000_000;

/**
 * What `buildTurnSteps` yields before it hashes (`hashText`) or counts (`countText`) a long text in
 * one piece: a driver that can hash and count in slices does it first and leaves the results where
 * the build finds them (the hasher's and the tokenizer's memos). A driver that ignores it loses
 * nothing but the slicing: the build's result is the same.
 */
export interface BuildHint {
  hashText: string;
  countText?: string;
}

export class PromptContextEngine {
  private committed: ChatState;
  /** The built turn, until it is completed or abandoned: its state, record, last request, and its first request (tool steps extend it). */
  private pending: { state: ChatState; record: Omit<TurnRecord, 'reply'>; env: TurnEnvelope; first: TurnEnvelope } | undefined;
  private readonly summarizer: ISummarizer;
  private readonly hashes: TextHashes;
  private readonly framing: MessageFraming;
  private readonly segments: SegmentRenderer;
  private readonly pastTurns: PastTurnCache;
  private readonly requests: RequestRenderer;
  private readonly pruner: Pruner;
  private readonly ledger = new Ledger();
  private readonly envelopes: EnvelopeBuilder;
  private readonly input: TurnInputApplier;
  private buildCount = 0;

  constructor(
    private opts: EngineOptions,
    state?: ChatState,
  ) {
    this.hashes = new TextHashes(opts.hasher ?? { sha256Hex });
    this.summarizer = opts.summarizer ?? new ExtractiveSummarizer();
    const err = validateThresholds(opts.thresholds ?? DEFAULT_THRESHOLDS);
    if (err) throw new Error(err);
    this.committed = state ?? emptyState();
    this.framing = new MessageFraming(opts.tokenizer);
    this.segments = new SegmentRenderer(opts, this.hashes);
    this.pastTurns = new PastTurnCache(opts, this.segments, this.framing);
    this.requests = new RequestRenderer(opts, this.segments, this.pastTurns, this.framing);
    this.pruner = new Pruner(opts, this.hashes.hasher, this.requests, this.framing);
    this.envelopes = new EnvelopeBuilder(opts, this.hashes, this.framing, this.segments, this.pastTurns, this.ledger);
    this.input = new TurnInputApplier(
      opts,
      this.hashes.hasher,
      (s) => this.attachments(s),
      (e) => this.segments.entryTokens(e),
    );
  }

  get options(): Readonly<EngineOptions> {
    return this.opts;
  }

  /** Settings can change between turns (layout, policy, instructions, model). */
  updateOptions(patch: Partial<Omit<EngineOptions, 'conversationId' | 'tokenizer' | 'hasher'>>): void {
    const next = { ...this.opts, ...patch };
    const err = validateThresholds(next.thresholds ?? DEFAULT_THRESHOLDS);
    if (err) throw new Error(err);
    this.opts = next;
    this.pending = undefined;
    this.buildCount++;
    this.segments.reset(next);
    this.pastTurns.reset(next);
    this.requests.reset(next);
    this.pruner.reset(next);
    this.ledger.reset();
    this.envelopes.reset(next);
    this.input.reset(next);
  }

  /** Builds started on this engine, and option changes (a paused build's driver compares it before going on). */
  get builds(): number {
    return this.buildCount;
  }

  get state(): ChatState {
    return this.committed;
  }

  get budget(): number {
    return computeBudget(this.opts.limits);
  }

  /** Recoverable artifacts that must be re-read before the next turn (freshness). */
  recoverableSources(): { id: string; uri: string; contentHash: string; missing: boolean }[] {
    const out: { id: string; uri: string; contentHash: string; missing: boolean }[] = [];
    for (const [id, key] of this.committed.latest) {
      const e = this.committed.entries.get(key)!;
      if (e.artifact.recoverable && e.artifact.kind === 'file' && e.presence !== 'detached')
        out.push({ id, uri: e.artifact.source.uri, contentHash: e.artifact.contentHash, missing: e.missing });
    }
    return out;
  }

  /** Selections, ranged reads and search or diagnostics lines the chat holds, with the files they came from. */
  excerptSources(): ExcerptSource[] {
    return excerptSources(this.committed);
  }

  buildTurn(input: TurnInput): TurnEnvelope {
    return runStepsSync(this.buildTurnSteps(input));
  }

  /**
   * `buildTurn` as steps, for a driver that gives the event loop a turn between them (a long chat cut
   * to a smaller window takes many cuts): the envelope is the one `buildTurn` returns. Nothing else
   * may build on this engine until the steps end; `builds` tells the driver whether something did.
   * Before a text of `LONG_INPUT` characters or more is hashed or counted, a step yields a `BuildHint`.
   */
  *buildTurnSteps(input: TurnInput): Step<TurnEnvelope> {
    const build = ++this.buildCount;
    const s = cloneState(this.committed);
    const turn = s.completedTurns + 1;
    const reports: PruneReport[] = [];
    const rejections: Rejection[] = [...(input.rejections ?? [])];

    for (const a of input.attachments ?? []) if (a.content.length >= LONG_INPUT) yield { hashText: a.content } satisfies BuildHint;
    const items = this.input.apply(s, turn, input, rejections, reports);
    for (const item of items) {
      const a = item.mode === 'full' ? s.entries.get(item.key)?.artifact : undefined;
      if (!a || a.content.length < LONG_INPUT) continue;
      const block = sharedFullBlock(a);
      yield { hashText: block, countText: block } satisfies BuildHint;
    }

    let rendered = this.requests.render(s, turn, items, input.userText);
    const budget = this.budget;
    const thresholds = this.opts.thresholds ?? DEFAULT_THRESHOLDS;
    const trigger = (budget * thresholds.compactPercent) / 100;
    const target = Math.floor((budget * (input.targetPercentOverride ?? thresholds.targetPercent)) / 100);
    let blocked: BlockedTurn | undefined;
    if (rendered.total > trigger || (input.targetPercentOverride !== undefined && rendered.total > target)) {
      const cuts = this.pruner.prune({
        s,
        turn,
        items,
        input,
        start: rendered,
        target,
        reports,
        history: this.history(s),
        attachments: this.attachments(s),
      });
      for (let r = cuts.next(); ; r = cuts.next()) {
        if (r.done) {
          rendered = r.value;
          break;
        }
        yield;
        if (build !== this.buildCount) throw new Error('another build started on this engine while this one was paused');
      }
      if (rendered.total > budget) {
        blocked = this.pruner.blockedMessage(rendered, budget);
      }
    }
    const env = this.envelopes.turnEnvelope(s, turn, rendered, reports, rejections, blocked);
    this.pending = { state: s, record: { turn, userText: input.userText, items }, env, first: env };
    return env;
  }

  /**
   * Renders and counts the committed history a turn at a time, a step each, so that the next build
   * finds it ready: the first build of a long chat just opened renders every past turn, and a driver
   * that gives the event loop a turn between these steps spreads that work. When that history is
   * past the compaction threshold, the last step yields the longest summary a cut can make, for a
   * driver with a tokenizer that counts long texts in slices: each reach a cut tries is a prefix of
   * it. Fills memos only: no build's result depends on whether these steps ran.
   */
  *warmSteps(): Generator<{ countText: string } | undefined, void, unknown> {
    const s = this.committed;
    const through = s.summary?.throughTurn ?? 0;
    let history = 0;
    const texts: HistoryTurnText[] = [];
    for (const t of s.turns) {
      const text = { turn: t.turn, user: t.userText, reply: t.reply };
      texts.push(text);
      this.summarizer.prepare?.([text]);
      if (t.turn > through) history += this.pastTurns.warmTurn(s, t);
      yield;
    }
    const thresholds = this.opts.thresholds ?? DEFAULT_THRESHOLDS;
    const last = s.completedTurns - (this.opts.keepRecentTurns ?? 4);
    if (history <= (this.budget * thresholds.compactPercent) / 100 || last <= through) return;
    yield { countText: `\n${this.summarizer.summarize(texts.slice(0, last))}\n` };
  }

  /**
   * Appends one tool step to the pending turn: the assistant's calls and a result per
   * call. The new request is the previous one plus these messages, byte for byte (a pure append:
   * nothing earlier is re-rendered, pruned or moved), so everything before can be a cache hit.
   *
   * What a tool read follows the attachments' rules: a version the request already carries in full
   * (attached, or read earlier) comes back as a reference to its block; a range of such a file as a
   * reference too; anything else is a new block (a changed file, a new version) — once. A result
   * that would take the request past the budget, or past `maxTokens` added by this step, is left out
   * with a note saying so.
   */
  appendToolStep(step: ToolStepInput, limits: { maxTokens?: number } = {}): { envelope: TurnEnvelope; outcomes: ToolStepOutcome[] } {
    const p = this.pending;
    if (!p) throw new Error('appendToolStep called without a pending turn');
    if (p.env.blocked) throw new Error('cannot add a tool step to a blocked turn: nothing was sent');
    if (step.results.length !== step.calls.length || step.results.some((r, i) => r.callId !== step.calls[i].id))
      throw new Error("appendToolStep: one result per call, in the calls' order");
    const s = p.state;
    const prev = p.env;
    const turn = prev.turn;
    const k = (p.record.steps?.length ?? 0) + 1;
    const reports = prev.pruned.slice();
    // The assistant message comes first: its tokens are spent whatever the results are.
    let room =
      this.budget -
      prev.totalTokens -
      this.framing.roleFraming('assistant') -
      this.opts.tokenizer.count(toolCallsJson(step.calls)) -
      (step.text ? this.opts.tokenizer.count(step.text) : 0);
    let stepRoom = limits.maxTokens ?? Number.POSITIVE_INFINITY;
    const outcomes: ToolStepOutcome[] = [];
    const results: StepResult[] = [];
    for (const r of step.results) {
      const res: StepResult = { callId: r.callId, tool: r.tool, items: [] };
      let note = r.note;
      let mode: ToolStepOutcome['mode'] = 'note';
      let key: string | undefined;
      let tokens = 0;
      const frame = this.framing.roleFraming('tool');
      if (r.artifact) {
        const decided = this.input.toolArtifact(
          s,
          turn,
          r,
          Math.min(room, stepRoom) - frame - (note ? this.opts.tokenizer.count(note) : 0),
          reports,
        );
        if ('over' in decided) {
          mode = 'over-budget';
          note = `[${r.tool}: the result (${decided.over} tokens) was left out: it would take this request past the context budget or past this turn's tool budget (strata.tools.maxTurnTokens). Answer with what you have, or ask for less, such as a line range.]`;
        } else {
          res.items.push(decided.item);
          if (decided.range) res.range = decided.range;
          mode = decided.item.mode === 'full' ? 'full' : 'reference';
          key = decided.item.key;
        }
      }
      if (note !== undefined) res.note = note;
      results.push(res);
      // What this result adds: its segments (the same ones `stepDrafts` renders) and framing.
      const probe = this.segments.toolStepMessages(s, { text: '', calls: [], results: [res] }, k, turn, 'L3', 'L3', '').slice(1);
      for (const d of probe) for (const g of d.segs) tokens += g.tokens;
      room -= tokens + frame;
      stepRoom -= tokens + frame;
      outcomes.push({ callId: r.callId, tool: r.tool, mode, ...(key ? { key } : {}), tokens });
    }
    const record: ToolStepRecord = { text: step.text, calls: step.calls.map((c) => ({ id: c.id, name: c.name, args: c.args })), results };
    p.record = { ...p.record, steps: [...(p.record.steps ?? []), record] };
    const drafts = this.segments.toolStepMessages(s, record, k, turn, 'L3', 'L3', '');
    const envelope = this.envelopes.toolStepEnvelope(s, p.first, prev, drafts, reports);
    p.env = envelope;
    return { envelope, outcomes };
  }

  /** Records the reply of the pending turn and makes its state the committed state. */
  completeTurn(reply: string): void {
    if (!this.pending) throw new Error('completeTurn called without a pending turn');
    if (this.pending.env.blocked) throw new Error('cannot complete a blocked turn: nothing was sent');
    const { state, record } = this.pending;
    this.history(state).append({ ...record, reply });
    state.previousBlocks = this.envelopes.pendingSignatures();
    settleState(state);
    this.committed = state;
    this.pending = undefined;
    this.hashes.settleStored(this.committed);
  }

  /** What `checkEnvelope` needs to verify the last built turn (or the committed state). */
  checkContext(): { artifacts: Map<string, Artifact>; dropped: Set<string> } {
    const s = this.pending?.state ?? this.committed;
    const artifacts = new Map<string, Artifact>();
    const dropped = new Set<string>();
    for (const [k, e] of s.entries) {
      artifacts.set(k, e.artifact);
      if (e.presence !== 'present') dropped.add(k);
    }
    return { artifacts, dropped };
  }

  /** Drops the pending turn (provider failed, user cancelled). */
  abandonTurn(): void {
    this.pending = undefined;
    this.envelopes.forgetPending();
  }

  /** Same value as `hashLayerSegments` (invariants.ts), memoized step by step. */
  hashLayer(segments: readonly Segment[]): string {
    return this.envelopes.hashLayer(segments);
  }

  private attachments(s: ChatState): AttachmentManager {
    return new AttachmentManager(
      s,
      this.hashes.hasher,
      (e) => this.segments.entryTokens(e),
      (a) => this.hashes.storedArtifact(a),
    );
  }

  private history(s: ChatState): HistoryManager {
    return new HistoryManager(s, this.opts.tokenizer, this.summarizer, this.opts.keepRecentTurns ?? 4);
  }
}
