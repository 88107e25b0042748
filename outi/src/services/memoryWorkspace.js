"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.MemoryWorkspace = void 0;
/**
 * A workspace held in memory: the replay's virtual workspace (bench/trajectory.ts extends it with the
 * trajectory format), the benchmark's and the tests'. It applies exactly the pure isolation rules of
 * src/engine/isolation.ts (path shape, excludes, binary, size); there are no symlinks to resolve.
 * Every method answers synchronously, so `TurnPipeline.runSync` can drive it.
 */
const isolation_1 = require("../engine/isolation");
const glob_1 = require("../common/glob");
const nodeHasher_1 = require("./nodeHasher");
const workspacePort_1 = require("./workspacePort");
class MemoryWorkspace {
    files = new Map();
    policy;
    freshMode;
    /** Content last seen by `readFresh` and its hash, by path (`changed` mode: hashed once per change). */
    lastSeen = new Map();
    /** Content that last passed the content checks, by path: a 5 MB file is scanned once, not every turn. */
    checked = new Map();
    /** What the tools see of the editor: diagnostics by path, the current selection. */
    diagnosticList = [];
    currentSelection;
    constructor(files = {}, options = {}) {
        const entries = Symbol.iterator in files ? files : Object.entries(files);
        for (const [p, v] of entries)
            this.files.set(p, v);
        this.policy = options.isolation ?? new isolation_1.IsolationPolicy();
        this.freshMode = options.fresh ?? 'all';
    }
    get isolation() {
        return this.policy;
    }
    /** New excludes or size limit (the host's settings changed): later checks use them. */
    setIsolation(policy) {
        this.policy = policy;
        this.checked.clear();
    }
    read(path) {
        return this.files.get(path);
    }
    write(path, content) {
        this.files.set(path, content);
    }
    delete(path) {
        this.files.delete(path);
    }
    /** The editor's diagnostics as the `get_diagnostics` tool sees them (replaces the earlier ones). */
    setDiagnostics(list) {
        this.diagnosticList = list.map((d) => ({ ...d }));
    }
    /** The user's current selection as the `get_selection` tool sees it (undefined: nothing selected). */
    setSelection(selection) {
        this.currentSelection = selection && { ...selection };
    }
    listFiles(glob, limit) {
        const set = new glob_1.GlobSet([glob]);
        const all = [...this.files.keys()].filter((p) => set.match(p) !== undefined && this.isolation.checkPath(p).ok).sort();
        return { paths: all.slice(0, limit), more: all.length > limit };
    }
    diagnostics(path) {
        return this.diagnosticList.filter((d) => path === undefined || d.path === path).map((d) => ({ ...d }));
    }
    selection() {
        return this.currentSelection && { ...this.currentSelection };
    }
    resolve(spec) {
        const label = (0, workspacePort_1.specLabel)(spec);
        const checked = this.isolation.checkPath(spec.path, label);
        if (!checked.ok)
            return checked;
        const content = this.files.get(checked.path);
        if (content === undefined)
            return { ok: false, rejection: (0, workspacePort_1.notFound)(label) };
        const bad = this.contentCheck(checked.path, content, label);
        if (bad)
            return { ok: false, rejection: bad };
        return (0, workspacePort_1.inputFor)(spec, checked.path, content, label);
    }
    recheck(path, label) {
        const checked = this.isolation.checkPath(path, label);
        if (!checked.ok)
            return checked.rejection;
        const content = this.files.get(checked.path);
        return content === undefined ? undefined : this.contentCheck(checked.path, content, label);
    }
    readFresh(sources) {
        const out = new Map();
        for (const src of sources) {
            const content = this.files.get(src.uri) ?? null;
            if (this.freshMode === 'changed' && content !== null && src.contentHash !== undefined) {
                let seen = this.lastSeen.get(src.uri);
                if (!seen || seen.content !== content)
                    this.lastSeen.set(src.uri, (seen = { content, hash: (0, nodeHasher_1.sha256HexNode)(content) }));
                // The chat holds exactly this content: nothing to report.
                if ((0, workspacePort_1.chatHolds)(src, seen.hash))
                    continue;
            }
            out.set(src.id, content);
        }
        return out;
    }
    contentCheck(path, content, label) {
        if (this.checked.get(path) === content)
            return undefined;
        const bad = this.isolation.checkContent(content, label);
        if (!bad)
            this.checked.set(path, content);
        return bad;
    }
}
exports.MemoryWorkspace = MemoryWorkspace;
//# sourceMappingURL=memoryWorkspace.js.map