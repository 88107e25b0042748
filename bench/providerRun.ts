/**
 * `npm run replay -- <trajectory> --provider openai|anthropic --base-url URL --model M`: sends each
 * turn's request to a real endpoint through the project's provider classes (LangChain), and stores the
 * provider-reported usage in each turn's `provider` field next to the engine's prediction, so users
 * can check the cache figures on their own account.
 *
 * - The requests are exactly those of the replay (any strategy: the engine layouts and the baselines).
 *   The engine layouts run through the turn pipeline with the real provider, the same code as the
 *   extension: each turn is built, sent, and recorded with the scripted reply, which is the history
 *   whatever the model answers, so what the model says never changes a later request.
 *   The baselines (not Strata turns) are built first, then sent in order.
 * - Key: `OPENAI_API_KEY` / `ANTHROPIC_API_KEY`; missing → exit 2 with a message (a server on this
 *   machine, e.g. Ollama or the imitation servers, may run without one). The key is never printed.
 * - Each strategy is a separate chat: its own conversation id (`prompt_cache_key` on OpenAI). A real
 *   provider's cache is shared by the account, so when several strategies are sent, a later one can hit
 *   prefixes an earlier one wrote; the prediction simulates each strategy alone. Send one strategy (the
 *   default) for an exact comparison.
 * - Replies are capped at a few tokens (`maxOutputTokens`, default 16): they are not used.
 */
import type { ChatMessage } from '../src/engine/types';
import {
  AnthropicProvider,
  OpenAIProvider,
  ProviderError,
  collectReply,
  isLocalURL,
  redact,
  type ChatProvider,
  type ProviderUsage,
} from '../src/services/providers';
import { getTokenizer } from '../src/services/tokenizer';
import type { Trajectory } from './trajectory';
import { ReplayTurnError } from './replayCore';
import {
  ArgError,
  isEngineStrategy,
  runEngineStrategyWithProvider,
  runStrategy,
  type ReplayArgs,
  type ReplayReport,
  type StrategyReport,
  type TurnReport,
} from './replay';

export const KEY_VARIABLES = { openai: 'OPENAI_API_KEY', anthropic: 'ANTHROPIC_API_KEY' } as const;

export interface ProviderRunOptions {
  /** Where progress lines go (default: stderr). Lines never contain the key. */
  log?: (line: string) => void;
  /** Environment to read the key from (default: process.env). */
  env?: NodeJS.ProcessEnv;
  /** Output tokens asked for per request (default 16). */
  maxOutputTokens?: number;
  /** Per-request timeout (default 120 s). */
  timeoutMs?: number;
  /** Provider factory (tests inject retry/sleep options). */
  createProvider?: (name: 'openai' | 'anthropic', baseURL: string, apiKey: string | undefined) => ChatProvider;
}

function defaultProvider(name: 'openai' | 'anthropic', baseURL: string, apiKey: string | undefined): ChatProvider {
  return name === 'openai' ? new OpenAIProvider({ apiKey, baseURL }) : new AnthropicProvider({ apiKey, baseURL });
}

function predictedLine(name: 'openai' | 'anthropic', s: StrategyReport, turn: number): string {
  return turnLine(name, s.name, s.turns[turn - 1]);
}

function turnLine(name: 'openai' | 'anthropic', strategy: string, t: TurnReport): string {
  const turn = t.turn;
  const p = t.provider;
  if (!p) return `${strategy} turn ${turn}: not sent${t.skipped ? ` (${t.skipped})` : ''}`;
  if (name === 'openai') {
    return `${strategy} turn ${turn}: prompt ${t.promptTokens} predicted / ${p.input} reported; cached ${t.cached.openai} predicted / ${p.cacheRead} reported`;
  }
  const a = t.cached.anthropic;
  return `${strategy} turn ${turn}: prompt ${t.promptTokens} predicted / ${p.input} reported; cache read ${a.read} / ${p.cacheRead}, write ${a.write} / ${p.cacheWrite} (predicted / reported)`;
}

/** Runs the replay, sends every request to the provider, and returns the report with `provider` usage per turn. */
export async function runAgainstProvider(traj: Trajectory, args: ReplayArgs, options: ProviderRunOptions = {}): Promise<ReplayReport> {
  const target = args.provider;
  if (!target) throw new ArgError('--provider is missing');
  const env = options.env ?? process.env;
  const variable = KEY_VARIABLES[target.name];
  const apiKey = env[variable] || undefined;
  let url: URL;
  try {
    url = new URL(target.baseUrl);
  } catch {
    throw new ArgError(`--base-url "${target.baseUrl}" is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ArgError(`--base-url must be an http(s) URL (got "${url.protocol}")`);
  if (!apiKey && !isLocalURL(target.baseUrl)) {
    throw new ArgError(
      `${variable} is not set: export your ${target.name === 'openai' ? 'OpenAI' : 'Anthropic'} API key in ${variable} to call ${url.origin} (a server on this machine needs none)`,
    );
  }
  const log = options.log ?? ((line: string) => process.stderr.write(line + '\n'));
  const say = (line: string) => log(apiKey ? redact(line, apiKey) : line);

  const tok = getTokenizer(traj.model.encoding);
  const provider = (options.createProvider ?? defaultProvider)(target.name, target.baseUrl, apiKey);
  const maxOutputTokens = options.maxOutputTokens ?? 16;
  const strategies: StrategyReport[] = [];
  const failure = (name: string, turn: number, msg: string): Error =>
    new Error(
      apiKey ? redact(`${provider.label}: ${name} turn ${turn}: ${msg}`, apiKey) : `${provider.label}: ${name} turn ${turn}: ${msg}`,
    );
  let buildMs = 0;
  let sent = 0;
  const t1 = performance.now();
  for (const s of args.strategies) {
    const conversationId = args.strategies.length > 1 ? `${traj.name}/${s}` : traj.name;
    if (isEngineStrategy(s)) {
      // The turn pipeline, turn after turn, with the real provider.
      try {
        const r = await runEngineStrategyWithProvider(
          traj,
          s,
          args,
          tok,
          provider,
          { conversationId, maxOutputTokens, timeoutMs: options.timeoutMs },
          (turn, replayed) => {
            const o = replayed.outcome;
            const usage = o.status === 'done' ? o.usage : undefined;
            if (o.status === 'done') sent++;
            if (usage)
              turn.provider = { input: usage.input, cacheRead: usage.cacheRead, cacheWrite: usage.cacheWrite, output: usage.output };
            say(turnLine(target.name, s, turn) + (o.status === 'done' && !usage ? ' (the provider reported no usage)' : ''));
          },
        );
        strategies.push(r.report);
        buildMs += r.buildMs.reduce((a, b) => a + b, 0);
      } catch (e) {
        if (e instanceof ReplayTurnError && e.outcome.status === 'error') throw failure(s, e.turn, e.outcome.error.message);
        throw e;
      }
      continue;
    }
    // A baseline: its requests as the replay builds them, then sent in order.
    const list: { turn: number; messages: ChatMessage[]; skipped?: string }[] = [];
    const { report } = runStrategy(traj, s, args, tok, undefined, (turn, messages, skipped) => list.push({ turn, messages, skipped }));
    strategies.push(report);
    for (const req of list) {
      const turn = report.turns[req.turn - 1];
      if (req.skipped || req.messages.length === 0) {
        say(predictedLine(target.name, report, req.turn));
        continue;
      }
      let usage: ProviderUsage | undefined;
      try {
        const reply = await collectReply(
          provider.stream({ messages: req.messages, model: target.model, conversationId, maxOutputTokens, timeoutMs: options.timeoutMs }),
        );
        usage = reply.usage;
      } catch (e) {
        throw failure(s, req.turn, ProviderError.is(e) ? e.message : (e as Error).message);
      }
      sent++;
      if (usage) turn.provider = { input: usage.input, cacheRead: usage.cacheRead, cacheWrite: usage.cacheWrite, output: usage.output };
      say(predictedLine(target.name, report, req.turn) + (usage ? '' : ' (the provider reported no usage)'));
    }
  }
  const round = (x: number) => Math.round(x * 1000) / 1000;
  return {
    trajectory: traj.name,
    strategies,
    timings: { buildMs: round(buildMs), providerMs: round(performance.now() - t1), providerRequests: sent },
  };
}
