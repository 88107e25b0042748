/**
 * The pipeline's options for one turn of a window's chat: the model and its maximum output, the
 * server-cut check (off for a provider's own endpoint, which refuses a prompt that is too long
 * instead of cutting it), the request timeout, the workspace tools when the provider and the port
 * allow them, and the cache-expiry prediction.
 */
import type { PromptContextEngine } from '../../engine/engine';
import type { ModelInfo } from '../modelInfo';
import { parseModelLabel } from '../pricing/prices';
import type { ChatProvider } from '../providers/types';
import { toolDefinitionsFor } from '../tools/definitions';
import { DEFAULT_TOOL_LIMITS, ToolExecutor } from '../tools/executor';
import { isToolWorkspacePort } from '../tools/toolPort';
import type { SendOptions, ToolLoopOptions, TurnEvent, TurnOutcome } from '../turnPipeline';
import type { WorkspacePort } from '../workspacePort';
import type { ResolvedSettings, ToolSettings } from './engineSettings';

/** What a turn's options are made of. */
export interface TurnSendParts {
  model: ModelInfo;
  settings: ResolvedSettings;
  engine: PromptContextEngine;
  port: WorkspacePort;
  provider: ChatProvider | undefined;
  /** The provider's cache had likely expired at the send (undefined: not predicted). */
  cacheExpired: boolean | undefined;
  chatId: string;
  signal: AbortSignal;
  onEvent: (ev: TurnEvent) => void;
}

export function turnSendOptions(t: TurnSendParts): SendOptions {
  const s = t.settings;
  return {
    ...(t.cacheExpired !== undefined ? { cacheExpired: t.cacheExpired } : {}),
    model: t.model.model,
    maxOutputTokens: t.engine.options.limits.maxOutputTokens,
    ...(officialEndpoint(t.model) ? {} : { cutCheck: { estimated: t.model.tokenizerEstimated } }),
    conversationId: t.chatId,
    ...(s.requestTimeoutMs ? { timeoutMs: s.requestTimeoutMs } : {}),
    ...toolLoop(s.tools, t.provider, t.port, t.engine),
    signal: t.signal,
    modelLabel: t.model.label ?? `${t.model.provider} · ${t.model.model}`,
    onEvent: t.onEvent,
  };
}

/** A turn's last event: it carries the outcome. */
export function isFinal(ev: TurnEvent): ev is Extract<TurnEvent, { outcome: TurnOutcome }> {
  return ev.type === 'done' || ev.type === 'stopped' || ev.type === 'error' || ev.type === 'blocked' || ev.type === 'preview';
}

/**
 * The workspace tools for a turn: on when the setting is, the provider supports tool
 * calling, and the workspace port can list files, diagnostics and the selection.
 */
function toolLoop(
  t: ToolSettings | undefined,
  provider: ChatProvider | undefined,
  port: WorkspacePort,
  engine: PromptContextEngine,
): { tools?: ToolLoopOptions } {
  if (!t?.enabled || !provider?.supportsTools || !isToolWorkspacePort(port)) return {};
  const executor = new ToolExecutor(port, engine.options.tokenizer, { ...DEFAULT_TOOL_LIMITS, maxResultTokens: t.maxResultTokens });
  return { tools: { definitions: toolDefinitionsFor(port), executor, maxSteps: t.maxSteps, maxTurnTokens: t.maxTurnTokens } };
}

/** The provider's own endpoint ("OpenAI · gpt-4o"): it refuses a prompt that is too long instead of cutting it. */
function officialEndpoint(m: ModelInfo): boolean {
  return !!m.label && !!parseModelLabel(m.provider, m.label)?.official;
}
