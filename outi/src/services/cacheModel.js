"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.ChatCacheSimulator = exports.AnthropicCacheModel = exports.OpenAICacheModel = exports.TokenPrefixTree = exports.RequestTokenBuffer = exports.OPENAI_CACHE_STEP = exports.MIN_CACHEABLE_TOKENS = void 0;
exports.frameHeader = frameHeader;
exports.messageText = messageText;
exports.frameMessage = frameMessage;
exports.requestText = requestText;
exports.framedCount = framedCount;
exports.requestTokens = requestTokens;
exports.requestTokenCount = requestTokenCount;
exports.openaiCacheable = openaiCacheable;
exports.openaiCostUnits = openaiCostUnits;
exports.anthropicCostUnits = anthropicCostUnits;
exports.providerCachePrediction = providerCachePrediction;
const messages_1 = require("./tools/messages");
/** Minimum cacheable prefix, both providers (DESIGN §9). */
exports.MIN_CACHEABLE_TOKENS = 1024;
/** OpenAI reports cached tokens in steps of 128. */
exports.OPENAI_CACHE_STEP = 128;
function frameHeader(role) {
    return `<|${role}|>\n`;
}
/** The message's text as the token rule counts it: its blocks, then the JSON of its tool calls (DESIGN §9). */
function messageText(m) {
    let s = '';
    for (const b of m.content)
        s += b.text;
    if (m.toolCalls)
        s += (0, messages_1.toolCallsJson)(m.toolCalls);
    return s;
}
/** `<|role|>\n` + text + `\n`. */
function frameMessage(m) {
    return frameHeader(m.role) + messageText(m) + '\n';
}
/** The request text whose tokens the simulation counts. */
function requestText(messages) {
    let s = '';
    for (const m of messages)
        s += frameMessage(m);
    return s;
}
/* ------------------------------------------------------------------------------------------------
 * Memoized encoding. Most messages repeat verbatim across the turns of a chat, so the framed
 * message string → tokens map saves almost all tokenizer work. Bounded so a long session cannot
 * grow it without limit (cleared wholesale when full: simple, and correct since it is only a cache).
 * ---------------------------------------------------------------------------------------------- */
const MEMO_LIMIT = 4096;
const memos = new WeakMap();
function memoEncode(tokenizer, text) {
    let memo = memos.get(tokenizer);
    if (!memo) {
        memo = new Map();
        memos.set(tokenizer, memo);
    }
    let t = memo.get(text);
    if (t === undefined) {
        t = tokenizer.encode(text);
        if (memo.size >= MEMO_LIMIT)
            memo.clear();
        memo.set(text, t);
    }
    return t;
}
/*
 * Per message object too: an engine's past messages are the same objects from one request to the
 * next (src/engine/assembly.ts), so their framed text is not built again every turn (a long chat's
 * request is megabytes of text: issue 12).
 */
const messageMemos = new WeakMap();
function messageTokens(tokenizer, m) {
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
const countMemos = new WeakMap();
/** `counter.count(frameMessage(m))`, memoized per message object. */
function framedCount(m, counter) {
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
function breakpointsOf(messages, tokenizer) {
    const parts = [];
    const breakpointOffsets = [];
    let total = 0;
    for (const m of messages) {
        const toks = messageTokens(tokenizer, m);
        for (let i = 0; i < m.content.length; i++) {
            if (!m.content[i].cacheBreakpoint)
                continue;
            // The last block's prefix includes the trailing newline: the whole framed message.
            const n = i === m.content.length - 1 ? toks.length : memoEncode(tokenizer, frameHeader(m.role) + m.content.slice(0, i + 1).map((b) => b.text).join('')).length;
            breakpointOffsets.push(total + n);
        }
        parts.push(toks);
        total += toks.length;
    }
    return { parts, breakpointOffsets, total };
}
/** Token ids of the request and the prefix lengths at its cache breakpoints (DESIGN §9). */
function requestTokens(messages, tokenizer) {
    const { parts, breakpointOffsets, total } = breakpointsOf(messages, tokenizer);
    const tokens = new Array(total);
    let k = 0;
    for (const p of parts)
        for (let i = 0; i < p.length; i++)
            tokens[k++] = p[i];
    return { tokens, breakpointOffsets };
}
/**
 * `requestTokens` into one reused buffer: a simulation of a long chat observes a request of up to
 * hundreds of thousands of tokens every turn, and a new array each time is garbage the size of the
 * request. The returned view is valid until the next call.
 */
class RequestTokenBuffer {
    buf = new Int32Array(0);
    tokens(messages, tokenizer) {
        const { parts, breakpointOffsets, total } = breakpointsOf(messages, tokenizer);
        if (this.buf.length < total)
            this.buf = new Int32Array(Math.max(total, Math.ceil(this.buf.length * 1.5)));
        let k = 0;
        for (const p of parts) {
            for (let i = 0; i < p.length; i++)
                this.buf[k++] = p[i];
        }
        return { tokens: this.buf.subarray(0, total), breakpointOffsets };
    }
}
exports.RequestTokenBuffer = RequestTokenBuffer;
/** Token count of the whole request as the simulation counts it. */
function requestTokenCount(messages, tokenizer) {
    let n = 0;
    for (const m of messages)
        n += memoEncode(tokenizer, frameMessage(m)).length;
    return n;
}
/** tokens[from..] as a compact copy (token ids are 32-bit integers; anything else stays as numbers). */
function compactRun(tokens, from) {
    const out = new Int32Array(tokens.length - from);
    for (let i = 0; i < out.length; i++) {
        const v = tokens[from + i];
        if ((v | 0) !== v)
            return Array.prototype.slice.call(tokens, from);
        out[i] = v;
    }
    return out;
}
class TokenPrefixTree {
    root = { edges: new Map() };
    count = 0;
    marks = 0;
    /** Number of sequences inserted. */
    get size() {
        return this.count;
    }
    /** Number of distinct marked prefixes. */
    get marked() {
        return this.marks;
    }
    /** Length of the longest common prefix of `tokens` with any inserted sequence. */
    longestPrefix(tokens) {
        return this.walk(tokens, false);
    }
    /** Inserts `tokens` and returns the longest common prefix with the sequences inserted before. */
    insert(tokens) {
        const n = this.walk(tokens, true);
        this.count++;
        return n;
    }
    /** Marks the prefixes of an inserted sequence that end at `depths` (each ≤ its length). */
    mark(tokens, depths) {
        for (const d of depths) {
            const node = this.nodeAt(tokens, d);
            if (node && !node.written) {
                node.written = true;
                this.marks++;
            }
        }
    }
    /** Depths of the marked prefixes of `tokens` (ascending). */
    markedPrefixes(tokens) {
        const out = [];
        let node = this.root;
        let pos = 0;
        const n = tokens.length;
        while (pos < n) {
            const edge = node.edges.get(tokens[pos]);
            if (!edge)
                break;
            const len = edge.end - edge.start;
            if (pos + len > n)
                break;
            let m = 1;
            while (m < len && edge.src[edge.start + m] === tokens[pos + m])
                m++;
            if (m < len)
                break;
            pos += len;
            node = edge.child;
            if (node.written)
                out.push(pos);
        }
        return out;
    }
    /** The node ending exactly `d` tokens into `tokens` (an edge is split there if needed); undefined when the path is not in the tree. */
    nodeAt(tokens, d) {
        let node = this.root;
        let pos = 0;
        while (pos < d) {
            const edge = node.edges.get(tokens[pos]);
            if (!edge)
                return undefined;
            const len = edge.end - edge.start;
            let m = 1;
            while (m < len && pos + m < d && edge.src[edge.start + m] === tokens[pos + m])
                m++;
            if (m === len) {
                pos += m;
                node = edge.child;
                continue;
            }
            if (pos + m < d)
                return undefined; // diverges before d
            const mid = { edges: new Map() };
            const rest = { src: edge.src, start: edge.start + m, end: edge.end, child: edge.child };
            mid.edges.set(edge.src[rest.start], rest);
            edge.end = edge.start + m;
            edge.child = mid;
            return mid;
        }
        return node;
    }
    walk(tokens, insert) {
        let node = this.root;
        let pos = 0;
        const n = tokens.length;
        while (pos < n) {
            const edge = node.edges.get(tokens[pos]);
            if (!edge) {
                if (insert)
                    node.edges.set(tokens[pos], { src: compactRun(tokens, pos), start: 0, end: n - pos, child: { edges: new Map() } });
                return pos;
            }
            const len = edge.end - edge.start;
            let m = 1; // first token matched by the map lookup
            while (m < len && pos + m < n && edge.src[edge.start + m] === tokens[pos + m])
                m++;
            if (m === len) {
                pos += m;
                node = edge.child;
                continue;
            }
            // Diverged inside the edge (or the new sequence ended inside it).
            const matched = pos + m;
            if (insert) {
                const mid = { edges: new Map() };
                const rest = { src: edge.src, start: edge.start + m, end: edge.end, child: edge.child };
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
exports.TokenPrefixTree = TokenPrefixTree;
/** DESIGN §9 OpenAI rounding: ≥ 1024, rounded down to a multiple of 128; else 0. */
function openaiCacheable(prefixTokens) {
    if (prefixTokens < exports.MIN_CACHEABLE_TOKENS)
        return 0;
    return Math.floor(prefixTokens / exports.OPENAI_CACHE_STEP) * exports.OPENAI_CACHE_STEP;
}
class OpenAICacheModel {
    tree = new TokenPrefixTree();
    /** Records the request and returns the cached tokens it would be billed for. */
    observe(tokens) {
        const commonPrefix = this.tree.insert(tokens);
        return { cached: openaiCacheable(commonPrefix), commonPrefix };
    }
    /** What `observe` would report, without recording the request. */
    peek(tokens) {
        const commonPrefix = this.tree.longestPrefix(tokens);
        return { cached: openaiCacheable(commonPrefix), commonPrefix };
    }
    get requests() {
        return this.tree.size;
    }
}
exports.OpenAICacheModel = OpenAICacheModel;
class AnthropicCacheModel {
    tree = new TokenPrefixTree();
    observe(tokens, breakpointOffsets) {
        const r = this.compute(tokens, breakpointOffsets);
        const offsets = breakpointOffsets.filter((o) => o > 0 && o <= tokens.length);
        if (offsets.length > 0) {
            this.tree.insert(tokens);
            this.tree.mark(tokens, offsets);
        }
        return r;
    }
    /** What `observe` would report, without recording anything. */
    peek(tokens, breakpointOffsets) {
        return this.compute(tokens, breakpointOffsets);
    }
    get writtenPrefixes() {
        return this.tree.marked;
    }
    compute(tokens, breakpointOffsets) {
        const total = tokens.length;
        const offsets = breakpointOffsets.filter((o) => o > 0 && o <= total);
        if (offsets.length === 0)
            return { read: 0, write: 0, plain: total };
        const written = new Set(this.tree.markedPrefixes(tokens));
        let read = 0;
        for (const o of offsets)
            if (o >= exports.MIN_CACHEABLE_TOKENS && o > read && written.has(o))
                read = o;
        const last = Math.max(...offsets);
        const write = last >= exports.MIN_CACHEABLE_TOKENS ? Math.max(0, last - read) : 0;
        return { read, write, plain: total - read - write };
    }
}
exports.AnthropicCacheModel = AnthropicCacheModel;
/* ------------------------------------------------------------------------------------------------
 * Cost units (DESIGN §9).
 * ---------------------------------------------------------------------------------------------- */
function openaiCostUnits(promptTokens, cached) {
    return promptTokens - cached + 0.1 * cached;
}
function anthropicCostUnits(r) {
    return r.plain + 0.1 * r.read + 1.25 * r.write;
}
class ChatCacheSimulator {
    tokenizer;
    openai = new OpenAICacheModel();
    anthropic = new AnthropicCacheModel();
    constructor(tokenizer) {
        this.tokenizer = tokenizer;
    }
    /** Records one request of the chat and returns both providers' predicted cache figures. */
    observe(messages) {
        const { tokens, breakpointOffsets } = requestTokens(messages, this.tokenizer);
        return {
            promptTokens: tokens.length,
            openai: { cached: this.openai.observe(tokens).cached },
            anthropic: this.anthropic.observe(tokens, breakpointOffsets),
        };
    }
    /** The prediction for `messages`, without recording the request (e.g. for a preview). */
    peek(messages) {
        const { tokens, breakpointOffsets } = requestTokens(messages, this.tokenizer);
        return {
            promptTokens: tokens.length,
            openai: { cached: this.openai.peek(tokens).cached },
            anthropic: this.anthropic.peek(tokens, breakpointOffsets),
        };
    }
}
exports.ChatCacheSimulator = ChatCacheSimulator;
/**
 * The engine's predicted cached prefix (block-level, `ledger.cachedTokens`) as a provider reports
 * it: OpenAI serves whole 128-token steps from 1,024 tokens on; Anthropic from 1,024 tokens, up to a
 * breakpoint (the transcript layout marks the previous request's end, where that prefix ends);
 * other providers report nothing, so the prediction stands as it is.
 */
function providerCachePrediction(provider, prefixTokens) {
    if (provider === 'openai')
        return openaiCacheable(prefixTokens);
    if (provider === 'anthropic')
        return prefixTokens >= exports.MIN_CACHEABLE_TOKENS ? prefixTokens : 0;
    return prefixTokens;
}
//# sourceMappingURL=cacheModel.js.map