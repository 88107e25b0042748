/** The active chat's turns as the panel shows them: messages, replies with their tool steps, and each request's layer bar. */
import type { ChatState } from '../../engine/state';
import { LAYER_IDS, type LayerId } from '../../engine/types';
import { isMessage, type AppliedView, type CostView, type LayerBar, type MessageView } from '../../protocol/messages';
import { providerCachePrediction } from '../cacheModel';
import type { TurnMeta } from '../store/chatStore';
import { STEP_TEXT_SEPARATOR } from '../turn/toolLoopState';
import { inputLabel } from './attachmentNames';
import { replyNotes } from './replyNotes';

/**
 * The messages of the chat in `state`, oldest first: the `last` N turns (two messages each) before
 * turn `beforeTurn` (default: after the last turn). Cost: O(turns returned).
 */
export function messageViews(
  state: ChatState,
  metas: readonly TurnMeta[],
  opts: { last?: number; beforeTurn?: number; undoable?: Undoable } = {},
  costOf?: (meta: TurnMeta | undefined) => CostView | undefined,
): { messages: MessageView[]; hasOlder: boolean } {
  const end = Math.min(state.completedTurns, opts.beforeTurn !== undefined ? opts.beforeTurn - 1 : state.completedTurns);
  const start = opts.last !== undefined ? Math.max(1, end - opts.last + 1) : 1;
  const out: MessageView[] = [];
  for (let t = start; t <= end; t++) {
    try {
      out.push(...turnViews(state, metas, t, costOf, opts.undoable));
    } catch (e) {
      // A damaged turn (its record or metadata) shows as an error in its place; the rest still renders.
      out.push({
        id: `${t}:assistant`,
        turn: t,
        role: 'assistant',
        text: `This turn cannot be shown: its saved data is damaged (${e instanceof Error ? e.message : String(e)}).`,
        status: 'error',
      });
    }
  }
  return { messages: out, hasOlder: start > 1 };
}

/** Whether the host still holds what Undo needs for block `block` of turn `turn`'s reply. */
export type Undoable = (turn: number, block: number) => boolean;

/** The user's message and the reply of turn `t`. Throws on a damaged record. */
function turnViews(
  state: ChatState,
  metas: readonly TurnMeta[],
  t: number,
  costOf?: (meta: TurnMeta | undefined) => CostView | undefined,
  undoable?: Undoable,
): MessageView[] {
  const record = state.turns[t - 1];
  const meta = metas[t - 1];
  const user: MessageView = { id: `${t}:user`, turn: t, role: 'user', text: record.userText, status: 'complete' };
  const labels = record.items
    .filter((i) => i.mode !== 'missing')
    .map((i) => {
      const a = state.entries.get(i.key)!.artifact;
      return inputLabel({ uri: a.source.uri, range: a.source.range });
    });
  if (labels.length > 0) user.attachments = labels;
  const assistant: MessageView = {
    id: `${t}:assistant`,
    turn: t,
    role: 'assistant',
    text: displayReply(record),
    status: meta?.stopped ? 'stopped' : 'complete',
  };
  if (meta?.toolSteps && meta.toolSteps.length > 0) {
    const offsets = stepTextOffsets(record);
    assistant.toolSteps = meta.toolSteps.map((v) => {
      const at = offsets[v.step - 1];
      return at === undefined ? { ...v } : { ...v, textOffset: at };
    });
  }
  const bar = meta ? layerBar(meta) : undefined;
  if (bar) assistant.bar = bar;
  if (meta?.usage) assistant.usage = { ...meta.usage };
  if (meta?.model) assistant.model = meta.model;
  const cost = costOf?.(meta);
  if (cost) assistant.cost = cost;
  const notes = replyNotes(meta);
  if (notes.length > 0) assistant.notes = notes;
  if (meta?.applied && meta.applied.length > 0)
    assistant.applied = meta.applied.map((a) => {
      const view: AppliedView = { block: a.block, state: a.state, accepted: a.accepted, total: a.total };
      // Undo is offered only where it can work: an applied change this window still holds.
      if (a.state === 'applied') view.undo = undoable?.(t, a.block) ?? false;
      return view;
    });
  // The panel refuses a whole state holding one message it cannot show: refuse it here instead.
  for (const m of [user, assistant] as unknown[]) if (!isMessage(m)) throw new Error(`a message of turn ${t} is not well-formed`);
  return [user, assistant];
}

/** What the panel shows of a turn's reply: the text of each tool step, then the reply, as it streamed. */
export function displayReply(record: { reply: string; steps?: readonly { text: string }[] }): string {
  if (!record.steps || record.steps.length === 0) return record.reply;
  return [...record.steps.map((s) => s.text), record.reply].filter((t) => t.length > 0).join(STEP_TEXT_SEPARATOR);
}

/**
 * Where each model step's tool calls happened in `displayReply`'s text: after the text of that step
 * and the ones before it (index k-1 for step k). Derived from the steps the chat keeps, so chats
 * saved before the panel placed steps in the text get the same placement.
 */
export function stepTextOffsets(record: { steps?: readonly { text: string }[] }): number[] {
  const offsets: number[] = [];
  let at = 0;
  let shown = false;
  for (const s of record.steps ?? []) {
    if (s.text.length > 0) {
      at += (shown ? STEP_TEXT_SEPARATOR.length : 0) + s.text.length;
      shown = true;
    }
    offsets.push(at);
  }
  return offsets;
}

/** The stacked bar of a turn: its layer tokens and the cached part (reported when known, else predicted). */
export function layerBar(meta: TurnMeta): LayerBar | undefined {
  if (!meta.layerTokens) return undefined;
  const layers = Object.fromEntries(LAYER_IDS.map((id: LayerId) => [id, meta.layerTokens![id] ?? 0])) as LayerBar['layers'];
  const total = LAYER_IDS.reduce((n, id) => n + layers[id], 0);
  const reported = meta.usage !== undefined;
  const cached = reported ? meta.usage!.cacheRead : providerCachePrediction(meta.provider, meta.predicted?.cachedTokens ?? 0);
  const bar: LayerBar = { layers, total, cached, cachedReported: reported };
  if (meta.layerCached && cached > 0) {
    // The engine's per-layer split, scaled to the total the provider reported.
    const predicted = LAYER_IDS.reduce((n, id) => n + (meta.layerCached![id] ?? 0), 0);
    if (predicted > 0) {
      const scale = cached / predicted;
      bar.cachedByLayer = Object.fromEntries(
        LAYER_IDS.map((id) => [id, Math.min(layers[id], Math.round((meta.layerCached![id] ?? 0) * scale))]),
      );
    }
  }
  return bar;
}
