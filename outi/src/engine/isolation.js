"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.IsolationPolicy = exports.DEFAULT_MAX_FILE_BYTES = exports.DEFAULT_EXCLUDES = void 0;
exports.normalizeRelativePath = normalizeRelativePath;
exports.utf8Length = utf8Length;
exports.looksBinary = looksBinary;
const glob_1 = require("../common/glob");
exports.DEFAULT_EXCLUDES = [
    '**/.env', '**/.env.*', '**/*.pem', '**/*.key', '**/*.p12', '**/*.pfx', '**/id_rsa*',
    '**/id_ed25519*', '**/id_ecdsa*', '**/.ssh/**', '**/.aws/**', '**/.npmrc', '**/.netrc', '**/.git/**',
];
exports.DEFAULT_MAX_FILE_BYTES = 8 * 1024 * 1024;
/**
 * Normalizes a workspace-relative path ('/' separators, no '.' segments, no empty segments).
 * Returns undefined when the path is absolute or climbs out of the workspace.
 */
function normalizeRelativePath(path) {
    if (path.length === 0)
        return undefined;
    const p = path.replace(/\\/g, '/');
    if (p.startsWith('/') || /^[A-Za-z]:/.test(p) || p.startsWith('~'))
        return undefined;
    const out = [];
    for (const seg of p.split('/')) {
        if (seg === '' || seg === '.')
            continue;
        if (seg === '..') {
            if (out.length === 0)
                return undefined;
            out.pop();
            continue;
        }
        out.push(seg);
    }
    return out.length === 0 ? undefined : out.join('/');
}
/** UTF-8 byte length without allocating. */
function utf8Length(text) {
    let n = 0;
    for (let i = 0; i < text.length; i++) {
        const c = text.charCodeAt(i);
        if (c < 0x80)
            n += 1;
        else if (c < 0x800)
            n += 2;
        else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
            const d = text.charCodeAt(i + 1);
            if (d >= 0xdc00 && d <= 0xdfff) {
                n += 4;
                i++;
            }
            else
                n += 3;
        }
        else
            n += 3;
    }
    return n;
}
function looksBinary(content) {
    return content.includes('\u0000');
}
/**
 * The pure part of workspace isolation: path shape, excludes and content checks. The host adds
 * real-path (symlink) resolution against the workspace folders before calling this.
 */
class IsolationPolicy {
    maxFileBytes;
    excludes;
    constructor(excludes = exports.DEFAULT_EXCLUDES, maxFileBytes = exports.DEFAULT_MAX_FILE_BYTES) {
        this.maxFileBytes = maxFileBytes;
        this.excludes = new glob_1.GlobSet(excludes);
    }
    /** Checks a path; on success returns the normalized path. */
    checkPath(path, label = path) {
        const norm = normalizeRelativePath(path);
        if (norm === undefined) {
            return { ok: false, rejection: { attachment: label, reason: 'outside-workspace', message: `${label} is outside the workspace; only files inside this window's workspace folders can be attached.` } };
        }
        const pattern = this.excludes.match(norm);
        if (pattern !== undefined) {
            return { ok: false, rejection: { attachment: label, reason: 'excluded', message: `${label} matches the exclude pattern ${pattern} (strata.context.exclude) and was not attached.` } };
        }
        return { ok: true, path: norm };
    }
    checkContent(content, label) {
        if (looksBinary(content)) {
            return { attachment: label, reason: 'binary', message: `${label} looks like a binary file and was not attached.` };
        }
        const bytes = utf8Length(content);
        if (bytes > this.maxFileBytes) {
            return { attachment: label, reason: 'too-large', message: `${label} is ${bytes} bytes, over strata.context.maxFileBytes (${this.maxFileBytes}); nothing of it was sent.` };
        }
        return undefined;
    }
}
exports.IsolationPolicy = IsolationPolicy;
//# sourceMappingURL=isolation.js.map