/**
 * An independent model of what a chat's selections, pins and rejections must be
 * (docs/design.md#artifacts, #trajectories), written from the design, not from the engine, plus a
 * runner that replays a trajectory and keeps what the properties need (envelopes, the pinned set of
 * the committed state).
 */
import { createHash } from 'node:crypto';
import type { ChangedFilesPolicy, ITokenizer, Layout, Segment } from '../../../src/engine/types';
import { replay, type ReplayTurn } from '../../../bench/replayCore';
import { expandFileValue, type Trajectory, type TrajectoryAttachment, type TrajectoryTurn } from '../../../bench/trajectory';
import { extractBody } from '../../../src/engine/render';

export function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** Lines as VS Code splits them (\r\n, \n, \r), written independently of src/engine/artifacts.ts. */
export function splitLines(text: string): string[] {
  return text.split(/\r\n|\r|\n/);
}

/** Selection snapshot: start of startLine to end of endLine, no final break, end clamped. */
export function refSlice(text: string, startLine: number, endLine: number): { content: string; endLine: number } | undefined {
  const lines = splitLines(text);
  if (startLine > lines.length) return undefined;
  const end = Math.min(endLine, lines.length);
  // Offsets: walk the text, so the original line breaks inside the range are kept byte for byte.
  const re = /\r\n|\r|\n/g;
  const starts = [0];
  const ends: number[] = [];
  let m: RegExpExecArray | null;
  while ((m = re.exec(text))) {
    ends.push(m.index);
    starts.push(m.index + m[0].length);
  }
  ends.push(text.length);
  return { content: text.slice(starts[startLine - 1], ends[end - 1]), endLine: end };
}

// ------------------------------------------------------------------ runner

export interface RunTurn extends ReplayTurn {
  committed: boolean;
  /** Essential (pinned) versions in the committed state after this turn: key → content. */
  essentialAfter?: Map<string, string>;
}

export function runTrajectory(traj: Trajectory, layout: Layout, policy: ChangedFilesPolicy, tokenizer: ITokenizer): RunTurn[] {
  const out: RunTurn[] = [];
  const it = replay(traj, {
    layout,
    policy,
    tokenizer,
    afterTurn: (_turn, engine) => {
      const essential = new Map<string, string>();
      for (const e of engine.state.entries.values()) if (e.essential) essential.set(e.key, e.artifact.content);
      out[out.length - 1].essentialAfter = essential;
    },
  });
  for (const t of it) out.push({ ...t, committed: !t.envelope.blocked });
  return out;
}

export function allSegments(t: ReplayTurn): Segment[] {
  return t.envelope.layers.flatMap((l) => l.segments);
}

/** Keys sent in full or as a compacted preview (both count as "present"). */
export function presentKeys(t: ReplayTurn): Set<string> {
  const s = new Set<string>();
  for (const g of allSegments(t)) if ((g.kind === 'artifact' || g.kind === 'compacted') && g.artifactKey) s.add(g.artifactKey);
  return s;
}

export function isDiffBlock(text: string): boolean {
  return /^<[a-z]+ [^\n]* format="diff"/.test(text);
}

/** artifactKey → bodies of the full (`artifact`) blocks that carry it in this request. */
export function fullBodies(t: ReplayTurn): Map<string, (string | undefined)[]> {
  const m = new Map<string, (string | undefined)[]>();
  for (const g of allSegments(t)) {
    if (g.kind !== 'artifact' || !g.artifactKey) continue;
    m.set(g.artifactKey, [...(m.get(g.artifactKey) ?? []), isDiffBlock(g.text) ? undefined : extractBody(g.text)]);
  }
  return m;
}

// ------------------------------------------------------------------ model

interface SelVersion {
  id: string;
  key: string;
  uri: string;
  startLine: number;
  endLine: number;
  content: string;
}

interface SelId {
  versions: SelVersion[];
  /** The newest version is no longer sent (pruned or detached). */
  gone: boolean;
  detached: boolean;
}

const EXCLUDED = /(^|\/)\.env$|\.pem$/;

function keyOf(id: string, version: number): string {
  return version === 1 ? id : `${id}@v${version}`;
}

export interface TurnExpectation {
  /** `label|reason`, sorted. */
  rejections: string[];
  /** Selection versions this turn attached (new or again), key → snapshot. */
  attachedSelections: Map<string, string>;
  /** Pinned selection versions once this turn's pin / unpin / detach are applied. */
  pinnedNow: Map<string, string>;
}

/**
 * Tracks the workspace, every selection version, which selections are pinned, and which files are
 * attached, turn by turn: edits → detach → attach → pin → unpin → cuts.
 */
export class ChatModel {
  readonly files = new Map<string, string>();
  private readonly sels = new Map<string, SelId>();
  /** Selection versions in creation order (the engine's first-seen order). */
  private readonly created: SelVersion[] = [];
  /** path → whether the newest version of `file:path` is detached. */
  private readonly attachedFiles = new Map<string, { detached: boolean }>();
  /** Pinned selection versions: key → snapshot. */
  readonly pinned = new Map<string, string>();
  /** Every selection version attached in a committed turn: key → snapshot. */
  readonly snapshots = new Map<string, string>();
  /** Keys named by a cut report in a committed turn. */
  readonly reported = new Set<string>();

  constructor(traj: Trajectory) {
    for (const [p, v] of Object.entries(traj.files)) this.files.set(p, expandFileValue(v));
  }

  private findSel(a: NonNullable<TrajectoryAttachment['selection']>): SelVersion | undefined {
    let best: SelVersion | undefined;
    for (const v of this.created) if (v.uri === a.file && v.startLine === a.startLine && v.endLine === a.endLine) best = v;
    if (!best) return undefined;
    const id = this.sels.get(best.id)!;
    return id.versions[id.versions.length - 1];
  }

  /**
   * Applies one turn. `reports` are the turn's cut reports (used to learn what the budget cut);
   * when `committed` is false (blocked turn) only the workspace edits stay.
   */
  step(turn: TrajectoryTurn, reports: { item: string; reason: string }[], committed: boolean): TurnExpectation {
    for (const [p, v] of Object.entries(turn.edits ?? {})) {
      if (v === null) this.files.delete(p);
      else this.files.set(p, expandFileValue(v));
    }
    const rejections: string[] = [];
    const selLabel = (s: NonNullable<TrajectoryAttachment['selection']>) => `${s.file}#L${s.startLine}-L${s.endLine}`;
    // Work on copies; commit at the end unless the turn is blocked.
    const pinned = new Map(this.pinned);
    const detachedIds = new Set<string>();
    const detachedFiles = new Set<string>();

    const refTarget = (a: TrajectoryAttachment): { sel?: SelVersion; file?: string; label: string } | undefined => {
      if (a.selection) {
        const v = this.findSel(a.selection);
        const gone = v && (this.sels.get(v.id)!.detached || detachedIds.has(v.id));
        return v && !gone ? { sel: v, label: selLabel(a.selection) } : undefined;
      }
      const f = this.attachedFiles.get(a.file!);
      return f && !f.detached && !detachedFiles.has(a.file!) ? { file: a.file!, label: a.file! } : undefined;
    };
    const label = (a: TrajectoryAttachment) => (a.selection ? selLabel(a.selection) : a.file!);

    // The generator never names one item in two of pin / unpin / detach in a turn. The engine applies
    // detach first, then this turn's attachments, then pin and unpin.
    for (const a of turn.detach ?? []) {
      const t = refTarget(a);
      if (!t) {
        rejections.push(`${label(a)}|not-found`);
        continue;
      }
      if (t.sel) {
        detachedIds.add(t.sel.id);
        for (const v of this.sels.get(t.sel.id)!.versions) pinned.delete(v.key);
      } else detachedFiles.add(t.file!);
    }
    const attachedSelections = new Map<string, string>();
    const newVersions: SelVersion[] = [];
    /** This turn's new selection versions whose endLine was past the end of the file. */
    const clampedNow = new Set<SelVersion>();
    const newFiles = new Set<string>();
    for (const a of turn.attach ?? []) {
      const path = a.selection ? a.selection.file : a.file!;
      const l = label(a);
      if (path.startsWith('../') || path.startsWith('/')) {
        rejections.push(`${l}|outside-workspace`);
        continue;
      }
      if (EXCLUDED.test(path)) {
        rejections.push(`${l}|excluded`);
        continue;
      }
      const text = this.files.get(path);
      if (text === undefined) {
        rejections.push(`${l}|not-found`);
        continue;
      }
      if (!a.selection) {
        newFiles.add(path);
        continue;
      }
      const slice = refSlice(text, a.selection.startLine, a.selection.endLine);
      if (!slice) {
        rejections.push(`${l}|not-found`);
        continue;
      }
      const id = `sel:${path}#L${a.selection.startLine}-L${slice.endLine}@${sha256(slice.content).slice(0, 8)}`;
      const known = this.sels.get(id);
      const pendingNew = newVersions.find((v) => v.id === id);
      let key: string;
      if (pendingNew) key = pendingNew.key;
      else if (known && !known.gone && !detachedIds.has(id)) key = known.versions[known.versions.length - 1].key;
      else {
        const v: SelVersion = {
          id,
          key: keyOf(id, (known?.versions.length ?? 0) + 1),
          uri: path,
          startLine: a.selection.startLine,
          endLine: slice.endLine,
          content: slice.content,
        };
        newVersions.push(v);
        if (slice.endLine < a.selection.endLine) clampedNow.add(v);
        key = v.key;
      }
      attachedSelections.set(key, slice.content);
    }

    // Pins and unpins run after this turn's attachments, so an item attached now can be pinned now.
    const pinTarget = (a: TrajectoryAttachment): { sel?: SelVersion; file?: string; label: string } | undefined => {
      if (a.selection) {
        const sa = a.selection;
        // As the engine: an exact range first (this turn's or earlier), then a clamped one.
        const exact = [...newVersions].reverse().find((n) => n.uri === sa.file && n.startLine === sa.startLine && n.endLine === sa.endLine);
        if (exact) return { sel: exact, label: selLabel(sa) };
        const earlier = refTarget(a);
        if (earlier) return earlier;
        const clamped = [...newVersions]
          .reverse()
          .find((n) => clampedNow.has(n) && n.uri === sa.file && n.startLine === sa.startLine && n.endLine < sa.endLine);
        return clamped ? { sel: clamped, label: selLabel(sa) } : undefined;
      }
      return newFiles.has(a.file!) ? { file: a.file!, label: a.file! } : refTarget(a);
    };
    for (const a of turn.pin ?? []) {
      const t = pinTarget(a);
      if (!t) rejections.push(`${label(a)}|not-found`);
      else if (t.sel) {
        // Pinning a selection that was cut sends its snapshot again, as a new version.
        let v = t.sel;
        if (!newVersions.includes(v) && this.sels.get(v.id)!.gone) {
          v = newVersions.find((n) => n.id === t.sel!.id) ?? { ...v, key: keyOf(v.id, this.sels.get(v.id)!.versions.length + 1) };
          if (!newVersions.includes(v)) newVersions.push(v);
          attachedSelections.set(v.key, v.content);
        }
        pinned.set(v.key, v.content);
      }
    }
    for (const a of turn.unpin ?? []) {
      const t = pinTarget(a);
      if (!t) rejections.push(`${label(a)}|not-found`);
      else if (t.sel) {
        const pending = newVersions.find((n) => n.id === t.sel!.id);
        pinned.delete(pending ? pending.key : t.sel.key);
      }
    }

    if (committed) {
      for (const k of [...this.pinned.keys()]) if (!pinned.has(k)) this.pinned.delete(k);
      for (const [k, v] of pinned) this.pinned.set(k, v);
      for (const id of detachedIds) {
        const s = this.sels.get(id)!;
        s.detached = true;
        s.gone = true;
      }
      for (const f of detachedFiles) this.attachedFiles.get(f)!.detached = true;
      for (const v of newVersions) {
        const s = this.sels.get(v.id) ?? { versions: [], gone: false, detached: false };
        s.versions.push(v);
        s.gone = false;
        s.detached = false;
        this.sels.set(v.id, s);
        this.created.push(v);
      }
      for (const f of newFiles) this.attachedFiles.set(f, { detached: false });
      for (const [k, c] of attachedSelections) this.snapshots.set(k, c);
      for (const r of reports) {
        this.reported.add(r.item);
        for (const s of this.sels.values()) if (s.versions[s.versions.length - 1].key === r.item) s.gone = true;
      }
    }
    return { rejections: rejections.sort(), attachedSelections, pinnedNow: pinned };
  }
}
