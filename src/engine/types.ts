/**
 * The engine's data contract. Pure types: no vscode, no Node built-ins.
 */

export type ArtifactKind = 'file' | 'selection' | 'diagnostics' | 'folder' | 'tool' | 'text';

export interface LineRange {
  /** 1-based, inclusive. */
  startLine: number;
  /** 1-based, inclusive. */
  endLine: number;
}

export interface ArtifactSource {
  /** Workspace-relative path (multi-root: `<folder>/<path>`), or `untitled:<n>`. */
  uri: string;
  range?: LineRange;
}

export interface Artifact {
  id: string;
  kind: ArtifactKind;
  source: ArtifactSource;
  /** Can be re-read later (files) or not (selections, pasted text, tool output). */
  recoverable: boolean;
  /** The snapshot that is sent, verbatim. */
  content: string;
  /** sha256 hex of content (UTF-8). */
  contentHash: string;
  /** 1, 2, … per id within a chat. */
  version: number;
  /** 0 essential … 10 drop first. */
  priority: number;
  /** Pinned by the user: never pruned. */
  essential: boolean;
}

export type LayerId = 'L1' | 'L2' | 'L3' | 'L4' | 'L5';
export const LAYER_IDS: readonly LayerId[] = ['L1', 'L2', 'L3', 'L4', 'L5'];

/** `tool`: the result of one tool call, answering an assistant message's call by id. */
export type Role = 'system' | 'user' | 'assistant' | 'tool';

/** One tool call as the model made it (`{"id", "name", "args"}`). */
export interface ToolCall {
  id: string;
  name: string;
  args: Record<string, unknown>;
}

export type SegmentKind =
  | 'system' // L1 product prompt
  | 'instructions' // L1 overlay (user / project instructions)
  | 'library-header' // L2 heading in the library layout
  | 'artifact' // a full artifact block
  | 'reference' // a reference to an artifact block present in the same request
  | 'stub' // a one-line stand-in for a detached or pruned block
  | 'compacted' // structure + preview of a recoverable artifact
  | 'user-text' // what the user typed (L5 now, L4 later)
  | 'reply' // an assistant reply (L4)
  | 'summary' // a summary of older turns (L4)
  | 'tool-call' // the tool calls of an assistant message: their JSON, sent as the message's calls, not as a block
  | 'step-text' // what the model said in a tool step, before its calls
  | 'tool-note'; // a tool message's text that is not workspace content: a refusal, a truncation note, "nothing found"

export interface Segment {
  /** Unique within its layer. */
  id: string;
  layer: LayerId;
  kind: SegmentKind;
  role: Role;
  /** The exact text sent (one provider block). */
  text: string;
  tokens: number;
  /** For artifact / reference / stub / compacted: the artifact version key `id@vN`. */
  artifactKey?: string;
  /** Turn the segment belongs to (history and transcript turns). */
  turn?: number;
  /** `tool-call` segments: the calls (the text is their JSON, which its tokens count). */
  toolCalls?: ToolCall[];
  /** Tool-step segments (`tool-call`, `step-text`, and a tool message's blocks and notes): the tool's name. */
  tool?: string;
}

export interface Layer {
  id: LayerId;
  segments: Segment[];
  tokens: number;
  /** sha256 hex over the layer's segments (ids and texts), see `hashLayer`. */
  hash: string;
}

export interface TextBlock {
  type: 'text';
  text: string;
  /** Present (true) only on blocks that end a cacheable prefix. */
  cacheBreakpoint?: true;
}

export interface ChatMessage {
  role: Role;
  content: TextBlock[];
  /** Assistant messages: the tool calls the model made (its `content` holds what it said first, often nothing). */
  toolCalls?: ToolCall[];
  /** Tool messages: the call this result answers. */
  toolCallId?: string;
}

export type LedgerStatus = 'full' | 'reference' | 'compacted' | 'pruned';

export interface LedgerItem {
  id: string;
  label: string;
  tokens: number;
  status: LedgerStatus;
  /** Predicted by the engine; replaced by the provider-reported figure after the call. */
  cached: boolean;
  recoverable: boolean;
  essential?: boolean;
  superseded?: boolean;
  missing?: boolean;
  reason?: string;
  /** What the segment is (absent for the per-layer framing line and for items cut earlier). */
  segment?: SegmentKind;
  /** The artifact version this item sends or stands for (`id` or `id@vN`). */
  key?: string;
  artifactKind?: ArtifactKind;
  version?: number;
  /** sha256 hex of the artifact's content. */
  contentHash?: string;
  /** The history turn the item belongs to. */
  turn?: number;
  /** A tool call, or what a tool returned: the tool's name. */
  tool?: string;
}

export interface LedgerLayer {
  id: LayerId;
  label: string;
  tokens: number;
  items: LedgerItem[];
}

export interface LedgerNode {
  conversationId: string;
  turn: number;
  layout: Layout;
  totalTokens: number;
  budget: number;
  /** Tokens predicted to be served from the provider's prefix cache. */
  cachedTokens: number;
  layers: LedgerLayer[];
  pruned: PruneReport[];
}

export interface PruneReport {
  layer: LayerId;
  item: string;
  preTokens: number;
  postTokens: number;
  /** Short human description of what stays. */
  kept: string;
  /** Short human description of what is gone. */
  lost: string;
  reason: string;
}

export type Layout = 'library' | 'transcript';
export type ChangedFilesPolicy = 'append-version' | 'append-diff' | 'refresh-in-place';

export interface Envelope {
  conversationId: string;
  turn: number;
  layout: Layout;
  layers: Layer[];
  messages: ChatMessage[];
  /** Indexes into the flattened list of blocks (≤ 4); tool calls are not blocks. */
  cacheBreakpoints: number[];
  /** library: hash of L1+L2; transcript: hash of all messages before the current user message. */
  prefixHash: string;
  ledger: LedgerNode;
  pruned: PruneReport[];
  /** Tokens of the whole request as the engine counts it (segments + per-message framing). */
  totalTokens: number;
  budget: number;
}

/** Token counting port. Implementations live in src/services. */
export interface ITokenizer {
  readonly encoding: string;
  /**
   * Number of tokens of `text`; special-token strings such as `<|endoftext|>` count as ordinary text.
   * `sha256`, when given, is the sha256 hex of `text` (UTF-8) the caller already has: a memoizing
   * tokenizer may key its memo by it instead of hashing the text again.
   */
  count(text: string, sha256?: string): number;
}

/** Hashing port (defaults to a pure-JS sha256, see src/common/hash.ts). */
export interface IHasher {
  sha256Hex(text: string): string;
}
