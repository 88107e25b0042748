import type { AttachmentManager } from './attachmentManager';
import type { ChatState, EntryState, TurnItem } from './state';
import type { IHasher, PruneReport } from './types';
import type { Rejection } from './isolation';
import type { AttachmentRef, EngineOptions, ToolStepResultInput, TurnInput } from './turnTypes';
import { makeArtifact, type NewArtifactInput } from './artifacts';
import { renderFullBlock, sharedFullBlock } from './render';
import { entryChanges, putEntry, writableEntry, writableOrder, writeCount } from './state';

/**
 * Applies what a turn brings to the state before it is rendered: removals, re-read files
 * (freshness), attachments, pins and unpins, and what a tool read. Owns the memo of re-read files
 * known unchanged.
 */
export class TurnInputApplier {
  /** Re-read files known unchanged: id → the content string of its newest version (not a copy). */
  private freshSeen: { state: ChatState; writes: number; confirmed: Map<string, string> } | undefined;

  constructor(
    private opts: EngineOptions,
    private readonly hasher: IHasher,
    private readonly attachments: (s: ChatState) => AttachmentManager,
    private readonly entryTokens: (e: EntryState) => number,
  ) {}

  /** The options changed (layout and policy decide how a re-read file is placed). */
  reset(opts: EngineOptions): void {
    this.opts = opts;
  }

  /**
   * The turn's items after its input is applied to `s`. Detach first (a removed file is not
   * re-read), pins after freshness (pinning a cut file sends its current content); rejections are
   * reported in the order pin, unpin, detach.
   */
  apply(s: ChatState, turn: number, input: TurnInput, rejections: Rejection[], reports: PruneReport[]): TurnItem[] {
    const detachRejections: Rejection[] = [];
    this.applyDetach(s, input, reports, detachRejections);
    const refreshed = this.applyFreshness(s, turn, input.fresh, reports);
    const items = this.applyAttachments(s, turn, input.attachments ?? [], refreshed, reports);
    items.push(...this.applyPins(s, turn, input, rejections, reports).filter((i) => !items.some((j) => j.key === i.key)));
    rejections.push(...detachRejections);
    return items;
  }

  /**
   * Where a tool's artifact goes: a reference to a block the request carries (the same version, or
   * for a range the whole file's current version), or a new version — when its block fits `room`.
   */
  toolArtifact(
    s: ChatState,
    turn: number,
    r: ToolStepResultInput,
    room: number,
    reports: PruneReport[],
  ): { item: TurnItem; range?: { startLine: number; endLine: number } } | { over: number } {
    const carried = (e: EntryState | undefined): e is EntryState => !!e && e.presence === 'present' && !e.compacted;
    if (r.whole) {
      const wk = s.latest.get(r.whole.id);
      const we = wk ? s.entries.get(wk) : undefined;
      if (carried(we) && (we.artifact.content === r.whole.content || this.hasher.sha256Hex(r.whole.content) === we.artifact.contentHash)) {
        const range = r.artifact!.range;
        return range
          ? { item: { key: we.key, mode: 'reference' }, range: { startLine: range.startLine, endLine: range.endLine } }
          : { item: { key: we.key, mode: 'reference' } };
      }
    }
    const input: NewArtifactInput = r.artifact!.kind === 'tool' ? { ...r.artifact!, tool: r.tool } : { ...r.artifact! };
    const probe = makeArtifact(input, 1, this.hasher);
    const lk = s.latest.get(probe.id);
    const latest = lk ? s.entries.get(lk) : undefined;
    if (carried(latest) && latest.artifact.contentHash === probe.contentHash) return { item: { key: latest.key, mode: 'reference' } };
    const version = (s.versions.get(probe.id) ?? 0) + 1;
    const tokens = this.opts.tokenizer.count(renderFullBlock({ ...probe, version }));
    if (tokens > room) return { over: tokens };
    const entry = this.attachments(s).addVersion(input, turn, undefined, r.tool);
    if (latest) this.supersedePreview(s, turn, latest, entry, reports);
    return { item: { key: entry.key, mode: 'full' } };
  }

  private findEntry(s: ChatState, ref: AttachmentRef): EntryState | undefined {
    if (ref.kind === 'file') {
      const key = s.latest.get(`file:${ref.uri}`) ?? s.latest.get(ref.uri);
      return key ? s.entries.get(key) : undefined;
    }
    // Exact range first; else a selection with the same start whose end was clamped at the end of
    // the file (attached with an endLine past the end). First-seen order: the last match is newest.
    let exact: EntryState | undefined;
    let clamped: EntryState | undefined;
    for (const key of s.order) {
      const e = s.entries.get(key)!;
      const r = e.artifact.source.range;
      if (e.artifact.kind !== 'selection' || e.artifact.source.uri !== ref.uri || !r || !ref.range) continue;
      if (r.startLine !== ref.range.startLine) continue;
      // A removed (detached) selection no longer exists for pin / unpin / detach.
      if (s.entries.get(s.latest.get(e.artifact.id)!)!.presence === 'detached') continue;
      if (r.endLine === ref.range.endLine) exact = e;
      else if (e.requestedEndLine !== undefined && r.endLine < ref.range.endLine) clamped = e;
    }
    const best = exact ?? clamped;
    return best && s.entries.get(s.latest.get(best.artifact.id)!);
  }

  private refLabel(ref: AttachmentRef): string {
    return ref.range ? `${ref.uri}#L${ref.range.startLine}-L${ref.range.endLine}` : ref.uri;
  }

  /**
   * Pins and unpins. Pinning something that was cut (pruned or compacted) sends it again in full as
   * a new version, since a pinned item is never cut.
   */
  private applyPins(s: ChatState, turn: number, input: TurnInput, rejections: Rejection[], reports: PruneReport[]): TurnItem[] {
    const items: TurnItem[] = [];
    const am = this.attachments(s);
    for (const [refs, value] of [
      [input.pin ?? [], true],
      [input.unpin ?? [], false],
    ] as const) {
      for (const ref of refs) {
        let e = this.findEntry(s, ref);
        if (e && value && e.presence !== 'detached' && (e.presence === 'pruned' || e.compacted)) {
          const a = e.artifact;
          const cut = e;
          e = this.newVersion(s, turn, { kind: a.kind, uri: a.source.uri, range: a.source.range, content: a.content }, a.id);
          items.push({ key: e.key, mode: 'full' });
          this.supersedePreview(s, turn, cut, e, reports);
        }
        if (!e || !(value ? am.pin(e.key) : am.unpin(e.key))) {
          rejections.push({
            attachment: this.refLabel(ref),
            reason: 'not-found',
            message: `${this.refLabel(ref)} is not attached in this chat, so it cannot be ${value ? 'pinned' : 'unpinned'}.`,
          });
        }
      }
    }
    return items;
  }

  /**
   * Library: when a compacted version's content is sent again in full (re-attached or pinned), its
   * preview leaves this request — the new version supersedes it, and the same lines are not sent
   * twice. Transcript keeps past messages byte-identical (the prefix), so it keeps it.
   */
  private supersedePreview(s: ChatState, turn: number, old: EntryState, next: EntryState, reports: PruneReport[]): void {
    if (
      this.opts.layout !== 'library' ||
      old.presence !== 'present' ||
      !old.compacted ||
      old.artifact.contentHash !== next.artifact.contentHash
    )
      return;
    const pre = this.entryTokens(old);
    writableEntry(s, old.key).presence = 'pruned';
    reports.push({
      layer: old.firstTurn < turn ? 'L2' : 'L3',
      item: old.key,
      preTokens: pre,
      postTokens: 0,
      kept: `${next.key}, the same content in full`,
      lost: `the compacted preview of ${old.artifact.source.uri}`,
      reason: 'resent-in-full',
    });
  }

  private applyDetach(s: ChatState, input: TurnInput, reports: PruneReport[], rejections: Rejection[]): void {
    for (const ref of input.detach ?? []) {
      const e = this.findEntry(s, ref);
      if (!e || e.presence === 'detached') {
        rejections.push({
          attachment: this.refLabel(ref),
          reason: 'not-found',
          message: `${this.refLabel(ref)} is not attached in this chat, so it cannot be removed.`,
        });
        continue;
      }
      reports.push(...this.attachments(s).remove(e.artifact.id, ref.withdrawn));
    }
  }

  private newVersion(s: ChatState, turn: number, input: NewArtifactInput, id?: string): EntryState {
    return this.attachments(s).addVersion(input, turn, id);
  }

  private applyFreshness(
    s: ChatState,
    turn: number,
    fresh: ReadonlyMap<string, string | null> | undefined,
    reports: PruneReport[],
  ): TurnItem[] {
    const items: TurnItem[] = [];
    if (!fresh || !this.anyFreshChange(s, fresh)) return items;
    const policy = this.opts.policy;
    for (const [id, key] of this.freshChanges(s, fresh)) {
      const e = s.entries.get(key)!;
      const content = fresh.get(id);
      if (content === null || content === undefined) {
        writableEntry(s, key).missing = true;
        if (e.presence === 'present') items.push({ key, mode: 'missing' });
        continue;
      }
      if (e.presence !== 'present') {
        // A pruned or compacted file that changed: nothing is sent until the user attaches it again.
        const entry = this.newVersion(s, turn, { kind: 'file', uri: e.artifact.source.uri, content }, id);
        writableEntry(s, entry.key).presence = 'pruned';
        continue;
      }
      if (policy === 'refresh-in-place' && this.opts.layout === 'library') {
        const entry = this.newVersion(s, turn, { kind: 'file', uri: e.artifact.source.uri, content }, id);
        const placed: EntryState = {
          ...entry,
          firstTurn: e.firstTurn,
          inPlaceOf: key,
          essential: s.entries.get(key)!.essential || entry.essential,
        };
        putEntry(s, placed);
        const order = writableOrder(s);
        order.splice(order.length - 1, 1);
        order.splice(order.indexOf(key), 0, entry.key);
        const pre = this.entryTokens(e);
        writableEntry(s, key).presence = 'replaced';
        reports.push({
          layer: 'L2',
          item: key,
          preTokens: pre,
          postTokens: 0,
          kept: `${entry.key} in the same place`,
          lost: `the earlier version of ${e.artifact.source.uri}`,
          reason: 'refreshed-in-place',
        });
        continue;
      }
      const entry = this.newVersion(s, turn, { kind: 'file', uri: e.artifact.source.uri, content }, id);
      items.push({ key: entry.key, mode: 'full' });
    }
    return items;
  }

  /**
   * The re-read files whose newest version must change (deleted, back, or new content), as [id, key
   * of its newest version], in the order of `s.latest` (the order their new versions are made in).
   * Found from `fresh` with a lookup per file: most turns change one file, and walking every id of a
   * long chat's `latest` would make every turn grow with the chat. Whether a file changed does not depend on another
   * file's new version, so finding them all first gives what checking each in turn gives.
   */
  private freshChanges(s: ChatState, fresh: ReadonlyMap<string, string | null>): [string, string][] {
    const changes: [string, string][] = [];
    // Files `anyFreshChange` just confirmed unchanged (the very string of their newest version) are skipped.
    const confirmed = this.freshSeen?.state === s ? this.freshSeen.confirmed : undefined;
    fresh.forEach((content, id) => {
      if (content !== null && content !== undefined && confirmed?.get(id) === content) return;
      const key = s.latest.get(id);
      if (key === undefined) return;
      const e = s.entries.get(key)!;
      if (!e.artifact.recoverable || e.presence === 'detached') return;
      if (content === null || content === undefined) {
        if (!e.missing) changes.push([id, key]);
        return;
      }
      if (!e.missing && (content === e.artifact.content || this.hasher.sha256Hex(content) === e.artifact.contentHash)) return;
      changes.push([id, key]);
    });
    if (changes.length < 2) return changes;
    const rank = new Map(changes.map(([id], i) => [id, i]));
    const ordered: [string, string][] = [];
    for (const id of s.latest.keys()) {
      const i = rank.get(id);
      if (i !== undefined) ordered.push(changes[i]);
    }
    return ordered;
  }

  /**
   * Whether any re-read file differs from its newest version (or was deleted or came back): most turns
   * change nothing, and this check costs a lookup per re-read file, not a walk over every id. A file
   * whose re-read content is the very string its newest version holds, and whose versions nothing
   * wrote since, is known unchanged without looking its entry up.
   */
  private anyFreshChange(s: ChatState, fresh: ReadonlyMap<string, string | null>): boolean {
    const seen = this.freshSeen;
    const since = seen ? entryChanges(seen.state, seen.writes, s) : undefined;
    const confirmed = since && seen ? seen.confirmed : new Map<string, string>();
    if (since)
      for (const k of since) {
        const e = s.entries.get(k);
        if (e) confirmed.delete(e.artifact.id);
      }
    let changed = false;
    // forEach: a Map's for-of makes an entry array per file.
    fresh.forEach((content, id) => {
      if (changed || (content !== null && content !== undefined && confirmed.get(id) === content)) return;
      const key = s.latest.get(id);
      if (key === undefined) return;
      const e = s.entries.get(key)!;
      if (!e.artifact.recoverable || e.presence === 'detached') return;
      if (content === null || content === undefined ? !e.missing : e.missing || content !== e.artifact.content) changed = true;
      // The version's own string (a slice of its block: the map keeps no second copy of the text).
      else if (content === e.artifact.content) {
        sharedFullBlock(e.artifact);
        confirmed.set(id, e.artifact.content);
      }
    });
    this.freshSeen = { state: s, writes: writeCount(s), confirmed };
    return changed;
  }

  private applyAttachments(
    s: ChatState,
    turn: number,
    attachments: NewArtifactInput[],
    refreshed: TurnItem[],
    reports: PruneReport[],
  ): TurnItem[] {
    const items: TurnItem[] = [];
    const seen = new Set<string>();
    const refreshedKeys = new Map(refreshed.map((i) => [i.key, i]));
    for (const input of attachments) {
      const probe = makeArtifact(input, 1, this.hasher);
      const latestKey = s.latest.get(probe.id);
      const latest = latestKey ? s.entries.get(latestKey) : undefined;
      let key: string;
      let mode: TurnItem['mode'];
      if (latest && latest.artifact.contentHash === probe.contentHash && latest.presence === 'present' && !latest.compacted) {
        key = latest.key;
        mode = latest.firstTurn === turn && !latest.inPlaceOf ? 'full' : 'reference';
      } else {
        const entry = this.newVersion(s, turn, input);
        key = entry.key;
        mode = 'full';
        if (latest) this.supersedePreview(s, turn, latest, entry, reports);
      }
      if (seen.has(key)) continue;
      seen.add(key);
      refreshedKeys.delete(key);
      items.push({ key, mode });
    }
    // Files that changed since they were sent, not attached again: their new version goes out once now.
    for (const item of refreshed) if (refreshedKeys.has(item.key)) items.push(item);
    return items;
  }
}
