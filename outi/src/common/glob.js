"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.GlobSet = void 0;
exports.globToRegExp = globToRegExp;
/**
 * Minimal glob → RegExp for workspace-relative, '/'-separated paths.
 * `**` spans folders, `*` and `?` stay inside one segment, dot files are matched like any other
 * name, matching is case-sensitive. `{a,b}` alternatives are supported; character classes are not.
 */
function globToRegExp(glob) {
    let re = '';
    let i = 0;
    let braceDepth = 0;
    while (i < glob.length) {
        const c = glob[i];
        if (c === '*') {
            if (glob[i + 1] === '*') {
                const atSegmentStart = i === 0 || glob[i - 1] === '/';
                const followedBySlash = glob[i + 2] === '/';
                if (atSegmentStart && followedBySlash) {
                    re += '(?:[^/]*/)*';
                    i += 3;
                    continue;
                }
                re += '.*';
                i += 2;
                continue;
            }
            re += '[^/]*';
        }
        else if (c === '?') {
            re += '[^/]';
        }
        else if (c === '{') {
            braceDepth++;
            re += '(?:';
        }
        else if (c === '}' && braceDepth > 0) {
            braceDepth--;
            re += ')';
        }
        else if (c === ',' && braceDepth > 0) {
            re += '|';
        }
        else {
            re += c.replace(/[.+^$()|[\]\\]/g, '\\$&');
        }
        i++;
    }
    return new RegExp(`^${re}$`);
}
class GlobSet {
    patterns;
    constructor(globs) {
        this.patterns = globs.map((glob) => ({ glob, re: globToRegExp(glob) }));
    }
    /** The first pattern that matches `path`, or undefined. */
    match(path) {
        for (const p of this.patterns) {
            if (p.re.test(path))
                return p.glob;
        }
        return undefined;
    }
}
exports.GlobSet = GlobSet;
//# sourceMappingURL=glob.js.map