"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.PRIORITY = void 0;
exports.isRecoverableKind = isRecoverableKind;
exports.versionKey = versionKey;
exports.fileId = fileId;
exports.selectionId = selectionId;
exports.textId = textId;
exports.lineSpans = lineSpans;
exports.sliceLines = sliceLines;
exports.makeArtifact = makeArtifact;
exports.describeArtifact = describeArtifact;
/** Default priorities (DESIGN §5). Lower is more important. */
exports.PRIORITY = {
    essential: 0,
    selection: 3,
    medium: 5,
    low: 10,
};
/** Files, folders and diagnostics can be read again; so can a tool's output, by calling the tool (issue 11). */
function isRecoverableKind(kind) {
    return kind === 'file' || kind === 'folder' || kind === 'diagnostics' || kind === 'tool';
}
/**
 * The key of one artifact version as written everywhere (DESIGN §2): the id alone for v1,
 * `id@vN` for later versions. Stable: it never changes when later versions appear.
 */
function versionKey(id, version) {
    return version === 1 ? id : `${id}@v${version}`;
}
function fileId(path) {
    return `file:${path}`;
}
function selectionId(path, range, contentHash) {
    return `sel:${path}#L${range.startLine}-L${range.endLine}@${contentHash.slice(0, 8)}`;
}
function textId(contentHash) {
    return `text:${contentHash.slice(0, 16)}`;
}
/**
 * Splits text into lines the way VS Code does: `\r\n`, `\n` and `\r` end a line; U+2028/U+2029 do not.
 * Returns [start, endWithoutBreak] offsets for each line.
 */
function lineSpans(text) {
    const spans = [];
    let start = 0;
    for (let i = 0; i < text.length; i++) {
        const c = text.charCodeAt(i);
        if (c === 10 /* \n */) {
            spans.push([start, i]);
            start = i + 1;
        }
        else if (c === 13 /* \r */) {
            spans.push([start, i]);
            if (text.charCodeAt(i + 1) === 10)
                i++;
            start = i + 1;
        }
    }
    spans.push([start, text.length]);
    return spans;
}
/**
 * The selection snapshot (DESIGN §2): from the start of `startLine` to the end of `endLine`
 * without its final line break; 1-based inclusive; `endLine` past the end is clamped.
 * Returns undefined when the range is empty or starts past the end of the text.
 * Walks the lines only up to `endLine` (the same spans as `lineSpans`): a selection near the top of a
 * 5 MB file costs nothing.
 */
function sliceLines(text, range) {
    if (!Number.isInteger(range.startLine) || !Number.isInteger(range.endLine))
        return undefined;
    if (range.startLine < 1 || range.endLine < range.startLine)
        return undefined;
    const n = text.length;
    let line = 1;
    let start = 0;
    let sliceStart = -1;
    for (;;) {
        if (line === range.startLine)
            sliceStart = start;
        let end = n;
        let next = -1;
        for (let j = start; j < n; j++) {
            const c = text.charCodeAt(j);
            if (c === 10 /* \n */) {
                end = j;
                next = j + 1;
                break;
            }
            if (c === 13 /* \r */) {
                end = j;
                next = text.charCodeAt(j + 1) === 10 ? j + 2 : j + 1;
                break;
            }
        }
        if (line === range.endLine || next < 0) {
            if (sliceStart < 0)
                return undefined;
            return { content: text.slice(sliceStart, end), range: { startLine: range.startLine, endLine: line } };
        }
        line++;
        start = next;
    }
}
function makeArtifact(input, version, hasher) {
    const contentHash = hasher.sha256Hex(input.content);
    const id = input.id ?? deriveId(input, contentHash);
    const recoverable = isRecoverableKind(input.kind);
    return {
        id,
        kind: input.kind,
        source: input.range ? { uri: input.uri, range: { ...input.range } } : { uri: input.uri },
        recoverable,
        content: input.content,
        contentHash,
        version,
        priority: input.kind === 'selection' ? exports.PRIORITY.selection : exports.PRIORITY.medium,
        essential: false,
    };
}
function deriveId(input, contentHash) {
    switch (input.kind) {
        case 'file':
            return input.uri.startsWith('untitled:') ? input.uri : fileId(input.uri);
        case 'selection':
            if (!input.range)
                throw new Error('a selection needs a line range');
            return selectionId(input.uri, input.range, contentHash);
        case 'diagnostics':
            return `diag:${input.uri}`;
        case 'folder':
            return `folder:${input.uri}`;
        case 'tool':
            return `tool:${input.tool ?? input.uri}@${contentHash.slice(0, 8)}`;
        case 'text':
            return textId(contentHash);
    }
}
function describeArtifact(a) {
    const r = a.source.range;
    return r ? `${a.source.uri} lines ${r.startLine}-${r.endLine}` : a.source.uri;
}
//# sourceMappingURL=artifacts.js.map