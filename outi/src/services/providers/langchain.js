"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.ANTHROPIC_MAX_BREAKPOINTS = exports.quietSdkLogger = void 0;
exports.disableLangChainTracing = disableLangChainTracing;
exports.toOpenAIMessages = toOpenAIMessages;
exports.toAnthropicMessages = toAnthropicMessages;
exports.chunkText = chunkText;
exports.toOpenAITools = toOpenAITools;
exports.toAnthropicTools = toAnthropicTools;
exports.chunkToolCalls = chunkToolCalls;
/**
 * LangChain glue shared by the providers: tracing off, message mapping, chunk reading.
 */
const messages_1 = require("@langchain/core/messages");
const TRACING_VARS = ['LANGSMITH_TRACING_V2', 'LANGCHAIN_TRACING_V2', 'LANGSMITH_TRACING', 'LANGCHAIN_TRACING', 'LANGCHAIN_VERBOSE'];
/**
 * LangSmith tracing would send every prompt to a third party. LangChain turns it on from these
 * environment variables (read at each call), so they are pinned to "false" in this process.
 */
function disableLangChainTracing() {
    if (typeof process === 'undefined' || !process.env)
        return;
    for (const v of TRACING_VARS)
        process.env[v] = 'false';
}
const noop = () => { };
/**
 * Passed to the OpenAI / Anthropic SDKs: their default logger prints unparsable stream chunks (reply
 * content) to the console; every failure reaches the user as a ProviderError instead.
 */
exports.quietSdkLogger = { error: noop, warn: noop, info: noop, debug: noop };
function lcToolCalls(calls) {
    return calls.map((c) => ({ id: c.id, name: c.name, args: c.args, type: 'tool_call' }));
}
function lcMessage(m, content) {
    switch (m.role) {
        case 'system':
            return new messages_1.SystemMessage({ content });
        case 'user':
            return new messages_1.HumanMessage({ content });
        case 'assistant':
            return m.toolCalls && m.toolCalls.length > 0 ? new messages_1.AIMessage({ content, tool_calls: lcToolCalls(m.toolCalls) }) : new messages_1.AIMessage({ content });
        case 'tool':
            return new messages_1.ToolMessage({ content, tool_call_id: m.toolCallId ?? '' });
    }
}
/**
 * OpenAI chat completions: one message per ChatMessage. `parts` sends the blocks as text parts;
 * `string` (the default) sends their concatenation, which is the same text and is accepted by every
 * OpenAI-compatible server (some older ones reject content arrays on system/assistant messages).
 */
function toOpenAIMessages(messages, format = 'string') {
    return messages.map((m) => lcMessage(m, format === 'string' ? m.content.map((b) => b.text).join('') : m.content.map((b) => ({ type: 'text', text: b.text }))));
}
exports.ANTHROPIC_MAX_BREAKPOINTS = 4;
/**
 * Anthropic messages: text blocks, `cache_control` on the flagged blocks (at most 4: the last four
 * are kept, they cover the longest prefixes). Empty blocks are not allowed by the API: they are
 * left out and their breakpoint moves to the previous non-empty block of the same message (same
 * prefix text). A message with no text at all is left out, unless it carries tool calls (then its
 * content is the calls alone). A `tool` message becomes a `tool_result` block (LangChain merges
 * consecutive results into one user message, as the API wants).
 */
function toAnthropicMessages(messages, ttl = '5m') {
    const parts = messages.map((m) => {
        const out = [];
        for (const b of m.content) {
            if (b.text.length > 0)
                out.push({ type: 'text', text: b.text, ...(b.cacheBreakpoint ? { cache_control: cc(ttl) } : {}) });
            else if (b.cacheBreakpoint && out.length > 0)
                out[out.length - 1].cache_control = cc(ttl);
        }
        return out;
    });
    // Keep only the last ANTHROPIC_MAX_BREAKPOINTS breakpoints.
    let budget = exports.ANTHROPIC_MAX_BREAKPOINTS;
    for (let i = parts.length - 1; i >= 0; i--) {
        for (let j = parts[i].length - 1; j >= 0; j--) {
            if (!parts[i][j].cache_control)
                continue;
            if (budget > 0)
                budget--;
            else
                delete parts[i][j].cache_control;
        }
    }
    const out = [];
    messages.forEach((m, i) => {
        if (parts[i].length > 0)
            out.push(lcMessage(m, parts[i]));
        else if (m.toolCalls && m.toolCalls.length > 0)
            out.push(lcMessage(m, ''));
    });
    return out;
}
function cc(ttl) {
    return ttl === '1h' ? { type: 'ephemeral', ttl: '1h' } : { type: 'ephemeral' };
}
/** The text of a streamed AIMessageChunk (string content, or text parts). */
function chunkText(content) {
    if (typeof content === 'string')
        return content;
    if (!Array.isArray(content))
        return '';
    let s = '';
    for (const p of content) {
        if (p && typeof p === 'object' && p.type === 'text' && typeof p.text === 'string') {
            s += p.text;
        }
    }
    return s;
}
/** Tool definitions in the OpenAI chat-completions format (passed to `bindTools` as they are). */
function toOpenAITools(tools) {
    return tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } }));
}
/** Tool definitions in the Anthropic messages format (passed to `bindTools` as they are). */
function toAnthropicTools(tools) {
    return tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters }));
}
/** The tool-call pieces of a streamed AIMessageChunk (`tool_call_chunks`). */
function chunkToolCalls(chunk) {
    const list = chunk.tool_call_chunks;
    if (!list || list.length === 0)
        return undefined;
    const out = [];
    list.forEach((c, i) => {
        const piece = { index: typeof c.index === 'number' ? c.index : i };
        if (c.id)
            piece.id = c.id;
        if (c.name)
            piece.name = c.name;
        if (c.args)
            piece.args = c.args;
        out.push(piece);
    });
    return out;
}
//# sourceMappingURL=langchain.js.map