import type { Artifact, IHasher, PruneReport } from './types';
import { describeArtifact, makeArtifact, PRIORITY, versionKey, type NewArtifactInput } from './artifacts';
import { putEntry, writableEntry, writableLatest, writableOrder, writableVersions, type ChatState, type EntryState } from './state';

/**
 * The attachments of one chat: an ordered keyed map of artifact versions with tokens,
 * priority and the essential (pinned) flag. A view over `ChatState`, so whatever it changes is
 * what the chat store persists.
 */
export class AttachmentManager {
  constructor(
    private readonly state: ChatState,
    private readonly hasher: IHasher,
    private readonly tokensOf: (e: EntryState) => number,
    /** The artifact a new version stores (the engine's shares its content with its rendered block). */
    private readonly stored: (a: Artifact) => Artifact = (a) => a,
  ) {}

  get(key: string): EntryState | undefined {
    return this.state.entries.get(key);
  }

  /** The newest version of `id`. */
  latest(id: string): EntryState | undefined {
    const key = this.state.latest.get(id);
    return key ? this.state.entries.get(key) : undefined;
  }

  /** Every version in first-seen order. */
  all(): EntryState[] {
    return this.state.order.map((k) => this.state.entries.get(k)!);
  }

  /** Versions still sent (in full or compacted), in first-seen order. */
  present(): EntryState[] {
    return this.all().filter((e) => e.presence === 'present');
  }

  /**
   * Adds a new version of the artifact described by `input` (id derived from it unless given).
   * The previous version becomes superseded; a pin moves to the new version. `tool`: a workspace
   * tool read it (a new version of something a tool read stays the tool's).
   */
  addVersion(input: NewArtifactInput, turn: number, id?: string, tool?: string): EntryState {
    const s = this.state;
    const probe = makeArtifact(input, 1, this.hasher);
    const artifactId = id ?? probe.id;
    const version = (s.versions.get(artifactId) ?? 0) + 1;
    const artifact = this.stored({ ...probe, id: artifactId, version });
    const prev = this.latest(artifactId);
    const entry: EntryState = {
      artifact,
      key: versionKey(artifactId, version),
      firstTurn: turn,
      presence: 'present',
      superseded: false,
      missing: false,
      essential: prev?.essential === true && prev.presence === 'present',
    };
    if (input.requestedEndLine !== undefined && input.range && input.requestedEndLine > input.range.endLine)
      entry.requestedEndLine = input.requestedEndLine;
    const origin = tool ?? prev?.tool;
    if (origin !== undefined) entry.tool = origin;
    if (prev) {
      const w = writableEntry(s, prev.key);
      w.superseded = true;
      w.essential = false;
    }
    writableVersions(s).set(artifactId, version);
    writableLatest(s).set(artifactId, entry.key);
    putEntry(s, entry);
    writableOrder(s).push(entry.key);
    return entry;
  }

  pin(key: string): boolean {
    const e = this.get(key);
    if (!e || e.presence === 'detached') return false;
    writableEntry(this.state, key).essential = true;
    return true;
  }

  unpin(key: string): boolean {
    const e = this.get(key);
    if (!e || e.presence === 'detached') return false;
    writableEntry(this.state, key).essential = false;
    return true;
  }

  /**
   * The user removed the item (or, `withdrawn`, the check before the request did: its file may no
   * longer be sent): every version of its id leaves later requests.
   */
  remove(id: string, withdrawn?: EntryState['withdrawn']): PruneReport[] {
    const reports: PruneReport[] = [];
    for (const v of this.all()) {
      if (v.artifact.id !== id || v.presence === 'detached' || v.presence === 'replaced') continue;
      const pre = v.presence === 'present' ? this.tokensOf(v) : 0;
      const w = writableEntry(this.state, v.key);
      w.presence = 'detached';
      w.essential = false;
      if (withdrawn) w.withdrawn = withdrawn;
      reports.push({
        layer: 'L2',
        item: v.key,
        preTokens: pre,
        postTokens: 0,
        kept: withdrawn ? `nothing (removed: ${withdrawnWhy(withdrawn)})` : 'nothing (removed by the user)',
        lost: describeArtifact(v.artifact),
        reason: 'detached',
      });
    }
    return reports;
  }

  /** 0 when pinned, 10 when superseded, else the artifact's own priority (selections 3, others 5). */
  effectivePriority(e: EntryState): number {
    if (e.essential) return PRIORITY.essential;
    // Superseded versions and what a tool read (it can be read again) go first.
    if (e.superseded || e.tool !== undefined) return PRIORITY.low;
    return e.artifact.priority;
  }

  /**
   * Present, unpinned versions in the order they are dropped under budget pressure: highest
   * priority number first, ties oldest first (first-seen order breaks the remaining ties).
   */
  dropOrder(): EntryState[] {
    const order = new Map(this.state.order.map((k, i) => [k, i]));
    return this.present()
      .filter((e) => !e.essential)
      .sort(
        (a, b) =>
          this.effectivePriority(b) - this.effectivePriority(a) || a.firstTurn - b.firstTurn || order.get(a.key)! - order.get(b.key)!,
      );
  }

  /** Tokens of everything present. */
  tokens(): number {
    return this.present().reduce((n, e) => n + this.tokensOf(e), 0);
  }

  /**
   * Drops versions in `dropOrder` until the present ones fit in `limit` tokens. Pinned items are
   * never dropped; if they alone exceed the limit the result says so (`fits: false`).
   */
  optimizeForLimit(limit: number, turn: number): { fits: boolean; tokens: number; kept: string[]; dropped: PruneReport[] } {
    let tokens = this.tokens();
    const dropped: PruneReport[] = [];
    for (const e of this.dropOrder()) {
      if (tokens <= limit) break;
      const pre = this.tokensOf(e);
      writableEntry(this.state, e.key).presence = 'pruned';
      tokens -= pre;
      dropped.push({
        layer: e.firstTurn < turn ? 'L2' : 'L3',
        item: e.key,
        preTokens: pre,
        postTokens: 0,
        kept: 'nothing; re-attach it to send it again',
        lost: e.artifact.recoverable ? describeArtifact(e.artifact) : `${describeArtifact(e.artifact)} (a snapshot that cannot be re-read)`,
        reason: e.superseded ? 'superseded' : 'budget',
      });
    }
    return { fits: tokens <= limit, tokens, kept: this.present().map((e) => e.key), dropped };
  }
}

/** Why withdrawn content left, as the stub and the report say it. */
export function withdrawnWhy(reason: NonNullable<EntryState['withdrawn']>): string {
  return reason === 'excluded' ? 'its file is now excluded' : 'its file is now outside the workspace';
}
