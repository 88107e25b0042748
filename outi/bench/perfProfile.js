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
exports.isProjectFunction = isProjectFunction;
exports.profileGrowth = profileGrowth;
/**
 * Where build time goes, from V8's sampling profiler (node:inspector, in process): for a window of
 * turns, the inclusive time per turn of each function called under `buildTurn`. Comparing an early and
 * a late window names what grows with the length of the conversation.
 */
const inspector = __importStar(require("inspector"));
const path = __importStar(require("path"));
const perfDrive_1 = require("./perfDrive");
const perfStats_1 = require("./perfStats");
function post(session, method, params) {
    let result;
    let error = null;
    // Same-thread sessions dispatch synchronously: the callback has run when post returns.
    session.post(method, params ?? {}, (err, res) => {
        error = err;
        result = res;
    });
    if (error)
        throw error;
    if (result === undefined)
        throw new Error(`inspector ${method} did not answer synchronously`);
    return result;
}
/** `name src/engine/engine.js:68` for the project's compiled files, `name file.js:12` for others. */
function label(n) {
    const f = n.callFrame;
    const url = f.url.replace(/^file:\/\//, '');
    const i = url.lastIndexOf('/out/');
    const file = i >= 0 ? url.slice(i + 5) : url ? path.basename(url) : '';
    return `${f.functionName || '(anonymous)'}${file ? ` ${file}:${f.lineNumber + 1}` : ''}`;
}
/** Functions of the project itself (compiled into out/src), not of libraries or Node. */
function isProjectFunction(fn) {
    return / src\/\S+\.js:\d+$/.test(fn);
}
/** Inclusive microseconds per function, counting only samples under a `buildTurn` frame. */
function underBuildTurn(p) {
    const byId = new Map(p.nodes.map((n) => [n.id, n]));
    const parent = new Map();
    for (const n of p.nodes)
        for (const c of n.children ?? [])
            parent.set(c, n.id);
    const perSample = new Map();
    p.samples.forEach((id, i) => perSample.set(id, (perSample.get(id) ?? 0) + (p.timeDeltas[i] ?? 0)));
    const out = new Map();
    for (const [id, us] of perSample) {
        const chain = [];
        let inBuild = false;
        for (let c = id; c !== undefined; c = parent.get(c)) {
            const n = byId.get(c);
            chain.push(n);
            if (n.callFrame.functionName === 'buildTurn') {
                inBuild = true;
                break;
            }
        }
        if (!inBuild)
            continue;
        const seen = new Set();
        for (const n of chain) {
            const l = label(n);
            if (seen.has(l))
                continue;
            seen.add(l);
            out.set(l, (out.get(l) ?? 0) + us);
        }
    }
    return out;
}
/**
 * Profiles a warm pass (the tokenizer memo is warmed by a first pass) and returns the functions whose
 * inclusive time per turn grows the most between turns [early] and turns [late] (1-based, inclusive).
 */
function profileGrowth(traj, tokenizer, early, late, top = 10) {
    (0, perfDrive_1.driveEngine)(traj, { layout: 'transcript', policy: 'append-version', tokenizer });
    const session = new inspector.Session();
    session.connect();
    try {
        post(session, 'Profiler.enable');
        post(session, 'Profiler.setSamplingInterval', { interval: 100 });
        const profiles = [];
        const windows = [early, late];
        let active = -1;
        const startIf = (turn) => {
            const w = windows.findIndex((x) => x[0] === turn);
            if (w >= 0) {
                active = w;
                post(session, 'Profiler.start');
            }
        };
        startIf(1);
        (0, perfDrive_1.driveEngine)(traj, {
            layout: 'transcript',
            policy: 'append-version',
            tokenizer,
            onBuilt: (turn) => {
                if (active >= 0 && windows[active][1] === turn) {
                    profiles[active] = post(session, 'Profiler.stop').profile;
                    active = -1;
                }
                startIf(turn + 1);
            },
        });
        if (active >= 0)
            profiles[active] = post(session, 'Profiler.stop').profile;
        const [a, b] = profiles.map(underBuildTurn);
        const turnsA = early[1] - early[0] + 1;
        const turnsB = late[1] - late[0] + 1;
        const rows = [];
        for (const fn of new Set([...a.keys(), ...b.keys()])) {
            const e = (a.get(fn) ?? 0) / 1000 / turnsA;
            const l = (b.get(fn) ?? 0) / 1000 / turnsB;
            rows.push({ fn, earlyMsPerTurn: (0, perfStats_1.round)(e, 2), lateMsPerTurn: (0, perfStats_1.round)(l, 2), growthMsPerTurn: (0, perfStats_1.round)(l - e, 2) });
        }
        return rows.sort((x, y) => y.growthMsPerTurn - x.growthMsPerTurn).slice(0, top);
    }
    finally {
        session.disconnect();
    }
}
//# sourceMappingURL=perfProfile.js.map