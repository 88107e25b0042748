import type { EntryState, StepResult, ToolStepRecord, TurnItem, ChatState } from './state';
import type { LayerId, Role, Segment, SegmentKind } from './types';
import type { EngineOptions } from './turnTypes';
import type { Draft } from './assembly';
import type { TextHashes } from './textHashes';
import { versionKey } from './artifacts';
import {
  closingMarker,
  escapeAttribute,
  renderDerivedBlock,
  renderReference,
  renderStub,
  renderToolReference,
  sharedFullBlock,
  toolCallsJson,
  type StubReason,
} from './render';
import { unifiedDiff } from './diff';

/** Texts longer than this are counted with their (memoized) sha256 as the tokenizer's memo key. */
const LONG_TEXT = 4096;

const REF_PREFIX = 'ref:';

/**
 * Segments and their texts: the block that stands for an entry (full, compacted preview, diff), the
 * system message's own segments, a turn's items and tool steps. Owns the memos of texts and token
 * counts, and the segments kept as the same object from one request to the next.
 */
export class SegmentRenderer {
  /** Token counts by text: block texts are memoized strings, so lookups hit V8's cached string hash. */
  private readonly tokenCounts = new Map<string, number>();
  /** Derived blocks (compacted previews, diffs) by entry and content. */
  private readonly derivedBlocks = new Map<string, string>();
  /** Segments that stand for the same thing from one request to the next (system, library blocks, summary). */
  private readonly stableSegments = new Map<string, Segment>();
  private systemMemo: { opts: EngineOptions; segs: Segment[] } | undefined;
  private summaryMemo: { text: string; through: number; segment: Segment } | undefined;
  private toolStepsRendered = false;

  constructor(
    private opts: EngineOptions,
    private readonly hashes: TextHashes,
  ) {}

  /** The options changed: what was rendered under the old ones is forgotten. */
  reset(opts: EngineOptions): void {
    this.opts = opts;
    this.derivedBlocks.clear();
    this.stableSegments.clear();
    this.systemMemo = undefined;
    this.summaryMemo = undefined;
  }

  /** A request of this engine carried tool steps: cache breakpoints are then counted over blocks (tool calls are not blocks). */
  get toolStepsSeen(): boolean {
    return this.toolStepsRendered;
  }

  segment(layer: LayerId, kind: SegmentKind, role: Role, id: string, text: string, extra?: Partial<Segment>): Segment {
    let tokens = this.tokenCounts.get(text);
    if (tokens === undefined) {
      // A long text's hash is needed anyway (block signature, layer chains: memoized); the tokenizer
      // keys its memo by it rather than hashing the text once more.
      tokens = text.length > LONG_TEXT ? this.opts.tokenizer.count(text, this.hashes.hash(text)) : this.opts.tokenizer.count(text);
      if (this.tokenCounts.size > 100_000) this.tokenCounts.clear();
      this.tokenCounts.set(text, tokens);
    }
    return { id, layer, kind, role, text, tokens, ...extra };
  }

  /**
   * A segment memoized by `slot`: the same object while it stands for the same text, so what is
   * computed per segment object (hash chains, signatures, ledger items) is reused across requests.
   */
  stableSegment(slot: string, layer: LayerId, kind: SegmentKind, role: Role, id: string, text: string, extra?: Partial<Segment>): Segment {
    const hit = this.stableSegments.get(slot);
    if (hit && hit.text === text && hit.kind === kind && hit.layer === layer && hit.id === id && hit.artifactKey === extra?.artifactKey)
      return hit;
    const g = this.segment(layer, kind, role, id, text, extra);
    this.stableSegments.set(slot, g);
    return g;
  }

  entryTokens(e: EntryState): number {
    return this.opts.tokenizer.count(this.entryBlock(e));
  }

  /** The block text that stands for a present entry: full, compacted preview, or diff. */
  entryBlock(e: EntryState): string {
    if (e.compacted) {
      const memoKey = `c\u0000${e.key}\u0000${e.compacted.bodyHash}`;
      let text = this.derivedBlocks.get(memoKey);
      if (text === undefined) {
        text = renderDerivedBlock(
          e.artifact,
          'preview',
          e.compacted.body,
          ` kept-lines="${e.compacted.keptLines}" total-lines="${e.compacted.totalLines}"`,
          e.compacted.bodyHash,
        );
        this.derivedBlocks.set(memoKey, text);
      }
      return text;
    }
    return sharedFullBlock(e.artifact);
  }

  /** The block for a version first sent in a turn under `append-diff`: a diff when smaller. */
  private firstSendBlock(s: ChatState, e: EntryState): string {
    if (this.opts.policy !== 'append-diff' || e.artifact.kind !== 'file' || e.artifact.version === 1 || e.compacted)
      return this.entryBlock(e);
    // Only against a base this request carries (not cut, not compacted); once the base is cut, the
    // block is sent in full again.
    const prevKey = versionKey(e.artifact.id, e.artifact.version - 1);
    const prev = s.entries.get(prevKey);
    const baseOk = !!prev && prev.presence === 'present' && !prev.compacted;
    if (!baseOk) return this.entryBlock(e);
    const memoKey = `d\u0000${e.key}\u0000${e.artifact.contentHash}\u0000${prev.artifact.contentHash}`;
    let text = this.derivedBlocks.get(memoKey);
    if (text === undefined) {
      const full = this.entryBlock(e);
      text = full;
      if (prev.artifact.contentHash !== e.artifact.contentHash) {
        const diff = unifiedDiff(prev.artifact.content, e.artifact.content, prev.artifact.source.uri, prevKey, e.key);
        if (diff.length < e.artifact.content.length) {
          const bodyHash = this.hashes.hasher.sha256Hex(diff);
          const candidate = renderDerivedBlock(e.artifact, 'diff', diff, ` base-version="${prev.artifact.version}"`, bodyHash);
          if (candidate.length < full.length) text = candidate;
        }
      }
      this.derivedBlocks.set(memoKey, text);
    }
    return text;
  }

  /** The system prompt and instruction segments (a fresh array the caller may extend). */
  systemSegments(): Segment[] {
    if (this.systemMemo?.opts === this.opts) return this.systemMemo.segs.slice();
    const segs = [this.segment('L1', 'system', 'system', 'system', this.opts.system)];
    (this.opts.instructions ?? []).forEach((ins, i) => {
      const hash = this.hashes.hasher.sha256Hex(ins.text);
      const text = `\n<instructions source="${escapeAttribute(ins.source)}">\n${ins.text}\n${closingMarker('instructions', ins.text, hash)}\n`;
      segs.push(this.segment('L1', 'instructions', 'system', `instructions:${i}:${ins.source}`, text));
    });
    this.systemMemo = { opts: this.opts, segs };
    return segs.slice();
  }

  summarySegment(s: ChatState): Segment | undefined {
    if (!s.summary) return undefined;
    const memo = this.summaryMemo;
    if (memo && memo.text === s.summary.text && memo.through === s.summary.throughTurn) return memo.segment;
    const hash = this.hashes.hash(s.summary.text);
    const marker = closingMarker('conversation-summary', s.summary.text, hash);
    const text = `\n<conversation-summary turns="1-${s.summary.throughTurn}" sha="${marker.slice(marker.indexOf(':') + 1, -1)}">\n${s.summary.text}\n${marker}\n`;
    const segment = this.stableSegment('summary', 'L4', 'summary', 'system', 'summary', text);
    this.summaryMemo = { text: s.summary.text, through: s.summary.throughTurn, segment };
    return segment;
  }

  /** An L2 block in the system message (library, or the transcript's rebuilt opening). */
  systemBlock(k: string, e: EntryState): Segment {
    return this.stableSegment(`L2\u0000${k}`, 'L2', e.compacted ? 'compacted' : 'artifact', 'system', k, this.entryBlock(e), {
      artifactKey: k,
    });
  }

  /** The segment for a past or current item, given what is present in this request. */
  itemSegment(
    s: ChatState,
    item: TurnItem,
    layerFull: LayerId,
    layerOther: LayerId,
    role: Role,
    idPrefix: string,
    turn: number,
    firstSend: boolean,
  ): Segment {
    const e = s.entries.get(item.key)!;
    const a = e.artifact;
    if (item.mode === 'missing') {
      return this.segment(
        layerOther,
        'stub',
        role,
        `${idPrefix}missing:${item.key}`,
        `<deleted id="${escapeAttribute(a.id)}" version="${a.version}"/> (the file was deleted; its last snapshot stays in this conversation)\n`,
        { artifactKey: item.key, turn },
      );
    }
    if (e.presence !== 'present') {
      return this.segment(layerOther, 'stub', role, `${idPrefix}${item.key}`, renderStub(a, stubReason(e)), {
        artifactKey: item.key,
        turn,
      });
    }
    if (item.mode === 'reference') {
      return this.segment(layerOther, 'reference', role, `${idPrefix}${REF_PREFIX}${item.key}`, renderReference(a), {
        artifactKey: item.key,
        turn,
      });
    }
    const text = firstSend ? this.firstSendBlock(s, e) : this.entryBlock(e);
    return this.segment(layerFull, e.compacted ? 'compacted' : 'artifact', role, item.key, text, { artifactKey: item.key, turn });
  }

  /**
   * A tool step's messages: the assistant message (what the model said, then its calls) and one
   * tool message per call (what the tool read — a block, or a reference to a block the request
   * carries — then a note). The same bytes when the turn is sent and when it is history
   * (transcript), unless something it shows was cut since.
   */
  toolStepMessages(
    s: ChatState,
    step: ToolStepRecord,
    k: number,
    turn: number,
    layerFull: LayerId,
    layerOther: LayerId,
    idPrefix = `t${turn}:`,
  ): Draft[] {
    this.toolStepsRendered = true;
    const prefix = `${idPrefix}s${k}:`;
    const names = [...new Set(step.calls.map((c) => c.name))].join(',');
    const said: Segment[] = [];
    if (step.text.length > 0)
      said.push(this.segment(layerOther, 'step-text', 'assistant', `${prefix}text`, step.text, { turn, tool: names }));
    said.push(
      this.segment(layerOther, 'tool-call', 'assistant', `${prefix}calls`, toolCallsJson(step.calls), {
        turn,
        toolCalls: step.calls,
        tool: names,
      }),
    );
    const drafts: Draft[] = [{ role: 'assistant', framingLayer: layerOther, segs: said }];
    for (const r of step.results) {
      const segs: Segment[] = r.items.map((i) => this.toolItemSegment(s, i, r, layerFull, layerOther, `${prefix}${r.callId}:`, turn));
      if (r.note !== undefined)
        segs.push(this.segment(layerOther, 'tool-note', 'tool', `${prefix}${r.callId}:note`, r.note, { turn, tool: r.tool }));
      drafts.push({ role: 'tool', framingLayer: layerOther, segs, toolCallId: r.callId });
    }
    return drafts;
  }

  /** What a tool result shows of an artifact: its block, a reference to a block in the request, or a stub once cut. */
  private toolItemSegment(
    s: ChatState,
    item: TurnItem,
    r: StepResult,
    layerFull: LayerId,
    layerOther: LayerId,
    idPrefix: string,
    turn: number,
  ): Segment {
    const e = s.entries.get(item.key)!;
    const a = e.artifact;
    const extra = { artifactKey: item.key, turn, tool: r.tool };
    if (e.presence !== 'present')
      return this.segment(layerOther, 'stub', 'tool', `${idPrefix}${item.key}`, renderStub(a, stubReason(e)), extra);
    if (item.mode === 'reference')
      return this.segment(layerOther, 'reference', 'tool', `${idPrefix}${REF_PREFIX}${item.key}`, renderToolReference(a, r.range), extra);
    return this.segment(layerFull, e.compacted ? 'compacted' : 'artifact', 'tool', item.key, this.entryBlock(e), extra);
  }
}

/** How a cut block left, for its stub's wording (fixed by how it left, never by later state). */
function stubReason(e: EntryState): StubReason {
  if (e.presence === 'detached') return e.withdrawn ?? 'detached';
  return e.tool !== undefined ? 'pruned-tool' : 'pruned';
}

/** What the user typed, as sent: providers reject empty text blocks. */
export function displayText(text: string): string {
  return text.length > 0 ? text : '(empty message)';
}
