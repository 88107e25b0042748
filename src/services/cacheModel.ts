/**
 * Prompt-cache simulation: what OpenAI's and Anthropic's prompt caches serve of each request. Pure
 * TypeScript: no vscode, no Node built-ins.
 *
 * Used by the replay/benchmark tool (predicted cache hits), by the host (the ledger's "predicted"
 * figures) and by the imitation servers in test/support (the "reported" figures), so the three
 * agree by construction.
 *
 * Token counting: a request's tokens are the concatenation, over messages, of the tokens of
 * `<|role|>\n` + message text + `\n` (special-token strings count as ordinary text).
 */
import { toolCallsJson } from '../engine/render';
import type { ChatMessage, Role } from '../engine/types';

/** What the cache models need from a tokenizer (src/services/tokenizer.ts provides it). */
export interface TokenEncoder {
  encode(text: string): number[];
}

/** Minimum cacheable prefix, both providers (neither caches a shorter one). */
export const MIN_CACHEABLE_TOKENS = 1024;
/** OpenAI reports cached tokens in steps of 128. */
export const OPENAI_CACHE_STEP = 128;

export function frameHeader(role: Role): string {
  return `<|${role}|>\n`;
}

/** The message's text as the token rule counts it: its blocks, then the JSON of its tool calls. */
export function messageText(m: ChatMessage): string {
  let s = '';
  for (const b of m.content) s += b.text;
  // No calls (absent or empty) add nothing: an empty `[]` is never written.
  if (m.toolCalls && m.toolCalls.length > 0) s += toolCallsJson(m.toolCalls);
  return s;
}

/** `<|role|>\n` + text + `\n`. */
export function frameMessage(m: ChatMessage): string {
  return frameHeader(m.role) + messageText(m) + '\n';
}

/** The request text whose tokens the simulation counts. */
export function requestText(messages: readonly ChatMessage[]): string {
  let s = '';
  for (const m of messages) s += frameMessage(m);
  return s;
}

export interface RequestTokens {
  /** Token ids of the whole request (per framed message, concatenated). */
  tokens: number[];
  /**
   * For every block flagged `cacheBreakpoint`, in request order: the token count of the prefix that
   * ends at the end of that block (the last block of a message includes the trailing `\n`).
   */
  breakpointOffsets: number[];
}

/* ------------------------------------------------------------------------------------------------
 * Memoized encoding. Most messages repeat verbatim across the turns of a chat, so the framed
 * message string → tokens map saves almost all tokenizer work. Bounded so a long session cannot
 * grow it without limit (cleared wholesale when full: simple, and correct since it is only a cache).
 * ---------------------------------------------------------------------------------------------- */
const MEMO_LIMIT = 4096;
const memos = new WeakMap<TokenEncoder, Map<string, number[]>>();

function memoEncode(tokenizer: TokenEncoder, text: string): number[] {
  let memo = memos.get(tokenizer);
  if (!memo) {
    memo = new Map();
    memos.set(tokenizer, memo);
  }
  let t = memo.get(text);
  if (t === undefined) {
    t = tokenizer.encode(text);
    if (memo.size >= MEMO_LIMIT) memo.clear();
    memo.set(text, t);
  }
  return t;
}

/*
 * Per message object too: an engine's past messages are the same objects from one request to the
 * next (src/engine/assembly.ts), so their framed text is not built again every turn (a long chat's
 * request is megabytes of text).
 */
const messageMemos = new WeakMap<object, WeakMap<ChatMessage, number[]>>();

function messageTokens(tokenizer: TokenEncoder, m: ChatMessage): number[] {
  let memo = messageMemos.get(tokenizer);
  if (!memo) {
    memo = new WeakMap();
    messageMemos.set(tokenizer, memo);
  }
  let t = memo.get(m);
  if (t === undefined) {
    t = memoEncode(tokenizer, frameMessage(m));
    memo.set(m, t);
  }
  return t;
}

const countMemos = new WeakMap<object, WeakMap<ChatMessage, number>>();

/** `counter.count(frameMessage(m))`, memoized per message object. */
export function framedCount(m: ChatMessage, counter: { count(text: string): number }): number {
  let memo = countMemos.get(counter);
  if (!memo) {
    memo = new WeakMap();
    countMemos.set(counter, memo);
  }
  let n = memo.get(m);
  if (n === undefined) {
    n = counter.count(frameMessage(m));
    memo.set(m, n);
  }
  return n;
}

/** Prefix lengths at the request's cache breakpoints, and each message's framed tokens. */
function breakpointsOf(
  messages: readonly ChatMessage[],
  tokenizer: TokenEncoder,
): { parts: number[][]; breakpointOffsets: number[]; total: number } {
  const parts: number[][] = [];
  const breakpointOffsets: number[] = [];
  let total = 0;
  for (const m of messages) {
    const toks = messageTokens(tokenizer, m);
    for (let i = 0; i < m.content.length; i++) {
      if (!m.content[i].cacheBreakpoint) continue;
      // The last block's prefix includes the trailing newline: the whole framed message.
      const n =
        i === m.content.length - 1
          ? toks.length
          : memoEncode(
              tokenizer,
              frameHeader(m.role) +
                m.content
                  .slice(0, i + 1)
                  .map((b) => b.text)
                  .join(''),
            ).length;
      breakpointOffsets.push(total + n);
    }
    parts.push(toks);
    total += toks.length;
  }
  return { parts, breakpointOffsets, total };
}

/** Token ids of the request and the prefix lengths at its cache breakpoints. */
export function requestTokens(messages: readonly ChatMessage[], tokenizer: TokenEncoder): RequestTokens {
  const { parts, breakpointOffsets, total } = breakpointsOf(messages, tokenizer);
  const tokens = new Array<number>(total);
  let k = 0;
  for (const p of parts) for (let i = 0; i < p.length; i++) tokens[k++] = p[i];
  return { tokens, breakpointOffsets };
}

/**
 * `requestTokens` into one reused buffer: a simulation of a long chat observes a request of up to
 * hundreds of thousands of tokens every turn, and a new array each time is garbage the size of the
 * request. The returned view is valid until the next call.
 */
export class RequestTokenBuffer {
  private buf = new Int32Array(0);

  tokens(messages: readonly ChatMessage[], tokenizer: TokenEncoder): { tokens: Int32Array; breakpointOffsets: number[] } {
    const { parts, breakpointOffsets, total } = breakpointsOf(messages, tokenizer);
    if (this.buf.length < total) this.buf = new Int32Array(Math.max(total, Math.ceil(this.buf.length * 1.5)));
    let k = 0;
    for (const p of parts) {
      for (let i = 0; i < p.length; i++) this.buf[k++] = p[i];
    }
    return { tokens: this.buf.subarray(0, total), breakpointOffsets };
  }
}

/** Token count of the whole request as the simulation counts it. */
export function requestTokenCount(messages: readonly ChatMessage[], tokenizer: TokenEncoder): number {
  let n = 0;
  for (const m of messages) n += memoEncode(tokenizer, frameMessage(m)).length;
  return n;
}

/* ------------------------------------------------------------------------------------------------
 * A radix tree over the observed token sequences, shared by both cache rules: the OpenAI rule asks
 * for the longest common prefix with any earlier request, the Anthropic rule for the prefixes
 * written at earlier breakpoints (marked nodes). Each observation costs O(length of its matched
 * prefix) plus what it adds. Memory is what the sequences do not share: an edge keeps its own
 * compact copy (Int32Array) of the tokens it adds, never the request's whole array — a long chat's
 * requests are mostly the previous request plus a little, so the tree holds about one request's
 * tokens, not every request's (keeping them all grows with the square of a chat's length).
 * ---------------------------------------------------------------------------------------------- */
type TokenRun = Int32Array | readonly number[];
/** A request's token ids: an array, or a typed view (RequestTokenBuffer). */
export type TokenIds = ArrayLike<number>;

interface RadixEdge {
  src: TokenRun;
  start: number;
  end: number;
  child: RadixNode;
}
interface RadixNode {
  edges: Map<number, RadixEdge>;
  /** A prefix written to the (Anthropic) cache ends here. */
  written?: boolean;
}

/** tokens[from..] as a compact copy (token ids are 32-bit integers; anything else stays as numbers). */
function compactRun(tokens: TokenIds, from: number): TokenRun {
  const out = new Int32Array(tokens.length - from);
  for (let i = 0; i < out.length; i++) {
    const v = tokens[from + i];
    if ((v | 0) !== v) return Array.prototype.slice.call(tokens, from) as number[];
    out[i] = v;
  }
  return out;
}

export class TokenPrefixTree {
  private readonly root: RadixNode = { edges: new Map() };
  private count = 0;
  private marks = 0;

  /** Number of sequences inserted. */
  get size(): number {
    return this.count;
  }

  /** Number of distinct marked prefixes. */
  get marked(): number {
    return this.marks;
  }

  /** Length of the longest common prefix of `tokens` with any inserted sequence. */
  longestPrefix(tokens: TokenIds): number {
    return this.walk(tokens, false);
  }

  /** Inserts `tokens` and returns the longest common prefix with the sequences inserted before. */
  insert(tokens: TokenIds): number {
    const n = this.walk(tokens, true);
    this.count++;
    return n;
  }

  /** Marks the prefixes of an inserted sequence that end at `depths` (each ≤ its length). */
  mark(tokens: TokenIds, depths: readonly number[]): void {
    for (const d of depths) {
      const node = this.nodeAt(tokens, d);
      if (node && !node.written) {
        node.written = true;
        this.marks++;
      }
    }
  }

  /** Depths of the marked prefixes of `tokens` (ascending). */
  markedPrefixes(tokens: TokenIds): number[] {
    const out: number[] = [];
    let node = this.root;
    let pos = 0;
    const n = tokens.length;
    while (pos < n) {
      const edge = node.edges.get(tokens[pos]);
      if (!edge) break;
      const len = edge.end - edge.start;
      if (pos + len > n) break;
      let m = 1;
      while (m < len && edge.src[edge.start + m] === tokens[pos + m]) m++;
      if (m < len) break;
      pos += len;
      node = edge.child;
      if (node.written) out.push(pos);
    }
    return out;
  }

  /** The node ending exactly `d` tokens into `tokens` (an edge is split there if needed); undefined when the path is not in the tree. */
  private nodeAt(tokens: TokenIds, d: number): RadixNode | undefined {
    let node = this.root;
    let pos = 0;
    while (pos < d) {
      const edge = node.edges.get(tokens[pos]);
      if (!edge) return undefined;
      const len = edge.end - edge.start;
      let m = 1;
      while (m < len && pos + m < d && edge.src[edge.start + m] === tokens[pos + m]) m++;
      if (m === len) {
        pos += m;
        node = edge.child;
        continue;
      }
      if (pos + m < d) return undefined; // diverges before d
      const mid: RadixNode = { edges: new Map() };
      const rest: RadixEdge = { src: edge.src, start: edge.start + m, end: edge.end, child: edge.child };
      mid.edges.set(edge.src[rest.start], rest);
      edge.end = edge.start + m;
      edge.child = mid;
      return mid;
    }
    return node;
  }

  private walk(tokens: TokenIds, insert: boolean): number {
    let node = this.root;
    let pos = 0;
    const n = tokens.length;
    while (pos < n) {
      const edge = node.edges.get(tokens[pos]);
      if (!edge) {
        if (insert) node.edges.set(tokens[pos], { src: compactRun(tokens, pos), start: 0, end: n - pos, child: { edges: new Map() } });
        return pos;
      }
      const len = edge.end - edge.start;
      let m = 1; // first token matched by the map lookup
      while (m < len && pos + m < n && edge.src[edge.start + m] === tokens[pos + m]) m++;
      if (m === len) {
        pos += m;
        node = edge.child;
        continue;
      }
      // Diverged inside the edge (or the new sequence ended inside it).
      const matched = pos + m;
      if (insert) {
        const mid: RadixNode = { edges: new Map() };
        const rest: RadixEdge = { src: edge.src, start: edge.start + m, end: edge.end, child: edge.child };
        mid.edges.set(edge.src[rest.start], rest);
        edge.end = edge.start + m;
        edge.child = mid;
        if (matched < n)
          mid.edges.set(tokens[matched], { src: compactRun(tokens, matched), start: 0, end: n - matched, child: { edges: new Map() } });
      }
      return matched;
    }
    return pos;
  }
}

/** What OpenAI reports cached of a prefix: ≥ 1024 tokens, rounded down to a multiple of 128; else 0. */
export function openaiCacheable(prefixTokens: number): number {
  if (prefixTokens < MIN_CACHEABLE_TOKENS) return 0;
  return Math.floor(prefixTokens / OPENAI_CACHE_STEP) * OPENAI_CACHE_STEP;
}

export interface OpenAICacheResult {
  cached: number;
  /** Unrounded longest common prefix (diagnostics). */
  commonPrefix: number;
}

export class OpenAICacheModel {
  private readonly tree = new TokenPrefixTree();

  /** Records the request and returns the cached tokens it would be billed for. */
  observe(tokens: TokenIds): OpenAICacheResult {
    const commonPrefix = this.tree.insert(tokens);
    return { cached: openaiCacheable(commonPrefix), commonPrefix };
  }

  /** What `observe` would report, without recording the request. */
  peek(tokens: TokenIds): OpenAICacheResult {
    const commonPrefix = this.tree.longestPrefix(tokens);
    return { cached: openaiCacheable(commonPrefix), commonPrefix };
  }

  get requests(): number {
    return this.tree.size;
  }
}

/* ------------------------------------------------------------------------------------------------
 * Anthropic: prefixes written at breakpoints, identified by their exact token content (marked
 * nodes of a prefix tree of the requests: no hash, so nothing can collide).
 * ---------------------------------------------------------------------------------------------- */

export interface AnthropicCacheResult {
  /** Tokens served from an earlier-written prefix. */
  read: number;
  /** Tokens written to the cache by this request (up to its last breakpoint, minus `read`). */
  write: number;
  /** Everything else (billed at the base rate). */
  plain: number;
}

export class AnthropicCacheModel {
  private readonly tree = new TokenPrefixTree();

  observe(tokens: TokenIds, breakpointOffsets: readonly number[]): AnthropicCacheResult {
    const r = this.compute(tokens, breakpointOffsets);
    const offsets = breakpointOffsets.filter((o) => o > 0 && o <= tokens.length);
    if (offsets.length > 0) {
      this.tree.insert(tokens);
      this.tree.mark(tokens, offsets);
    }
    return r;
  }

  /** What `observe` would report, without recording anything. */
  peek(tokens: TokenIds, breakpointOffsets: readonly number[]): AnthropicCacheResult {
    return this.compute(tokens, breakpointOffsets);
  }

  get writtenPrefixes(): number {
    return this.tree.marked;
  }

  private compute(tokens: TokenIds, breakpointOffsets: readonly number[]): AnthropicCacheResult {
    const total = tokens.length;
    const offsets = breakpointOffsets.filter((o) => o > 0 && o <= total);
    if (offsets.length === 0) return { read: 0, write: 0, plain: total };
    const written = new Set(this.tree.markedPrefixes(tokens));
    let read = 0;
    for (const o of offsets) if (o >= MIN_CACHEABLE_TOKENS && o > read && written.has(o)) read = o;
    const last = Math.max(...offsets);
    const write = last >= MIN_CACHEABLE_TOKENS ? Math.max(0, last - read) : 0;
    return { read, write, plain: total - read - write };
  }
}

/* ------------------------------------------------------------------------------------------------
 * Cost units: an uncached prompt token costs 1, a cache read 0.1 of that, an Anthropic cache write 1.25.
 * ---------------------------------------------------------------------------------------------- */
export function openaiCostUnits(promptTokens: number, cached: number): number {
  return promptTokens - cached + 0.1 * cached;
}

export function anthropicCostUnits(r: AnthropicCacheResult): number {
  return r.plain + 0.1 * r.read + 1.25 * r.write;
}

/* ------------------------------------------------------------------------------------------------
 * One chat's simulator: what the host stores as the "predicted" usage beside the reported one.
 * ---------------------------------------------------------------------------------------------- */
export interface CachePrediction {
  promptTokens: number;
  openai: { cached: number };
  anthropic: AnthropicCacheResult;
}

export class ChatCacheSimulator {
  readonly openai = new OpenAICacheModel();
  readonly anthropic = new AnthropicCacheModel();

  constructor(private readonly tokenizer: TokenEncoder) {}

  /** Records one request of the chat and returns both providers' predicted cache figures. */
  observe(messages: readonly ChatMessage[]): CachePrediction {
    const { tokens, breakpointOffsets } = requestTokens(messages, this.tokenizer);
    return {
      promptTokens: tokens.length,
      openai: { cached: this.openai.observe(tokens).cached },
      anthropic: this.anthropic.observe(tokens, breakpointOffsets),
    };
  }

  /** The prediction for `messages`, without recording the request (e.g. for a preview). */
  peek(messages: readonly ChatMessage[]): CachePrediction {
    const { tokens, breakpointOffsets } = requestTokens(messages, this.tokenizer);
    return {
      promptTokens: tokens.length,
      openai: { cached: this.openai.peek(tokens).cached },
      anthropic: this.anthropic.peek(tokens, breakpointOffsets),
    };
  }
}

/**
 * The engine's predicted cached prefix (block-level, `ledger.cachedTokens`) as a provider reports
 * it: OpenAI serves whole 128-token steps from 1,024 tokens on; Anthropic from 1,024 tokens, up to a
 * breakpoint (the transcript layout marks the previous request's end, where that prefix ends);
 * other providers report nothing, so the prediction stands as it is. This is the one predicted
 * figure every view shows (the Context Layers tree, "Show Last Request", a turn's bar, the meter,
 * a tool step), so none of them can disagree about the same request.
 */
export function providerCachePrediction(provider: string | undefined, prefixTokens: number): number {
  if (provider === 'openai') return openaiCacheable(prefixTokens);
  if (provider === 'anthropic') return prefixTokens >= MIN_CACHEABLE_TOKENS ? prefixTokens : 0;
  return prefixTokens;
}
