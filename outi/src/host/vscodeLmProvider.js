"use strict";
var __createBinding = (this && this.__createBinding) || (Object.create ? (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    var desc = Object.getOwnPropertyDescriptor(m, k);
    if (!desc || ("get" in desc ? !m.__esModule : desc.writable || desc.configurable)) {
      desc = { enumerable: true, get: function() { return m[k]; } };
    }
    Object.defineProperty(o, k2, desc);
}) : (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    o[k2] = m[k];
}));
var __setModuleDefault = (this && this.__setModuleDefault) || (Object.create ? (function(o, v) {
    Object.defineProperty(o, "default", { enumerable: true, value: v });
}) : function(o, v) {
    o["default"] = v;
});
var __importStar = (this && this.__importStar) || (function () {
    var ownKeys = function(o) {
        ownKeys = Object.getOwnPropertyNames || function (o) {
            var ar = [];
            for (var k in o) if (Object.prototype.hasOwnProperty.call(o, k)) ar[ar.length] = k;
            return ar;
        };
        return ownKeys(o);
    };
    return function (mod) {
        if (mod && mod.__esModule) return mod;
        var result = {};
        if (mod != null) for (var k = ownKeys(mod), i = 0; i < k.length; i++) if (k[i] !== "default") __createBinding(result, mod, k[i]);
        __setModuleDefault(result, mod);
        return result;
    };
})();
Object.defineProperty(exports, "__esModule", { value: true });
exports.VscodeLmProvider = void 0;
exports.toLanguageModelMessages = toLanguageModelMessages;
exports.toLanguageModelTools = toLanguageModelTools;
exports.editorModels = editorModels;
/**
 * The `vscode-lm` provider: models the editor offers through the Language Model API
 * (`vscode.lm.selectChatModels`). Implements the same `ChatProvider` as the LangChain providers and
 * reuses their stream loop (timeout, cancellation within 200 ms, no half-recorded turn).
 *
 * The API has no system role: the system content is sent as a leading user message (DESIGN §4).
 * It reports no usage, so the ledger shows only the engine's prediction for this provider.
 *
 * Tools go through the API's tool support: definitions as `LanguageModelChatTool`s, an assistant's
 * calls as `LanguageModelToolCallPart`s, results as `LanguageModelToolResultPart`s in a user message
 * (consecutive results share one), and calls read from `response.stream`. A model that refuses tools
 * is asked again without them, and not offered tools again in this window.
 */
const vscode = __importStar(require("vscode"));
const runner_1 = require("../services/providers/runner");
const types_1 = require("../services/providers/types");
function toLanguageModelMessages(messages) {
    const out = [];
    let results;
    for (const m of messages) {
        const text = m.content.map((b) => b.text).join('');
        if (m.role === 'tool') {
            const part = new vscode.LanguageModelToolResultPart(m.toolCallId ?? '', [new vscode.LanguageModelTextPart(text)]);
            if (results)
                results.push(part);
            else {
                results = [part];
                out.push(vscode.LanguageModelChatMessage.User(results));
            }
            continue;
        }
        results = undefined;
        if (m.role === 'assistant' && m.toolCalls && m.toolCalls.length > 0) {
            const parts = text ? [new vscode.LanguageModelTextPart(text)] : [];
            for (const c of m.toolCalls)
                parts.push(new vscode.LanguageModelToolCallPart(c.id, c.name, c.args));
            out.push(vscode.LanguageModelChatMessage.Assistant(parts));
            continue;
        }
        out.push(m.role === 'assistant' ? vscode.LanguageModelChatMessage.Assistant(text) : vscode.LanguageModelChatMessage.User(text));
    }
    return out;
}
function toLanguageModelTools(tools) {
    return tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.parameters }));
}
/** Models that refused a request with tools (by id): not offered tools again in this window. */
const noToolModels = new Set();
/** Models for the `auto` resolution (src/services/providers/auto.ts). */
async function editorModels() {
    const models = await vscode.lm.selectChatModels();
    return models.map((m) => ({ id: m.id, name: m.name, vendor: m.vendor, family: m.family }));
}
function mapError(e, model) {
    if (e instanceof types_1.ProviderError)
        return e;
    if (e instanceof vscode.CancellationError)
        return new types_1.ProviderError('aborted', 'Request cancelled.');
    const message = e instanceof Error ? e.message : String(e);
    if (e instanceof vscode.LanguageModelError) {
        if (e.code === vscode.LanguageModelError.NotFound.name) {
            return new types_1.ProviderError('unknown-model', `The editor no longer offers the model "${model}". Pick another one with "Strata: Select Model".`);
        }
        if (e.code === vscode.LanguageModelError.NoPermissions.name) {
            return new types_1.ProviderError('bad-key', `Strata is not allowed to use "${model}". Allow it when VS Code asks, or pick another model.`);
        }
        if (e.code === vscode.LanguageModelError.Blocked.name) {
            return new types_1.ProviderError('rate-limited', `The editor blocked the request to "${model}" (quota or rate limit). Try again later.`);
        }
    }
    if (/context|token limit|too long|too many tokens/i.test(message)) {
        return new types_1.ProviderError('context-length', `The request is longer than ${model}'s context window.`);
    }
    return new types_1.ProviderError('server', `The editor's language model "${model}" failed: ${message.slice(0, 200)}`);
}
class VscodeLmProvider {
    kind = 'vscode-lm';
    supportsTools = true;
    label = 'VS Code language model';
    stream(req) {
        return (0, runner_1.runStream)({
            ctx: { provider: 'VS Code language model', baseURL: 'vscode://lm', model: req.model },
            signal: req.signal,
            timeoutMs: req.timeoutMs,
            retry: { maxAttempts: 1 },
            open: (signal) => this.open(req, signal),
        });
    }
    async *open(req, signal) {
        const cts = new vscode.CancellationTokenSource();
        const onAbort = () => cts.cancel();
        signal.addEventListener('abort', onAbort, { once: true });
        try {
            const [model] = await vscode.lm.selectChatModels({ id: req.model });
            if (!model)
                throw new types_1.ProviderError('unknown-model', `The editor does not offer the model "${req.model}". Pick another one with "Strata: Select Model".`);
            const justification = 'Strata sends your chat message and the context you attached to the selected model.';
            const messages = toLanguageModelMessages(req.messages);
            const withTools = req.tools && req.tools.length > 0 && !noToolModels.has(model.id);
            let response;
            try {
                response = await model.sendRequest(messages, withTools ? { justification, tools: toLanguageModelTools(req.tools) } : { justification }, cts.token);
            }
            catch (e) {
                if (!withTools || !/tool/i.test(e instanceof Error ? e.message : String(e)))
                    throw e;
                noToolModels.add(model.id);
                response = await model.sendRequest(messages, { justification }, cts.token);
            }
            let index = 0;
            for await (const part of response.stream) {
                if (part instanceof vscode.LanguageModelTextPart) {
                    if (part.value)
                        yield { text: part.value };
                }
                else if (part instanceof vscode.LanguageModelToolCallPart) {
                    yield { toolCallChunks: [{ index: index++, id: part.callId, name: part.name, args: JSON.stringify(part.input ?? {}) }] };
                }
            }
        }
        catch (e) {
            throw mapError(e, req.model);
        }
        finally {
            signal.removeEventListener('abort', onAbort);
            cts.dispose();
        }
    }
    async listModels() {
        return (await editorModels()).map((m) => m.id);
    }
}
exports.VscodeLmProvider = VscodeLmProvider;
//# sourceMappingURL=vscodeLmProvider.js.map