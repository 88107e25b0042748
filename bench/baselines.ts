/**
 * The usual approaches Strata is measured against (never pruned):
 * - `inline-every-turn`: every request inlines the current content of everything attached so far
 *   into the current user message; history is display text and replies only.
 * - `latest-copy`: the system message holds the latest copy of every attached item (re-rendered in
 *   place when a file changes, like the seed); history and the current message are text only.
 * - `tools-plain`: a plain agent transcript, as a tool loop without an envelope sends it:
 *   append-only messages; each tool call an assistant message and its result a tool message holding
 *   what the tool returned as plain text, every time (a file read twice is sent twice, a changed file
 *   in full again); attachments inline in the user message of the turn they were attached to. It is
 *   given the same cache breakpoints as the transcript layout (end of the system message, end of the
 *   previous request, the last block), so it differs from Strata only in what it sends.
 */
import type { ChatMessage, ChatMessage as EngineMessage, TextBlock } from '../src/engine/types';
import type { Rejection } from '../src/engine/isolation';
import type { NewArtifactInput } from '../src/engine/artifacts';
import { DEFAULT_TOOL_LIMITS, ToolExecutor, type ToolOutput } from '../src/services/tools/executor';
import { runStepsSync } from '../src/common/steps';
import { VirtualWorkspace, type Trajectory } from './trajectory';
import { replayToolCallId, specOf } from './replayCore';

export type BaselineName = 'inline-every-turn' | 'latest-copy' | 'tools-plain';

export interface BaselineTurn {
  turn: number;
  /** The turn's last request (the one its reply answers). */
  messages: ChatMessage[];
  rejections: Rejection[];
  /** `tools-plain`: the requests before it, one per tool call (step 1, 2, …). */
  steps?: ChatMessage[][];
}

/** What a tool returned, as a plain agent loop sends it: the content, then the note. */
export function plainToolText(out: ToolOutput): string {
  if (out.kind === 'text') return out.text;
  return out.note ? `${out.input.content}\n${out.note}` : out.input.content;
}

function itemKey(i: NewArtifactInput): string {
  return i.kind === 'selection' ? `${i.uri}#L${i.range!.startLine}-L${i.range!.endLine}\u0000${i.content}` : i.uri;
}

function inline(i: NewArtifactInput): string {
  const where = i.range ? `${i.uri} (lines ${i.range.startLine}-${i.range.endLine})` : i.uri;
  return `File: ${where}\n\`\`\`\n${i.content}\n\`\`\`\n`;
}

export function* replayBaseline(
  traj: Trajectory,
  name: BaselineName,
  tokenizer?: { count(text: string): number },
): Generator<BaselineTurn> {
  if (name === 'tools-plain') {
    if (!tokenizer) throw new Error('tools-plain needs a tokenizer (tool results are cut at the per-call budget)');
    yield* replayToolsPlain(traj, tokenizer);
    return;
  }
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
        const same = a.selection
          ? v.kind === 'selection' && v.uri === a.selection.file && v.range!.startLine === a.selection.startLine
          : v.kind === 'file' && v.uri === a.file;
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
    const messages: EngineMessage[] = [
      { role: 'system', content: system },
      ...(history as EngineMessage[]),
      { role: 'user', content: user },
    ];
    yield { turn: i + 1, messages, rejections };
    history.push(
      { role: 'user', content: [{ type: 'text', text: t.user }] },
      { role: 'assistant', content: [{ type: 'text', text: t.reply }] },
    );
  }
}

/** Copies `messages` with cache breakpoints on the given flat block indexes only. */
function withBreakpoints(messages: readonly ChatMessage[], at: ReadonlySet<number>): ChatMessage[] {
  let i = 0;
  return messages.map((m) => {
    const content = m.content.map((b): TextBlock =>
      at.has(i++) ? { type: 'text', text: b.text, cacheBreakpoint: true } : { type: 'text', text: b.text },
    );
    const out: ChatMessage = { role: m.role, content };
    if (m.toolCalls) out.toolCalls = m.toolCalls;
    if (m.toolCallId !== undefined) out.toolCallId = m.toolCallId;
    return out;
  });
}

function blockCount(messages: readonly ChatMessage[]): number {
  return messages.reduce((n, m) => n + m.content.length, 0);
}

function* replayToolsPlain(traj: Trajectory, tokenizer: { count(text: string): number }): Generator<BaselineTurn> {
  const ws = new VirtualWorkspace(traj.files);
  const tools = new ToolExecutor(ws, tokenizer, DEFAULT_TOOL_LIMITS);
  const system: ChatMessage = { role: 'system', content: [{ type: 'text', text: traj.system }] };
  const transcript: ChatMessage[] = [system];
  let previousEnd = -1;
  // Breakpoints: end of the system message, end of the previous request, the last block.
  const request = (): ChatMessage[] => {
    const last = blockCount(transcript) - 1;
    const at = new Set([0, previousEnd, last].filter((i) => i >= 0));
    previousEnd = last;
    return withBreakpoints(transcript, at);
  };
  for (let i = 0; i < traj.turns.length; i++) {
    const t = traj.turns[i];
    ws.applyEdits(t.edits);
    ws.applyEditor(t);
    const rejections: Rejection[] = [];
    const user: TextBlock[] = [];
    for (const a of t.attach ?? []) {
      const r = ws.resolve(specOf(a));
      if (r.ok) user.push({ type: 'text', text: inline(r.input) });
      else rejections.push(r.rejection);
    }
    user.push({ type: 'text', text: t.user });
    transcript.push({ role: 'user', content: user });
    const steps: ChatMessage[][] = [];
    (t.tools ?? []).forEach((c, k) => {
      steps.push(request());
      const id = replayToolCallId(i + 1, k + 1);
      const result = runStepsSync(tools.execute({ id, name: c.name, args: c.args }));
      transcript.push({ role: 'assistant', content: [], toolCalls: [{ id, name: c.name, args: c.args }] });
      transcript.push({ role: 'tool', toolCallId: id, content: [{ type: 'text', text: plainToolText(result.output) }] });
    });
    const messages = request();
    yield steps.length > 0 ? { turn: i + 1, messages, rejections, steps } : { turn: i + 1, messages, rejections };
    transcript.push({ role: 'assistant', content: [{ type: 'text', text: t.reply }] });
  }
}
