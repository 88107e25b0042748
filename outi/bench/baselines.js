"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.plainToolText = plainToolText;
exports.replayBaseline = replayBaseline;
const executor_1 = require("../src/services/tools/executor");
const steps_1 = require("../src/common/steps");
const trajectory_1 = require("./trajectory");
const replayCore_1 = require("./replayCore");
/** What a tool returned, as a plain agent loop sends it: the content, then the note. */
function plainToolText(out) {
    if (out.kind === 'text')
        return out.text;
    return out.note ? `${out.input.content}\n${out.note}` : out.input.content;
}
function itemKey(i) {
    return i.kind === 'selection' ? `${i.uri}#L${i.range.startLine}-L${i.range.endLine}\u0000${i.content}` : i.uri;
}
function inline(i) {
    const where = i.range ? `${i.uri} (lines ${i.range.startLine}-${i.range.endLine})` : i.uri;
    return `File: ${where}\n\`\`\`\n${i.content}\n\`\`\`\n`;
}
function* replayBaseline(traj, name, tokenizer) {
    if (name === 'tools-plain') {
        if (!tokenizer)
            throw new Error('tools-plain needs a tokenizer (tool results are cut at the per-call budget)');
        yield* replayToolsPlain(traj, tokenizer);
        return;
    }
    const ws = new trajectory_1.VirtualWorkspace(traj.files);
    const attached = new Map();
    const history = [];
    for (let i = 0; i < traj.turns.length; i++) {
        const t = traj.turns[i];
        ws.applyEdits(t.edits);
        const rejections = [];
        for (const a of t.attach ?? []) {
            const r = ws.resolve((0, replayCore_1.specOf)(a));
            if (r.ok)
                attached.set(itemKey(r.input), r.input);
            else
                rejections.push(r.rejection);
        }
        for (const a of t.detach ?? []) {
            for (const [k, v] of attached) {
                const same = a.selection ? v.kind === 'selection' && v.uri === a.selection.file && v.range.startLine === a.selection.startLine : v.kind === 'file' && v.uri === a.file;
                if (same)
                    attached.delete(k);
            }
        }
        // Files are re-read every turn (the latest content); selections stay snapshots.
        const current = [];
        for (const v of attached.values()) {
            if (v.kind === 'file') {
                const c = ws.read(v.uri);
                if (c !== undefined)
                    current.push({ ...v, content: c });
            }
            else
                current.push(v);
        }
        const system = [{ type: 'text', text: traj.system }];
        const user = [];
        if (name === 'latest-copy') {
            for (const c of current)
                system.push({ type: 'text', text: `\n\n${inline(c)}` });
        }
        else {
            for (const c of current)
                user.push({ type: 'text', text: inline(c) });
        }
        user.push({ type: 'text', text: t.user });
        system[system.length - 1].cacheBreakpoint = true;
        user[user.length - 1].cacheBreakpoint = true;
        const messages = [{ role: 'system', content: system }, ...history, { role: 'user', content: user }];
        yield { turn: i + 1, messages, rejections };
        history.push({ role: 'user', content: [{ type: 'text', text: t.user }] }, { role: 'assistant', content: [{ type: 'text', text: t.reply }] });
    }
}
/** Copies `messages` with cache breakpoints on the given flat block indexes only. */
function withBreakpoints(messages, at) {
    let i = 0;
    return messages.map((m) => {
        const content = m.content.map((b) => (at.has(i++) ? { type: 'text', text: b.text, cacheBreakpoint: true } : { type: 'text', text: b.text }));
        const out = { role: m.role, content };
        if (m.toolCalls)
            out.toolCalls = m.toolCalls;
        if (m.toolCallId !== undefined)
            out.toolCallId = m.toolCallId;
        return out;
    });
}
function blockCount(messages) {
    return messages.reduce((n, m) => n + m.content.length, 0);
}
function* replayToolsPlain(traj, tokenizer) {
    const ws = new trajectory_1.VirtualWorkspace(traj.files);
    const tools = new executor_1.ToolExecutor(ws, tokenizer, executor_1.DEFAULT_TOOL_LIMITS);
    const system = { role: 'system', content: [{ type: 'text', text: traj.system }] };
    const transcript = [system];
    let previousEnd = -1;
    // Breakpoints: end of the system message, end of the previous request, the last block.
    const request = () => {
        const last = blockCount(transcript) - 1;
        const at = new Set([0, previousEnd, last].filter((i) => i >= 0));
        previousEnd = last;
        return withBreakpoints(transcript, at);
    };
    for (let i = 0; i < traj.turns.length; i++) {
        const t = traj.turns[i];
        ws.applyEdits(t.edits);
        ws.applyEditor(t);
        const rejections = [];
        const user = [];
        for (const a of t.attach ?? []) {
            const r = ws.resolve((0, replayCore_1.specOf)(a));
            if (r.ok)
                user.push({ type: 'text', text: inline(r.input) });
            else
                rejections.push(r.rejection);
        }
        user.push({ type: 'text', text: t.user });
        transcript.push({ role: 'user', content: user });
        const steps = [];
        (t.tools ?? []).forEach((c, k) => {
            steps.push(request());
            const id = (0, replayCore_1.replayToolCallId)(i + 1, k + 1);
            const result = (0, steps_1.runStepsSync)(tools.execute({ id, name: c.name, args: c.args }));
            transcript.push({ role: 'assistant', content: [], toolCalls: [{ id, name: c.name, args: c.args }] });
            transcript.push({ role: 'tool', toolCallId: id, content: [{ type: 'text', text: plainToolText(result.output) }] });
        });
        const messages = request();
        yield steps.length > 0 ? { turn: i + 1, messages, rejections, steps } : { turn: i + 1, messages, rejections };
        transcript.push({ role: 'assistant', content: [{ type: 'text', text: t.reply }] });
    }
}
//# sourceMappingURL=baselines.js.map