import type { HistorySummary, Presence, TurnRecord } from './state';
import type { ArtifactKind, ChangedFilesPolicy, Layout } from './types';
import type { Thresholds } from './budget';

/** The saved form of a chat state: JSON-safe, every snapshot replaced by a content-addressed blob name. */

export const STATE_FORMAT = 'strata-chat-state';
export const STATE_FORMAT_VERSION = 1;

export type BlobEncoding = 'json';

export interface EncodedArtifact {
  id: string;
  kind: ArtifactKind;
  source: { uri: string; range?: { startLine: number; endLine: number } };
  recoverable: boolean;
  /** sha256 hex of the content: the blob name unless `blob` says otherwise. */
  contentHash: string;
  version: number;
  priority: number;
  essential: boolean;
  blob?: string;
  blobEncoding?: BlobEncoding;
}

export interface EncodedCompacted {
  bodyHash: string;
  keptLines: number;
  totalLines: number;
  blob?: string;
  blobEncoding?: BlobEncoding;
}

export interface EncodedEntry {
  key: string;
  artifact: EncodedArtifact;
  firstTurn: number;
  presence: Presence;
  superseded: boolean;
  missing: boolean;
  essential: boolean;
  compacted?: EncodedCompacted;
  inPlaceOf?: string;
  requestedEndLine?: number;
  /** Read by a workspace tool: the tool's name. */
  tool?: string;
  /** Detached by the check before a request (its file is now excluded, or outside the workspace), not by the user. */
  withdrawn?: 'excluded' | 'outside-workspace';
}

/** The engine options that decide rendering, without the ports. */
export interface EngineMeta {
  conversationId: string;
  layout: Layout;
  policy: ChangedFilesPolicy;
  encoding: string;
  limits: { contextWindow: number; maxOutputTokens: number };
  thresholds: Thresholds;
  keepRecentTurns: number;
  /** sha256 of the L1 product prompt. */
  systemHash: string;
  /** Instruction overlays in force: where each came from and the sha256 of its text. */
  instructions: { source: string; hash: string }[];
  /** `extractive` for the engine's deterministic summarizer, `custom` when the host passed one. */
  summarizer: 'extractive' | 'custom';
}

export interface EncodedState {
  format: typeof STATE_FORMAT;
  version: typeof STATE_FORMAT_VERSION;
  completedTurns: number;
  /** In the state's Map order. */
  entries: EncodedEntry[];
  /** [id, key of its newest version], in Map order. */
  latest: [string, string][];
  /** [id, highest version handed out], in Map order. */
  versions: [string, number][];
  order: string[];
  turns: TurnRecord[];
  summary?: HistorySummary;
  previousBlocks: string[];
  /** The engine options in force when the state was saved. */
  engine?: EngineMeta;
}

export class StateDecodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StateDecodeError';
  }
}

export function emptyEncoded(): EncodedState {
  return {
    format: STATE_FORMAT,
    version: STATE_FORMAT_VERSION,
    completedTurns: 0,
    entries: [],
    latest: [],
    versions: [],
    order: [],
    turns: [],
    previousBlocks: [],
  };
}
