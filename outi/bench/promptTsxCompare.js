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
exports.COMPARE_FRACTIONS = void 0;
exports.extractChunks = extractChunks;
exports.ptsxTokenizer = ptsxTokenizer;
exports.limitsForBudget = limitsForBudget;
exports.comparePromptTsx = comparePromptTsx;
exports.defaultCompareTrajectory = defaultCompareTrajectory;
/**
 * Side by side with @vscode/prompt-tsx (issue 4): the same prioritized chunks under the same budget.
 *
 * The chunks are the request of the last turn of a trajectory (default long-session-20) as Strata's
 * transcript layout builds it with no pruning: the system prompt, every artifact block (each version
 * once, in the turn that first sent it), every earlier turn (its message text, references included,
 * and its reply), and the current message. Priorities are Strata's (DESIGN §5): essential = system
 * prompt, current message and the last turn; selections 3; other attachments and history turns 5;
 * superseded versions 10; ties oldest first. prompt-tsx gets them as `TextChunk` priorities (higher =
 * kept longer: (10 − p) · 10⁵ + turn · 10² + position) and a tokenizer adapter over our tokenizer
 * with the same message framing as the replay's count (DESIGN §9).
 *
 * Methods, for each budget (a fraction of the unpruned request):
 * - `prompt-tsx`: `PromptRenderer.render()` in plain Node (Raw output mode);
 * - `optimizeForLimit`: Strata's `AttachmentManager.optimizeForLimit` over the same chunks (history
 *   turns entered as text items, the last turn pinned), limit = budget − the essential tokens;
 * - `engine 80→60%`: the real engine rebuilding that turn with the budget as its limit and the default
 *   thresholds (prune when over 80% of the budget, down to 60%: the cache-aware hysteresis, which also
 *   compacts and summarizes instead of only dropping);
 * - `engine →99%`: the same with thresholds set to prune only above 100% and down to 99%.
 * Tokens used are counted the same way for all (the exact DESIGN §9 count of the messages sent).
 */
const path = __importStar(require("path"));
const prompt_tsx_1 = require("@vscode/prompt-tsx");
const attachmentManager_1 = require("../src/engine/attachmentManager");
const state_1 = require("../src/engine/state");
const budget_1 = require("../src/engine/budget");
const hash_1 = require("../src/common/hash");
const cacheModel_1 = require("../src/services/cacheModel");
const tokenizer_1 = require("../src/services/tokenizer");
const perfDrive_1 = require("./perfDrive");
const perfStats_1 = require("./perfStats");
function framing(tok, role) {
    return tok.count((0, cacheModel_1.frameHeader)(role)) + tok.count('\n');
}
function textOf(m) {
    return m.content.map((b) => b.text).join('');
}
/** Drives the engine through the trajectory (no pruning) and cuts the last request into chunks. */
function extractChunks(traj, tok) {
    const envelopes = [];
    let lastInput;
    const { engine } = (0, perfDrive_1.driveEngine)(traj, {
        layout: 'transcript',
        policy: 'append-version',
        tokenizer: tok,
        onBuilt: (_t, _ms, env) => envelopes.push(env),
        onInput: (_t, input) => (lastInput = input),
    });
    const last = envelopes[envelopes.length - 1];
    if (envelopes.some((e) => e.pruned.some((p) => p.reason !== 'detached') || e.blocked))
        throw new Error(`${traj.name} needs pruning already: pick a trajectory that fits its window`);
    const state = engine.state; // committed after the last turn: superseded flags as of the last turn
    const artifacts = new Map();
    const turns = [];
    let seq = 0;
    envelopes.forEach((env, i) => {
        const turn = i + 1;
        const current = [...env.layers[2].segments, ...env.layers[4].segments];
        const pieces = current.map((g) => {
            if (g.kind === 'artifact' && g.artifactKey) {
                const e = state.entries.get(g.artifactKey);
                const a = e.artifact;
                const priority = e.essential ? 0 : e.superseded ? 10 : a.priority;
                artifacts.set(g.artifactKey, {
                    key: g.artifactKey, turn, seq: seq++, text: g.text, tokens: tok.count(g.text), priority,
                    input: { kind: a.kind, uri: a.source.uri, ...(a.source.range ? { range: { ...a.source.range } } : {}), content: a.content, id: a.id },
                });
                return { text: g.text, artifact: g.artifactKey };
            }
            return g.kind === 'reference' && g.artifactKey ? { text: g.text, ref: g.artifactKey } : { text: g.text };
        });
        turns.push({ turn, pieces, ...(turn < envelopes.length ? { reply: traj.turns[i].reply } : {}) });
    });
    const lastTurn = turns.length;
    const historyTokens = new Map();
    for (const t of turns) {
        if (t.reply === undefined)
            continue;
        let n = framing(tok, 'user') + framing(tok, 'assistant') + tok.count(t.reply);
        for (const p of t.pieces)
            if (!p.artifact)
                n += tok.count(p.text);
        historyTokens.set(t.turn, n);
    }
    const chunks = { trajectory: traj.name, system: textOf(last.messages[0]), turns, artifacts, historyTokens, lastTurn, totalTokens: 0, essentialTokens: 0 };
    // The chunks put back together must be the engine's request, byte for byte.
    const all = renderKept(chunks, new Set(artifacts.keys()), new Set(historyTokens.keys()));
    const a = JSON.stringify(all);
    const b = JSON.stringify(last.messages.map((m) => ({ role: m.role, content: [{ type: 'text', text: textOf(m) }] })));
    if (a !== b)
        throw new Error('chunk extraction does not reproduce the engine request');
    chunks.totalTokens = (0, cacheModel_1.requestTokenCount)(all, tok);
    chunks.essentialTokens = (0, cacheModel_1.requestTokenCount)(renderKept(chunks, new Set(), new Set([lastTurn - 1])), tok);
    return { chunks, envelopes, lastInput: lastInput };
}
/** The transcript request holding only the kept artifact blocks and history turns. */
function renderKept(c, keptArtifacts, keptHistory) {
    const msgs = [{ role: 'system', content: [{ type: 'text', text: c.system }] }];
    for (const t of c.turns) {
        const isCurrent = t.reply === undefined;
        const history = isCurrent || keptHistory.has(t.turn);
        let text = '';
        for (const p of t.pieces)
            if (p.artifact ? keptArtifacts.has(p.artifact) : history)
                text += p.text;
        if (text)
            msgs.push({ role: 'user', content: [{ type: 'text', text }] });
        if (!isCurrent && history)
            msgs.push({ role: 'assistant', content: [{ type: 'text', text: t.reply }] });
    }
    return msgs;
}
function dangling(c, keptArtifacts, keptHistory) {
    let n = 0;
    for (const t of c.turns) {
        if (t.reply !== undefined && !keptHistory.has(t.turn))
            continue;
        for (const p of t.pieces)
            if (p.ref && !keptArtifacts.has(p.ref))
                n++;
    }
    return n;
}
// ---------------------------------------------------------------------------------------------
// prompt-tsx
const MAX = Number.MAX_SAFE_INTEGER;
function el(ctor, props, ...children) {
    return { ctor, props, children };
}
/** prompt-tsx priority (higher = kept longer) for a Strata priority (lower = more important). */
function ptsxPriority(strataPriority, turn, position) {
    return (10 - strataPriority) * 100_000 + turn * 100 + position;
}
class StrataChunksPrompt extends prompt_tsx_1.PromptElement {
    render() {
        const c = this.props.chunks;
        const messages = [el(prompt_tsx_1.SystemMessage, {}, el(prompt_tsx_1.TextChunk, { priority: MAX }, c.system))];
        for (const t of c.turns) {
            const isCurrent = t.reply === undefined;
            const historyPriority = isCurrent || t.turn === c.lastTurn - 1 ? MAX : ptsxPriority(5, t.turn, 99);
            const parts = t.pieces.map((p) => {
                const a = p.artifact ? c.artifacts.get(p.artifact) : undefined;
                const priority = a ? (a.priority === 0 ? MAX : ptsxPriority(a.priority, a.turn, a.seq % 99)) : historyPriority;
                return el(prompt_tsx_1.TextChunk, { priority }, p.text);
            });
            messages.push(el(prompt_tsx_1.UserMessage, {}, ...parts));
            if (!isCurrent)
                messages.push(el(prompt_tsx_1.AssistantMessage, {}, el(prompt_tsx_1.TextChunk, { priority: historyPriority }, t.reply)));
        }
        return { ctor: Fragment, props: {}, children: messages };
    }
}
/** What `<>…</>` compiles to: the renderer flattens its children in place and never calls it. */
const Fragment = Object.assign(function Fragment() {
    throw new Error('a fragment is flattened by the renderer, never rendered');
}, { isFragment: true });
const ROLES = { [prompt_tsx_1.Raw.ChatRole.System]: 'system', [prompt_tsx_1.Raw.ChatRole.User]: 'user', [prompt_tsx_1.Raw.ChatRole.Assistant]: 'assistant' };
/** prompt-tsx tokenizer over ours, with the replay's framing: `<|role|>\n` + text + `\n`. */
function ptsxTokenizer(tok) {
    const text = (part) => (part.type === prompt_tsx_1.Raw.ChatCompletionContentPartKind.Text ? part.text : '');
    return {
        mode: prompt_tsx_1.OutputMode.Raw,
        tokenLength: (part) => tok.count(text(part)),
        countMessageTokens: (m) => framing(tok, ROLES[m.role] ?? 'user') + m.content.reduce((n, p) => n + tok.count(text(p)), 0),
    };
}
function fromRaw(messages) {
    return messages.map((m) => ({
        role: ROLES[m.role] ?? 'user',
        content: [{ type: 'text', text: m.content.map((p) => (p.type === prompt_tsx_1.Raw.ChatCompletionContentPartKind.Text ? p.text : '')).join('') }],
    }));
}
async function runPromptTsx(c, budget, tok, runs) {
    const times = [];
    let out = [];
    for (let r = 0; r < runs; r++) {
        const renderer = new prompt_tsx_1.PromptRenderer({ modelMaxPromptTokens: budget }, StrataChunksPrompt, { chunks: c }, ptsxTokenizer(tok));
        const t0 = performance.now();
        const res = await renderer.render();
        times.push(performance.now() - t0);
        out = res.messages;
    }
    const messages = fromRaw(out);
    const all = messages.map(textOf).join('\u0000');
    const keptArtifacts = new Set([...c.artifacts.values()].filter((a) => all.includes(a.text)).map((a) => a.key));
    const keptHistory = new Set();
    for (const t of c.turns) {
        if (t.reply === undefined)
            continue;
        const userText = t.pieces.filter((p) => !p.artifact).map((p) => p.text);
        if (all.includes(t.reply) && userText.every((s) => all.includes(s)))
            keptHistory.add(t.turn);
    }
    return result('prompt-tsx', c, budget, (0, cacheModel_1.requestTokenCount)(messages, tok), keptArtifacts, keptHistory, (0, perfStats_1.stats)(times).median);
}
// ---------------------------------------------------------------------------------------------
// Strata
function result(method, c, budget, used, keptArtifacts, keptHistory, ms, extra = {}) {
    return {
        method,
        budget,
        usedTokens: used,
        usedRatio: (0, perfStats_1.round)(used / budget),
        fits: used <= budget,
        artifactsFull: keptArtifacts.size,
        artifactsCompacted: 0,
        artifactsTotal: c.artifacts.size,
        historyVerbatim: keptHistory.size,
        historySummarized: 0,
        historyTotal: c.historyTokens.size,
        danglingRefs: dangling(c, keptArtifacts, keptHistory),
        ms: (0, perfStats_1.round)(ms),
        ...extra,
    };
}
function runOptimizeForLimit(c, budget, tok, runs) {
    const times = [];
    let kept = [];
    let byKey = new Map();
    for (let r = 0; r < runs; r++) {
        const state = (0, state_1.emptyState)();
        const tokens = new Map();
        byKey = new Map();
        const am = new attachmentManager_1.AttachmentManager(state, { sha256Hex: hash_1.sha256Hex }, (e) => tokens.get(e.key) ?? 0);
        for (const t of c.turns) {
            for (const p of t.pieces) {
                if (!p.artifact)
                    continue;
                const a = c.artifacts.get(p.artifact);
                const e = am.addVersion(a.input, a.turn, a.input.id);
                tokens.set(e.key, a.tokens);
                byKey.set(e.key, { artifact: a.key });
                if (a.priority === 0)
                    am.pin(e.key);
            }
            if (t.reply === undefined)
                continue;
            const text = t.pieces.filter((p) => !p.artifact).map((p) => p.text).join('') + t.reply;
            const e = am.addVersion({ kind: 'text', uri: `history/turn-${t.turn}`, content: text }, t.turn, `history:${t.turn}`);
            tokens.set(e.key, c.historyTokens.get(t.turn));
            byKey.set(e.key, { history: t.turn });
            if (t.turn === c.lastTurn - 1)
                am.pin(e.key);
        }
        const lastHistory = c.historyTokens.get(c.lastTurn - 1) ?? 0;
        const limit = budget - (c.essentialTokens - lastHistory);
        const t0 = performance.now();
        const r1 = am.optimizeForLimit(limit, c.lastTurn);
        times.push(performance.now() - t0);
        kept = r1.kept;
    }
    const keptArtifacts = new Set();
    const keptHistory = new Set();
    for (const k of kept) {
        const m = byKey.get(k);
        if (m.artifact)
            keptArtifacts.add(m.artifact);
        if (m.history !== undefined)
            keptHistory.add(m.history);
    }
    const used = (0, cacheModel_1.requestTokenCount)(renderKept(c, keptArtifacts, keptHistory), tok);
    return result('optimizeForLimit', c, budget, used, keptArtifacts, keptHistory, (0, perfStats_1.stats)(times).median);
}
/** Limits whose budget (DESIGN §5) is exactly `budget` (or the largest one below it). */
function limitsForBudget(budget) {
    let w = budget;
    while ((0, budget_1.computeBudget)({ contextWindow: w + 1, maxOutputTokens: 0 }) <= budget)
        w++;
    return { contextWindow: w, maxOutputTokens: 0 };
}
function runEngine(method, traj, c, budget, thresholds, tok, runs) {
    // Turns 1..n-1 as in the trajectory; the last turn rebuilt under the budget.
    let input;
    const { engine } = (0, perfDrive_1.driveEngine)(traj, { layout: 'transcript', policy: 'append-version', tokenizer: tok, commitLast: false, onInput: (_t, i) => (input = i) });
    engine.updateOptions({ limits: limitsForBudget(budget), thresholds });
    const times = [];
    let env;
    for (let r = 0; r < runs; r++) {
        const t0 = performance.now();
        env = engine.buildTurn(input);
        times.push(performance.now() - t0);
    }
    const e = env;
    const segs = e.layers.flatMap((l) => l.segments);
    const full = new Set(segs.filter((g) => g.kind === 'artifact' && g.artifactKey).map((g) => g.artifactKey));
    const compacted = new Set(segs.filter((g) => g.kind === 'compacted' && g.artifactKey).map((g) => g.artifactKey));
    const verbatim = new Set(segs.filter((g) => g.kind === 'reply' && g.turn !== undefined).map((g) => g.turn));
    const summaryText = segs.find((g) => g.kind === 'summary')?.text;
    const summarized = summaryText ? Number(/turns="1-(\d+)"/.exec(summaryText)?.[1] ?? 0) : 0;
    const refs = segs.filter((g) => g.kind === 'reference' && g.artifactKey);
    const used = e.blocked ? 0 : (0, cacheModel_1.requestTokenCount)(e.messages, tok);
    return {
        ...result(method, c, budget, used, full, verbatim, (0, perfStats_1.stats)(times).median),
        artifactsCompacted: compacted.size,
        historySummarized: summarized,
        danglingRefs: refs.filter((g) => !full.has(g.artifactKey) && !compacted.has(g.artifactKey)).length,
    };
}
exports.COMPARE_FRACTIONS = [0.25, 0.5, 0.75];
async function comparePromptTsx(traj, runs, fractions = exports.COMPARE_FRACTIONS) {
    const tok = (0, tokenizer_1.getTokenizer)(traj.model.encoding);
    const { chunks } = extractChunks(traj, tok);
    const rows = [];
    const fill = { warnPercent: 100, compactPercent: 100, targetPercent: 99 };
    for (const f of fractions) {
        const budget = Math.floor(chunks.totalTokens * f);
        rows.push(await runPromptTsx(chunks, budget, tok, runs));
        rows.push(runOptimizeForLimit(chunks, budget, tok, runs));
        rows.push(runEngine('engine 80→60%', traj, chunks, budget, budget_1.DEFAULT_THRESHOLDS, tok, runs));
        rows.push(runEngine('engine →99%', traj, chunks, budget, fill, tok, runs));
    }
    return { trajectory: traj.name, totalTokens: chunks.totalTokens, essentialTokens: chunks.essentialTokens, runs, rows };
}
function defaultCompareTrajectory() {
    return path.resolve(__dirname, '../../test/fixtures/trajectories/long-session-20.json');
}
//# sourceMappingURL=promptTsxCompare.js.map