/**
 * Prompt-cache simulation (DESIGN §9). Pure TypeScript: no vscode, no Node built-ins.
 *
 * Used by the replay/benchmark tool (predicted cache hits), by the host (the ledger's "predicted"
 * figures) and by the imitation servers in test/support (the "reported" figures), so the three
 * agree by construction.
 *
 * Token counting: a request's tokens are the concatenation, over messages, of the tokens of
 * `<|role|>\n` + message text + `\n` (special-token strings count as ordinary text).
 */
import type { WireMessage as ChatMessage, WireRole as Role } from './tools/messages';
import { toolCallsJson } from './tools/messages';

/** What the cache models need from a tokenizer (src/services/tokenizer.ts provides it). */
export interface TokenEncoder {
  encode(text: string): number[];
}

/** Minimum cacheable prefix, both providers (DESIGN §9). */
export const MIN_CACHEABLE_TOKENS = 1024;
/** OpenAI reports cached tokens in steps of 128. */
export const OPENAI_CACHE_STEP = 128;

export function frameHeader(role: Role): string {
  return `<|${role}|>\n`;
}

/** The message's text as the token rule counts it: its blocks, then the JSON of its tool calls (DESIGN §9). */
export function messageText(m: ChatMessage): string {
  let s = '';
  for (const b of m.content) s += b.text;
  if (m.toolCalls) s += toolCallsJson(m.toolCalls);
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

/** Token ids of the request and the prefix lengths at its cache breakpoints (DESIGN §9). */
export function requestTokens(messages: readonly ChatMessage[], tokenizer: TokenEncoder): RequestTokens {
  const parts: number[][] = [];
  const breakpointOffsets: number[] = [];
  let total = 0;
  for (const m of messages) {
    const header = frameHeader(m.role);
    const framed = header + messageText(m) + '\n';
    const toks = memoEncode(tokenizer, framed);
    let partial = header;
    for (let i = 0; i < m.content.length; i++) {
      const b = m.content[i];
      partial += b.text;
      if (!b.cacheBreakpoint) continue;
      const last = i === m.content.length - 1;
      const n = last ? toks.length : memoEncode(tokenizer, partial).length;
      breakpointOffsets.push(total + n);
    }
    parts.push(toks);
    total += toks.length;
  }
  const tokens = new Array<number>(total);
  let k = 0;
  for (const p of parts) for (let i = 0; i < p.length; i++) tokens[k++] = p[i];
  return { tokens, breakpointOffsets };
}

/** Token count of the whole request as the simulation counts it. */
export function requestTokenCount(messages: readonly ChatMessage[], tokenizer: TokenEncoder): number {
  let n = 0;
  for (const m of messages) n += memoEncode(tokenizer, frameMessage(m)).length;
  return n;
}

/* ------------------------------------------------------------------------------------------------
 * OpenAI: longest common token prefix with any earlier request of the chat.
 * A radix tree over the observed token sequences: edges reference slices of the observed arrays,
 * so memory is O(requests) nodes and each observation costs O(length of its matched prefix).
 * ---------------------------------------------------------------------------------------------- */
interface RadixEdge {
  src: readonly number[];
  start: number;
  end: number;
  child: RadixNode;
}
interface RadixNode {
  edges: Map<number, RadixEdge>;
}

export class TokenPrefixTree {
  private readonly root: RadixNode = { edges: new Map() };
  private count = 0;

  /** Number of sequences inserted. */
  get size(): number {
    return this.count;
  }

  /** Length of the longest common prefix of `tokens` with any inserted sequence. */
  longestPrefix(tokens: readonly number[]): number {
    return this.walk(tokens, false);
  }

  /** Inserts `tokens` and returns the longest common prefix with the sequences inserted before. */
  insert(tokens: readonly number[]): number {
    const n = this.walk(tokens, true);
    this.count++;
    return n;
  }

  private walk(tokens: readonly number[], insert: boolean): number {
    let node = this.root;
    let pos = 0;
    const n = tokens.length;
    while (pos < n) {
      const edge = node.edges.get(tokens[pos]);
      if (!edge) {
        if (insert) node.edges.set(tokens[pos], { src: tokens, start: pos, end: n, child: { edges: new Map() } });
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
        if (matched < n) mid.edges.set(tokens[matched], { src: tokens, start: matched, end: n, child: { edges: new Map() } });
      }
      return matched;
    }
    return pos;
  }
}

/** DESIGN §9 OpenAI rounding: ≥ 1024, rounded down to a multiple of 128; else 0. */
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
  observe(tokens: readonly number[]): OpenAICacheResult {
    const commonPrefix = this.tree.insert(tokens);
    return { cached: openaiCacheable(commonPrefix), commonPrefix };
  }

  /** What `observe` would report, without recording the request. */
  peek(tokens: readonly number[]): OpenAICacheResult {
    const commonPrefix = this.tree.longestPrefix(tokens);
    return { cached: openaiCacheable(commonPrefix), commonPrefix };
  }

  get requests(): number {
    return this.tree.size;
  }
}

/* ------------------------------------------------------------------------------------------------
 * Anthropic: prefixes written at breakpoints, identified by their exact token content.
 * ---------------------------------------------------------------------------------------------- */

/** Two independent 32-bit rolling hashes over a token prefix; `prefixHashes` returns them at offsets. */
function prefixHashes(tokens: readonly number[], offsets: readonly number[]): string[] {
  const wanted = [...new Set(offsets)].filter((o) => o >= 0 && o <= tokens.length).sort((a, b) => a - b);
  const out = new Map<number, string>();
  let h1 = 0x811c9dc5 | 0;
  let h2 = 0x9747b28c | 0;
  let wi = 0;
  if (wanted[wi] === 0) out.set(wanted[wi++], '0:811c9dc5:9747b28c');
  for (let i = 0; i < tokens.length && wi < wanted.length; i++) {
    const t = tokens[i] | 0;
    h1 = Math.imul(h1 ^ t, 0x01000193);
    h1 ^= h1 >>> 15;
    h2 = Math.imul(h2 + t, 0x5bd1e995);
    h2 ^= h2 >>> 13;
    h2 = Math.imul(h2, 0x27d4eb2d);
    while (wi < wanted.length && wanted[wi] === i + 1) {
      out.set(wanted[wi++], `${i + 1}:${(h1 >>> 0).toString(16)}:${(h2 >>> 0).toString(16)}`);
    }
  }
  return offsets.map((o) => out.get(o) ?? `invalid:${o}`);
}

export interface AnthropicCacheResult {
  /** Tokens served from an earlier-written prefix. */
  read: number;
  /** Tokens written to the cache by this request (up to its last breakpoint, minus `read`). */
  write: number;
  /** Everything else (billed at the base rate). */
  plain: number;
}

export class AnthropicCacheModel {
  /** hash → the token array it was written from (verified on a hit, so a hash collision cannot lie). */
  private readonly written = new Map<string, { src: readonly number[]; length: number }>();

  observe(tokens: readonly number[], breakpointOffsets: readonly number[]): AnthropicCacheResult {
    const r = this.compute(tokens, breakpointOffsets);
    const offsets = breakpointOffsets.filter((o) => o > 0 && o <= tokens.length);
    const hashes = prefixHashes(tokens, offsets);
    offsets.forEach((o, i) => {
      if (!this.written.has(hashes[i])) this.written.set(hashes[i], { src: tokens, length: o });
    });
    return r;
  }

  /** What `observe` would report, without recording anything. */
  peek(tokens: readonly number[], breakpointOffsets: readonly number[]): AnthropicCacheResult {
    return this.compute(tokens, breakpointOffsets);
  }

  get writtenPrefixes(): number {
    return this.written.size;
  }

  private compute(tokens: readonly number[], breakpointOffsets: readonly number[]): AnthropicCacheResult {
    const total = tokens.length;
    const offsets = breakpointOffsets.filter((o) => o > 0 && o <= total);
    if (offsets.length === 0) return { read: 0, write: 0, plain: total };
    const hashes = prefixHashes(tokens, offsets);
    let read = 0;
    offsets.forEach((o, i) => {
      if (o < MIN_CACHEABLE_TOKENS || o <= read) return;
      const w = this.written.get(hashes[i]);
      if (w && w.length === o && samePrefix(w.src, tokens, o)) read = o;
    });
    const last = Math.max(...offsets);
    const write = last >= MIN_CACHEABLE_TOKENS ? Math.max(0, last - read) : 0;
    return { read, write, plain: total - read - write };
  }
}

function samePrefix(a: readonly number[], b: readonly number[], n: number): boolean {
  if (a === b) return true;
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return false;
  return true;
}

/* ------------------------------------------------------------------------------------------------
 * Cost units (DESIGN §9).
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
 * other providers report nothing, so the prediction stands as it is.
 */
export function providerCachePrediction(provider: string | undefined, prefixTokens: number): number {
  if (provider === 'openai') return openaiCacheable(prefixTokens);
  if (provider === 'anthropic') return prefixTokens >= MIN_CACHEABLE_TOKENS ? prefixTokens : 0;
  return prefixTokens;
}
