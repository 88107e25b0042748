"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.ChatModel = void 0;
exports.sha256 = sha256;
exports.splitLines = splitLines;
exports.refSlice = refSlice;
exports.runTrajectory = runTrajectory;
exports.allSegments = allSegments;
exports.presentKeys = presentKeys;
exports.isDiffBlock = isDiffBlock;
exports.fullBodies = fullBodies;
/**
 * An independent model of what a chat's selections, pins and rejections must be (DESIGN §2, §8),
 * written from the design, not from the engine, plus a runner that replays a trajectory and keeps
 * what the properties need (envelopes, the pinned set of the committed state).
 */
const node_crypto_1 = require("node:crypto");
const replayCore_1 = require("../../../bench/replayCore");
const trajectory_1 = require("../../../bench/trajectory");
const render_1 = require("../../../src/engine/render");
function sha256(text) {
    return (0, node_crypto_1.createHash)('sha256').update(text, 'utf8').digest('hex');
}
/** Lines as VS Code splits them (\r\n, \n, \r), written independently of src/engine/artifacts.ts. */
function splitLines(text) {
    return text.split(/\r\n|\r|\n/);
}
/** Selection snapshot (DESIGN §2): start of startLine to end of endLine, no final break, end clamped. */
function refSlice(text, startLine, endLine) {
    const lines = splitLines(text);
    if (startLine > lines.length)
        return undefined;
    const end = Math.min(endLine, lines.length);
    // Offsets: walk the text, so the original line breaks inside the range are kept byte for byte.
    const re = /\r\n|\r|\n/g;
    const starts = [0];
    const ends = [];
    let m;
    while ((m = re.exec(text))) {
        ends.push(m.index);
        starts.push(m.index + m[0].length);
    }
    ends.push(text.length);
    return { content: text.slice(starts[startLine - 1], ends[end - 1]), endLine: end };
}
function runTrajectory(traj, layout, policy, tokenizer) {
    const out = [];
    const it = (0, replayCore_1.replay)(traj, {
        layout,
        policy,
        tokenizer,
        afterTurn: (_turn, engine) => {
            const essential = new Map();
            for (const e of engine.state.entries.values())
                if (e.essential)
                    essential.set(e.key, e.artifact.content);
            out[out.length - 1].essentialAfter = essential;
        },
    });
    for (const t of it)
        out.push({ ...t, committed: !t.envelope.blocked });
    return out;
}
function allSegments(t) {
    return t.envelope.layers.flatMap((l) => l.segments);
}
/** Keys sent in full or as a compacted preview (both count as "present", DESIGN §5). */
function presentKeys(t) {
    const s = new Set();
    for (const g of allSegments(t))
        if ((g.kind === 'artifact' || g.kind === 'compacted') && g.artifactKey)
            s.add(g.artifactKey);
    return s;
}
function isDiffBlock(text) {
    return /^<[a-z]+ [^\n]* format="diff"/.test(text);
}
/** artifactKey → bodies of the full (`artifact`) blocks that carry it in this request. */
function fullBodies(t) {
    const m = new Map();
    for (const g of allSegments(t)) {
        if (g.kind !== 'artifact' || !g.artifactKey)
            continue;
        m.set(g.artifactKey, [...(m.get(g.artifactKey) ?? []), isDiffBlock(g.text) ? undefined : (0, render_1.extractBody)(g.text)]);
    }
    return m;
}
const EXCLUDED = /(^|\/)\.env$|\.pem$/;
function keyOf(id, version) {
    return version === 1 ? id : `${id}@v${version}`;
}
/**
 * Tracks the workspace, every selection version, which selections are pinned, and which files are
 * attached, turn by turn: edits → detach → attach → pin → unpin → cuts.
 */
class ChatModel {
    files = new Map();
    sels = new Map();
    /** Selection versions in creation order (the engine's first-seen order). */
    created = [];
    /** path → whether the newest version of `file:path` is detached. */
    attachedFiles = new Map();
    /** Pinned selection versions: key → snapshot. */
    pinned = new Map();
    /** Every selection version attached in a committed turn: key → snapshot. */
    snapshots = new Map();
    /** Keys named by a cut report in a committed turn. */
    reported = new Set();
    constructor(traj) {
        for (const [p, v] of Object.entries(traj.files))
            this.files.set(p, (0, trajectory_1.expandFileValue)(v));
    }
    findSel(a) {
        let best;
        for (const v of this.created)
            if (v.uri === a.file && v.startLine === a.startLine && v.endLine === a.endLine)
                best = v;
        if (!best)
            return undefined;
        const id = this.sels.get(best.id);
        return id.versions[id.versions.length - 1];
    }
    /**
     * Applies one turn. `reports` are the turn's cut reports (used to learn what the budget cut);
     * when `committed` is false (blocked turn) only the workspace edits stay.
     */
    step(turn, reports, committed) {
        for (const [p, v] of Object.entries(turn.edits ?? {})) {
            if (v === null)
                this.files.delete(p);
            else
                this.files.set(p, (0, trajectory_1.expandFileValue)(v));
        }
        const rejections = [];
        const selLabel = (s) => `${s.file}#L${s.startLine}-L${s.endLine}`;
        // Work on copies; commit at the end unless the turn is blocked.
        const pinned = new Map(this.pinned);
        const detachedIds = new Set();
        const detachedFiles = new Set();
        const refTarget = (a) => {
            if (a.selection) {
                const v = this.findSel(a.selection);
                const gone = v && (this.sels.get(v.id).detached || detachedIds.has(v.id));
                return v && !gone ? { sel: v, label: selLabel(a.selection) } : undefined;
            }
            const f = this.attachedFiles.get(a.file);
            return f && !f.detached && !detachedFiles.has(a.file) ? { file: a.file, label: a.file } : undefined;
        };
        const label = (a) => (a.selection ? selLabel(a.selection) : a.file);
        // The generator never names one item in two of pin / unpin / detach in a turn. The engine applies
        // detach first, then this turn's attachments, then pin and unpin.
        for (const a of turn.detach ?? []) {
            const t = refTarget(a);
            if (!t) {
                rejections.push(`${label(a)}|not-found`);
                continue;
            }
            if (t.sel) {
                detachedIds.add(t.sel.id);
                for (const v of this.sels.get(t.sel.id).versions)
                    pinned.delete(v.key);
            }
            else
                detachedFiles.add(t.file);
        }
        const attachedSelections = new Map();
        const newVersions = [];
        /** This turn's new selection versions whose endLine was past the end of the file. */
        const clampedNow = new Set();
        const newFiles = new Set();
        for (const a of turn.attach ?? []) {
            const path = a.selection ? a.selection.file : a.file;
            const l = label(a);
            if (path.startsWith('../') || path.startsWith('/')) {
                rejections.push(`${l}|outside-workspace`);
                continue;
            }
            if (EXCLUDED.test(path)) {
                rejections.push(`${l}|excluded`);
                continue;
            }
            const text = this.files.get(path);
            if (text === undefined) {
                rejections.push(`${l}|not-found`);
                continue;
            }
            if (!a.selection) {
                newFiles.add(path);
                continue;
            }
            const slice = refSlice(text, a.selection.startLine, a.selection.endLine);
            if (!slice) {
                rejections.push(`${l}|not-found`);
                continue;
            }
            const id = `sel:${path}#L${a.selection.startLine}-L${slice.endLine}@${sha256(slice.content).slice(0, 8)}`;
            const known = this.sels.get(id);
            const pendingNew = newVersions.find((v) => v.id === id);
            let key;
            if (pendingNew)
                key = pendingNew.key;
            else if (known && !known.gone && !detachedIds.has(id))
                key = known.versions[known.versions.length - 1].key;
            else {
                const v = { id, key: keyOf(id, (known?.versions.length ?? 0) + 1), uri: path, startLine: a.selection.startLine, endLine: slice.endLine, content: slice.content };
                newVersions.push(v);
                if (slice.endLine < a.selection.endLine)
                    clampedNow.add(v);
                key = v.key;
            }
            attachedSelections.set(key, slice.content);
        }
        // Pins and unpins run after this turn's attachments, so an item attached now can be pinned now.
        const pinTarget = (a) => {
            if (a.selection) {
                const sa = a.selection;
                // As the engine: an exact range first (this turn's or earlier), then a clamped one.
                const exact = [...newVersions].reverse().find((n) => n.uri === sa.file && n.startLine === sa.startLine && n.endLine === sa.endLine);
                if (exact)
                    return { sel: exact, label: selLabel(sa) };
                const earlier = refTarget(a);
                if (earlier)
                    return earlier;
                const clamped = [...newVersions].reverse().find((n) => clampedNow.has(n) && n.uri === sa.file && n.startLine === sa.startLine && n.endLine < sa.endLine);
                return clamped ? { sel: clamped, label: selLabel(sa) } : undefined;
            }
            return newFiles.has(a.file) ? { file: a.file, label: a.file } : refTarget(a);
        };
        for (const a of turn.pin ?? []) {
            const t = pinTarget(a);
            if (!t)
                rejections.push(`${label(a)}|not-found`);
            else if (t.sel) {
                // Pinning a selection that was cut sends its snapshot again, as a new version (DESIGN §2, §5).
                let v = t.sel;
                if (!newVersions.includes(v) && this.sels.get(v.id).gone) {
                    v = newVersions.find((n) => n.id === t.sel.id) ?? { ...v, key: keyOf(v.id, this.sels.get(v.id).versions.length + 1) };
                    if (!newVersions.includes(v))
                        newVersions.push(v);
                    attachedSelections.set(v.key, v.content);
                }
                pinned.set(v.key, v.content);
            }
        }
        for (const a of turn.unpin ?? []) {
            const t = pinTarget(a);
            if (!t)
                rejections.push(`${label(a)}|not-found`);
            else if (t.sel) {
                const pending = newVersions.find((n) => n.id === t.sel.id);
                pinned.delete(pending ? pending.key : t.sel.key);
            }
        }
        if (committed) {
            for (const k of [...this.pinned.keys()])
                if (!pinned.has(k))
                    this.pinned.delete(k);
            for (const [k, v] of pinned)
                this.pinned.set(k, v);
            for (const id of detachedIds) {
                const s = this.sels.get(id);
                s.detached = true;
                s.gone = true;
            }
            for (const f of detachedFiles)
                this.attachedFiles.get(f).detached = true;
            for (const v of newVersions) {
                const s = this.sels.get(v.id) ?? { versions: [], gone: false, detached: false };
                s.versions.push(v);
                s.gone = false;
                s.detached = false;
                this.sels.set(v.id, s);
                this.created.push(v);
            }
            for (const f of newFiles)
                this.attachedFiles.set(f, { detached: false });
            for (const [k, c] of attachedSelections)
                this.snapshots.set(k, c);
            for (const r of reports) {
                this.reported.add(r.item);
                for (const s of this.sels.values())
                    if (s.versions[s.versions.length - 1].key === r.item)
                        s.gone = true;
            }
        }
        return { rejections: rejections.sort(), attachedSelections, pinnedNow: pinned };
    }
}
exports.ChatModel = ChatModel;
//# sourceMappingURL=chatModel.js.map