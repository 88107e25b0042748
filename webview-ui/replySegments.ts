import type { ToolStepView } from '../src/protocol/messages';

/** A piece of a reply: text, then the tool steps that ran after it (none after the last piece). */
export interface ReplySegment {
  text: string;
  steps: ToolStepView[];
}

/** The reply's layout: the steps shown above its text, and the text cut where the other steps happened. */
export interface ReplyLayout {
  above: ToolStepView[];
  segments: ReplySegment[];
}

/**
 * Cuts a reply's text where its tool steps happened (`textOffset`, clamped to the text), keeping
 * the steps in their order. Steps without an offset (chats saved before the panel placed them) or
 * before any text are shown above the text, as they always were.
 */
export function layoutReply(text: string, steps: readonly ToolStepView[] = []): ReplyLayout {
  const above: ToolStepView[] = [];
  const segments: ReplySegment[] = [];
  let from = 0;
  let current: ReplySegment | undefined;
  for (const step of steps) {
    const at = step.textOffset === undefined ? 0 : Math.min(Math.max(step.textOffset, from), text.length);
    if (at <= 0) {
      above.push(step);
      continue;
    }
    if (!current || at > from) {
      current = { text: text.slice(from, at), steps: [] };
      segments.push(current);
      from = at;
    }
    current.steps.push(step);
  }
  if (from < text.length || segments.length === 0) segments.push({ text: text.slice(from), steps: [] });
  return { above, segments };
}

/** Whether some step of the reply is shown inside its text rather than above it. */
export function hasInlineSteps(steps: readonly ToolStepView[] | undefined): boolean {
  return steps !== undefined && steps.some((s) => s.textOffset !== undefined && s.textOffset > 0);
}
