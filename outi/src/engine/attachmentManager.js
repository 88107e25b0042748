"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.AttachmentManager = void 0;
const artifacts_1 = require("./artifacts");
const state_1 = require("./state");
/**
 * The attachments of one chat (DESIGN §3): an ordered keyed map of artifact versions with tokens,
 * priority and the essential (pinned) flag. A view over `ChatState`, so whatever it changes is
 * what the chat store persists.
 */
class AttachmentManager {
    state;
    hasher;
    tokensOf;
    stored;
    constructor(state, hasher, tokensOf, 
    /** The artifact a new version stores (the engine's shares its content with its rendered block). */
    stored = (a) => a) {
        this.state = state;
        this.hasher = hasher;
        this.tokensOf = tokensOf;
        this.stored = stored;
    }
    get(key) {
        return this.state.entries.get(key);
    }
    /** The newest version of `id`. */
    latest(id) {
        const key = this.state.latest.get(id);
        return key ? this.state.entries.get(key) : undefined;
    }
    /** Every version in first-seen order. */
    all() {
        return this.state.order.map((k) => this.state.entries.get(k));
    }
    /** Versions still sent (in full or compacted), in first-seen order. */
    present() {
        return this.all().filter((e) => e.presence === 'present');
    }
    /**
     * Adds a new version of the artifact described by `input` (id derived from it unless given).
     * The previous version becomes superseded; a pin moves to the new version. `tool`: a workspace
     * tool read it (a new version of something a tool read stays the tool's).
     */
    addVersion(input, turn, id, tool) {
        const s = this.state;
        const probe = (0, artifacts_1.makeArtifact)(input, 1, this.hasher);
        const artifactId = id ?? probe.id;
        const version = (s.versions.get(artifactId) ?? 0) + 1;
        const artifact = this.stored({ ...probe, id: artifactId, version });
        const prev = this.latest(artifactId);
        const entry = {
            artifact,
            key: (0, artifacts_1.versionKey)(artifactId, version),
            firstTurn: turn,
            presence: 'present',
            superseded: false,
            missing: false,
            essential: prev?.essential === true && prev.presence === 'present',
        };
        if (input.requestedEndLine !== undefined && input.range && input.requestedEndLine > input.range.endLine)
            entry.requestedEndLine = input.requestedEndLine;
        const origin = tool ?? prev?.tool;
        if (origin !== undefined)
            entry.tool = origin;
        if (prev) {
            const w = (0, state_1.writableEntry)(s, prev.key);
            w.superseded = true;
            w.essential = false;
        }
        (0, state_1.writableVersions)(s).set(artifactId, version);
        (0, state_1.writableLatest)(s).set(artifactId, entry.key);
        (0, state_1.putEntry)(s, entry);
        (0, state_1.writableOrder)(s).push(entry.key);
        return entry;
    }
    pin(key) {
        const e = this.get(key);
        if (!e || e.presence === 'detached')
            return false;
        (0, state_1.writableEntry)(this.state, key).essential = true;
        return true;
    }
    unpin(key) {
        const e = this.get(key);
        if (!e || e.presence === 'detached')
            return false;
        (0, state_1.writableEntry)(this.state, key).essential = false;
        return true;
    }
    /** The user removed the item: every version of its id leaves later requests. */
    remove(id) {
        const reports = [];
        for (const v of this.all()) {
            if (v.artifact.id !== id || v.presence === 'detached' || v.presence === 'replaced')
                continue;
            const pre = v.presence === 'present' ? this.tokensOf(v) : 0;
            const w = (0, state_1.writableEntry)(this.state, v.key);
            w.presence = 'detached';
            w.essential = false;
            reports.push({ layer: 'L2', item: v.key, preTokens: pre, postTokens: 0, kept: 'nothing (removed by the user)', lost: (0, artifacts_1.describeArtifact)(v.artifact), reason: 'detached' });
        }
        return reports;
    }
    /** 0 when pinned, 10 when superseded, else the artifact's own priority (selections 3, others 5). */
    effectivePriority(e) {
        if (e.essential)
            return artifacts_1.PRIORITY.essential;
        // Superseded versions and what a tool read (it can be read again) go first (DESIGN §5, issue 11).
        if (e.superseded || e.tool !== undefined)
            return artifacts_1.PRIORITY.low;
        return e.artifact.priority;
    }
    /**
     * Present, unpinned versions in the order they are dropped under budget pressure: highest
     * priority number first, ties oldest first (first-seen order breaks the remaining ties).
     */
    dropOrder() {
        const order = new Map(this.state.order.map((k, i) => [k, i]));
        return this.present()
            .filter((e) => !e.essential)
            .sort((a, b) => this.effectivePriority(b) - this.effectivePriority(a) || a.firstTurn - b.firstTurn || order.get(a.key) - order.get(b.key));
    }
    /** Tokens of everything present. */
    tokens() {
        return this.present().reduce((n, e) => n + this.tokensOf(e), 0);
    }
    /**
     * Drops versions in `dropOrder` until the present ones fit in `limit` tokens. Pinned items are
     * never dropped; if they alone exceed the limit the result says so (`fits: false`).
     */
    optimizeForLimit(limit, turn) {
        let tokens = this.tokens();
        const dropped = [];
        for (const e of this.dropOrder()) {
            if (tokens <= limit)
                break;
            const pre = this.tokensOf(e);
            (0, state_1.writableEntry)(this.state, e.key).presence = 'pruned';
            tokens -= pre;
            dropped.push({
                layer: e.firstTurn < turn ? 'L2' : 'L3', item: e.key, preTokens: pre, postTokens: 0, kept: 'nothing; re-attach it to send it again',
                lost: e.artifact.recoverable ? (0, artifacts_1.describeArtifact)(e.artifact) : `${(0, artifacts_1.describeArtifact)(e.artifact)} (a snapshot that cannot be re-read)`,
                reason: e.superseded ? 'superseded' : 'budget',
            });
        }
        return { fits: tokens <= limit, tokens, kept: this.present().map((e) => e.key), dropped };
    }
}
exports.AttachmentManager = AttachmentManager;
//# sourceMappingURL=attachmentManager.js.map