"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.KEY_VARIABLES = void 0;
exports.runAgainstProvider = runAgainstProvider;
const providers_1 = require("../src/services/providers");
const tokenizer_1 = require("../src/services/tokenizer");
const replayCore_1 = require("./replayCore");
const replay_1 = require("./replay");
exports.KEY_VARIABLES = { openai: 'OPENAI_API_KEY', anthropic: 'ANTHROPIC_API_KEY' };
function defaultProvider(name, baseURL, apiKey) {
    return name === 'openai' ? new providers_1.OpenAIProvider({ apiKey, baseURL }) : new providers_1.AnthropicProvider({ apiKey, baseURL });
}
function predictedLine(name, s, turn) {
    return turnLine(name, s.name, s.turns[turn - 1]);
}
function turnLine(name, strategy, t) {
    const turn = t.turn;
    const p = t.provider;
    if (!p)
        return `${strategy} turn ${turn}: not sent${t.skipped ? ` (${t.skipped})` : ''}`;
    if (name === 'openai') {
        return `${strategy} turn ${turn}: prompt ${t.promptTokens} predicted / ${p.input} reported; cached ${t.cached.openai} predicted / ${p.cacheRead} reported`;
    }
    const a = t.cached.anthropic;
    return `${strategy} turn ${turn}: prompt ${t.promptTokens} predicted / ${p.input} reported; cache read ${a.read} / ${p.cacheRead}, write ${a.write} / ${p.cacheWrite} (predicted / reported)`;
}
/** Runs the replay, sends every request to the provider, and returns the report with `provider` usage per turn. */
async function runAgainstProvider(traj, args, options = {}) {
    const target = args.provider;
    if (!target)
        throw new replay_1.ArgError('--provider is missing');
    const env = options.env ?? process.env;
    const variable = exports.KEY_VARIABLES[target.name];
    const apiKey = env[variable] || undefined;
    let url;
    try {
        url = new URL(target.baseUrl);
    }
    catch {
        throw new replay_1.ArgError(`--base-url "${target.baseUrl}" is not a URL`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
        throw new replay_1.ArgError(`--base-url must be an http(s) URL (got "${url.protocol}")`);
    if (!apiKey && !(0, providers_1.isLocalURL)(target.baseUrl)) {
        throw new replay_1.ArgError(`${variable} is not set: export your ${target.name === 'openai' ? 'OpenAI' : 'Anthropic'} API key in ${variable} to call ${url.origin} (a server on this machine needs none)`);
    }
    const log = options.log ?? ((line) => process.stderr.write(line + '\n'));
    const say = (line) => log(apiKey ? (0, providers_1.redact)(line, apiKey) : line);
    const tok = (0, tokenizer_1.getTokenizer)(traj.model.encoding);
    const provider = (options.createProvider ?? defaultProvider)(target.name, target.baseUrl, apiKey);
    const maxOutputTokens = options.maxOutputTokens ?? 16;
    const strategies = [];
    const failure = (name, turn, msg) => new Error(apiKey ? (0, providers_1.redact)(`${provider.label}: ${name} turn ${turn}: ${msg}`, apiKey) : `${provider.label}: ${name} turn ${turn}: ${msg}`);
    let buildMs = 0;
    let sent = 0;
    const t1 = performance.now();
    for (const s of args.strategies) {
        const conversationId = args.strategies.length > 1 ? `${traj.name}/${s}` : traj.name;
        if ((0, replay_1.isEngineStrategy)(s)) {
            // The turn pipeline, turn after turn, with the real provider.
            try {
                const r = await (0, replay_1.runEngineStrategyWithProvider)(traj, s, args, tok, provider, { conversationId, maxOutputTokens, timeoutMs: options.timeoutMs }, (turn, replayed) => {
                    const o = replayed.outcome;
                    const usage = o.status === 'done' ? o.usage : undefined;
                    if (o.status === 'done')
                        sent++;
                    if (usage)
                        turn.provider = { input: usage.input, cacheRead: usage.cacheRead, cacheWrite: usage.cacheWrite, output: usage.output };
                    say(turnLine(target.name, s, turn) + (o.status === 'done' && !usage ? ' (the provider reported no usage)' : ''));
                });
                strategies.push(r.report);
                buildMs += r.buildMs.reduce((a, b) => a + b, 0);
            }
            catch (e) {
                if (e instanceof replayCore_1.ReplayTurnError && e.outcome.status === 'error')
                    throw failure(s, e.turn, e.outcome.error.message);
                throw e;
            }
            continue;
        }
        // A baseline: its requests as the replay builds them, then sent in order.
        const list = [];
        const { report } = (0, replay_1.runStrategy)(traj, s, args, tok, undefined, (turn, messages, skipped) => list.push({ turn, messages, skipped }));
        strategies.push(report);
        for (const req of list) {
            const turn = report.turns[req.turn - 1];
            if (req.skipped || req.messages.length === 0) {
                say(predictedLine(target.name, report, req.turn));
                continue;
            }
            let usage;
            try {
                const reply = await (0, providers_1.collectReply)(provider.stream({ messages: req.messages, model: target.model, conversationId, maxOutputTokens, timeoutMs: options.timeoutMs }));
                usage = reply.usage;
            }
            catch (e) {
                throw failure(s, req.turn, providers_1.ProviderError.is(e) ? e.message : e.message);
            }
            sent++;
            if (usage)
                turn.provider = { input: usage.input, cacheRead: usage.cacheRead, cacheWrite: usage.cacheWrite, output: usage.output };
            say(predictedLine(target.name, report, req.turn) + (usage ? '' : ' (the provider reported no usage)'));
        }
    }
    const round = (x) => Math.round(x * 1000) / 1000;
    return {
        trajectory: traj.name,
        strategies,
        timings: { buildMs: round(buildMs), providerMs: round(performance.now() - t1), providerRequests: sent },
    };
}
//# sourceMappingURL=providerRun.js.map