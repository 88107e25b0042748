/**
 * The chat store's public types: what a caller passes to `ChatStore` and what it gets back, the
 * per-turn record (`TurnMeta`), and the store's error (`ChatStoreError`, with a code per cause).
 */
import type { ChatState } from '../../engine/state';
import type { LayerId, PruneReport } from '../../engine/types';
import type { EngineOptions } from '../../engine/engine';
import type { EngineMeta } from '../../engine/stateCodec';
import type { ToolStepView } from '../../protocol/messages';
import type { ProviderUsage } from '../providers/types';
import type { StoreLockOptions } from './storeLock';

export type ChatStoreErrorCode =
  | 'invalid-id'
  | 'invalid-title'
  | 'not-found'
  | 'corrupt'
  | 'missing-blob'
  | 'conflict'
  | 'invalid-import'
  | 'secret'
  | 'busy'
  | 'newer-format';

/**
 * The saved state of a chat a caller's state was built on: its turn count and the stateHash of the
 * line that ends there ('' for a chat with no saved turn). `loadChat` and `appendTurn` return it.
 */
export interface ChatBase {
  turns: number;
  stateHash: string;
}

/** Why an append was refused: the chat file is no longer at the caller's base. */
export interface ChatConflict {
  /**
   * `appended`: the chat still holds `base` and has turns after it (another window saved them);
   * `diverged`: a turn at or before `base` was replaced or removed (Regenerate in another window);
   * `missing`: the chat was deleted.
   */
  reason: 'appended' | 'diverged' | 'missing';
  base: ChatBase;
  disk: ChatBase;
}

export class ChatStoreError extends Error {
  constructor(
    readonly code: ChatStoreErrorCode,
    message: string,
    readonly movedTo?: string,
    readonly conflict?: ChatConflict,
  ) {
    super(message);
    this.name = 'ChatStoreError';
  }
}

/** A chat file that does not read back (thrown by `readHead`; moved aside only after a re-read under the lock). */

export type { ProviderUsage };

export interface TurnAttachmentMeta {
  key: string;
  id: string;
  kind: string;
  version: number;
  contentHash: string;
  uri: string;
  range?: { startLine: number; endLine: number };
  /** How it went out that turn: full block, reference, or deleted-file marker. */
  mode: string;
}

/** A reference to an attachment already in the chat (pin / unpin / detach). */
export interface StoredRef {
  kind: 'file' | 'selection';
  uri: string;
  range?: { startLine: number; endLine: number };
}

/**
 * What the user asked for in a turn, as sent to the turn pipeline: Regenerate runs it again. Files
 * and trajectory selections are specs (read again); selection chips are snapshots, named by their
 * content hash (their text is in the state's blobs).
 */
export interface StoredTurnRequest {
  attachments: (
    | { kind: 'file'; path: string }
    | { kind: 'selection'; path: string; startLine: number; endLine: number }
    | {
        kind: 'snapshot';
        uri: string;
        range?: { startLine: number; endLine: number };
        contentHash: string;
        requestedEndLine?: number;
        label?: string;
        /** The artifact's kind when it is not a selection (a definition or an outline is a `tool` range of its file). */
        artifactKind?: 'tool' | 'text' | 'diagnostics';
        /** `tool` snapshots: the tool that produced it (part of the artifact's id). */
        tool?: string;
      }
  )[];
  pin?: StoredRef[];
  unpin?: StoredRef[];
  detach?: StoredRef[];
  targetPercentOverride?: number;
}

/** Per-turn metadata. Everything needed to render is in the state; this is the record. */
export interface TurnMeta {
  turn: number;
  /** Display only (ISO time the turn was saved). */
  at?: string;
  attachments: TurnAttachmentMeta[];
  /** Keys pinned, detached, pruned, compacted, marked missing after the turn. */
  pinned: string[];
  detached: string[];
  pruned: string[];
  compacted: string[];
  missing: string[];
  summaryThrough?: number;
  layerHashes?: Partial<Record<LayerId, string>>;
  prefixHash?: string;
  /** Why the request did not keep the previous one as its prefix (absent when it did). */
  prefixBreak?: string;
  /** The budget the request was built for. */
  budget?: number;
  predicted?: { promptTokens: number; cachedTokens: number };
  prunedReports?: PruneReport[];
  rejections?: { attachment: string; reason: string }[];
  /** The usage the provider reported for the request that produced the reply (the turn's last). */
  usage?: ProviderUsage;
  /**
   * The usage reported for each of the turn's earlier requests, the ones that ended in tool calls,
   * oldest first (a request whose provider reported none is left out). The turn's cost is that of
   * all of them and `usage`.
   */
  stepUsage?: ProviderUsage[];
  /** Tokens per layer of the request that produced the reply (the panel's stacked bar after a reload). */
  layerTokens?: Partial<Record<LayerId, number>>;
  /** Of those, the tokens the engine predicted cached, per layer (the bar's shaded part). */
  layerCached?: Partial<Record<LayerId, number>>;
  /** `provider · model` that answered. */
  model?: string;
  /** The provider kind that answered (`openai`, `anthropic`, `vscode-lm`, …). */
  provider?: string;
  /** The user stopped the reply: what had streamed is the reply. */
  stopped?: true;
  /** What the turn asked for (Regenerate). */
  request?: StoredTurnRequest;
  /**
   * The reply was written for a request built on the chat as it stood after turn `builtAfterTurn`;
   * another window saved turns after that first, so this turn was rebuilt on top of them. The
   * request facts above (layer hashes, prefix, tokens, usage) are those of the request sent.
   */
  rebased?: { builtAfterTurn: number };
  /** The engine options in force (filled in on load from the chain). */
  engine?: EngineMeta;
  /** The tool calls the model made before answering, as the panel shows them. */
  toolSteps?: ToolStepView[];
  /** The server reported `reported` prompt tokens of the `sent` Strata counted: it cut the prompt (the reply's note). */
  serverCut?: { sent: number; reported: number };
  /**
   * The reply's code blocks whose change was decided (Apply, then Accept or Reject, or Undo), by block
   * number. Kept beside the chat file (appliedMarks.ts) and filled in on load: never in a chat line
   * nor in an export.
   */
  applied?: AppliedBlock[];
}

/** A code block's change as the chat shows it: `accepted` of `total` changes written to `path`, or rejected, or undone. */
export interface AppliedBlock {
  /** The block's number in the reply (0-based, in the order the reply's Markdown holds them). */
  block: number;
  state: 'applied' | 'rejected' | 'undone';
  accepted: number;
  total: number;
  /** The workspace path the change was for. */
  path: string;
}

/** The parts of a `TurnEnvelope` the store records. */
export interface EnvelopeFacts {
  layers?: readonly { id: LayerId; hash: string; tokens?: number }[];
  prefixHash?: string;
  prefixBreak?: boolean;
  prefixBreakReason?: string;
  pruned?: readonly PruneReport[];
  rejections?: readonly { attachment: string; reason: string }[];
  totalTokens?: number;
  ledger?: {
    cachedTokens: number;
    budget?: number;
    layers?: readonly { id: LayerId; items: readonly { tokens: number; cached: boolean }[] }[];
  };
}

export interface AppendTurnInput {
  /** The engine's committed state after `completeTurn`. */
  state: ChatState;
  /** The options in force (or their recorded form). */
  engine?: EngineOptions | EngineMeta;
  envelope?: EnvelopeFacts;
  layerHashes?: Partial<Record<LayerId, string>>;
  usage?: ProviderUsage;
  /** See `TurnMeta.stepUsage`. */
  stepUsage?: readonly ProviderUsage[];
  /** `provider · model` that answered. */
  model?: string;
  /** The provider kind that answered (`openai`, `anthropic`, `vscode-lm`, …). */
  provider?: string;
  /** The reply was stopped by the user (it holds what had streamed). */
  stopped?: boolean;
  request?: StoredTurnRequest;
  /** Title for a new chat (default: the start of the first message). */
  title?: string;
  /**
   * The saved state `state` was built on (`loadChat(…).base`, or the previous append's). When the
   * file is no longer there the append is refused with a `conflict` naming the reason. Without it,
   * only a state that does not advance the saved turn count is refused.
   */
  base?: ChatBase;
  /** Regenerate: the turn replaces the chat's last saved turn (which must be `base`), under one lock. */
  replaceLast?: boolean;
  /** Recorded in the turn's meta (see `TurnMeta.rebased`). */
  rebased?: { builtAfterTurn: number };
  /** The turn's tool calls, as the panel shows them. */
  toolSteps?: readonly ToolStepView[];
  /** See `TurnMeta.serverCut`. */
  serverCut?: { sent: number; reported: number };
}

export interface AppendTurnResult {
  bytes: number;
  warnings: string[];
  meta: TurnMeta;
  /** The turn number saved. */
  turn: number;
  /** The chat as saved now: the base of the next turn. */
  base: ChatBase;
}

export interface ChatIndexEntry {
  id: string;
  title: string;
  turns: number;
  /** Display only. */
  createdAt: string;
  /** Display only. */
  updatedAt: string;
}

export interface LoadedChat {
  id: string;
  title: string;
  state: ChatState;
  /** The engine options in force at the last saved turn. */
  engine?: EngineMeta;
  turns: TurnMeta[];
  warnings: string[];
  /** Size of the chat file. */
  bytes: number;
  /** The saved state this is (pass it with the next `appendTurn`). */
  base: ChatBase;
}

export interface ImportResult {
  chatId: string;
  turns: number;
  /** Attachments left out because their path is not allowed in this workspace. */
  dropped: { path: string; keys: string[]; reason: 'not-allowed' }[];
  warnings: string[];
}

export interface ChatStoreOptions {
  /** Strings that must never appear in an export (API keys). */
  secrets?: readonly string[];
  /** Also treat the values of environment variables named like keys/tokens/secrets as secrets. Default true. */
  scrubEnvSecrets?: boolean;
  /** fsync appends, blobs and the index. Default true. */
  durable?: boolean;
  /** Display clock (tests pin it). */
  now?: () => Date;
  /** The store lock's waits and stale limit (see storeLock.ts). */
  lock?: StoreLockOptions;
  /**
   * Blobs no chat file names are removed only once older than this (ms; default 10 minutes): a writer
   * that does not take the lock (an older Strata in another window) writes its blobs before the line
   * that names them. Blobs only the deleted chat named go at once.
   */
  blobGraceMs?: number;
}
