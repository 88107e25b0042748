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
    private opts: EngineOptions,
    private readonly hasher: IHasher,
    private readonly requests: RequestRenderer,
    private readonly framing: MessageFraming,
  ) {}

  /** The options changed (a preview's recovery hint is part of its memo key). */
  reset(opts: EngineOptions): void {
    this.opts = opts;
  }

  /**
   * The request cut down to `target` tokens (or as far as it goes), each cut reported in `reports`.
   * A step after each cut: a long chat cut to a smaller window makes many, and a driver that gives
   * the event loop a turn between them gets the same request as one that does not.
   */
  *prune(
    s: ChatState,
    turn: number,
    items: TurnItem[],
    input: TurnInput,
    start: Rendered,
    target: number,
    reports: PruneReport[],
    history: HistoryManager,
    attachments: AttachmentManager,
  ): Step<Rendered> {
    let r = start;
    const rerender = () => (r = this.requests.render(s, turn, items, input.userText));
    const currentKeys = new Set(items.map((i) => i.key));

    // 1. Superseded versions, oldest first.
    for (const e of attachments.present()) {
      if (r.total <= target) return r;
      if (!e.superseded || e.essential) continue;
      const pre = this.requests.keyTokens(r, e.key);
      writableEntry(s, e.key).presence = 'pruned';
      rerender();
      reports.push({
        layer: e.firstTurn < turn ? 'L2' : 'L3',
        item: e.key,
        preTokens: pre,
        postTokens: this.requests.keyTokens(r, e.key),
        kept: `the newer version of ${e.artifact.source.uri}`,
        lost: `superseded version ${e.artifact.version}`,
        reason: 'superseded',
      });
      yield;
    }

    // 1b. What workspace tools read, oldest first: the model can read it again. Before
    //     anything the user attached is compacted or dropped.
    for (const e of attachments.present()) {
      if (r.total <= target) return r;
      if (e.tool === undefined || e.essential || currentKeys.has(e.key)) continue;
      const pre = this.requests.keyTokens(r, e.key);
      writableEntry(s, e.key).presence = 'pruned';
      rerender();
      reports.push({
        layer: e.firstTurn < turn ? 'L2' : 'L3',
        item: e.key,
        preTokens: pre,
        postTokens: this.requests.keyTokens(r, e.key),
        kept: `nothing; the model can call ${e.tool} again`,
        lost: `${describeArtifact(e.artifact)} (read by ${e.tool})`,
        reason: 'tool-result',
      });
      yield;
    }

    // 2. Compact recoverable artifacts to structure + preview: the library first (oldest first), this turn's last.
    const compactable = attachments.present().filter((e) => e.artifact.recoverable && !e.essential && !e.compacted);
    const ordered = [...compactable.filter((e) => !currentKeys.has(e.key)), ...compactable.filter((e) => currentKeys.has(e.key))];
    for (const e of ordered) {
      if (r.total <= target) return r;
      const preview = this.preview(e.artifact);
      if (preview.body.length >= e.artifact.content.length) continue;
      const pre = this.requests.keyTokens(r, e.key);
      writableEntry(s, e.key).compacted = {
        body: preview.body,
        bodyHash: preview.bodyHash,
        keptLines: preview.keptLines,
        totalLines: preview.totalLines,
      };
      rerender();
      reports.push({
        layer: e.firstTurn < turn ? 'L2' : 'L3',
        item: e.key,
        preTokens: pre,
        postTokens: this.requests.keyTokens(r, e.key),
        kept: `structure and first lines (${preview.keptLines} of ${preview.totalLines} lines)`,
        lost: `the rest of ${e.artifact.source.uri}; ${this.opts.tools ? 'the model can read it with read_file, or ' : ''}re-attach it to send it in full`,
        reason: 'compacted',
      });
      yield;
    }

    // 3. Summarize the oldest history turns; the last K stay verbatim.
    const summarizeThrough = (through: number, reason: string): boolean => {
      const from = history.summarizedThrough + 1;
      if (through < from) return false;
      const pre = this.turnTokens(r, from, through);
      if (!history.summarizeThrough(through, input.precomputedSummary)) return false;
      rerender();
      reports.push({
        layer: 'L4',
        item: from === through ? `turn ${from}` : `turns ${from}-${through}`,
        preTokens: pre,
        postTokens: 0,
        kept: `a summary of turns 1-${through}`,
        lost: 'the verbatim text of those turns',
        reason,
      });
      return true;
    };
    // One turn at a time while a few are enough (a chat that grows past the threshold); when far over
    // (a long chat opened with a model that has a smaller window), the fewest turns that fit are found
    // by galloping and bisecting, so the cost is a few summaries and renders, not one per turn.
    for (let step = 0; r.total > target && history.summarizedThrough < history.lastSummarizable; step++) {
      if (step < (this.opts.summaryLinearSteps ?? LINEAR_SUMMARY_STEPS)) {
        summarizeThrough(history.summarizedThrough + 1, 'summarized');
        yield;
        continue;
      }
      const from = history.summarizedThrough + 1;
      const last = history.lastSummarizable;
      const before = r;
      const saved = s.summary;
      const probe = (through: number): boolean => {
        s.summary = saved;
        history.summarizeThrough(through, input.precomputedSummary);
        rerender();
        return r.total <= target;
      };
      let over = from - 1;
      let fits = last;
      // Far over (a long chat under a smaller window): when even the longest summary leaves the request
      // over the target, that is where the bisection would end; found with one probe.
      if (!probe(last)) over = last - 1;
      yield;
      for (let gap = Math.max(1, this.opts.summaryLinearSteps ?? LINEAR_SUMMARY_STEPS); over + gap < last; gap *= 2) {
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
      reports.push({
        layer: 'L4',
        item: from === fits ? `turn ${from}` : `turns ${from}-${fits}`,
        preTokens: this.turnTokens(before, from, fits),
        postTokens: 0,
        kept: `a summary of turns 1-${fits}`,
        lost: 'the verbatim text of those turns',
        reason: 'summarized',
      });
      break;
    }

    // 4. Drop by priority: highest number first, ties oldest first. Verbatim history turns (but the
    //    last) take part at medium priority; pinned items, L1, L5 and the last turn never do. A file
    //    attached this turn is cut to the part that fits what is left before it is dropped: the
    //    question is about it.
    type Candidate = { priority: number; age: number; seq: number; apply: () => void };
    const candidates: Candidate[] = [];
    let seq = 0;
    for (const e of attachments.dropOrder()) {
      const priority = attachments.effectivePriority(e);
      candidates.push({
        priority,
        age: e.firstTurn,
        seq: seq++,
        apply: () => {
          if (s.entries.get(e.key)!.presence !== 'present') return;
          const pre = this.requests.keyTokens(r, e.key);
          if (currentKeys.has(e.key) && e.artifact.kind === 'file' && e.artifact.recoverable) {
            const fitted = this.fit(s, e.key, e.artifact, r, target, rerender);
            if (fitted) {
              r = fitted.r;
              reports.push(this.fittedReport(e, turn, pre, r, fitted));
              return;
            }
          }
          writableEntry(s, e.key).presence = 'pruned';
          rerender();
          reports.push({
            layer: e.firstTurn < turn ? 'L2' : 'L3',
            item: e.key,
            preTokens: pre,
            postTokens: this.requests.keyTokens(r, e.key),
            kept: 'nothing; re-attach it to send it again',
            lost: e.artifact.recoverable
              ? `${describeArtifact(e.artifact)}`
              : `${describeArtifact(e.artifact)} (a snapshot that cannot be re-read)`,
            reason: 'budget',
          });
        },
      });
    }
    for (let t = history.summarizedThrough + 1; t < history.completed; t++) {
      const through = t;
      candidates.push({
        priority: PRIORITY.medium,
        age: t,
        seq: seq++,
        apply: () => {
          if (history.summarizedThrough < through) summarizeThrough(through, 'budget');
        },
      });
    }
    candidates.sort((a, b) => b.priority - a.priority || a.age - b.age || a.seq - b.seq);
    for (const c of candidates) {
      if (r.total <= target) return r;
      c.apply();
      yield;
    }
    return r;
  }

  private fittedReport(
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
  private fit(
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
  private preview(a: Artifact): Preview & { bodyHash: string } {
    const recovery = this.opts.tools ? 'read_file' : 'attach';
    const hit = this.previews.get(a);
    if (hit && hit.recovery === recovery) return hit.preview;
    const p = buildPreview(a, { recovery });
    const preview = { ...p, bodyHash: this.hasher.sha256Hex(p.body) };
    this.previews.set(a, { recovery, preview });
    return preview;
  }

  private turnTokens(r: Rendered, from: number, to: number): number {
    let n = 0;
    for (const d of renderedMessages(r))
      for (const g of d.segs) if (g.turn !== undefined && g.turn >= from && g.turn <= to && g.layer === 'L4') n += g.tokens;
    return n;
  }
}
