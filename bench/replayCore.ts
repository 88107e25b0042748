/**
 * Runs a trajectory (DESIGN §8) through the real engine, turn by turn, the way the host does:
 * apply edits, re-read recoverable artifacts, isolate and read attachments, build, check, commit.
 */
import type { ChangedFilesPolicy, ITokenizer, Layout, PruneReport } from '../src/engine/types';
import { PromptContextEngine, type AttachmentRef, type TurnEnvelope, type TurnInput } from '../src/engine/engine';
import { IsolationPolicy, type Rejection } from '../src/engine/isolation';
import { sliceLines, type NewArtifactInput } from '../src/engine/artifacts';
import { checkEnvelope, type Violation } from '../src/engine/invariants';
import { sha256Hex } from '../src/common/hash';
import { attachmentLabel, VirtualWorkspace, type Trajectory, type TrajectoryAttachment } from './trajectory';

export interface ReplayOptions {
  layout: Layout;
  policy: ChangedFilesPolicy;
  tokenizer: ITokenizer;
  /** Called after turn N is committed; may return a fresh engine (reload through the chat store). */
  afterTurn?: (turn: number, engine: PromptContextEngine) => PromptContextEngine | void;
}

export interface ReplayTurn {
  turn: number;
  envelope: TurnEnvelope;
  rejections: Rejection[];
  pruned: PruneReport[];
  violations: Violation[];
}

export function engineFor(traj: Trajectory, opts: Pick<ReplayOptions, 'layout' | 'policy' | 'tokenizer'>): PromptContextEngine {
  return new PromptContextEngine({
    conversationId: traj.name,
    layout: opts.layout,
    policy: opts.policy,
    tokenizer: opts.tokenizer,
    system: traj.system,
    limits: { contextWindow: traj.model.contextWindow, maxOutputTokens: traj.model.maxOutputTokens },
  });
}

/** Resolves one `attach` entry against the virtual workspace, exactly as the host would. */
export function resolveAttachment(a: TrajectoryAttachment, ws: VirtualWorkspace, isolation: IsolationPolicy): { ok: true; input: NewArtifactInput } | { ok: false; rejection: Rejection } {
  const label = attachmentLabel(a);
  const path = a.selection ? a.selection.file : a.file!;
  const checked = isolation.checkPath(path, label);
  if (!checked.ok) return checked;
  const content = ws.read(checked.path);
  if (content === undefined) return { ok: false, rejection: { attachment: label, reason: 'not-found', message: `${label} does not exist in the workspace.` } };
  const bad = isolation.checkContent(content, label);
  if (bad) return { ok: false, rejection: bad };
  if (!a.selection) return { ok: true, input: { kind: 'file', uri: checked.path, content } };
  const slice = sliceLines(content, { startLine: a.selection.startLine, endLine: a.selection.endLine });
  if (!slice) return { ok: false, rejection: { attachment: label, reason: 'not-found', message: `${label}: the file has no line ${a.selection.startLine}.` } };
  const input: NewArtifactInput = { kind: 'selection', uri: checked.path, range: slice.range, content: slice.content };
  if (slice.range.endLine < a.selection.endLine) input.requestedEndLine = a.selection.endLine;
  return { ok: true, input };
}

function toRef(a: TrajectoryAttachment, isolation: IsolationPolicy): AttachmentRef | undefined {
  const p = a.selection ? a.selection.file : a.file!;
  const checked = isolation.checkPath(p);
  if (!checked.ok) return undefined;
  return a.selection
    ? { kind: 'selection', uri: checked.path, range: { startLine: a.selection.startLine, endLine: a.selection.endLine } }
    : { kind: 'file', uri: checked.path };
}

/** The turn input of `traj.turns[i]` as the host would assemble it (everything before buildTurn). */
export function turnInput(
  traj: Trajectory,
  i: number,
  ws: VirtualWorkspace,
  isolation: IsolationPolicy,
  engine: PromptContextEngine,
  freshMode: 'all' | 'changed',
  lastSeen: Map<string, string | null>,
): TurnInput {
  const t = traj.turns[i];
  ws.applyEdits(t.edits);
  const fresh = new Map<string, string | null>();
  for (const src of engine.recoverableSources()) {
    const content = ws.read(src.uri) ?? null;
    if (freshMode === 'all' || lastSeen.get(src.id) !== content) fresh.set(src.id, content);
    lastSeen.set(src.id, content);
  }
  const rejections: Rejection[] = [];
  const attachments: NewArtifactInput[] = [];
  for (const a of t.attach ?? []) {
    const r = resolveAttachment(a, ws, isolation);
    if (r.ok) attachments.push(r.input);
    else rejections.push(r.rejection);
  }
  const refs = (list: TrajectoryAttachment[] | undefined): AttachmentRef[] => {
    const out: AttachmentRef[] = [];
    for (const a of list ?? []) {
      const ref = toRef(a, isolation);
      if (ref) out.push(ref);
      else rejections.push({ attachment: attachmentLabel(a), reason: 'not-found', message: `${attachmentLabel(a)} is not attached in this chat.` });
    }
    return out;
  };
  return { userText: t.user, attachments, fresh, pin: refs(t.pin), unpin: refs(t.unpin), detach: refs(t.detach), rejections };
}

export function* replay(traj: Trajectory, opts: ReplayOptions): Generator<ReplayTurn> {
  const ws = new VirtualWorkspace(traj.files);
  const isolation = new IsolationPolicy();
  let engine = engineFor(traj, opts);
  for (let i = 0; i < traj.turns.length; i++) {
    const t = traj.turns[i];
    const input = turnInput(traj, i, ws, isolation, engine, 'all', new Map());
    const envelope = engine.buildTurn(input);
    const ctx = engine.checkContext();
    const violations = checkEnvelope(envelope, envelope.budget, { hasher: { sha256Hex }, ...ctx, blocked: !!envelope.blocked });
    yield { turn: i + 1, envelope, rejections: envelope.rejections, pruned: envelope.pruned, violations };
    if (envelope.blocked) {
      engine.abandonTurn();
      continue;
    }
    engine.completeTurn(t.reply);
    const next = opts.afterTurn?.(i + 1, engine);
    if (next) engine = next;
  }
}
