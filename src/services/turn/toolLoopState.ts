/**
 * What the turn pipeline keeps while the model calls workspace tools within one turn: the requests
 * each tool step extended, the steps as the panel shows them, and what each step appended to the
 * engine (a turn rebuilt on another window's turns appends them again).
 */
import type { ToolStepInput, ToolStepOutcome, ToolStepResultInput, TurnEnvelope } from '../../engine/engine';
import type { ToolCall } from '../../engine/types';
import type { ToolStepView } from '../../protocol/messages';
import { providerCachePrediction } from '../cacheModel';
import type { ProviderUsage } from '../providers/types';
import { callLabel } from '../tools/definitions';
import type { ToolResult } from '../tools/executor';

/** Between the texts of two model steps of one turn, as streamed and as shown. */
export const STEP_TEXT_SEPARATOR = '\n\n';
/** The reply recorded when the model ended a tool loop without a word. */
export const TOOL_LIMIT_REPLY = '(The model answered with tool calls only.)';
/** The reply recorded when the user stopped a tool loop before the model said anything in its last call. */
export const STOPPED_REPLY = '(Stopped by the user.)';

/** Per-turn state of the tool loop. */
export interface ToolLoopState {
  /** Some text of this turn was streamed (the next step's text starts a new paragraph). */
  shownText: boolean;
  /** The requests before the current one (each tool step adds the one it extended). */
  requests: TurnEnvelope[];
  views: ToolStepView[];
  /** Usage reported by each model call that ended with tool calls. */
  stepUsage: (ProviderUsage | undefined)[];
  /** Per step: running the tools, and appending their results to the request (ms). */
  timings: { toolsMs: number; appendMs: number }[];
  /** Each step as appended to the engine (a turn rebuilt on another window's turns appends them again). */
  appends: { step: ToolStepInput; limits: { maxTokens?: number } }[];
}

export function newToolLoopState(): ToolLoopState {
  return { shownText: false, requests: [], views: [], stepUsage: [], timings: [], appends: [] };
}

/** An executor result as the engine's step input. */
export function toStepInput(result: ToolResult): ToolStepResultInput {
  const out: ToolStepResultInput = { callId: result.call.id, tool: result.call.name };
  const o = result.output;
  if (o.kind === 'text') out.note = o.text;
  else {
    out.artifact = o.input;
    if (o.whole) out.whole = o.whole;
    if (o.note !== undefined) out.note = o.note;
  }
  return out;
}

/** One tool call as the panel shows it. */
export function toolStepView(step: number, call: ToolCall, result: ToolResult | undefined, outcome: ToolStepOutcome): ToolStepView {
  const refused = result?.output.kind === 'text' && result.output.refused !== undefined;
  const invalid = result?.output.kind === 'text' && result.output.refused === 'invalid-arguments';
  const view: ToolStepView = {
    id: call.id,
    step,
    name: call.name,
    label: callLabel(call),
    args: JSON.stringify(call.args),
    status: invalid ? 'error' : refused || !result || outcome.mode === 'over-budget' ? 'refused' : 'done',
    summary: !result
      ? 'not run: the step limit was reached'
      : outcome.mode === 'over-budget'
        ? `left out: over the budget (${result.summary})`
        : result.summary,
    resultTokens: outcome.tokens,
  };
  if (outcome.mode === 'reference') view.reused = true;
  if (outcome.key) view.key = outcome.key;
  return view;
}

/**
 * Each step's cached tokens: those of the model request that carried its results — reported by the
 * provider when it reports usage, else the engine's prediction as that provider would report it.
 */
export function fillStepCachedTokens(
  tools: ToolLoopState,
  last: TurnEnvelope,
  lastUsage: ProviderUsage | undefined,
  providerKind: string | undefined,
): void {
  for (const v of tools.views) {
    const k = v.step;
    const env = k < tools.requests.length ? tools.requests[k] : last;
    const usage = k < tools.stepUsage.length ? tools.stepUsage[k] : k === tools.stepUsage.length ? lastUsage : undefined;
    if (usage) {
      v.cachedTokens = usage.cacheRead;
      v.cachedReported = true;
    } else {
      v.cachedTokens = providerCachePrediction(providerKind, env.ledger.cachedTokens);
      v.cachedReported = false;
    }
  }
}
