import type { Artifact, IHasher, PruneReport } from './types';
import type { ChatState, TurnItem } from './state';
import type { AttachmentManager } from './attachmentManager';
import type { HistoryManager } from './historyManager';
import type { MessageFraming } from './messageFraming';
import type { Rendered, RequestRenderer } from './requestRenderer';
import type { BlockedTurn, EngineOptions, TurnInput } from './turnTypes';
import { describeArtifact, PRIORITY } from './artifacts';
import { buildPreview, type Preview } from './compaction';
import { fitExcerpt } from './fitExcerpt';
import { renderedMessages } from './requestRenderer';
import { writableEntry } from './state';
import type { Step } from '../common/steps';

/** Turns summarized one at a time before pruning switches to a search for the fewest that fit. */
const LINEAR_SUMMARY_STEPS = 8;

/**
 * Cuts a request down to its target: superseded versions, what tools read, compaction to
 * structure + preview, summaries of the oldest turns, then drops by priority; each cut re-renders
 * and is reported. Owns the previews of compacted artifacts.
 */
export class Pruner {
  private readonly previews = new WeakMap<Artifact, { recovery: 'read_file' | 'attach'; preview: Preview & { bodyHash: string } }>();

  constructor(
    /** @internal */ public opts: EngineOptions,
    private readonly hasher: IHasher,
    /** @internal */ public readonly requests: RequestRenderer,
    private readonly framing: MessageFraming,
  ) {}

  /** The options changed (a preview's recovery hint is part of its memo key). */
  reset(opts: EngineOptions): void {
    this.opts = opts;
  }

  /**
   * The request cut down to `job.target` tokens (or as far as it goes), each cut reported in
   * `job.reports`. A step after each cut: a long chat cut to a smaller window makes many, and a driver
   * that gives the event loop a turn between them gets the same request as one that does not.
   */
  *prune(job: PruneJob): Step<Rendered> {
    const run = new PruneRun(this, job);
    for (const stage of [run.dropSuperseded(), run.dropToolReads(), run.compact(), run.summarizeOldest(), run.dropByPriority()]) {
      if (run.fits()) break;
      yield* stage;
    }
    return run.r;
  }

  /** @internal */
  fittedReport(
    e: { key: string; firstTurn: number; artifact: Artifact },
    turn: number,
    pre: number,
    r: Rendered,
    fitted: { fromLine: number; toLine: number; totalLines: number; where: string },
  ): PruneReport {
    return {
      layer: e.firstTurn < turn ? 'L2' : 'L3',
      item: e.key,
      preTokens: pre,
      postTokens: this.requests.keyTokens(r, e.key),
      kept: `lines ${fitted.fromLine}-${fitted.toLine} of ${fitted.totalLines} (${fitted.where})`,
      lost: `the other lines of ${e.artifact.source.uri}: the model's context window is too small for all of it`,
      reason: 'fitted',
    };
  }

  /**
   * Cuts a file attached this turn to the lines that fit what is left of `target` (around a
   * selection the chat holds in it, else its first lines), as a compacted entry. Counted, then
   * checked on the rendered request and tightened by the difference (the block's own tags and a
   * different split of tokens at the seams), a few times at most. Undefined when nothing fits
   * (the file is then dropped as before); the entry is left as it was.
   */
  /** @internal */
  fit(
    s: ChatState,
    key: string,
    a: Artifact,
    r: Rendered,
    target: number,
    rerender: () => Rendered,
  ): { r: Rendered; fromLine: number; toLine: number; totalLines: number; where: string } | undefined {
    const entry = s.entries.get(key)!;
    const before = entry.compacted;
    const shown = before?.body ?? a.content;
    const overhead = Math.max(0, this.requests.keyTokens(r, key) - this.opts.tokenizer.count(shown));
    let room = target - (r.total - this.requests.keyTokens(r, key)) - overhead;
    const focus = this.selectionIn(s, a.source.uri);
    const recovery = this.opts.tools ? 'read_file' : 'attach';
    for (let attempt = 0; attempt < 4; attempt++) {
      const x = fitExcerpt(a, room, (t) => this.opts.tokenizer.count(t), focus, recovery);
      if (!x) break;
      writableEntry(s, key).compacted = {
        body: x.body,
        bodyHash: this.hasher.sha256Hex(x.body),
        keptLines: x.keptLines,
        totalLines: x.totalLines,
      };
      const next = rerender();
      const where = focus ? `around the selection at lines ${focus.startLine}-${focus.endLine}` : 'the first part';
      if (next.total <= target) return { r: next, fromLine: x.fromLine, toLine: x.toLine, totalLines: x.totalLines, where };
      room -= next.total - target;
    }
    const w = writableEntry(s, key);
    if (before) w.compacted = before;
    else delete w.compacted;
    rerender();
    return undefined;
  }

  /** The lines of the newest selection the chat sends from `uri`, if any (what the user is asking about). */
  private selectionIn(s: ChatState, uri: string): { startLine: number; endLine: number } | undefined {
    let found: { startLine: number; endLine: number } | undefined;
    for (const e of s.entries.values())
      if (e.presence === 'present' && e.artifact.kind === 'selection' && e.artifact.source.uri === uri && e.artifact.source.range)
        found = e.artifact.source.range;
    return found;
  }

  blockedMessage(r: Rendered, budget: number): BlockedTurn {
    const parts: string[] = [];
    let essential = 0;
    for (const d of renderedMessages(r)) {
      essential += this.framing.of(d);
      for (const g of d.segs) {
        essential += g.tokens;
        if (g.layer === 'L1') parts.push(`system prompt and instructions (${g.tokens})`);
        else if (g.layer === 'L5') parts.push(`your message (${g.tokens})`);
        else if (g.artifactKey) parts.push(`${g.artifactKey} (${g.tokens}${g.kind === 'artifact' ? ', pinned' : ''})`);
        else if (g.kind === 'user-text' || g.kind === 'reply')
          parts.push(`last turn ${g.kind === 'reply' ? 'reply' : 'message'} (${g.tokens})`);
        else parts.push(`${g.id} (${g.tokens})`);
      }
    }
    const over = essential - budget;
    return {
      essentialTokens: essential,
      budget,
      message: `Nothing was sent: what must be kept needs ${essential} tokens, ${over} over the budget of ${budget}. Kept: ${[...new Set(parts)].join(', ')}. Unpin something, shorten your message, or pick a model with a larger context window.`,
    };
  }

  /**
   * The structure + preview of an artifact, with its hash: memoized per artifact (they
   * are immutable), since a chat over budget compacts the same files at every build of the meter
   * until a turn is sent.
   */
  /** @internal */
  preview(a: Artifact): Preview & { bodyHash: string } {
    const recovery = this.opts.tools ? 'read_file' : 'attach';
    const hit = this.previews.get(a);
    if (hit && hit.recovery === recovery) return hit.preview;
    const p = buildPreview(a, { recovery });
    const preview = { ...p, bodyHash: this.hasher.sha256Hex(p.body) };
    this.previews.set(a, { recovery, preview });
    return preview;
  }

  /** @internal */
  turnTokens(r: Rendered, from: number, to: number): number {
    let n = 0;
    for (const d of renderedMessages(r))
      for (const g of d.segs) if (g.turn !== undefined && g.turn >= from && g.turn <= to && g.layer === 'L4') n += g.tokens;
    return n;
  }
}

/** What one prune works on: the request being built and the owners of its history and attachments. */
export interface PruneJob {
  s: ChatState;
  turn: number;
  items: TurnItem[];
  input: TurnInput;
  start: Rendered;
  target: number;
  /** Each cut, in order (the caller's list, added to). */
  reports: PruneReport[];
  history: HistoryManager;
  attachments: AttachmentManager;
}

type PresentEntry = ReturnType<AttachmentManager['present']>[number];

/**
 * One prune: the request as cut so far and the stages that cut it, in order. Each stage stops as
 * soon as the request fits and yields after each cut.
 */
class PruneRun {
  r: Rendered;
  private readonly currentKeys: Set<string>;

  constructor(
    private readonly pruner: Pruner,
    private readonly job: PruneJob,
  ) {
    this.r = job.start;
    this.currentKeys = new Set(job.items.map((i) => i.key));
  }

  fits(): boolean {
    return this.r.total <= this.job.target;
  }

  private rerender = (): Rendered => {
    const { s, turn, items, input } = this.job;
    return (this.r = this.pruner.requests.render(s, turn, items, input.userText));
  };

  private layerOf(e: { firstTurn: number }): 'L2' | 'L3' {
    return e.firstTurn < this.job.turn ? 'L2' : 'L3';
  }

  /** Applies `cut` to attachment `e`, renders again and reports it (the tokens before and after). */
  private cutEntry(e: PresentEntry, cut: () => void, report: Pick<PruneReport, 'kept' | 'lost' | 'reason'>): void {
    const pre = this.pruner.requests.keyTokens(this.r, e.key);
    cut();
    this.rerender();
    this.job.reports.push({
      layer: this.layerOf(e),
      item: e.key,
      preTokens: pre,
      postTokens: this.pruner.requests.keyTokens(this.r, e.key),
      ...report,
    });
  }

  private pruneEntry(e: PresentEntry): () => void {
    return () => (writableEntry(this.job.s, e.key).presence = 'pruned');
  }

  /** 1. Superseded versions, oldest first. */
  *dropSuperseded(): Step<void> {
    for (const e of this.job.attachments.present()) {
      if (this.fits()) return;
      if (!e.superseded || e.essential) continue;
      this.cutEntry(e, this.pruneEntry(e), {
        kept: `the newer version of ${e.artifact.source.uri}`,
        lost: `superseded version ${e.artifact.version}`,
        reason: 'superseded',
      });
      yield;
    }
  }

  /** 1b. What workspace tools read, oldest first (the model can read it again): before anything the user attached is cut. */
  *dropToolReads(): Step<void> {
    for (const e of this.job.attachments.present()) {
      if (this.fits()) return;
      if (e.tool === undefined || e.essential || this.currentKeys.has(e.key)) continue;
      this.cutEntry(e, this.pruneEntry(e), {
        kept: `nothing; the model can call ${e.tool} again`,
        lost: `${describeArtifact(e.artifact)} (read by ${e.tool})`,
        reason: 'tool-result',
      });
      yield;
    }
  }

  /** 2. Recoverable artifacts compacted to structure + preview: the library first (oldest first), this turn's last. */
  *compact(): Step<void> {
    const compactable = this.job.attachments.present().filter((e) => e.artifact.recoverable && !e.essential && !e.compacted);
    const ordered = [...compactable.filter((e) => !this.currentKeys.has(e.key)), ...compactable.filter((e) => this.currentKeys.has(e.key))];
    for (const e of ordered) {
      if (this.fits()) return;
      const preview = this.pruner.preview(e.artifact);
      if (preview.body.length >= e.artifact.content.length) continue;
      const compacted = { body: preview.body, bodyHash: preview.bodyHash, keptLines: preview.keptLines, totalLines: preview.totalLines };
      this.cutEntry(e, () => (writableEntry(this.job.s, e.key).compacted = compacted), {
        kept: `structure and first lines (${preview.keptLines} of ${preview.totalLines} lines)`,
        lost: `the rest of ${e.artifact.source.uri}; ${this.pruner.opts.tools ? 'the model can read it with read_file, or ' : ''}re-attach it to send it in full`,
        reason: 'compacted',
      });
      yield;
    }
  }

  /** History turns `summarizedThrough + 1`..`through` summarized and reported; false when nothing changed. */
  private summarizeThrough(through: number, reason: string): boolean {
    const { history, input } = this.job;
    const from = history.summarizedThrough + 1;
    if (through < from) return false;
    const pre = this.pruner.turnTokens(this.r, from, through);
    if (!history.summarizeThrough(through, input.precomputedSummary)) return false;
    this.rerender();
    this.job.reports.push(this.summaryReport(from, through, pre, reason));
    return true;
  }

  private summaryReport(from: number, through: number, pre: number, reason: string): PruneReport {
    return {
      layer: 'L4',
      item: from === through ? `turn ${from}` : `turns ${from}-${through}`,
      preTokens: pre,
      postTokens: 0,
      kept: `a summary of turns 1-${through}`,
      lost: 'the verbatim text of those turns',
      reason,
    };
  }

  /**
   * 3. The oldest history turns summarized; the last K stay verbatim. One turn at a time while a few
   * are enough (a chat that grows past the threshold); when far over (a long chat opened with a model
   * that has a smaller window), the fewest turns that fit are found by galloping and bisecting, so the
   * cost is a few summaries and renders, not one per turn.
   */
  *summarizeOldest(): Step<void> {
    const { history } = this.job;
    const linear = this.pruner.opts.summaryLinearSteps ?? LINEAR_SUMMARY_STEPS;
    for (let step = 0; !this.fits() && history.summarizedThrough < history.lastSummarizable; step++) {
      if (step >= linear) return yield* this.summarizeFewestThatFit(linear);
      this.summarizeThrough(history.summarizedThrough + 1, 'summarized');
      yield;
    }
  }

  private *summarizeFewestThatFit(linear: number): Step<void> {
    const { s, history, input, target } = this.job;
    const from = history.summarizedThrough + 1;
    const last = history.lastSummarizable;
    const before = this.r;
    const saved = s.summary;
    const probe = (through: number): boolean => {
      s.summary = saved;
      history.summarizeThrough(through, input.precomputedSummary);
      this.rerender();
      return this.r.total <= target;
    };
    let over = from - 1;
    let fits = last;
    // Far over: when even the longest summary leaves the request over the target, that is where the
    // bisection would end; found with one probe.
    if (!probe(last)) over = last - 1;
    yield;
    for (let gap = Math.max(1, linear); over + gap < last; gap *= 2) {
      const fitted = probe(over + gap);
      yield;
      if (fitted) {
        fits = over + gap;
        break;
      }
      over += gap;
    }
    while (fits - over > 1) {
      const mid = over + Math.floor((fits - over) / 2);
      if (probe(mid)) fits = mid;
      else over = mid;
      yield;
    }
    probe(fits);
    this.job.reports.push(this.summaryReport(from, fits, this.pruner.turnTokens(before, from, fits), 'summarized'));
  }

  /**
   * 4. Drops by priority: highest number first, ties oldest first. Verbatim history turns (but the
   * last) take part at medium priority; pinned items, L1, L5 and the last turn never do. A file
   * attached this turn is cut to the part that fits what is left before it is dropped: the question
   * is about it.
   */
  *dropByPriority(): Step<void> {
    const { attachments, history } = this.job;
    type Candidate = { priority: number; age: number; seq: number; apply: () => void };
    const candidates: Candidate[] = [];
    let seq = 0;
    for (const e of attachments.dropOrder())
      candidates.push({ priority: attachments.effectivePriority(e), age: e.firstTurn, seq: seq++, apply: () => this.dropOrFit(e) });
    for (let t = history.summarizedThrough + 1; t < history.completed; t++) {
      const through = t;
      candidates.push({
        priority: PRIORITY.medium,
        age: t,
        seq: seq++,
        apply: () => {
          if (history.summarizedThrough < through) this.summarizeThrough(through, 'budget');
        },
      });
    }
    candidates.sort((a, b) => b.priority - a.priority || a.age - b.age || a.seq - b.seq);
    for (const c of candidates) {
      if (this.fits()) return;
      c.apply();
      yield;
    }
  }

  private dropOrFit(e: PresentEntry): void {
    const { s, turn, target } = this.job;
    if (s.entries.get(e.key)!.presence !== 'present') return;
    if (this.currentKeys.has(e.key) && e.artifact.kind === 'file' && e.artifact.recoverable) {
      const pre = this.pruner.requests.keyTokens(this.r, e.key);
      const fitted = this.pruner.fit(s, e.key, e.artifact, this.r, target, this.rerender);
      if (fitted) {
        this.r = fitted.r;
        this.job.reports.push(this.pruner.fittedReport(e, turn, pre, this.r, fitted));
        return;
      }
    }
    this.cutEntry(e, this.pruneEntry(e), {
      kept: 'nothing; re-attach it to send it again',
      lost: e.artifact.recoverable
        ? `${describeArtifact(e.artifact)}`
        : `${describeArtifact(e.artifact)} (a snapshot that cannot be re-read)`,
      reason: 'budget',
    });
  }
}
