import type { ChangedFilesPolicy, Envelope, IHasher, ITokenizer, LineRange, Layout, ToolCall } from './types';
import type { NewArtifactInput } from './artifacts';
import type { ModelLimits, Thresholds } from './budget';
import type { ISummarizer } from './summarizer';
import type { HistorySummary } from './state';
import type { Rejection } from './isolation';

/** What a turn takes in and gives back: the engine's options, a turn's input, its envelope, a tool step. */

export interface Instruction {
  /** Where the text came from: `settings`, `.strata/instructions.md`, `AGENTS.md`, … */
  source: string;
  text: string;
}

export interface EngineOptions {
  conversationId: string;
  layout: Layout;
  policy: ChangedFilesPolicy;
  tokenizer: ITokenizer;
  hasher?: IHasher;
  /** L1 product prompt, sent as written. */
  system: string;
  instructions?: Instruction[];
  limits: ModelLimits;
  thresholds?: Thresholds;
  summarizer?: ISummarizer;
  /** History turns kept verbatim when older ones are summarized (K). */
  keepRecentTurns?: number;
  /**
   * Workspace tools are offered to the model: a compacted file's recovery hint names
   * `read_file` instead of asking the user to re-attach it. Requests are otherwise unchanged.
   */
  tools?: boolean;
  /**
   * Turns summarized one at a time before pruning searches for the fewest that fit (default 8). Both
   * give the same request when summarizing more turns never adds tokens; a test compares them.
   */
  summaryLinearSteps?: number;
}

/** Names an existing attachment (pin / unpin / detach). */
export interface AttachmentRef {
  kind: 'file' | 'selection';
  uri: string;
  range?: LineRange;
  /** A detach the check before the request made, not the user: why its file may no longer be sent. */
  withdrawn?: WithdrawnReason;
}

/** Why content left a request to keep it private: its file is now excluded, or now a link out of the workspace. */
export type WithdrawnReason = 'excluded' | 'outside-workspace';

export interface TurnInput {
  userText: string;
  /** This turn's attachments, already isolated and read (or snapshotted) by the caller. */
  attachments?: NewArtifactInput[];
  /** Current content of recoverable artifacts (see `recoverableSources`); null = deleted. */
  fresh?: ReadonlyMap<string, string | null>;
  pin?: AttachmentRef[];
  unpin?: AttachmentRef[];
  detach?: AttachmentRef[];
  /** Rejections found by the caller (isolation), carried into the envelope. */
  rejections?: Rejection[];
  /** "Prune harder": cut down to this percent of the budget even below the compaction threshold. */
  targetPercentOverride?: number;
  /** An LLM summary computed before the turn; used when it covers exactly the turns being summarized. */
  precomputedSummary?: HistorySummary;
}

export interface BlockedTurn {
  message: string;
  essentialTokens: number;
  budget: number;
}

export interface TurnEnvelope extends Envelope {
  rejections: Rejection[];
  /** Set when nothing can be sent (the essentials alone exceed the budget). */
  blocked?: BlockedTurn;
  /** Whether the stable prefix of the previous request was not kept, and why. */
  prefixBreak: boolean;
  prefixBreakReason?: string;
  /** Keys whose full block this request sends for the first time. */
  newBlocks: string[];
}

/** One tool call's result, as the tools returned it. */
export interface ToolStepResultInput {
  callId: string;
  /** The tool that was called. */
  tool: string;
  /** What it read (a file, a range of one, a listing, search results, diagnostics, a selection). */
  artifact?: NewArtifactInput;
  /**
   * `artifact` is part of a file: the whole file's id and current content, so a version of it the
   * request already carries in full answers with a reference instead.
   */
  whole?: { id: string; content: string };
  /** Text after the artifact (a truncation note) or instead of it (a refusal, "nothing found"). */
  note?: string;
}

/** One model step that called tools: what it said first, its calls, one result per call (in order). */
export interface ToolStepInput {
  text: string;
  calls: ToolCall[];
  results: ToolStepResultInput[];
}

/** What became of one call's result in the request. */
export interface ToolStepOutcome {
  callId: string;
  tool: string;
  /** full: a new block; reference: the request already carried it; note: text only; over-budget: left out, a note says why. */
  mode: 'full' | 'reference' | 'note' | 'over-budget';
  /** The artifact version sent or referred to. */
  key?: string;
  /** Tokens the result added to the request (its segments, without message framing). */
  tokens: number;
}
