"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.unifiedDiff = unifiedDiff;
const artifacts_1 = require("./artifacts");
/**
 * Line-based unified diff (Myers O(ND)), deterministic. Used by the `append-diff` policy; the
 * caller keeps the full block when the diff is not smaller.
 */
function unifiedDiff(a, b, path, fromLabel, toLabel, context = 3) {
    const al = (0, artifacts_1.lineSpans)(a).map(([s, e]) => a.slice(s, e));
    const bl = (0, artifacts_1.lineSpans)(b).map(([s, e]) => b.slice(s, e));
    const ops = myers(al, bl);
    if (!ops)
        return b.length > 0 ? `${b}\n(no diff: the versions differ too much)` : '';
    // Group into hunks.
    const out = [`--- ${path} (${fromLabel})`, `+++ ${path} (${toLabel})`];
    let i = 0;
    while (i < ops.length) {
        while (i < ops.length && ops[i].t === '=')
            i++;
        if (i >= ops.length)
            break;
        let start = Math.max(0, i - context);
        let end = i;
        // Extend while changes are within 2*context of each other.
        while (end < ops.length) {
            if (ops[end].t !== '=') {
                end++;
                continue;
            }
            let run = 0;
            while (end + run < ops.length && ops[end + run].t === '=')
                run++;
            if (end + run >= ops.length || run > 2 * context) {
                end = Math.min(ops.length, end + context);
                break;
            }
            end += run;
        }
        const hunk = ops.slice(start, end);
        const aStart = hunk[0].ai + 1;
        const bStart = hunk[0].bi + 1;
        const aLen = hunk.filter((o) => o.t !== '+').length;
        const bLen = hunk.filter((o) => o.t !== '-').length;
        out.push(`@@ -${aStart},${aLen} +${bStart},${bLen} @@`);
        for (const o of hunk)
            out.push((o.t === '=' ? ' ' : o.t) + o.line);
        i = end;
        start = end;
    }
    return out.join('\n');
}
/** Gives up (undefined) past `maxD` edits, where a diff would not be smaller anyway. */
function myers(a, b, maxD = 2000) {
    const n = a.length;
    const m = b.length;
    const max = n + m;
    const offset = max + 1;
    const v = new Int32Array(2 * max + 3);
    const trace = [];
    let found = false;
    for (let d = 0; d <= max && !found; d++) {
        if (d > maxD)
            return undefined;
        trace.push(v.slice());
        for (let k = -d; k <= d; k += 2) {
            let x = k === -d || (k !== d && v[offset + k - 1] < v[offset + k + 1]) ? v[offset + k + 1] : v[offset + k - 1] + 1;
            let y = x - k;
            while (x < n && y < m && a[x] === b[y]) {
                x++;
                y++;
            }
            v[offset + k] = x;
            if (x >= n && y >= m) {
                found = true;
                break;
            }
        }
    }
    trace.push(v.slice());
    // Backtrack.
    const ops = [];
    let x = n;
    let y = m;
    for (let d = trace.length - 2; d >= 0 && (x > 0 || y > 0); d--) {
        const vv = trace[d];
        const k = x - y;
        const prevK = k === -d || (k !== d && vv[offset + k - 1] < vv[offset + k + 1]) ? k + 1 : k - 1;
        const prevX = d === 0 ? 0 : vv[offset + prevK];
        const prevY = prevX - prevK;
        while (x > prevX && y > prevY) {
            x--;
            y--;
            ops.push({ t: '=', line: a[x], ai: x, bi: y });
        }
        if (d === 0)
            break;
        if (x === prevX) {
            y--;
            ops.push({ t: '+', line: b[y], ai: x, bi: y });
        }
        else {
            x--;
            ops.push({ t: '-', line: a[x], ai: x, bi: y });
        }
    }
    while (x > 0 && y > 0) {
        x--;
        y--;
        ops.push({ t: '=', line: a[x], ai: x, bi: y });
    }
    return ops.reverse();
}
//# sourceMappingURL=diff.js.map