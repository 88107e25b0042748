import type { ChatMessage, LayerId, Layout, LedgerItem, Role, Segment, TextBlock } from './types';

/**
 * Request assembly carried from one request to the next.
 *
 * A request is three portions: the system message, the past turns' messages and the current user
 * message. The past portion of the next request is almost always the past portion of this one plus
 * the turn just completed (history is append-only; past turns are memoized drafts, so their segment
 * objects are identical from one request to the next). What a request needs per segment — the flat
 * order, block signatures, running token counts, per-layer lists, chain hashes, ledger items, the
 * provider messages — is kept for the past portion with its running values at every message
 * boundary, and the next request starts from the first past message that differs (a cut or a
 * changed status re-renders a past turn; everything before it is kept). The system message is kept
 * the same way from its first changed segment (the library grows at its end). Per turn, the work is
 * the new messages, the current message, and copying arrays into the envelope; nothing per past
 * segment, except ledger items whose artifact facts changed or that cross the end of the predicted
 * cached prefix.
 *
 * The output is the same, byte for byte, as assembling the request from scratch: every carried value
 * is the value the from-scratch pass computes, and a test compares the two (engineIncremental.test).
 * Arrays handed out are fresh; the objects in them (segments, ledger items, messages without a cache
 * breakpoint) are shared with earlier envelopes and must be treated as immutable.
 */

export interface Draft {
  role: Role;
  /** Layer that counts this message's framing tokens. */
  framingLayer: LayerId;
  /**
   * The message's blocks, one per segment; a `tool-call` segment (last in its assistant message) is
   * the message's tool calls, not a block.
   */
  segs: Segment[];
  /** Tool messages: the call they answer. */
  toolCallId?: string;
}

/** The provider message of a draft: its segments as blocks, its tool calls, the call it answers. */
export function draftMessage(d: Draft): ChatMessage {
  const content: TextBlock[] = [];
  let toolCalls: ChatMessage['toolCalls'];
  for (const g of d.segs) {
    if (g.kind === 'tool-call') toolCalls = g.toolCalls;
    else content.push({ type: 'text', text: g.text });
  }
  const m: ChatMessage = { role: d.role, content };
  if (toolCalls) m.toolCalls = toolCalls;
  if (d.toolCallId !== undefined) m.toolCallId = d.toolCallId;
  return m;
}

/** Per-layer arrays follow LAYER_IDS order. */
export const LAYER_INDEX: Readonly<Record<LayerId, number>> = { L1: 0, L2: 1, L3: 2, L4: 3, L5: 4 };
const LAYERS = 5;
const L1 = 0;
const L2 = 1;
const L4 = 3;

/** What the engine's collaborators compute per segment, memoized on their side. */
export interface AssemblyHooks {
  /** sha256 of a segment's text (memoized by the engine): looked up once per segment added. */
  textHash(seg: Segment): string;
  /** One step of a layer hash chain or of the transcript prefix chain, from the step's text hash. */
  chain(prev: string, id: string, textHash: string): string;
  /** A message's framing tokens, with what its segments' joins merge (see MessageFraming). */
  framing(d: Draft): number;
  /** The ledger item of a segment with this cache prediction (memoized by the engine). */
  item(seg: Segment, cached: boolean): LedgerItem;
  /** sha256('') — the start of every chain. */
  emptyHash: string;
}

export interface AssembleInput {
  layout: Layout;
  system: Draft;
  past: readonly Draft[];
  /**
   * How many leading past messages are the ones the previous call was given, unchanged (the caller
   * tracks its own changes). The carried values are kept up to there without comparing.
   */
  pastUnchanged: number;
  current: Draft;
  /** Block signatures of the previous request (cache prediction). */
  previousBlocks: readonly string[];
  /** Last completed turn (library: the "previous end of history" breakpoint skips it). */
  lastTurn: number;
  /** Artifact keys whose ledger facts (pin, superseded, missing, detached, artifact) changed since the last call. */
  changedKeys: readonly string[];
}

export interface Assembled {
  /** Provider messages, with cache breakpoint flags. */
  messages: ChatMessage[];
  cacheBreakpoints: number[];
  /** Per layer (LAYER_IDS order): segments in request order, tokens (with framing), framing, hash. */
  segments: Segment[][];
  /**
   * The ledger items of layer `l` in request order, then `tail` (the framing line, cut versions):
   * one array of its final length (a push onto a copy of thousands of items copies it again).
   */
  itemsOf(l: number, tail: readonly LedgerItem[]): LedgerItem[];
  tokens: number[];
  framing: number[];
  hashes: string[];
  /**
   * Block signatures of this request, made when first asked for: only a request that is sent needs
   * them (they become the next request's `previousBlocks`); the meter's builds, abandoned, never do,
   * and the next call compares its own with these past the carried blocks only. Valid until the
   * next call of this assembler (it throws after that).
   */
  sigs(): string[];
  /** Leading blocks equal to the previous request's. */
  common: number;
  /** Tokens of those blocks. */
  prefixTokens: number;
  /** Leading blocks predicted cached: `common` when `prefixTokens` ≥ 1024, else 0. */
  cachedBlocks: number;
  /** transcript: the chain over every block before the current message (role as id). */
  transcriptPrefix: string;
  /** The block at a flat index (undefined past the end). */
  segmentAt(i: number): Segment | undefined;
  /** Whether some block of the request carries this artifact key. */
  hasKey(key: string): boolean;
  /**
   * Artifact keys of the blocks added to or dropped from the carried request in this call, and of
   * the current message (this call's and the previous one's); undefined when a carried portion was
   * started over (then any key may have come or gone).
   */
  touchedKeys: ReadonlySet<string> | undefined;
}

const MIN_CACHED_PREFIX = 1024;

function sumOf(values: readonly number[]): number {
  let n = 0;
  for (const v of values) n += v;
  return n;
}

/** A run of messages: flat segments with their running values. */
class Portion {
  readonly segs: Segment[] = [];
  readonly sigs: string[] = [];
  /** cum[i] = tokens of segs[0..i). */
  readonly cum: number[] = [0];
  readonly layerSegs: Segment[][] = [[], [], [], [], []];
  /** Flat index (within the portion) of each layer segment. */
  readonly layerPos: number[][] = [[], [], [], [], []];
  readonly layerItems: LedgerItem[][] = [[], [], [], [], []];
  tok = [0, 0, 0, 0, 0];
  fr = [0, 0, 0, 0, 0];
  h: string[];
  p: string;

  constructor(h: readonly string[], p: string) {
    this.h = h.slice();
    this.p = p;
  }

  /** Adds a message's segments (its framing too, unless `framing` is false). */
  consume(d: Draft, hooks: AssemblyHooks, prefix: boolean, from = 0, framing = true): void {
    if (framing) this.fr[LAYER_INDEX[d.framingLayer]] += hooks.framing(d);
    const segs = d.segs;
    for (let i = from; i < segs.length; i++) {
      const g = segs[i];
      const pos = this.segs.length;
      const l = LAYER_INDEX[g.layer];
      this.segs.push(g);
      const th = hooks.textHash(g);
      // `role:sha256(text)`: the block signature the cache prediction compares.
      this.sigs.push(`${d.role}:${th}`);
      this.cum.push(this.cum[pos] + g.tokens);
      this.pushed(g, l, pos);
      this.layerSegs[l].push(g);
      this.layerPos[l].push(pos);
      this.tok[l] += g.tokens;
      this.h[l] = hooks.chain(this.h[l], g.id, th);
      if (prefix) this.p = hooks.chain(this.p, d.role, th);
      this.stepped(l, pos);
    }
  }

  /** Before a segment joins its layer list (carried portions index it). */
  protected pushed(_g: Segment, _l: number, _pos: number): void {}

  /** After a segment's running values are updated. */
  protected stepped(_l: number, _pos: number): void {}

  /** Ledger items for segments that have none yet. */
  fillItems(hooks: AssemblyHooks, cachedBelow: number): void {
    for (let l = 0; l < LAYERS; l++) {
      const items = this.layerItems[l];
      const segs = this.layerSegs[l];
      const pos = this.layerPos[l];
      for (let i = items.length; i < segs.length; i++) items.push(hooks.item(segs[i], pos[i] < cachedBelow));
    }
  }

  /** Last index (within the portion) of a segment of layer `l` passing `pred`, or -1. */
  lastOf(l: number, pred?: (g: Segment) => boolean): number {
    const segs = this.layerSegs[l];
    for (let i = segs.length - 1; i >= 0; i--) if (!pred || pred(segs[i])) return this.layerPos[l][i];
    return -1;
  }
}

/**
 * A portion kept from one request to the next: it knows which call pushed each segment, where
 * each artifact key's segments are, and the cache prediction its ledger items were built with.
 */
class CarriedPortion extends Portion {
  /** Artifact key → positions of its segments (`index in layer × 8 + layer`). */
  readonly keyPos = new Map<string, number[]>();
  /** The call that pushed each segment (non-decreasing: a truncated tail is pushed again later). */
  readonly pushedAt: number[] = [];
  /**
   * Both ledger items of each segment, predicted cached and not: where the cached prefix ends moves
   * from request to request (in library, across the whole history whenever the library grows), and
   * the items of a layer are then two slices, not a rebuild.
   */
  readonly itemsCached: LedgerItem[][] = [[], [], [], [], []];
  readonly itemsUncached: LedgerItem[][] = [[], [], [], [], []];
  /** Per layer, the variant in force: cached below `mixedBelow` (flat index), not cached from there. */
  readonly itemsMixed: LedgerItem[][] = [[], [], [], [], []];
  private mixedBelow = 0;
  /** Items kept by the last truncation. */
  private keptItems = [0, 0, 0, 0, 0];
  call = 0;
  /** Artifact keys of the segments added or dropped since `begin`. */
  touched = new Set<string>();

  protected override pushed(g: Segment, l: number, _pos: number): void {
    this.pushedAt.push(this.call);
    if (!g.artifactKey) return;
    this.touched.add(g.artifactKey);
    const list = this.keyPos.get(g.artifactKey);
    const code = this.layerSegs[l].length * 8 + l;
    if (list) list.push(code);
    else this.keyPos.set(g.artifactKey, [code]);
  }

  /** Drops segments from flat index `n` on (their key positions, items, per-layer lists). */
  protected dropFrom(n: number, ln: readonly number[]): void {
    for (let pos = this.segs.length - 1; pos >= n; pos--) {
      const key = this.segs[pos].artifactKey;
      if (!key) continue;
      this.keyPos.get(key)!.pop();
      this.touched.add(key);
    }
    this.segs.length = n;
    this.pushedAt.length = n;
    this.sigs.length = n;
    this.cum.length = n + 1;
    for (let l = 0; l < LAYERS; l++) {
      this.layerSegs[l].length = ln[l];
      this.layerPos[l].length = ln[l];
      if (this.itemsCached[l].length > ln[l]) this.itemsCached[l].length = ln[l];
      if (this.itemsUncached[l].length > ln[l]) this.itemsUncached[l].length = ln[l];
      if (this.itemsMixed[l].length > ln[l]) this.itemsMixed[l].length = ln[l];
    }
  }

  /** Starts a call: what is kept from here on was built by earlier calls. */
  begin(call: number): void {
    this.call = call;
    this.touched = new Set();
  }

  /** Call after truncating, before adding: remembers how many items were carried. */
  markKept(): void {
    this.keptItems = this.itemsCached.map((a) => a.length);
  }

  /**
   * Ledger items: rebuilt for carried segments whose artifact facts changed, made for new segments;
   * then the variant in force follows the prediction (cached below flat index `below`): only the
   * segments between the old and the new boundary switch.
   */
  refreshItems(hooks: AssemblyHooks, changedKeys: readonly string[], below: number): void {
    const kept = this.keptItems;
    const was = this.mixedBelow;
    for (const key of changedKeys) {
      for (const code of this.keyPos.get(key) ?? []) {
        const l = code & 7;
        const i = code >> 3;
        if (i >= kept[l]) continue;
        this.itemsCached[l][i] = hooks.item(this.layerSegs[l][i], true);
        this.itemsUncached[l][i] = hooks.item(this.layerSegs[l][i], false);
        this.itemsMixed[l][i] = this.layerPos[l][i] < was ? this.itemsCached[l][i] : this.itemsUncached[l][i];
      }
    }
    for (let l = 0; l < LAYERS; l++) {
      const segs = this.layerSegs[l];
      const pos = this.layerPos[l];
      const c = this.itemsCached[l];
      const u = this.itemsUncached[l];
      const m = this.itemsMixed[l];
      for (let i = c.length; i < segs.length; i++) {
        c.push(hooks.item(segs[i], true));
        u.push(hooks.item(segs[i], false));
        m.push(pos[i] < was ? c[i] : u[i]);
      }
      if (below !== was) {
        const lo = Math.min(below, was);
        const hi = Math.max(below, was);
        for (let i = lowerBound(pos, lo); i < segs.length && pos[i] < hi; i++) m[i] = pos[i] < below ? c[i] : u[i];
      }
    }
    this.mixedBelow = below;
  }

  /** The items of layer `l` as the last `refreshItems` predicted them. */
  items(l: number): LedgerItem[] {
    return this.itemsMixed[l];
  }

  /** Leading segments unchanged since call `call` (pushed by it or earlier). */
  stableSince(call: number): number {
    return upperBound(this.pushedAt, call);
  }
}

/** The system message of the last request, kept for the next: positions compared, the rest added. */
class SystemCarry extends CarriedPortion {
  /** Per segment: its layer's chain after it, the prefix chain after it. */
  private readonly hAfter: string[] = [];
  private readonly pAfter: string[] = [];
  /** Per layer: cumulative segment tokens (layerTok[l][i] = tokens of the first i). */
  private readonly layerTok: number[][] = [[0], [0], [0], [0], [0]];
  private readonly start: string;
  draft: Draft | undefined;
  message: ChatMessage | undefined;

  constructor(
    readonly layout: Layout,
    readonly role: Role,
    readonly framingLayer: LayerId,
    emptyHash: string,
    framing: number,
  ) {
    super([emptyHash, emptyHash, emptyHash, emptyHash, emptyHash], emptyHash);
    this.start = emptyHash;
    this.fr[LAYER_INDEX[framingLayer]] = framing;
  }

  protected override stepped(l: number, _pos: number): void {
    this.hAfter.push(this.h[l]);
    this.pAfter.push(this.p);
    const lt = this.layerTok[l];
    lt.push(lt[lt.length - 1] + this.segs[this.segs.length - 1].tokens);
  }

  /** Keeps the first `d` segments. */
  truncate(d: number): void {
    if (d >= this.segs.length) return;
    const ln = this.layerPos.map((pos) => lowerBound(pos, d));
    for (let l = 0; l < LAYERS; l++) {
      const k = ln[l];
      this.h[l] = k > 0 ? this.hAfter[this.layerPos[l][k - 1]] : this.start;
      this.tok[l] = this.layerTok[l][k];
      this.layerTok[l].length = k + 1;
    }
    this.p = d > 0 ? this.pAfter[d - 1] : this.start;
    this.dropFrom(d, ln);
    this.hAfter.length = d;
    this.pAfter.length = d;
  }
}

/** Running values after each past message (boundary j = before past message j). */
interface Boundary {
  n: number;
  ln: number[];
  tok: number[];
  fr: number[];
  h: string[];
  p: string;
  /** Framing tokens of the messages before it that have blocks (the cached prefix counts theirs). */
  blockFr: number;
}

/** The past portion of the last assembled request, kept for the next one. */
class PastCarry extends CarriedPortion {
  readonly drafts: Draft[] = [];
  readonly messages: ChatMessage[] = [];
  readonly at: Boundary[];
  /** Running `Boundary.blockFr`. */
  blockFr = 0;

  constructor(
    readonly layout: Layout,
    h: readonly string[],
    p: string,
  ) {
    super(h, p);
    this.at = [this.boundary()];
  }

  startsAt(h: readonly string[], p: string): boolean {
    const b = this.at[0];
    for (let l = 0; l < LAYERS; l++) if (b.h[l] !== h[l]) return false;
    return b.p === p;
  }

  boundary(): Boundary {
    return {
      n: this.segs.length,
      ln: this.layerSegs.map((a) => a.length),
      tok: this.tok.slice(),
      fr: this.fr.slice(),
      h: this.h.slice(),
      p: this.p,
      blockFr: this.blockFr,
    };
  }

  /** Keeps the first `k` past messages. */
  truncate(k: number): void {
    if (k >= this.drafts.length) return;
    const b = this.at[k];
    this.dropFrom(b.n, b.ln);
    this.tok = b.tok.slice();
    this.fr = b.fr.slice();
    this.h = b.h.slice();
    this.p = b.p;
    this.blockFr = b.blockFr;
    this.at.length = k + 1;
    this.drafts.length = k;
    this.messages.length = k;
  }

  /** Past message index holding flat index `pos` (binary search over the boundaries). */
  draftAt(pos: number): number {
    let lo = 0;
    let hi = this.drafts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.at[mid].n <= pos) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /**
   * Framing tokens of the past messages that lie wholly within the first `pos` flat blocks and have
   * blocks (the last boundary at or before `pos`): a binary search, not a walk over the history.
   */
  framingWithin(pos: number): number {
    let lo = 0;
    let hi = this.drafts.length;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.at[mid].n <= pos) lo = mid;
      else hi = mid - 1;
    }
    return this.at[lo].blockFr;
  }
}

/** First index in the ascending `xs` whose value is ≥ x. */
function lowerBound(xs: readonly number[], x: number): number {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (xs[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** First index in the non-decreasing `xs` whose value is > x. */
function upperBound(xs: readonly number[], x: number): number {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (xs[mid] <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** What an assembled request's signatures were made of (to compare the next request with it). */
interface Output {
  sys: SystemCarry;
  past: PastCarry;
  call: number;
  sysLen: number;
  pastLen: number;
}

export class RequestAssembler {
  private sys: SystemCarry | undefined;
  private past: PastCarry | undefined;
  private calls = 0;
  private lastCurrentKeys: ReadonlySet<string> = new Set();
  /** A carried portion was started over in this call. */
  private restarted = false;
  private readonly messageMemo = new WeakMap<Draft, ChatMessage>();
  /** Signature arrays this assembler returned (a later request's `previousBlocks` is one of them). */
  private readonly outputs = new WeakMap<readonly string[], Output>();

  /** Forget everything carried (options changed). */
  reset(): void {
    this.sys = undefined;
    this.past = undefined;
  }

  private message(d: Draft): ChatMessage {
    let m = this.messageMemo.get(d);
    if (!m) {
      m = draftMessage(d);
      this.messageMemo.set(d, m);
    }
    return m;
  }

  /** The system message: carried up to its first changed segment. */
  private systemPortion(input: AssembleInput, hooks: AssemblyHooks, call: number): SystemCarry {
    const d = input.system;
    let sys = this.sys;
    if (!sys || sys.layout !== input.layout || sys.role !== d.role || sys.framingLayer !== d.framingLayer) {
      sys = this.sys = new SystemCarry(input.layout, d.role, d.framingLayer, hooks.emptyHash, hooks.framing(d));
      this.restarted = true;
    }
    sys.begin(call);
    if (sys.draft !== d) {
      const segs = d.segs;
      const lim = Math.min(segs.length, sys.segs.length);
      let k = 0;
      while (k < lim && segs[k] === sys.segs[k]) k++;
      sys.truncate(k);
      sys.markKept();
      sys.consume(d, hooks, input.layout === 'transcript', k, false);
      // The framing depends on the message's whole text (joins can merge): counted for this draft.
      sys.fr[LAYER_INDEX[d.framingLayer]] = hooks.framing(d);
      if (!sys.message || k < sys.message.content.length || segs.length !== sys.message.content.length) {
        const content = sys.message ? sys.message.content.slice(0, k) : [];
        for (let i = content.length; i < segs.length; i++) content.push({ type: 'text', text: segs[i].text });
        sys.message = { role: d.role, content };
      }
      sys.draft = d;
    } else {
      sys.markKept();
    }
    return sys;
  }

  /**
   * Leading blocks of `sigs` equal to `prev`. When `prev` is a request this assembler returned, the
   * carried blocks it shared with it are known equal: only the blocks after them are compared.
   */
  private commonPrefix(prev: readonly string[], total: number, sigAt: (i: number) => string, sys: SystemCarry, past: PastCarry): number {
    const n = Math.min(total, prev.length);
    let i = 0;
    const rec = this.outputs.get(prev);
    if (rec && rec.sys === sys && rec.past === past) {
      i = Math.min(sys.stableSince(rec.call), rec.sysLen, sys.segs.length);
      if (i === rec.sysLen && i === sys.segs.length) i += Math.min(past.stableSince(rec.call), rec.pastLen, past.segs.length);
    }
    while (i < n && prev[i] === sigAt(i)) i++;
    return i;
  }

  assemble(input: AssembleInput, hooks: AssemblyHooks): Assembled {
    const transcript = input.layout === 'transcript';
    const call = ++this.calls;
    this.restarted = false;

    // System message: carried up to its first changed segment.
    const sys = this.systemPortion(input, hooks, call);

    // Past messages: carried from the last request up to the first that changed.
    let carry = this.past;
    if (!carry || carry.layout !== input.layout || !carry.startsAt(sys.h, sys.p)) {
      carry = this.past = new PastCarry(input.layout, sys.h, sys.p);
      this.restarted = true;
    }
    carry.begin(call);
    const past = input.past;
    const k = Math.max(0, Math.min(input.pastUnchanged, past.length, carry.drafts.length));
    carry.truncate(k);
    carry.markKept();
    for (let j = k; j < past.length; j++) {
      carry.consume(past[j], hooks, transcript);
      if (past[j].segs.length > 0) carry.blockFr += hooks.framing(past[j]);
      carry.drafts.push(past[j]);
      carry.messages.push(this.message(past[j]));
      carry.at.push(carry.boundary());
    }

    // Current message: continues the layer chains, not the prefix chain.
    const cur = new Portion(carry.h, carry.p);
    cur.consume(input.current, hooks, false);

    const sysLen = sys.segs.length;
    const pastLen = carry.segs.length;
    const curStart = sysLen + pastLen;
    const total = curStart + cur.segs.length;

    // Cache prediction: blocks equal (role, text) to the previous request's, in place.
    const sigAt = (i: number): string => (i < sysLen ? sys.sigs[i] : i < curStart ? carry.sigs[i - sysLen] : cur.sigs[i - curStart]);
    const common = this.commonPrefix(input.previousBlocks, total, sigAt, sys, carry);
    // The flat list is made only when asked for (a request that is sent), before the next call
    // changes the carried portions.
    let flat: string[] | undefined;
    const sigs = (): string[] => {
      if (flat) return flat;
      if (this.calls !== call) throw new Error('internal error: block signatures read after the next request was assembled');
      flat = sys.sigs.concat(carry.sigs, cur.sigs);
      this.outputs.set(flat, { sys, past: carry, call, sysLen, pastLen });
      return flat;
    };
    const blockTokens =
      common <= sysLen
        ? sys.cum[common]
        : common <= curStart
          ? sys.cum[sysLen] + carry.cum[common - sysLen]
          : sys.cum[sysLen] + carry.cum[pastLen] + cur.cum[common - curStart];
    // A provider's cache works on the request's tokens, framing included: the messages the common
    // blocks cover whole count with their `<|role|>\n … \n` framing (a pure append covers the whole
    // previous request, so the prediction is its prompt tokens).
    let prefixTokens = blockTokens;
    if (sysLen > 0 && common >= sysLen) {
      prefixTokens += sumOf(sys.fr);
      if (common >= curStart) prefixTokens += sumOf(carry.fr);
      else prefixTokens += carry.framingWithin(common - sysLen);
    }
    const cachedBlocks = prefixTokens >= MIN_CACHED_PREFIX ? common : 0;

    // Ledger items: made for new segments, rebuilt where artifact facts changed; the prediction picks the variant.
    sys.refreshItems(hooks, input.changedKeys, Math.min(cachedBlocks, sysLen));
    carry.refreshItems(hooks, input.changedKeys, Math.max(0, Math.min(pastLen, cachedBlocks - sysLen)));
    cur.fillItems(hooks, cachedBlocks - curStart);

    const segments: Segment[][] = [];
    const tokens: number[] = [];
    const framing: number[] = [];
    for (let l = 0; l < LAYERS; l++) {
      segments.push(sys.layerSegs[l].concat(carry.layerSegs[l], cur.layerSegs[l]));
      const fr = sys.fr[l] + carry.fr[l] + cur.fr[l];
      framing.push(fr);
      tokens.push(sys.tok[l] + carry.tok[l] + cur.tok[l] + fr);
    }

    const segmentAt = (i: number): Segment | undefined =>
      i < sysLen ? sys.segs[i] : i < curStart ? carry.segs[i - sysLen] : cur.segs[i - curStart];

    // Cache breakpoints, the same positions a scan of the flat request finds.
    const bps = new Set<number>();
    const lastOfLayer = (l: number, withCurrent: boolean, pred?: (g: Segment) => boolean): number => {
      const c = withCurrent ? cur.lastOf(l, pred) : -1;
      if (c >= 0) return curStart + c;
      const p = carry.lastOf(l, pred);
      if (p >= 0) return sysLen + p;
      return sys.lastOf(l, pred);
    };
    if (!transcript) {
      // End of the stable system message (L2, or L1 when the library is empty); the end of history
      // as the previous request had it; the last history block; the last block.
      const l2 = lastOfLayer(L2, true);
      bps.add(l2 >= 0 ? l2 : lastOfLayer(L1, true));
      bps.add(lastOfLayer(L4, false, (g) => g.turn !== input.lastTurn));
      bps.add(lastOfLayer(L4, true));
    } else {
      // End of the system message; end of the previous request (its last user or tool message, just
      // before the previous reply); end of the previous turn (the reply).
      bps.add(sysLen - 1);
      const j = past.length - 2;
      if (j >= 0 && (past[j].role === 'user' || past[j].role === 'tool') && carry.at[j + 1].n > carry.at[j].n)
        bps.add(sysLen + carry.at[j + 1].n - 1);
      bps.add(curStart - 1);
    }
    bps.add(total - 1);
    bps.delete(-1);
    const cacheBreakpoints = [...bps].sort((a, b) => a - b);

    const messages = [sys.message!].concat(carry.messages, [this.message(input.current)]);
    const copied = new Set<number>();
    for (const i of cacheBreakpoints) {
      let mi: number;
      let bi: number;
      if (i < sysLen) {
        mi = 0;
        bi = i;
      } else if (i < curStart) {
        const j = carry.draftAt(i - sysLen);
        mi = 1 + j;
        bi = i - sysLen - carry.at[j].n;
      } else {
        mi = messages.length - 1;
        bi = i - curStart;
      }
      if (!copied.has(mi)) {
        copied.add(mi);
        messages[mi] = { ...messages[mi], content: messages[mi].content.slice() };
      }
      messages[mi].content[bi] = { type: 'text', text: messages[mi].content[bi].text, cacheBreakpoint: true };
    }

    const curKeys = new Set(cur.segs.map((g) => g.artifactKey).filter((x): x is string => !!x));
    const hasKey = (key: string): boolean =>
      (carry.keyPos.get(key)?.length ?? 0) > 0 || (sys.keyPos.get(key)?.length ?? 0) > 0 || curKeys.has(key);
    // The previous call's current message is gone too (it became history, or was abandoned).
    const touchedKeys = this.restarted ? undefined : new Set([...sys.touched, ...carry.touched, ...curKeys, ...this.lastCurrentKeys]);
    this.lastCurrentKeys = curKeys;

    // Read before the next call changes the carried portions (the envelope builder does, in `turnEnvelope`).
    const itemsOf = (l: number, tail: readonly LedgerItem[]): LedgerItem[] => sys.items(l).concat(carry.items(l), cur.layerItems[l], tail);

    return {
      messages,
      cacheBreakpoints,
      segments,
      itemsOf,
      tokens,
      framing,
      hashes: cur.h,
      sigs,
      common,
      prefixTokens,
      cachedBlocks,
      transcriptPrefix: carry.p,
      segmentAt,
      hasKey,
      touchedKeys,
    };
  }
}
