"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.captureReplay = captureReplay;
/** Runs the replay's command line (`bench/replay.ts` `main`) in-process, capturing what it prints. */
const replay_1 = require("../../bench/replay");
async function captureReplay(argv) {
    const out = [];
    const err = [];
    const ow = process.stdout.write.bind(process.stdout);
    const ew = process.stderr.write.bind(process.stderr);
    process.stdout.write = (s) => (out.push(String(s)), true);
    process.stderr.write = (s) => (err.push(String(s)), true);
    try {
        const code = await (0, replay_1.main)(argv);
        return { code, out: out.join(''), err: err.join('') };
    }
    finally {
        process.stdout.write = ow;
        process.stderr.write = ew;
    }
}
//# sourceMappingURL=replayCli.js.map