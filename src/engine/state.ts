import type { Artifact } from './types';

/** Where one artifact version stands in the chat. */
export type Presence = 'present' | 'detached' | 'pruned' | 'replaced';

export interface EntryState {
  readonly artifact: Artifact;
  /** `id` for v1, `id@vN` after (DESIGN §2). */
  readonly key: string;
  /** Turn whose request first carried this version's block. */
  readonly firstTurn: number;
  presence: Presence;
  /** A newer version of the same id exists. */
  superseded: boolean;
  /** The file was deleted; the last snapshot is kept. */
  missing: boolean;
  /** Pinned by the user: never pruned or compacted. */
  essential: boolean;
  /** Structure + preview standing in for the full content (DESIGN §5). */
  compacted?: { body: string; bodyHash: string; keptLines: number; totalLines: number };
  /** refresh-in-place: this version took the L2 slot of an older one. */
  inPlaceOf?: string;
  /** A selection attached with an endLine past the end of the file: that endLine (it was clamped). */
  requestedEndLine?: number;
}

export type TurnItemMode = 'full' | 'reference' | 'missing';

export interface TurnItem {
  key: string;
  mode: TurnItemMode;
}

export interface TurnRecord {
  turn: number;
  userText: string;
  /** The L3 items of that turn, in the order they were sent. */
  items: TurnItem[];
  reply: string;
}

export interface HistorySummary {
  /** Turns 1..throughTurn are represented by `text` instead of verbatim messages. */
  throughTurn: number;
  text: string;
}

/** Everything a chat needs to render its next request; persisted by the chat store (DESIGN §10). */
export interface ChatState {
  completedTurns: number;
  entries: Map<string, EntryState>;
  /** id → key of its newest version. */
  latest: Map<string, string>;
  /** id → highest version number handed out. */
  versions: Map<string, number>;
  /** Keys in first-seen order. */
  order: string[];
  turns: TurnRecord[];
  summary?: HistorySummary;
  /** `role:sha256(text)` of each block of the previous request (cache prediction, prefix breaks). */
  previousBlocks: string[];
}

export function emptyState(): ChatState {
  return { completedTurns: 0, entries: new Map(), latest: new Map(), versions: new Map(), order: [], turns: [], previousBlocks: [] };
}

/** Copy-on-write clone: entries are copied so a pending turn never mutates committed state. */
export function cloneState(s: ChatState): ChatState {
  const entries = new Map<string, EntryState>();
  for (const [k, e] of s.entries) entries.set(k, { ...e });
  return {
    completedTurns: s.completedTurns,
    entries,
    latest: new Map(s.latest),
    versions: new Map(s.versions),
    order: s.order.slice(),
    turns: s.turns.slice(),
    summary: s.summary ? { ...s.summary } : undefined,
    previousBlocks: s.previousBlocks,
  };
}
