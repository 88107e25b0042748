/**
 * What the user asks for in one turn, as the turn pipeline takes it, and its stored form: the store
 * keeps each turn's request so Regenerate can run it again (selection snapshots named by content hash,
 * their text being in the chat state's blobs).
 */
import type { AttachmentRef } from '../../engine/engine';
import type { NewArtifactInput } from '../../engine/artifacts';
import type { Rejection } from '../../engine/isolation';
import type { ChatState } from '../../engine/state';
import type { IHasher } from '../../engine/types';
import type { StoredRef, StoredTurnRequest, TurnMeta } from '../store/chatStore';
import type { AttachmentSpec } from '../workspacePort';

/** An attachment of this turn: a spec read now (a file chip, a trajectory's attach), or a snapshot taken earlier (a selection chip). */
export type TurnAttachment = AttachmentSpec | { kind: 'snapshot'; input: NewArtifactInput; label?: string };

export interface TurnRequest {
  userText: string;
  attachments?: readonly TurnAttachment[];
  pin?: readonly AttachmentRef[];
  unpin?: readonly AttachmentRef[];
  detach?: readonly AttachmentRef[];
  /** Rejections the caller found itself (names it could not turn into a reference), reported with the turn's. */
  rejections?: readonly Rejection[];
  /** Compact now: cut down to this percent of the budget even below the compaction threshold. */
  targetPercentOverride?: number;
}

function storedRef(r: AttachmentRef): StoredRef {
  return r.range
    ? { kind: r.kind, uri: r.uri, range: { startLine: r.range.startLine, endLine: r.range.endLine } }
    : { kind: r.kind, uri: r.uri };
}

/** A turn request in the chat store's form (snapshots named by content hash). */
export function storedRequest(req: TurnRequest, hasher: IHasher): StoredTurnRequest {
  const out: StoredTurnRequest = {
    attachments: (req.attachments ?? []).map((a) => {
      if (a.kind !== 'snapshot') return { ...a };
      const i = a.input;
      return {
        kind: 'snapshot' as const,
        uri: i.uri,
        ...(i.range ? { range: { startLine: i.range.startLine, endLine: i.range.endLine } } : {}),
        contentHash: hasher.sha256Hex(i.content),
        ...(i.requestedEndLine !== undefined ? { requestedEndLine: i.requestedEndLine } : {}),
        ...(a.label ? { label: a.label } : {}),
        ...(i.kind === 'tool' || i.kind === 'text' || i.kind === 'diagnostics' ? { artifactKind: i.kind } : {}),
        ...(i.tool !== undefined ? { tool: i.tool } : {}),
      };
    }),
  };
  if (req.pin?.length) out.pin = req.pin.map(storedRef);
  if (req.unpin?.length) out.unpin = req.unpin.map(storedRef);
  if (req.detach?.length) out.detach = req.detach.map(storedRef);
  if (req.targetPercentOverride !== undefined) out.targetPercentOverride = req.targetPercentOverride;
  return out;
}

/**
 * The request of completed turn `n` of `state` as it was sent, from its stored form in `meta`; for
 * chats saved without it, from the turn's items. A snapshot no longer in the chat is left out (and
 * logged).
 */
export function turnRequestFromStored(state: ChatState, n: number, meta: TurnMeta | undefined, log: (line: string) => void): TurnRequest {
  const record = state.turns[n - 1];
  const req: TurnRequest = { userText: record.userText, attachments: [] };
  const stored = meta?.request;
  if (!stored) {
    req.attachments = record.items
      .map((i) => state.entries.get(i.key)!.artifact)
      .map((a): TurnAttachment =>
        a.kind === 'selection' && a.source.range
          ? { kind: 'snapshot', input: { kind: 'selection', uri: a.source.uri, range: { ...a.source.range }, content: a.content } }
          : { kind: 'file', path: a.source.uri },
      );
    return req;
  }
  const attachments: TurnAttachment[] = [];
  for (const a of stored.attachments) {
    if (a.kind !== 'snapshot') {
      attachments.push({ ...a });
      continue;
    }
    const e = [...state.entries.values()].find((x) => x.artifact.contentHash === a.contentHash && x.artifact.source.uri === a.uri);
    if (!e) {
      log(`regenerate: the snapshot of ${a.label ?? a.uri} is no longer in the chat; it is left out`);
      continue;
    }
    const input: NewArtifactInput = { kind: a.artifactKind ?? 'selection', uri: a.uri, content: e.artifact.content };
    if (a.tool !== undefined) input.tool = a.tool;
    if (a.range) input.range = { ...a.range };
    if (a.requestedEndLine !== undefined) input.requestedEndLine = a.requestedEndLine;
    attachments.push({ kind: 'snapshot', input, ...(a.label ? { label: a.label } : {}) });
  }
  req.attachments = attachments;
  if (stored.pin) req.pin = stored.pin.map((r) => ({ ...r }));
  if (stored.unpin) req.unpin = stored.unpin.map((r) => ({ ...r }));
  if (stored.detach) req.detach = stored.detach.map((r) => ({ ...r }));
  if (stored.targetPercentOverride !== undefined) req.targetPercentOverride = stored.targetPercentOverride;
  return req;
}
