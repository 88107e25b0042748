/**
 * The usual approaches Strata is measured against (never pruned):
 * - `inline-every-turn`: every request inlines the current content of everything attached so far
 *   into the current user message; history is display text and replies only.
 * - `latest-copy`: the system message holds the latest copy of every attached item (re-rendered in
 *   place when a file changes, like the seed); history and the current message are text only.
 */
import type { ChatMessage, TextBlock } from '../src/engine/types';
import type { Rejection } from '../src/engine/isolation';
import type { NewArtifactInput } from '../src/engine/artifacts';
import { VirtualWorkspace, type Trajectory } from './trajectory';
import { specOf } from './replayCore';

export type BaselineName = 'inline-every-turn' | 'latest-copy';

export interface BaselineTurn {
  turn: number;
  messages: ChatMessage[];
  rejections: Rejection[];
}

function itemKey(i: NewArtifactInput): string {
  return i.kind === 'selection' ? `${i.uri}#L${i.range!.startLine}-L${i.range!.endLine}\u0000${i.content}` : i.uri;
}

function inline(i: NewArtifactInput): string {
  const where = i.range ? `${i.uri} (lines ${i.range.startLine}-${i.range.endLine})` : i.uri;
  return `File: ${where}\n\`\`\`\n${i.content}\n\`\`\`\n`;
}

export function* replayBaseline(traj: Trajectory, name: BaselineName): Generator<BaselineTurn> {
  const ws = new VirtualWorkspace(traj.files);
  const attached = new Map<string, NewArtifactInput>();
  const history: ChatMessage[] = [];
  for (let i = 0; i < traj.turns.length; i++) {
    const t = traj.turns[i];
    ws.applyEdits(t.edits);
    const rejections: Rejection[] = [];
    for (const a of t.attach ?? []) {
      const r = ws.resolve(specOf(a));
      if (r.ok) attached.set(itemKey(r.input), r.input);
      else rejections.push(r.rejection);
    }
    for (const a of t.detach ?? []) {
      for (const [k, v] of attached) {
        const same = a.selection ? v.kind === 'selection' && v.uri === a.selection.file && v.range!.startLine === a.selection.startLine : v.kind === 'file' && v.uri === a.file;
        if (same) attached.delete(k);
      }
    }
    // Files are re-read every turn (the latest content); selections stay snapshots.
    const current: NewArtifactInput[] = [];
    for (const v of attached.values()) {
      if (v.kind === 'file') {
        const c = ws.read(v.uri);
        if (c !== undefined) current.push({ ...v, content: c });
      } else current.push(v);
    }
    const system: TextBlock[] = [{ type: 'text', text: traj.system }];
    const user: TextBlock[] = [];
    if (name === 'latest-copy') {
      for (const c of current) system.push({ type: 'text', text: `\n\n${inline(c)}` });
    } else {
      for (const c of current) user.push({ type: 'text', text: inline(c) });
    }
    user.push({ type: 'text', text: t.user });
    system[system.length - 1].cacheBreakpoint = true;
    user[user.length - 1].cacheBreakpoint = true;
    const messages: ChatMessage[] = [{ role: 'system', content: system }, ...history, { role: 'user', content: user }];
    yield { turn: i + 1, messages, rejections };
    history.push({ role: 'user', content: [{ type: 'text', text: t.user }] }, { role: 'assistant', content: [{ type: 'text', text: t.reply }] });
  }
}
