"use strict";
var __createBinding = (this && this.__createBinding) || (Object.create ? (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    var desc = Object.getOwnPropertyDescriptor(m, k);
    if (!desc || ("get" in desc ? !m.__esModule : desc.writable || desc.configurable)) {
      desc = { enumerable: true, get: function() { return m[k]; } };
    }
    Object.defineProperty(o, k2, desc);
}) : (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    o[k2] = m[k];
}));
var __setModuleDefault = (this && this.__setModuleDefault) || (Object.create ? (function(o, v) {
    Object.defineProperty(o, "default", { enumerable: true, value: v });
}) : function(o, v) {
    o["default"] = v;
});
var __importStar = (this && this.__importStar) || (function () {
    var ownKeys = function(o) {
        ownKeys = Object.getOwnPropertyNames || function (o) {
            var ar = [];
            for (var k in o) if (Object.prototype.hasOwnProperty.call(o, k)) ar[ar.length] = k;
            return ar;
        };
        return ownKeys(o);
    };
    return function (mod) {
        if (mod && mod.__esModule) return mod;
        var result = {};
        if (mod != null) for (var k = ownKeys(mod), i = 0; i < k.length; i++) if (k[i] !== "default") __createBinding(result, mod, k[i]);
        __setModuleDefault(result, mod);
        return result;
    };
})();
Object.defineProperty(exports, "__esModule", { value: true });
exports.round = round;
exports.stats = stats;
exports.timed = timed;
exports.machineFacts = machineFacts;
exports.formatInt = formatInt;
/**
 * Small helpers shared by the benchmark's performance cases: order statistics, a timer, and the
 * facts about the machine that a reader needs to interpret the timings.
 */
const os = __importStar(require("os"));
/** Rounds to `digits` decimals (0.1 + 0.2 stays 0.3, not 0.30000000000000004). */
function round(x, digits = 3) {
    const f = 10 ** digits;
    return Math.round(x * f) / f;
}
/** min / median / p95 / max of `xs` (all 0 for no samples), rounded to `digits` decimals. */
function stats(xs, digits = 3) {
    const n = xs.length;
    if (n === 0)
        return { n: 0, min: 0, median: 0, p95: 0, max: 0 };
    const s = [...xs].sort((a, b) => a - b);
    const median = n % 2 === 1 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    const p95 = s[Math.max(0, Math.ceil(0.95 * n) - 1)];
    return { n, min: round(s[0], digits), median: round(median, digits), p95: round(p95, digits), max: round(s[n - 1], digits) };
}
/** Milliseconds `fn` takes, and its result. */
function timed(fn) {
    const t0 = performance.now();
    const value = fn();
    return { ms: performance.now() - t0, value };
}
function machineFacts() {
    const cpus = os.cpus();
    return {
        node: process.version,
        v8: process.versions.v8,
        platform: os.platform(),
        arch: os.arch(),
        cpuModel: cpus[0]?.model.trim() ?? 'unknown',
        cpus: cpus.length,
        totalMemoryMB: Math.round(os.totalmem() / (1024 * 1024)),
    };
}
/** `1234567` → `1,234,567` (deterministic, independent of the locale). */
function formatInt(n) {
    const s = String(Math.round(Math.abs(n)));
    const grouped = s.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
    return n < 0 ? `-${grouped}` : grouped;
}
//# sourceMappingURL=perfStats.js.map