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
/**
 * `--provider`: the replay's requests sent through the real LangChain providers over HTTP to the local
 * imitation servers (which compute usage with the DESIGN §9 cache rules), with a network guard that
 * fails on any other destination. The reported cache figures must equal the predicted ones.
 */
const assert = __importStar(require("assert"));
const path = __importStar(require("path"));
const replay_1 = require("../../bench/replay");
const providerRun_1 = require("../../bench/providerRun");
const imitationServers_1 = require("../support/imitationServers");
const networkGuard_1 = require("../support/networkGuard");
const WALKTHROUGH = path.resolve(__dirname, '../../../test/fixtures/trajectories/walkthrough-6.json');
const OPENAI_KEY = 'sk-test-bench-OPENAI-0123456789SECRET';
const ANTHROPIC_KEY = 'sk-ant-test-bench-ANTHROPIC-0123456789SECRET';
describe('replay --provider (bench/providerRun.ts)', function () {
    this.timeout(60_000);
    let guard;
    let openai;
    let anthropic;
    const logs = [];
    const log = (line) => logs.push(line);
    before(async () => {
        guard = (0, networkGuard_1.installNetworkGuard)();
        openai = await (0, imitationServers_1.startOpenAIImitation)({ apiKey: OPENAI_KEY });
        anthropic = await (0, imitationServers_1.startAnthropicImitation)({ apiKey: ANTHROPIC_KEY });
    });
    after(async () => {
        await openai?.close();
        await anthropic?.close();
        guard?.uninstall();
    });
    beforeEach(() => {
        logs.length = 0;
        openai.resetCache();
        anthropic.resetCache();
    });
    afterEach(() => assert.deepStrictEqual(guard.foreign, [], 'no request may leave this machine'));
    function sentText(server) {
        return JSON.stringify(server.requests.map((r) => ({ headers: r.headers, body: r.body })));
    }
    it('OpenAI: reported cached tokens equal the predicted ones on walkthrough-6, turn by turn', async () => {
        const traj = (0, replay_1.loadTrajectory)(WALKTHROUGH);
        const args = (0, replay_1.parseArgs)([WALKTHROUGH, '--provider', 'openai', '--base-url', openai.url, '--model', 'imitation-gpt']);
        const before = openai.chatRequests.length;
        const report = await (0, providerRun_1.runAgainstProvider)(traj, args, { env: { OPENAI_API_KEY: OPENAI_KEY }, log });
        const turns = report.strategies[0].turns;
        assert.strictEqual(report.strategies[0].name, 'transcript');
        assert.strictEqual(turns.length, traj.turns.length);
        assert.strictEqual(openai.chatRequests.length - before, traj.turns.length);
        for (const t of turns) {
            assert.ok(t.provider, `turn ${t.turn} has provider usage`);
            assert.strictEqual(t.provider.input, t.promptTokens, `turn ${t.turn} prompt tokens`);
            assert.strictEqual(t.provider.cacheRead, t.cached.openai, `turn ${t.turn} cached tokens`);
            assert.strictEqual(t.provider.cacheWrite, 0);
        }
        assert.ok(turns.slice(1).every((t) => t.cached.openai > 0), 'the later turns are cache hits (the check is not vacuous)');
        // The key went to the server (it requires it) but is in no log line and not in the report.
        assert.ok(!logs.join('\n').includes(OPENAI_KEY));
        assert.ok(!JSON.stringify(report).includes(OPENAI_KEY));
        assert.ok(logs.some((l) => /transcript turn 6: .*cached \d+ predicted \/ \d+ reported/.test(l)));
        // One chat: a stable prompt_cache_key, the conversation id.
        const keys = new Set(openai.chatRequests.slice(before).map((r) => r.body.prompt_cache_key));
        assert.deepStrictEqual([...keys], ['walkthrough-6']);
    });
    it('Anthropic: reported cache reads and writes equal the predicted ones on walkthrough-6, turn by turn', async () => {
        const traj = (0, replay_1.loadTrajectory)(WALKTHROUGH);
        const args = (0, replay_1.parseArgs)([WALKTHROUGH, '--provider', 'anthropic', '--base-url', anthropic.url, '--model', 'imitation-claude']);
        const report = await (0, providerRun_1.runAgainstProvider)(traj, args, { env: { ANTHROPIC_API_KEY: ANTHROPIC_KEY }, log });
        const turns = report.strategies[0].turns;
        for (const t of turns) {
            assert.ok(t.provider, `turn ${t.turn} has provider usage`);
            assert.strictEqual(t.provider.input, t.promptTokens, `turn ${t.turn} prompt tokens`);
            assert.strictEqual(t.provider.cacheRead, t.cached.anthropic.read, `turn ${t.turn} cache read`);
            assert.strictEqual(t.provider.cacheWrite, t.cached.anthropic.write, `turn ${t.turn} cache write`);
        }
        assert.ok(turns.slice(1).every((t) => t.cached.anthropic.read > 0), 'the later turns read the cache (the check is not vacuous)');
        assert.ok(!logs.join('\n').includes(ANTHROPIC_KEY));
        assert.ok(!JSON.stringify(report).includes(ANTHROPIC_KEY));
    });
    it('several strategies (engine layouts and baselines): each is its own chat and matches its prediction (OpenAI)', async () => {
        const traj = (0, replay_1.loadTrajectory)(WALKTHROUGH);
        const args = (0, replay_1.parseArgs)([WALKTHROUGH, '--strategy', 'library,transcript,inline-every-turn,latest-copy', '--provider', 'openai', '--base-url', openai.url, '--model', 'imitation-gpt']);
        const report = await (0, providerRun_1.runAgainstProvider)(traj, args, { env: { OPENAI_API_KEY: OPENAI_KEY }, log });
        assert.deepStrictEqual(report.strategies.map((s) => s.name), ['library', 'transcript', 'inline-every-turn', 'latest-copy']);
        for (const s of report.strategies) {
            for (const t of s.turns) {
                assert.ok(t.provider, `${s.name} turn ${t.turn}`);
                assert.strictEqual(t.provider.cacheRead, t.cached.openai, `${s.name} turn ${t.turn} cached tokens`);
            }
        }
        assert.strictEqual(report.timings.providerRequests, 4 * traj.turns.length);
    });
    it('the scripted reply is the history whatever the model answers', async () => {
        const traj = (0, replay_1.loadTrajectory)(WALKTHROUGH);
        const args = (0, replay_1.parseArgs)([WALKTHROUGH, '--provider', 'openai', '--base-url', openai.url, '--model', 'imitation-gpt']);
        const before = openai.chatRequests.length;
        openai.queueReply(...traj.turns.map((_, i) => `something else entirely ${i}`));
        await (0, providerRun_1.runAgainstProvider)(traj, args, { env: { OPENAI_API_KEY: OPENAI_KEY }, log });
        const second = openai.chatRequests[before + 1].body;
        const assistant = second.messages.filter((m) => m.role === 'assistant');
        assert.deepStrictEqual(assistant.map((m) => m.content), [traj.turns[0].reply]);
    });
    it('a missing key for a remote endpoint is a clear argument error (exit 2), before any request', async () => {
        const traj = (0, replay_1.loadTrajectory)(WALKTHROUGH);
        const before = guard.foreign.length + guard.local.length;
        for (const [name, variable] of [['openai', 'OPENAI_API_KEY'], ['anthropic', 'ANTHROPIC_API_KEY']]) {
            const args = (0, replay_1.parseArgs)([WALKTHROUGH, '--provider', name, '--base-url', 'https://api.example.invalid/v1', '--model', 'm']);
            await assert.rejects((0, providerRun_1.runAgainstProvider)(traj, args, { env: {}, log }), (e) => e instanceof replay_1.ArgError && e.message.includes(variable));
        }
        assert.strictEqual(guard.foreign.length + guard.local.length, before, 'nothing was contacted');
        // Through the CLI: exit code 2 and the message on stderr.
        const saved = process.env.OPENAI_API_KEY;
        delete process.env.OPENAI_API_KEY;
        const writes = [];
        const orig = process.stderr.write.bind(process.stderr);
        process.stderr.write = (s) => (writes.push(String(s)), true);
        try {
            const code = await (0, replay_1.main)([WALKTHROUGH, '--provider', 'openai', '--base-url', 'https://api.example.invalid/v1', '--model', 'm']);
            assert.strictEqual(code, 2);
        }
        finally {
            process.stderr.write = orig;
            if (saved !== undefined)
                process.env.OPENAI_API_KEY = saved;
        }
        assert.match(writes.join(''), /OPENAI_API_KEY is not set/);
    });
    it('a provider failure names the turn and never shows the key', async () => {
        const traj = (0, replay_1.loadTrajectory)(WALKTHROUGH);
        const args = (0, replay_1.parseArgs)([WALKTHROUGH, '--provider', 'openai', '--base-url', openai.url, '--model', 'imitation-gpt']);
        // The imitation server echoes the key it was given in its 401 message, like a careless server.
        await assert.rejects((0, providerRun_1.runAgainstProvider)(traj, args, { env: { OPENAI_API_KEY: 'sk-wrong-key-0123456789abcdef' }, log }), (e) => e instanceof Error && /turn 1/.test(e.message) && !e.message.includes('sk-wrong-key-0123456789abcdef'));
        assert.ok(!logs.join('\n').includes('sk-wrong-key-0123456789abcdef'));
    });
    it('the CLI prints the report with provider usage as JSON', async () => {
        const saved = process.env.ANTHROPIC_API_KEY;
        process.env.ANTHROPIC_API_KEY = ANTHROPIC_KEY;
        const out = [];
        const err = [];
        const ow = process.stdout.write.bind(process.stdout);
        const ew = process.stderr.write.bind(process.stderr);
        process.stdout.write = (s) => (out.push(String(s)), true);
        process.stderr.write = (s) => (err.push(String(s)), true);
        let code;
        try {
            code = await (0, replay_1.main)([WALKTHROUGH, '--json', '--provider', 'anthropic', '--base-url', anthropic.url, '--model', 'imitation-claude']);
        }
        finally {
            process.stdout.write = ow;
            process.stderr.write = ew;
            if (saved === undefined)
                delete process.env.ANTHROPIC_API_KEY;
            else
                process.env.ANTHROPIC_API_KEY = saved;
        }
        assert.strictEqual(code, 0);
        const report = JSON.parse(out.join(''));
        assert.ok(report.strategies[0].turns.every((t) => t.provider && t.provider.cacheRead === t.cached.anthropic.read));
        assert.ok(!out.join('').includes(ANTHROPIC_KEY) && !err.join('').includes(ANTHROPIC_KEY));
        assert.ok(!sentText(anthropic).includes('sk-test-bench-OPENAI'), 'each provider gets only its own key');
    });
});
//# sourceMappingURL=providerRun.test.js.map