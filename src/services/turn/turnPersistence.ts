/**
 * Completing a turn and saving it to the chat store. A failed save puts the engine back to the state
 * before the turn, so memory and disk agree.
 *
 * Another window saving to the same chat while a reply streams (two windows on one folder share the
 * chat store): the append names the saved state the turn was built on (`PersistTarget.base`), and the
 * store refuses it when the chat has moved on. When the other window only added turns, the turn is
 * rebuilt on top of them — same input (the attachments and file contents as read for this turn), same
 * reply — and saved after them, once (`saved.rebased`; the turn's meta says so). The reply was written
 * without those turns, which is what the user saw happen; nothing is lost and nothing is saved twice.
 * When the other window replaced or removed a turn this one followed (Regenerate), deleted the chat,
 * or the rebuilt turn no longer fits, nothing is saved: `chat-changed`, and the caller reloads the chat
 * and offers to send the message again.
 */
import type { ServerCut } from './serverCut';
import { PromptContextEngine, type TurnEnvelope, type TurnInput } from '../../engine/engine';
import { sha256Hex } from '../../common/hash';
import {
  ChatStoreError,
  type AppendTurnInput,
  type AppendTurnResult,
  type ChatBase,
  type ChatStore,
  type TurnMeta,
} from '../store/chatStore';
import type { ProviderUsage } from '../providers/types';
import type { ToolLoopState } from './toolLoopState';
import { storedRequest, type TurnRequest } from './turnRequest';

/** Stored with the chat: where a completed turn is appended. */
export interface PersistTarget {
  store: ChatStore;
  chatId: string;
  /** Title for the chat's first saved turn (a new chat). */
  title?: () => string | undefined;
  /** Regenerate: the completed turn replaces the chat's last saved turn (in the same locked append). */
  replaceLast?: boolean;
  /**
   * The saved state the engine's state is (`ChatStore.loadChat(…).base`, then each save's): the
   * append is refused when the chat file has moved on (another window). Absent: not checked.
   */
  base?: () => ChatBase | undefined;
}

/** Where a kept turn was saved. */
export interface SavedTurn {
  /** The turn number in the chat (after another window's turns, when rebased). */
  turn: number;
  /** The chat as saved now. */
  base: ChatBase;
  /** Another window saved `otherTurns` turns while this one streamed: the turn was rebuilt after them. */
  rebased?: { builtAfterTurn: number; otherTurns: number };
}

/** A turn whose reply is final, about to be completed and saved. */
export interface FinishedTurn {
  /** The engine holding the pending turn. */
  engine: PromptContextEngine;
  reply: string;
  envelope: TurnEnvelope | undefined;
  /** The engine input the turn was built from (a rebuild on another window's turns uses it again). */
  input: TurnInput | undefined;
  request: TurnRequest;
  usage: ProviderUsage | undefined;
  /** `provider · model`. */
  modelLabel?: string;
  providerKind?: string;
  stopped: boolean;
  tools?: ToolLoopState;
  /** The server reported fewer prompt tokens than were sent (./serverCut.ts). */
  serverCut?: ServerCut;
}

export interface SaveError {
  code: 'persist-failed' | 'chat-changed';
  message: string;
}

/** `engine`: the chat's engine from now on when it is no longer the finished turn's (given back, or rebuilt). */
export type SaveResult = ({ ok: true; bytes?: number; meta?: TurnMeta; saved?: SavedTurn } | { ok: false; error: SaveError }) & {
  engine?: PromptContextEngine;
};

/** Completes the pending turn with its reply and appends it to `target` (when there is one). */
export function completeAndSave(turn: FinishedTurn, target: PersistTarget | undefined, log?: (line: string) => void): SaveResult {
  const { engine, reply, envelope, input, tools } = turn;
  const before = engine.state;
  engine.completeTurn(reply);
  if (!target) return { ok: true };
  // The tool steps' requests are billed too: their usage is kept beside the last request's.
  const stepUsage = (tools?.stepUsage ?? []).filter((u): u is ProviderUsage => u !== undefined);
  const record = (e: PromptContextEngine, base: ChatBase | undefined, rebased?: { builtAfterTurn: number }): AppendTurnInput => ({
    state: e.state,
    engine: e.options,
    envelope,
    usage: turn.usage,
    ...(stepUsage.length > 0 ? { stepUsage } : {}),
    model: turn.modelLabel,
    provider: turn.providerKind,
    stopped: turn.stopped,
    request: storedRequest(turn.request, e.options.hasher ?? { sha256Hex }),
    title: target.title?.(),
    ...(base ? { base } : {}),
    ...(target.replaceLast ? { replaceLast: true } : {}),
    ...(rebased ? { rebased } : {}),
    ...(tools && tools.views.length > 0 ? { toolSteps: tools.views } : {}),
    ...(turn.serverCut ? { serverCut: turn.serverCut } : {}),
  });
  const done = (r: AppendTurnResult, rebased?: SavedTurn['rebased']) => {
    for (const w of r.warnings) log?.(w);
    return { ok: true as const, bytes: r.bytes, meta: r.meta, saved: { turn: r.turn, base: r.base, ...(rebased ? { rebased } : {}) } };
  };
  const givenBack = () => new PromptContextEngine(engine.options, before);
  try {
    return done(target.store.appendTurn(target.chatId, record(engine, target.base?.())));
  } catch (e) {
    const conflict = e instanceof ChatStoreError ? e.conflict : undefined;
    if (conflict?.reason === 'appended' && !target.replaceLast && input) {
      const r = rebuildOnTop(target, engine, before, input, reply, record, tools?.appends ?? [], log);
      if (r.ok) return { ...done(r.result, r.rebased), engine: r.engine };
      return { ok: false, error: r.error, engine: givenBack() };
    }
    if (conflict)
      return {
        ok: false,
        error: { code: 'chat-changed', message: chatChangedMessage(conflict.reason, !!target.replaceLast) },
        engine: givenBack(),
      };
    return { ok: false, error: persistFailed(e), engine: givenBack() };
  }
}

/**
 * Another window saved turns after the state this turn was built on: build the same input on the
 * chat as saved now, complete it with the same reply, and append it there — all under the store
 * lock, so no third save can slip in between (the other window waits for one build).
 */
function rebuildOnTop(
  target: PersistTarget,
  engine: PromptContextEngine,
  before: PromptContextEngine['state'],
  input: TurnInput,
  reply: string,
  record: (e: PromptContextEngine, base: ChatBase, rebased: { builtAfterTurn: number }) => AppendTurnInput,
  toolSteps: ToolLoopState['appends'],
  log: ((line: string) => void) | undefined,
):
  | { ok: true; result: AppendTurnResult; rebased: NonNullable<SavedTurn['rebased']>; engine: PromptContextEngine }
  | { ok: false; error: SaveError } {
  const builtAfterTurn = before.completedTurns;
  try {
    return target.store.exclusive(() => {
      const fresh = target.store.loadChat(target.chatId, { reuse: engine.state });
      const rebuilt = new PromptContextEngine(engine.options, fresh.state);
      const env = rebuilt.buildTurn(input);
      if (env.blocked) {
        rebuilt.abandonTurn();
        return {
          ok: false as const,
          error: {
            code: 'chat-changed' as const,
            message: `Another window saved turns to this chat while this reply streamed, and the reply no longer fits after them (${env.blocked.message}), so it was not saved. The chat now shows what is saved.`,
          },
        };
      }
      // The model's tool calls and what they returned are part of the turn: appended again on top.
      for (const a of toolSteps) rebuilt.appendToolStep(a.step, a.limits);
      rebuilt.completeTurn(reply);
      const result = target.store.appendTurn(target.chatId, record(rebuilt, fresh.base, { builtAfterTurn }));
      const rebased = { builtAfterTurn, otherTurns: fresh.base.turns - builtAfterTurn };
      log?.(
        `[${engine.options.conversationId}] another window saved ${rebased.otherTurns} turn(s) after turn ${builtAfterTurn} while this reply streamed; the turn was saved after them as turn ${result.turn}`,
      );
      return { ok: true as const, result, rebased, engine: rebuilt };
    });
  } catch (e) {
    const c = e instanceof ChatStoreError ? e.conflict : undefined;
    if (c) return { ok: false, error: { code: 'chat-changed', message: chatChangedMessage(c.reason, false) } };
    return { ok: false, error: persistFailed(e) };
  }
}

function persistFailed(e: unknown): SaveError {
  return { code: 'persist-failed', message: `The reply could not be saved, so the turn was not kept: ${(e as Error).message}` };
}

/** What the user is told when another window's change keeps a turn from being saved. */
function chatChangedMessage(reason: 'appended' | 'diverged' | 'missing', regenerating: boolean): string {
  if (reason === 'missing') return 'This chat was deleted in another window while the reply streamed, so the reply was not saved.';
  if (regenerating)
    return 'This chat was changed in another window while the new reply streamed, so it was not saved: the turn it would have replaced is no longer the last one. The chat now shows what is saved.';
  return 'This chat was changed in another window while the reply streamed (a turn this one followed was regenerated or removed there), so the reply was not saved. The chat now shows what is saved.';
}
