import type { ChatState, EntryState, TurnRecord } from './state';
import type { ChangedFilesPolicy, Layout, Segment } from './types';
import type { EngineOptions } from './turnTypes';
import type { Draft } from './assembly';
import type { MessageFraming } from './messageFraming';
import type { SegmentRenderer } from './segmentRenderer';
import { displayText } from './segmentRenderer';
import { versionKey } from './artifacts';
import { escapeAttribute } from './render';
import { entryChanges, extendsTurns, writeCount } from './state';

/** Renderings of a history turn kept (see `renderings`): as sent, compacted, removed, and one more. */
const TURN_RENDERINGS = 4;

/**
 * The past turns' messages of the last render, kept for the next one: history is append-only, so the
 * next request's past is this one plus the turn just completed. A past turn is rendered again only
 * when something it shows changed (the presence or compaction of an item it carries; for a diff,
 * of its base), found through `byKey` instead of re-checking every turn.
 */
export interface PastRender {
  layout: Layout;
  policy: ChangedFilesPolicy;
  /** The summary covered turns 1..through. */
  through: number;
  records: TurnRecord[];
  /** Status signature each record was rendered with (transcript). */
  sigs: string[];
  /** The turns array the records were read from (appends keep them in place). */
  turns: readonly TurnRecord[];
  /** The records' messages, in order (two per record, more for a turn with tool steps). */
  drafts: Draft[];
  /** Index in `drafts` of each record's first message. */
  offsets: number[];
  /** Tokens (segments + framing) per record, and their sum. */
  tokens: number[];
  total: number;
  /** Entry key → the status it had at the last render (transcript). */
  status: Map<string, string>;
  /** Entry key → indexes of the records whose signature reads its status (ascending). */
  byKey: Map<string, number[]>;
}

/**
 * The history portion of a request: the past turns' messages after the summary, carried from one
 * render to the next, with the renderings of each turn and the tokens each message gives a key.
 */
export class PastTurnCache {
  /**
   * Rendered history turns by signature, newest first, a few per turn: pruning cuts what a turn shows
   * (full, then compacted or removed), and a build that is abandoned (the meter) starts from the
   * committed state again, so the same few renderings come back at every build until a turn is sent.
   */
  private readonly renderings = new Map<number, { sig: string; drafts: Draft[] }[]>();
  /** The past turns' messages of the last render (see PastRender). */
  private last: PastRender | undefined;
  /** Leading past messages of `last.drafts` unchanged since the last assembly (it only looks past them). */
  private unchanged = 0;
  /** The state (and its write count) that `last.status` reflects. */
  private statusSeen: { state: ChatState; writes: number } | undefined;
  private firstAfterMemo: { turns: readonly TurnRecord[]; through: number; start: number } | undefined;
  private readonly keyTokensByMessage = new WeakMap<Draft, Map<string, number>>();

  constructor(
    private opts: EngineOptions,
    private readonly segments: SegmentRenderer,
    private readonly framing: MessageFraming,
  ) {}

  /** The options changed: every past turn renders again. */
  reset(opts: EngineOptions): void {
    this.opts = opts;
    this.renderings.clear();
    this.last = undefined;
    this.unchanged = 0;
    this.statusSeen = undefined;
  }

  /** Leading past messages the assembler was given last time and that have not changed since. */
  get unchangedMessages(): number {
    return this.unchanged;
  }

  /** The assembler has seen the first `count` past messages as they are now. */
  assembled(count: number): void {
    this.unchanged = count;
  }

  /**
   * A past turn's messages, rebuilt only when its signature changed (history is append-only): the
   * user message, then (transcript) each tool step's assistant message and tool results, then the
   * reply. How many there are depends on the record alone, never on the status of what it shows.
   */
  private memoizedTurnMessages(t: TurnRecord, sig: string, userSegments: () => Segment[], toolStepMessages?: () => Draft[]): Draft[] {
    const key = `${this.opts.layout}:${sig}`;
    const memo = this.renderings.get(t.turn);
    const at = memo ? memo.findIndex((m) => m.sig === key) : -1;
    if (at === 0) return memo![0].drafts;
    if (at > 0) {
      const [hit] = memo!.splice(at, 1);
      memo!.unshift(hit);
      return hit.drafts;
    }
    const drafts: Draft[] = [
      { role: 'user', framingLayer: 'L4', segs: userSegments() },
      ...(toolStepMessages ? toolStepMessages() : []),
      {
        role: 'assistant',
        framingLayer: 'L4',
        segs: [this.segments.segment('L4', 'reply', 'assistant', `t${t.turn}:reply`, t.reply, { turn: t.turn })],
      },
    ];
    if (memo) {
      memo.unshift({ sig: key, drafts });
      if (memo.length > TURN_RENDERINGS) memo.length = TURN_RENDERINGS;
    } else this.renderings.set(t.turn, [{ sig: key, drafts }]);
    return drafts;
  }

  /** Keys whose status a transcript record's signature reads: its items, and a diff's base. */
  private statusKeys(s: ChatState, t: TurnRecord): string[] {
    const keys: string[] = [];
    for (const i of t.items) {
      keys.push(i.key);
      const e = s.entries.get(i.key)!;
      if (this.opts.policy === 'append-diff' && i.mode === 'full' && e.artifact.version > 1)
        keys.push(versionKey(e.artifact.id, e.artifact.version - 1));
    }
    for (const step of t.steps ?? []) for (const r of step.results) for (const i of r.items) keys.push(i.key);
    return keys;
  }

  /** The messages of a past turn and the status signature they were rendered for (memoized by turn and signature). */
  private turnMessages(s: ChatState, t: TurnRecord): { sig: string; drafts: Draft[] } {
    if (this.opts.layout === 'library') {
      const drafts = this.memoizedTurnMessages(t, '', () => {
        const note = t.items.length > 0 ? `[attached: ${t.items.map((i) => escapeAttribute(i.key)).join(', ')}]\n` : '';
        return [this.segments.segment('L4', 'user-text', 'user', `t${t.turn}:user`, note + displayText(t.userText), { turn: t.turn })];
      });
      return { sig: '', drafts };
    }
    // What a past message shows depends only on its items' presence and compaction.
    const status = shownStatus;
    const sig = t.items
      .map((i) => {
        const e = s.entries.get(i.key)!;
        // A diff block depends on its base too.
        const base =
          this.opts.policy === 'append-diff' && i.mode === 'full' && e.artifact.version > 1
            ? status(s.entries.get(versionKey(e.artifact.id, e.artifact.version - 1)))
            : '';
        return status(e) + base;
      })
      .join(',');
    const stepSig = (t.steps ?? [])
      .map((step) => step.results.map((r) => r.items.map((i) => status(s.entries.get(i.key))).join('')).join('.'))
      .join('/');
    // What the turn's tool results show counts too: a result cut later re-renders the turn.
    const full = stepSig ? `${sig}|${stepSig}` : sig;
    const drafts = this.memoizedTurnMessages(
      t,
      full,
      () => {
        const segs = t.items.map((i) =>
          this.segments.itemSegment(s, i, 'L2', 'L4', 'user', `t${t.turn}:`, t.turn, t.turn === s.entries.get(i.key)!.firstTurn),
        );
        segs.push(this.segments.segment('L4', 'user-text', 'user', `t${t.turn}:user`, displayText(t.userText), { turn: t.turn }));
        return segs;
      },
      t.steps && t.steps.length > 0
        ? () => t.steps!.flatMap((step, k) => this.segments.toolStepMessages(s, step, k + 1, t.turn, 'L2', 'L4'))
        : undefined,
    );
    return { sig: full, drafts };
  }

  /** Renders past turn `t` as state `s` shows it and counts its messages (returned), ahead of a render that needs it. */
  warmTurn(s: ChatState, t: TurnRecord): number {
    return this.framing.messagesTokens(this.turnMessages(s, t).drafts);
  }

  /**
   * The past turns' messages after the summary, carried from the last render: records it already
   * rendered are kept unless a status they show changed; new records are appended.
   */
  pastMessages(s: ChatState, through: number): PastRender {
    const layout = this.opts.layout;
    const policy = this.opts.policy;
    const transcript = layout === 'transcript';
    const turns = s.turns;
    // Records are only appended, after `through`: where they start does not move (a binary search
    // over a long chat's records is a cache miss per step).
    const fa = this.firstAfterMemo;
    const start = fa && fa.through === through && extendsTurns(turns, fa.turns) ? fa.start : firstRecordAfter(turns, through);
    this.firstAfterMemo = { turns, through, start };
    const n = turns.length - start;
    let c = this.last;
    if (
      c &&
      c.layout === layout &&
      c.policy === policy &&
      c.through !== through &&
      extendsTurns(turns, c.turns) &&
      this.moveSummaryEnd(s, c, through, start)
    )
      this.unchanged = 0;
    const reuse = !!c && c.layout === layout && c.policy === policy && c.through === through;
    if (!reuse || !c) {
      c = {
        layout,
        policy,
        through,
        turns,
        records: [],
        sigs: [],
        drafts: [],
        offsets: [],
        tokens: [],
        total: 0,
        status: new Map(),
        byKey: new Map(),
      };
      this.unchanged = 0;
    }

    // Entries whose status changed since the last render (transcript messages show it).
    const changed: string[] = [];
    if (transcript) {
      const since = reuse && this.statusSeen ? entryChanges(this.statusSeen.state, this.statusSeen.writes, s) : undefined;
      const check = (k: string, e: EntryState | undefined) => {
        const st = shownStatus(e);
        if (c!.status.get(k) === st) return;
        c!.status.set(k, st);
        changed.push(k);
      };
      if (since) for (const k of since) check(k, s.entries.get(k));
      else for (const [k, e] of s.entries) check(k, e);
      this.statusSeen = { state: s, writes: writeCount(s) };
    }

    // Records kept: the longest run the last render had too (all of them when turns were only appended).
    let k = 0;
    const lim = Math.min(c.records.length, n);
    if (extendsTurns(turns, c.turns)) k = lim;
    else while (k < lim && c.records[k] === turns[start + k]) k++;
    c.turns = turns;
    // The arrays are the cache's own and change in place: a render's `past` is read before the next render.
    const { records, sigs, drafts, offsets, tokens } = c;
    if (k < records.length) {
      for (let i = records.length - 1; i >= k; i--) {
        c.total -= tokens[i];
        if (transcript) for (const key of this.statusKeys(s, records[i])) c.byKey.get(key)!.pop();
      }
      const cut = offsets[k];
      records.length = k;
      sigs.length = k;
      drafts.length = cut;
      offsets.length = k;
      tokens.length = k;
      this.unchanged = Math.min(this.unchanged, cut);
    }

    // Kept records whose shown status changed: rendered again (a new signature) or kept as they are.
    if (transcript && changed.length > 0 && k > 0) {
      const affected = new Set<number>();
      for (const key of changed) for (const i of c.byKey.get(key) ?? []) if (i < k) affected.add(i);
      for (const i of affected) {
        const r = this.turnMessages(s, records[i]);
        if (r.sig === sigs[i]) continue;
        sigs[i] = r.sig;
        this.unchanged = Math.min(this.unchanged, offsets[i]);
        // Same number of messages: it depends on the record, not on the status of what it shows.
        r.drafts.forEach((d, j) => (drafts[offsets[i] + j] = d));
        c.total -= tokens[i];
        tokens[i] = this.framing.messagesTokens(r.drafts);
        c.total += tokens[i];
      }
    }

    // New records.
    for (let i = k; i < n; i++) {
      const t = turns[start + i];
      const r = this.turnMessages(s, t);
      records.push(t);
      sigs.push(r.sig);
      offsets.push(drafts.length);
      drafts.push(...r.drafts);
      const m = this.framing.messagesTokens(r.drafts);
      tokens.push(m);
      c.total += m;
      if (transcript) this.indexRecord(s, c, t, i);
    }
    this.last = c;
    return c;
  }

  /**
   * The past render kept across a change of the summary's reach (`through`): a record renders the
   * same whatever the summary covers, so the records now summarized are dropped from the front and
   * records no longer summarized are rendered and put in front; the rest are kept. Pruning probes
   * several summaries in a row (galloping, then bisecting); rebuilding every record for each
   * would make a long chat's first meter grow with its length. False when nothing is worth keeping (then it starts over).
   */
  private moveSummaryEnd(s: ChatState, c: PastRender, through: number, start: number): boolean {
    const oldStart = firstRecordAfter(c.turns, c.through);
    const turns = s.turns;
    if (start >= oldStart + c.records.length) return false;
    const transcript = this.opts.layout === 'transcript';
    if (start > oldStart) {
      const d = start - oldStart;
      const cut = c.offsets[d];
      for (let i = 0; i < d; i++) c.total -= c.tokens[i];
      c.records.splice(0, d);
      c.sigs.splice(0, d);
      c.tokens.splice(0, d);
      c.offsets.splice(0, d);
      c.drafts.splice(0, cut);
      for (let i = 0; i < c.offsets.length; i++) c.offsets[i] -= cut;
    } else {
      const records: TurnRecord[] = [];
      const sigs: string[] = [];
      const drafts: Draft[] = [];
      const offsets: number[] = [];
      const tokens: number[] = [];
      for (let i = start; i < oldStart; i++) {
        const r = this.turnMessages(s, turns[i]);
        records.push(turns[i]);
        sigs.push(r.sig);
        offsets.push(drafts.length);
        for (const d of r.drafts) drafts.push(d);
        const m = this.framing.messagesTokens(r.drafts);
        tokens.push(m);
        c.total += m;
      }
      const added = drafts.length;
      c.records.unshift(...records);
      c.sigs.unshift(...sigs);
      c.tokens.unshift(...tokens);
      c.offsets = offsets.concat(c.offsets.map((o) => o + added));
      c.drafts = drafts.concat(c.drafts);
    }
    if (transcript) {
      c.byKey = new Map();
      c.records.forEach((t, i) => this.indexRecord(s, c, t, i));
    }
    c.through = through;
    return true;
  }

  /** Record `i` reads the status of its items' entries: listed under each key (ascending). */
  private indexRecord(s: ChatState, c: PastRender, t: TurnRecord, i: number): void {
    for (const key of this.statusKeys(s, t)) {
      const list = c.byKey.get(key);
      if (list) list.push(i);
      else c.byKey.set(key, [i]);
    }
  }

  /**
   * Tokens of the blocks of `key` in the latest render (pruning asks before and after each cut).
   * The past messages that can carry the key are the records the past render lists under it
   * (`byKey`: the records whose items or tool results name it); the system and current messages are
   * read through a per-message memo. A long chat cut to a smaller window makes hundreds of cuts, so
   * each asks only the messages that can carry the key.
   */
  keyTokens(system: Draft, past: readonly Draft[], current: Draft, key: string): number {
    let n = this.draftKeyTokens(system, key) + this.draftKeyTokens(current, key);
    const c = this.last;
    if (!c || c.drafts !== past) throw new Error('keyTokens: not the latest render');
    if (this.opts.layout !== 'transcript') return n; // library history carries no blocks (they are in L2)
    const { offsets, drafts } = c;
    let last = -1;
    for (const i of c.byKey.get(key) ?? []) {
      // Ascending; a record naming the key twice (an item and a tool result) is listed twice.
      if (i === last) continue;
      last = i;
      const end = i + 1 < offsets.length ? offsets[i + 1] : drafts.length;
      for (let j = offsets[i]; j < end; j++) n += this.draftKeyTokens(drafts[j], key);
    }
    return n;
  }

  /** Tokens of a message's blocks per artifact key (memoized: messages are reused across renders). */
  private draftKeyTokens(d: Draft, key: string): number {
    let m = this.keyTokensByMessage.get(d);
    if (!m) {
      m = new Map();
      for (const g of d.segs) if (g.artifactKey) m.set(g.artifactKey, (m.get(g.artifactKey) ?? 0) + g.tokens);
      this.keyTokensByMessage.set(d, m);
    }
    return m.get(key) ?? 0;
  }
}

/** The sorted turns' first index after `through` (turns are appended in order). */
function firstRecordAfter(turns: readonly TurnRecord[], through: number): number {
  let lo = 0;
  let hi = turns.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (turns[mid].turn <= through) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** What a past transcript message shows of an entry: presence and compaction. */
function shownStatus(e: EntryState | undefined): string {
  return !e ? '-' : e.presence === 'present' ? (e.compacted ? 'c' : 'f') : e.presence;
}
