/**
 * The ledger of an earlier request of the chat, rebuilt on demand (the Context Layers tree after a
 * window reload, or for a turn another window sent): the engine on the chat as saved before that
 * turn builds the turn again from what it recorded — its message, the blocks it sent (file versions
 * and selection snapshots as they were), its pins, unpins and removals. The chat resumes
 * byte-identically, so this is the request that was sent (before any tool step: the steps' reads are
 * listed in the next turn's request).
 */
import type { NewArtifactInput } from '../../engine/artifacts';
import { PromptContextEngine, type AttachmentRef, type EngineOptions } from '../../engine/engine';
import type { ChatState } from '../../engine/state';
import type { LedgerNode } from '../../engine/types';
import type { ChatStore, StoredRef, TurnMeta } from '../store/chatStore';

/** Rebuilt ledgers kept, newest first out: a tree refresh asks for the same request again. */
const KEPT = 8;
const memo = new Map<string, LedgerNode>();

function refs(list: readonly StoredRef[] | undefined): AttachmentRef[] | undefined {
  return list?.map((r) => ({ ...r, ...(r.range ? { range: { ...r.range } } : {}) }) as AttachmentRef);
}

/** What turn `n` attached, as the engine took it then: the blocks it sent in full for the first time. */
function attachmentsOf(after: ChatState, n: number): NewArtifactInput[] {
  const out: NewArtifactInput[] = [];
  for (const item of after.turns[n - 1]?.items ?? []) {
    const e = after.entries.get(item.key);
    if (!e || e.firstTurn !== n || item.mode !== 'full' || e.artifact.kind === 'tool') continue;
    const a = e.artifact;
    const input: NewArtifactInput = { kind: a.kind, uri: a.source.uri, content: a.content };
    if (a.source.range) input.range = { ...a.source.range };
    out.push(input);
  }
  return out;
}

/** The content every recoverable item had when turn `n` was sent: its newest version up to that turn. */
function freshAt(after: ChatState, n: number): Map<string, string | null> {
  const out = new Map<string, string | null>();
  const newest = new Map<string, { version: number; content: string }>();
  for (const e of after.entries.values()) {
    if (!e.artifact.recoverable || e.firstTurn > n) continue;
    const cur = newest.get(e.artifact.id);
    if (!cur || e.artifact.version > cur.version) newest.set(e.artifact.id, { version: e.artifact.version, content: e.artifact.content });
  }
  for (const [id, v] of newest) out.set(id, v.content);
  return out;
}

/**
 * The ledger of request `n` of chat `chatId`, or undefined when it cannot be rebuilt (the chat
 * changed on disk, or its saved data cannot be read).
 */
export function rebuildTurnLedger(
  store: ChatStore,
  chatId: string,
  options: EngineOptions,
  metas: readonly TurnMeta[],
  n: number,
): LedgerNode | undefined {
  const key = `${store.root}\n${chatId}\n${n}\n${metas.length}\n${metas[n - 1]?.at ?? ''}`;
  const hit = memo.get(key);
  if (hit) return hit;
  try {
    const after = store.loadChat(chatId, { throughTurn: n }).state;
    const before = store.loadChat(chatId, { throughTurn: n - 1 }).state;
    const record = after.turns[n - 1];
    if (!record) return undefined;
    const stored = metas[n - 1]?.request;
    const engine = new PromptContextEngine({ ...options, conversationId: options.conversationId }, before);
    const env = engine.buildTurn({
      userText: record.userText,
      attachments: attachmentsOf(after, n),
      fresh: freshAt(after, n),
      ...(stored?.pin ? { pin: refs(stored.pin) } : {}),
      ...(stored?.unpin ? { unpin: refs(stored.unpin) } : {}),
      ...(stored?.detach ? { detach: refs(stored.detach) } : {}),
      ...(stored?.targetPercentOverride !== undefined ? { targetPercentOverride: stored.targetPercentOverride } : {}),
    });
    if (memo.size >= KEPT) memo.delete(memo.keys().next().value!);
    memo.set(key, env.ledger);
    return env.ledger;
  } catch {
    return undefined;
  }
}
