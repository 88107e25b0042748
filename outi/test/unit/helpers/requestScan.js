"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.requestText = requestText;
exports.unescapeAttribute = unescapeAttribute;
exports.scanBlocks = scanBlocks;
exports.openingTags = openingTags;
exports.occurrences = occurrences;
/** The request as one text, framed per message as DESIGN §9 counts it: `<|role|>\n` + text + `\n`. */
function requestText(messages) {
    return messages.map((m) => `<|${m.role}|>\n${m.content.map((b) => b.text).join('')}\n`).join('');
}
const OPEN = /<(file|selection|diagnostics|folder|tool|text) id="([^"\n]*)" version="(\d+)" path="([^"\n]*)"(?: lines="\d+-\d+")? sha="([0-9a-f]{8,}(?:-\d+)?)"[^>\n]*>\n/g;
function unescapeAttribute(v) {
    return v.replace(/&(quot|lt|gt|amp|#(\d+));/g, (_m, name, code) => {
        if (code)
            return String.fromCodePoint(Number(code));
        return { quot: '"', lt: '<', gt: '>', amp: '&' }[name];
    });
}
/**
 * Scans left to right: an opening tag at the start of a line opens a block, which ends at the first
 * following line that is exactly the closing marker the tag announces, `</kind:SHA>` with the tag's
 * `sha` value (DESIGN §2: "the closing marker carries a short hash of the content"). Text inside a
 * block is skipped, as a reader would. An opening tag whose marker never comes is `unterminated`
 * and scanning goes on after it.
 */
function scanBlocks(text) {
    const blocks = [];
    const unterminated = [];
    let pos = 0;
    for (;;) {
        OPEN.lastIndex = pos;
        let m;
        do
            m = OPEN.exec(text);
        while (m && m.index > 0 && text[m.index - 1] !== '\n');
        if (!m)
            return { blocks, unterminated };
        const [tag, kind, rawId, version, rawPath, sha] = m;
        const bodyStart = m.index + tag.length;
        const close = new RegExp(`\\n(</${kind}:${sha}>)\\n`, 'g');
        close.lastIndex = bodyStart;
        const c = close.exec(text);
        if (!c) {
            unterminated.push(tag.slice(0, -1));
            pos = bodyStart;
            continue;
        }
        blocks.push({
            kind, rawId, rawPath, id: unescapeAttribute(rawId), path: unescapeAttribute(rawPath), version: Number(version), sha,
            openTag: tag.slice(0, -1), body: text.slice(bodyStart, c.index), openStart: m.index, bodyStart, bodyEnd: c.index,
            closeEnd: c.index + c[0].length, marker: c[1],
        });
        pos = c.index + c[0].length;
    }
}
/** Opening tag lines (at a line start) in `text`, whatever follows them. */
function openingTags(text) {
    const out = [];
    OPEN.lastIndex = 0;
    let m;
    while ((m = OPEN.exec(text)))
        if (m.index === 0 || text[m.index - 1] === '\n')
            out.push(m[0].slice(0, -1));
    return out;
}
/** Every index where `needle` occurs in `text`. */
function occurrences(text, needle) {
    const out = [];
    for (let i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + 1))
        out.push(i);
    return out;
}
//# sourceMappingURL=requestScan.js.map