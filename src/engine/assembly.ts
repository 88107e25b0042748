import type { ChatMessage, LayerId, Layout, LedgerItem, Role, Segment, TextBlock } from './types';

/**
 * Request assembly carried from one request to the next (issue 12).
 *
 * A request is three portions: the system message, the past turns' messages and the current user
 * message. The past portion of the next request is almost always the past portion of this one plus
 * the turn just completed (history is append-only; past turns are memoized drafts, so their segment
 * objects are identical from one request to the next). What a request needs per segment — the flat
 * order, block signatures, running token counts, per-layer lists, chain hashes, ledger items, the
 * provider messages — is kept for the past portion with its running values at every message
 * boundary, and the next request starts from the first past message that differs (a cut or a
 * changed status re-renders a past turn; everything before it is kept). Per turn, the work is the
 * new messages, the system and current messages, and copying arrays; nothing per past segment but
 * a pointer copy, except ledger items whose cache prediction or artifact status changed.
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
  segs: Segment[];
}

/** Per-layer arrays follow LAYER_IDS order. */
export const LAYER_INDEX: Readonly<Record<LayerId, number>> = { L1: 0, L2: 1, L3: 2, L4: 3, L5: 4 };
const LAYERS = 5;
const L1 = 0;
const L2 = 1;
const L4 = 3;

/** What the engine computes per segment, memoized on its side. */
export interface AssemblyHooks {
  /** One step of a layer hash chain (`which` = 'layer') or of the transcript prefix chain ('prefix'). */
  chain(which: 'layer' | 'prefix', prev: string, seg: Segment, id: string): string;
  /** `role:sha256(text)` of a block. */
  sig(role: Role, seg: Segment): string;
  framing(role: Role): number;
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
  /** Per layer (LAYER_IDS order): segments in request order, their ledger items, tokens (with framing), framing, hash. */
  segments: Segment[][];
  items: LedgerItem[][];
  tokens: number[];
  framing: number[];
  hashes: string[];
  /** Block signatures of this request. */
  sigs: string[];
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
}

const MIN_CACHED_PREFIX = 1024;

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

  consume(d: Draft, hooks: AssemblyHooks, prefix: boolean, keyPos?: Map<string, number[]>): void {
    this.fr[LAYER_INDEX[d.framingLayer]] += hooks.framing(d.role);
    for (const g of d.segs) {
      const pos = this.segs.length;
      const l = LAYER_INDEX[g.layer];
      this.segs.push(g);
      this.sigs.push(hooks.sig(d.role, g));
      this.cum.push(this.cum[pos] + g.tokens);
      if (keyPos && g.artifactKey) {
        const list = keyPos.get(g.artifactKey);
        const code = this.layerSegs[l].length * 8 + l;
        if (list) list.push(code);
        else keyPos.set(g.artifactKey, [code]);
      }
      this.layerSegs[l].push(g);
      this.layerPos[l].push(pos);
      this.tok[l] += g.tokens;
      this.h[l] = hooks.chain('layer', this.h[l], g, g.id);
      if (prefix) this.p = hooks.chain('prefix', this.p, g, d.role);
    }
  }

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

/** Running values after each past message (boundary j = before past message j). */
interface Boundary {
  n: number;
  ln: number[];
  tok: number[];
  fr: number[];
  h: string[];
  p: string;
}

/** The past portion of the last assembled request, kept for the next one. */
class PastCarry extends Portion {
  readonly drafts: Draft[] = [];
  readonly messages: ChatMessage[] = [];
  readonly at: Boundary[];
  /** Artifact key → positions of its segments (`index in layer × 8 + layer`). */
  readonly keyPos = new Map<string, number[]>();
  /** Carried items are predicted cached exactly below this flat index. */
  cachedBelow = 0;
  /** The call that pushed each segment (non-decreasing: a truncated tail is pushed again later). */
  readonly pushedAt: number[] = [];

  constructor(readonly layout: Layout, h: readonly string[], p: string) {
    super(h, p);
    this.at = [this.boundary()];
  }

  startsAt(h: readonly string[], p: string): boolean {
    const b = this.at[0];
    for (let l = 0; l < LAYERS; l++) if (b.h[l] !== h[l]) return false;
    return b.p === p;
  }

  boundary(): Boundary {
    return { n: this.segs.length, ln: this.layerSegs.map((a) => a.length), tok: this.tok.slice(), fr: this.fr.slice(), h: this.h.slice(), p: this.p };
  }

  /** Keeps the first `k` past messages. */
  truncate(k: number): void {
    if (k >= this.drafts.length) return;
    const b = this.at[k];
    for (let pos = this.segs.length - 1; pos >= b.n; pos--) {
      const key = this.segs[pos].artifactKey;
      if (key) this.keyPos.get(key)!.pop();
    }
    this.segs.length = b.n;
    this.pushedAt.length = b.n;
    this.sigs.length = b.n;
    this.cum.length = b.n + 1;
    for (let l = 0; l < LAYERS; l++) {
      this.layerSegs[l].length = b.ln[l];
      this.layerPos[l].length = b.ln[l];
      if (this.layerItems[l].length > b.ln[l]) this.layerItems[l].length = b.ln[l];
    }
    this.tok = b.tok.slice();
    this.fr = b.fr.slice();
    this.h = b.h.slice();
    this.p = b.p;
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
  carry: PastCarry;
  call: number;
  sysSigs: readonly string[];
  pastLen: number;
}

export class RequestAssembler {
  private carry: PastCarry | undefined;
  private calls = 0;
  private readonly messageMemo = new WeakMap<Draft, ChatMessage>();
  /** Signature arrays this assembler returned (a later request's `previousBlocks` is one of them). */
  private readonly outputs = new WeakMap<readonly string[], Output>();

  /** Forget everything carried (options changed). */
  reset(): void {
    this.carry = undefined;
  }

  private message(d: Draft): ChatMessage {
    let m = this.messageMemo.get(d);
    if (!m) {
      m = { role: d.role, content: d.segs.map((g): TextBlock => ({ type: 'text', text: g.text })) };
      this.messageMemo.set(d, m);
    }
    return m;
  }

  /**
   * Leading blocks of `sigs` equal to `prev`. When `prev` is a request this assembler returned, the
   * carried past blocks it shared with it are known equal: only the system message and the tail are
   * compared.
   */
  private commonPrefix(prev: readonly string[], sigs: readonly string[], sys: Portion, carry: PastCarry): number {
    const n = Math.min(sigs.length, prev.length);
    let i = 0;
    const rec = this.outputs.get(prev);
    if (rec && rec.carry === carry) {
      const m = Math.min(sys.sigs.length, rec.sysSigs.length);
      while (i < m && sys.sigs[i] === rec.sysSigs[i]) i++;
      if (i < m) return i;
      if (sys.sigs.length === rec.sysSigs.length) i = sys.sigs.length + Math.min(upperBound(carry.pushedAt, rec.call), rec.pastLen, carry.segs.length);
    }
    while (i < n && prev[i] === sigs[i]) i++;
    return i;
  }

  assemble(input: AssembleInput, hooks: AssemblyHooks): Assembled {
    const transcript = input.layout === 'transcript';
    const empty = [hooks.emptyHash, hooks.emptyHash, hooks.emptyHash, hooks.emptyHash, hooks.emptyHash];

    // System message: always assembled (a few segments; in library the library blocks, memoized).
    const sys = new Portion(empty, hooks.emptyHash);
    sys.consume(input.system, hooks, transcript);

    // Past messages: carried from the last request up to the first that differs.
    let carry = this.carry;
    if (!carry || carry.layout !== input.layout || !carry.startsAt(sys.h, sys.p)) carry = this.carry = new PastCarry(input.layout, sys.h, sys.p);
    const call = ++this.calls;
    const past = input.past;
    const k = Math.max(0, Math.min(input.pastUnchanged, past.length, carry.drafts.length));
    carry.truncate(k);
    const carriedItems = carry.layerItems.map((a) => a.length);
    for (let j = k; j < past.length; j++) {
      const from = carry.segs.length;
      carry.consume(past[j], hooks, transcript, carry.keyPos);
      for (let p = from; p < carry.segs.length; p++) carry.pushedAt.push(call);
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
    const sigs = sys.sigs.concat(carry.sigs, cur.sigs);
    const common = this.commonPrefix(input.previousBlocks, sigs, sys, carry);
    this.outputs.set(sigs, { carry, call, sysSigs: sys.sigs, pastLen: pastLen });
    const prefixTokens =
      common <= sysLen ? sys.cum[common] : common <= curStart ? sys.cum[sysLen] + carry.cum[common - sysLen] : sys.cum[sysLen] + carry.cum[pastLen] + cur.cum[common - curStart];
    const cachedBlocks = prefixTokens >= MIN_CACHED_PREFIX ? common : 0;

    // Ledger items: new ones; carried ones whose prediction or artifact facts changed.
    sys.fillItems(hooks, cachedBlocks);
    const below = Math.max(0, Math.min(pastLen, cachedBlocks - sysLen));
    const was = carry.cachedBelow;
    if (below !== was) {
      const lo = Math.min(below, was);
      const hi = Math.max(below, was);
      for (let l = 0; l < LAYERS; l++) {
        const pos = carry.layerPos[l];
        const items = carry.layerItems[l];
        for (let i = lowerBound(pos, lo); i < carriedItems[l] && pos[i] < hi; i++) items[i] = hooks.item(carry.layerSegs[l][i], pos[i] < below);
      }
    }
    for (const key of input.changedKeys) {
      for (const code of carry.keyPos.get(key) ?? []) {
        const l = code & 7;
        const i = code >> 3;
        if (i < carriedItems[l]) carry.layerItems[l][i] = hooks.item(carry.layerSegs[l][i], carry.layerPos[l][i] < below);
      }
    }
    carry.fillItems(hooks, below);
    carry.cachedBelow = below;
    cur.fillItems(hooks, cachedBlocks - curStart);

    const segments: Segment[][] = [];
    const items: LedgerItem[][] = [];
    const tokens: number[] = [];
    const framing: number[] = [];
    for (let l = 0; l < LAYERS; l++) {
      segments.push(sys.layerSegs[l].concat(carry.layerSegs[l], cur.layerSegs[l]));
      items.push(sys.layerItems[l].concat(carry.layerItems[l], cur.layerItems[l]));
      const fr = sys.fr[l] + carry.fr[l] + cur.fr[l];
      framing.push(fr);
      tokens.push(sys.tok[l] + carry.tok[l] + cur.tok[l] + fr);
    }

    const segmentAt = (i: number): Segment | undefined => (i < sysLen ? sys.segs[i] : i < curStart ? carry.segs[i - sysLen] : cur.segs[i - curStart]);

    // Cache breakpoints (DESIGN §4), the same positions a scan of the flat request finds.
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
      // End of the system message; end of the previous turn's user message; end of the previous request.
      bps.add(sysLen - 1);
      const j = past.length - 2;
      if (j >= 0 && past[j].role === 'user' && carry.at[j + 1].n > carry.at[j].n) bps.add(sysLen + carry.at[j + 1].n - 1);
      bps.add(curStart - 1);
    }
    bps.add(total - 1);
    bps.delete(-1);
    const cacheBreakpoints = [...bps].sort((a, b) => a - b);

    const messages = [this.message(input.system)].concat(carry.messages, [this.message(input.current)]);
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
        messages[mi] = { role: messages[mi].role, content: messages[mi].content.slice() };
      }
      messages[mi].content[bi] = { type: 'text', text: messages[mi].content[bi].text, cacheBreakpoint: true };
    }

    let edgeKeys: Set<string> | undefined;
    const hasKey = (key: string): boolean => {
      if ((carry.keyPos.get(key)?.length ?? 0) > 0) return true;
      edgeKeys ??= new Set([...sys.segs, ...cur.segs].map((g) => g.artifactKey).filter((x): x is string => !!x));
      return edgeKeys.has(key);
    };

    return {
      messages,
      cacheBreakpoints,
      segments,
      items,
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
    };
  }
}
