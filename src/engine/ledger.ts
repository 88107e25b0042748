import type { Assembled } from './assembly';
import type { ChatState, EntryState } from './state';
import type { Artifact, LayerId, LedgerItem, PruneReport, Segment, SegmentKind } from './types';
import { describeArtifact } from './artifacts';
import { entryChanges, writeCount } from './state';

/**
 * A segment's ledger items, kept on the segment itself (a hidden property), not in a WeakMap: a
 * long chat has thousands of segments, and a table lookup per segment is a cache miss each.
 */
const ITEM_MEMO = Symbol('ledger items');

interface ItemMemo {
  ledger: object;
  stamp: unknown;
  cached?: LedgerItem;
  uncached?: LedgerItem;
}

/** What a ledger item shows of its entry; a new object when that changes. */
interface EntryStamp {
  artifact: Artifact;
  code: number;
}

export const LAYER_LABELS: Record<LayerId, string> = { L1: 'System', L2: 'Library', L3: 'This turn', L4: 'History', L5: 'Your message' };
const SEGMENT_LABELS: Record<SegmentKind, string> = {
  system: 'system prompt',
  instructions: 'instructions',
  'library-header': 'library heading',
  artifact: 'attachment',
  reference: 'reference',
  stub: 'removed attachment',
  compacted: 'compacted attachment',
  'user-text': 'message',
  reply: 'reply',
  summary: 'summary of earlier turns',
  'tool-call': 'tool call',
  'step-text': 'what the model said before a tool call',
  'tool-note': 'tool note',
};

/**
 * The ledger's items: one per segment (memoized per segment, cache prediction and entry stamp),
 * and the versions cut earlier or now that the request does not show.
 */
export class Ledger {
  /** Ledger facts per entry key as of the last envelope. */
  private readonly stamps = new Map<string, EntryStamp>();
  /** The state (and its write count) that `stamps` reflect. */
  private stampsSeen: { state: ChatState; writes: number } | undefined;
  private absentSeen: { state: ChatState; writes: number; keys: string[]; set: Set<string> } | undefined;
  private cutMemo: { absent: readonly string[]; items: LedgerItem[]; reported: boolean } | undefined;

  /** The options changed: the cut items are listed again. */
  reset(): void {
    this.cutMemo = undefined;
  }

  /** Entry keys whose ledger facts changed since the last envelope (their items are rebuilt). */
  updateStamps(s: ChatState): string[] {
    const changed: string[] = [];
    const check = (k: string, e: EntryState | undefined) => {
      if (!e) return;
      const code = (e.essential ? 1 : 0) | (e.superseded ? 2 : 0) | (e.missing ? 4 : 0) | (e.presence === 'detached' ? 8 : 0);
      const st = this.stamps.get(k);
      if (st && st.artifact === e.artifact && st.code === code) return;
      this.stamps.set(k, { artifact: e.artifact, code });
      changed.push(k);
    };
    const since = this.stampsSeen ? entryChanges(this.stampsSeen.state, this.stampsSeen.writes, s) : undefined;
    if (since) for (const k of since) check(k, s.entries.get(k));
    else for (const [k, e] of s.entries) check(k, e);
    this.stampsSeen = { state: s, writes: writeCount(s) };
    return changed;
  }

  /**
   * Ledger items of the versions cut earlier or now (pruned, detached) that the request does not show.
   * Kept from the last envelope unless one of those versions was cut now, changed, or gained or lost a
   * block in the request (a long chat can have hundreds; they are not walked every turn).
   */
  cutItems(s: ChatState, a: Assembled, reports: readonly PruneReport[], changedKeys: readonly string[]): readonly LedgerItem[] {
    const absent = this.absentKeys(s);
    const c = this.cutMemo;
    const set = this.absentSeen!.set;
    const touches = (keys: Iterable<string>) => {
      for (const k of keys) if (set.has(k)) return true;
      return false;
    };
    const reported = reports.some((p) => set.has(p.item));
    if (c && !c.reported && !reported && c.absent === absent && a.touchedKeys && !touches(a.touchedKeys) && !touches(changedKeys))
      return c.items;
    const reasons = new Map(reports.map((p) => [p.item, p.reason]));
    const items: LedgerItem[] = [];
    for (const k of absent) {
      const e = s.entries.get(k)!;
      if (e.presence === 'present' || e.presence === 'replaced' || a.hasKey(k)) continue;
      items.push({
        id: k,
        label: describeArtifact(e.artifact),
        tokens: 0,
        status: 'pruned',
        cached: false,
        recoverable: e.artifact.recoverable,
        reason: reasons.get(k) ?? (e.presence === 'detached' ? 'detached' : 'pruned earlier'),
        ...artifactFacts(e),
      });
    }
    // Reasons given by this turn's reports are this turn's only: the next envelope recomputes.
    this.cutMemo = { absent, items, reported };
    return items;
  }

  /** Keys (first-seen order) of the versions not sent as themselves: pruned, detached, replaced. */
  private absentKeys(s: ChatState): readonly string[] {
    const seen = this.absentSeen;
    const since = seen ? entryChanges(seen.state, seen.writes, s) : undefined;
    let keys = seen?.keys;
    let set = seen?.set;
    if (!since || !keys || !set || since.some((k) => set!.has(k) || (s.entries.get(k)?.presence ?? 'present') !== 'present')) {
      keys = s.order.filter((k) => s.entries.get(k)!.presence !== 'present');
      set = new Set(keys);
    }
    this.absentSeen = { state: s, writes: writeCount(s), keys, set };
    return keys;
  }

  /** The ledger item of a segment, memoized per segment, prediction and entry stamp. */
  item(s: ChatState, g: Segment, cached: boolean): LedgerItem {
    const stamp = g.artifactKey ? this.stamps.get(g.artifactKey) : undefined;
    const held = g as Segment & { [ITEM_MEMO]?: ItemMemo };
    let m = held[ITEM_MEMO];
    if (!m || m.ledger !== this || m.stamp !== stamp) {
      m = { ledger: this, stamp };
      if (ITEM_MEMO in held) held[ITEM_MEMO] = m;
      // Not enumerable: a segment serializes and compares as before.
      else Object.defineProperty(held, ITEM_MEMO, { value: m, writable: true, enumerable: false });
    }
    let item = cached ? m.cached : m.uncached;
    if (!item) {
      item = this.newItem(s, g, cached);
      if (cached) m.cached = item;
      else m.uncached = item;
    }
    return item;
  }

  private newItem(s: ChatState, g: Segment, cached: boolean): LedgerItem {
    const e = g.artifactKey ? s.entries.get(g.artifactKey) : undefined;
    const status = g.kind === 'reference' ? 'reference' : g.kind === 'compacted' ? 'compacted' : g.kind === 'stub' ? 'pruned' : 'full';
    const item: LedgerItem = {
      id: g.id,
      label: e ? describeArtifact(e.artifact) : SEGMENT_LABELS[g.kind],
      tokens: g.tokens,
      status,
      cached,
      recoverable: e ? e.artifact.recoverable : g.kind !== 'user-text' || g.layer !== 'L5',
    };
    if (e?.essential) item.essential = true;
    if (e?.superseded) item.superseded = true;
    if (e?.missing) item.missing = true;
    if (g.kind === 'stub' && e) item.reason = e.presence === 'detached' ? 'detached' : 'pruned';
    item.segment = g.kind;
    if (g.turn !== undefined) item.turn = g.turn;
    if (e) Object.assign(item, artifactFacts(e));
    const tool = g.tool ?? e?.tool;
    if (tool !== undefined) item.tool = tool;
    if (g.kind === 'tool-call') item.label = `tool call: ${(g.toolCalls ?? []).map((c) => c.name).join(', ')}`;
    else if (g.kind === 'tool-note') item.label = `${g.tool ?? 'tool'} note`;
    return item;
  }
}

/** The artifact facts a ledger item carries (the tree shows them; nothing is parsed back out of ids). */
function artifactFacts(e: EntryState): Pick<LedgerItem, 'key' | 'artifactKind' | 'version' | 'contentHash'> {
  return { key: e.key, artifactKind: e.artifact.kind, version: e.artifact.version, contentHash: e.artifact.contentHash };
}
