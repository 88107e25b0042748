import type { ChatMessage, Layer, LedgerItem, LedgerLayer, PruneReport, Role, Segment, TextBlock } from './types';
import type { ChatState } from './state';
import type { Rejection } from './isolation';
import type { BlockedTurn, EngineOptions, TurnEnvelope } from './turnTypes';
import type { MessageFraming } from './messageFraming';
import type { Ledger } from './ledger';
import type { PastTurnCache } from './pastTurns';
import type { Rendered } from './requestRenderer';
import type { SegmentRenderer } from './segmentRenderer';
import type { TextHashes } from './textHashes';
import { LAYER_IDS } from './types';
import { computeBudget } from './budget';
import { hashChainStep } from './invariants';
import { LAYER_LABELS } from './ledger';
import { draftMessage, LAYER_INDEX, RequestAssembler, type AssemblyHooks, type Draft } from './assembly';

/**
 * Turns a rendered request into its envelope: layers, hashes, ledger, provider messages and the
 * cache prediction (through the request assembler, carried from one request to the next); and the
 * envelope after a tool step, which continues the previous one.
 */
export class EnvelopeBuilder {
  private readonly assembler = new RequestAssembler();
  private readonly layerChain = new WeakMap<Segment, { prev: string; h: string }>();
  /**
   * Block signatures of the pending request; they become `previousBlocks` when it completes. Made
   * when first needed (a build the meter abandons never needs them): see `Assembled.sigs`.
   */
  private pendingSigs: string[] | (() => string[]) = [];

  constructor(
    private opts: EngineOptions,
    private readonly hashes: TextHashes,
    private readonly framing: MessageFraming,
    private readonly segments: SegmentRenderer,
    private readonly pastTurns: PastTurnCache,
    private readonly ledger: Ledger,
  ) {}

  /** The options changed: the next request is assembled from scratch. */
  reset(opts: EngineOptions): void {
    this.opts = opts;
    this.assembler.reset();
  }

  /** The pending request is dropped: it leaves no block signatures. */
  forgetPending(): void {
    this.pendingSigs = [];
  }

  /** The envelope of a built turn's first request; its block signatures become the pending ones. */
  turnEnvelope(
    s: ChatState,
    turn: number,
    r: Rendered,
    reports: PruneReport[],
    rejections: Rejection[],
    blocked: BlockedTurn | undefined,
  ): TurnEnvelope {
    const layout = this.opts.layout;
    const emptyHash = this.hashes.emptyHash;
    const hooks: AssemblyHooks = {
      // The assembler keeps each step's value with the segment's position: no per-segment memo here.
      textHash: (seg) => this.hashes.hash(seg.text),
      chain: (prev, id, textHash) => hashChainStep(prev, id, textHash, this.hashes.baseHasher),
      framing: (d) => this.framing.of(d),
      item: (seg, cached) => this.ledger.item(s, seg, cached),
      emptyHash,
    };
    const changedKeys = this.ledger.updateStamps(s);
    const a = this.assembler.assemble(
      {
        layout,
        system: r.system,
        past: r.past,
        pastUnchanged: this.pastTurns.unchangedMessages,
        current: r.current,
        previousBlocks: s.previousBlocks,
        lastTurn: s.completedTurns,
        changedKeys,
      },
      hooks,
    );
    this.pastTurns.assembled(r.past.length);

    // Engine cache prediction: blocks equal (role, text) to the previous request's, in place.
    const prev = s.previousBlocks;
    this.pendingSigs = a.sigs;
    // Transcript promises a pure append of the previous request; library re-renders the previous
    // user message as history, so only what came before it must stay.
    const prefixBreak = prev.length > 0 && a.common < (layout === 'transcript' ? prev.length : lastStableCount(prev));
    let prefixBreakReason: string | undefined;
    if (prefixBreak) {
      const g = a.segmentAt(a.common);
      prefixBreakReason = g ? `changed at ${g.layer} ${g.id}` : 'request shorter than the previous one';
    }

    const layers: Layer[] = LAYER_IDS.map((id, l) => ({ id, segments: a.segments[l], tokens: a.tokens[l], hash: a.hashes[l] }));
    const total = a.tokens.reduce((n, x) => n + x, 0);
    const prefixHash = layout === 'library' ? this.hashes.hasher.sha256Hex(`${layers[0].hash}\n${layers[1].hash}`) : a.transcriptPrefix;

    const newBlocks: string[] = [];
    for (const g of r.current.segs)
      if ((g.kind === 'artifact' || g.kind === 'compacted') && g.artifactKey && s.entries.get(g.artifactKey)!.firstTurn === turn)
        newBlocks.push(g.artifactKey);

    // Pruned and detached items stay visible (greyed) with their reason, after L2's framing line.
    const cut = this.ledger.cutItems(s, a, reports, changedKeys);
    const ledgerLayers: LedgerLayer[] = LAYER_IDS.map((id, l) => {
      const framing = a.framing[l];
      const tail: LedgerItem[] =
        framing > 0 ? [{ id: 'framing', label: 'message framing', tokens: framing, status: 'full', cached: false, recoverable: true }] : [];
      return { id, label: LAYER_LABELS[id], tokens: a.tokens[l], items: a.itemsOf(l, l === 1 ? tail.concat(cut) : tail) };
    });

    const budget = computeBudget(this.opts.limits);
    const env: TurnEnvelope = {
      conversationId: this.opts.conversationId,
      turn,
      layout,
      layers,
      messages: blocked ? [] : a.messages,
      cacheBreakpoints: blocked ? [] : this.segments.toolStepsSeen ? flaggedBlocks(a.messages) : a.cacheBreakpoints,
      prefixHash,
      ledger: {
        conversationId: this.opts.conversationId,
        turn,
        layout,
        totalTokens: total,
        budget,
        cachedTokens: a.cachedBlocks ? a.prefixTokens : 0,
        layers: ledgerLayers,
        pruned: reports,
      },
      pruned: reports,
      totalTokens: total,
      budget,
      rejections,
      blocked,
      prefixBreak,
      prefixBreakReason,
      newBlocks,
    };
    return env;
  }

  /**
   * The request after a tool step: the previous one with `drafts` appended. Layers, hashes, the
   * ledger and the cache prediction continue from it (everything it sent is a prefix of this one);
   * cache breakpoints: the turn's first two (end of the system message, end of the previous turn's
   * request), the end of the previous request, and the last block.
   */
  toolStepEnvelope(s: ChatState, first: TurnEnvelope, prev: TurnEnvelope, drafts: Draft[], reports: PruneReport[]): TurnEnvelope {
    this.ledger.updateStamps(s);
    const layerSegs = prev.layers.map((l) => l.segments.slice());
    const layerTokens = prev.layers.map((l) => l.tokens);
    const hashes = prev.layers.map((l) => l.hash);
    // The previous request is a prefix of this one, token for token (its messages' framing
    // included): what a provider's cache serves of it is all of its prompt tokens.
    const prefixTokens = prev.totalTokens;
    const cached = prefixTokens >= 1024;
    const prevCount = layerSegs.map((segs) => segs.length);
    const framing = prev.ledger.layers.map((l) => l.items.find((i) => i.id === 'framing')?.tokens ?? 0);
    let added = 0;
    const sigs = this.pendingSignatures().slice();
    const newBlocks: string[] = [];
    for (const d of drafts) {
      const fl = LAYER_INDEX[d.framingLayer];
      const f = this.framing.of(d);
      framing[fl] += f;
      layerTokens[fl] += f;
      added += f;
      for (const g of d.segs) {
        const l = LAYER_INDEX[g.layer];
        layerSegs[l].push(g);
        layerTokens[l] += g.tokens;
        added += g.tokens;
        hashes[l] = hashChainStep(hashes[l], g.id, this.hashes.hash(g.text), this.hashes.baseHasher);
        sigs.push(this.blockSignature(d.role, g));
        if (g.kind === 'artifact' && g.artifactKey) newBlocks.push(g.artifactKey);
      }
    }
    this.pendingSigs = sigs;

    // Messages: the previous ones (cache breakpoint flags moved), then the new ones.
    const blockCount = (ms: readonly ChatMessage[]) => ms.reduce((n, m) => n + m.content.length, 0);
    const prevBlocks = blockCount(prev.messages);
    const messages: ChatMessage[] = [...prev.messages, ...drafts.map(draftMessage)];
    const total = blockCount(messages);
    const keep = first.cacheBreakpoints.filter((i) => i < blockCount(first.messages) - 1).slice(0, 2);
    const bps = [...new Set([...keep, prevBlocks - 1, total - 1])].filter((i) => i >= 0).sort((a, b) => a - b);
    const want = new Set(bps);
    let at = 0;
    for (let mi = 0; mi < messages.length; mi++) {
      const m = messages[mi];
      const n = m.content.length;
      let change = false;
      for (let b = 0; b < n; b++) if (!!m.content[b].cacheBreakpoint !== want.has(at + b)) change = true;
      if (change) {
        const base = at;
        messages[mi] = {
          ...m,
          content: m.content.map((blk, b): TextBlock =>
            want.has(base + b) ? { type: 'text', text: blk.text, cacheBreakpoint: true } : { type: 'text', text: blk.text },
          ),
        };
      }
      at += n;
    }

    const layers: Layer[] = LAYER_IDS.map((id, l) => ({ id, segments: layerSegs[l], tokens: layerTokens[l], hash: hashes[l] }));
    const ledgerLayers: LedgerLayer[] = LAYER_IDS.map((id, l) => {
      const items = layerSegs[l].map((g, i) => this.ledger.item(s, g, cached && i < prevCount[l]));
      if (framing[l] > 0)
        items.push({ id: 'framing', label: 'message framing', tokens: framing[l], status: 'full', cached: false, recoverable: true });
      // Versions cut earlier stay listed (greyed), as in the turn's first request.
      if (l === 1)
        for (const item of prev.ledger.layers[1].items) if (item.segment === undefined && item.id !== 'framing') items.push(item);
      return { id, label: LAYER_LABELS[id], tokens: layerTokens[l], items };
    });
    const totalTokens = prev.totalTokens + added;
    return {
      ...prev,
      layers,
      messages,
      cacheBreakpoints: bps,
      ledger: { ...prev.ledger, totalTokens, cachedTokens: cached ? prefixTokens : 0, layers: ledgerLayers, pruned: reports },
      pruned: reports,
      totalTokens,
      prefixBreak: false,
      prefixBreakReason: undefined,
      newBlocks,
    };
  }

  /**
   * One step of a hash chain, memoized on the segment object: past segments are reused across
   * turns, so a long history costs one comparison per segment instead of a hash.
   */
  private chain(memo: WeakMap<Segment, { prev: string; h: string }>, prev: string, seg: Segment, id: string): string {
    const hit = memo.get(seg);
    if (hit && hit.prev === prev) return hit.h;
    // The step's input is unique to this segment and position: hashed without keeping it in the text memo.
    const h = hashChainStep(prev, id, this.hashes.hash(seg.text), this.hashes.baseHasher);
    memo.set(seg, { prev, h });
    return h;
  }

  /** Block signatures of the pending request (made now if they were deferred). */
  pendingSignatures(): string[] {
    const p = this.pendingSigs;
    return typeof p === 'function' ? (this.pendingSigs = p()) : p;
  }

  /** `role:sha256(text)` of a block (the assembler keeps it with the segment's position). */
  private blockSignature(role: Role, seg: Segment): string {
    return `${role}:${this.hashes.hash(seg.text)}`;
  }

  /** Same value as `hashLayerSegments` (invariants.ts), memoized step by step. */
  hashLayer(segments: readonly Segment[]): string {
    let h = this.hashes.emptyHash;
    for (const g of segments) h = this.chain(this.layerChain, h, g, g.id);
    return h;
  }
}

/** Indexes of the flagged blocks over all messages' blocks (tool calls are not blocks). */
function flaggedBlocks(messages: readonly ChatMessage[]): number[] {
  const out: number[] = [];
  let i = 0;
  for (const m of messages)
    for (const b of m.content) {
      if (b.cacheBreakpoint) out.push(i);
      i++;
    }
  return out;
}

/**
 * The part of the previous request that a well-behaved next request keeps: all but its last user
 * message (and the tool steps after it, which the library layout does not keep in history).
 */
function lastStableCount(prev: string[]): number {
  let i = prev.length - 1;
  // A request ends with the current user message, or with tool steps after it.
  while (i >= 0 && (prev[i].startsWith('tool:') || prev[i].startsWith('assistant:'))) i--;
  while (i >= 0 && prev[i].startsWith('user:')) i--;
  return i + 1;
}
