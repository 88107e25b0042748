"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.chatHolds = chatHolds;
exports.specLabel = specLabel;
exports.inputFor = inputFor;
exports.notFound = notFound;
/**
 * The workspace as the turn pipeline sees it (a port): where attachments are resolved, isolated and
 * read, and where recoverable files are re-read for freshness. The host implements it over
 * `vscode.workspace.fs` and open documents (src/host); the replay, the benchmark and the tests use
 * `MemoryWorkspace` (src/services/memoryWorkspace.ts). The pure isolation rules live in
 * src/engine/isolation.ts; a port adds what only it can know (real paths, symlinks, open buffers).
 *
 * Methods may answer synchronously (an in-memory workspace) or with a promise (the editor): the
 * pipeline accepts both, which is what lets the replay stay synchronous on the very same code.
 */
const artifacts_1 = require("../engine/artifacts");
/** Whether the chat already holds the content whose hash a port last saw for `src` (then the port may leave it out). */
function chatHolds(src, seenHash) {
    return seenHash !== undefined && !src.missing && src.contentHash !== undefined && seenHash === src.contentHash;
}
/** The label rejections use for a spec: `path` or `path#L3-L9`. */
function specLabel(spec) {
    return spec.kind === 'selection' ? `${spec.path}#L${spec.startLine}-L${spec.endLine}` : spec.path;
}
/**
 * The artifact input for `spec` once its (normalized) path passed isolation and `content` was read:
 * the whole file, or the selection's snapshot — sliced with `sliceLines`, `endLine` clamped, and the
 * requested end kept in `requestedEndLine` when it was past the end of the file.
 */
function inputFor(spec, path, content, label = specLabel(spec)) {
    if (spec.kind === 'file')
        return { ok: true, input: { kind: 'file', uri: path, content } };
    const slice = (0, artifacts_1.sliceLines)(content, { startLine: spec.startLine, endLine: spec.endLine });
    if (!slice)
        return { ok: false, rejection: { attachment: label, reason: 'not-found', message: `${label}: the file has no line ${spec.startLine}.` } };
    const input = { kind: 'selection', uri: path, range: slice.range, content: slice.content };
    if (slice.range.endLine < spec.endLine)
        input.requestedEndLine = spec.endLine;
    return { ok: true, input };
}
/** `not-found` for a path that does not exist (the same sentence everywhere). */
function notFound(label) {
    return { attachment: label, reason: 'not-found', message: `${label} does not exist in the workspace.` };
}
//# sourceMappingURL=workspacePort.js.map