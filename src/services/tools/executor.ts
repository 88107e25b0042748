/**
 * Runs the workspace tools over a `ToolWorkspacePort`. Every path goes through the port's
 * isolation (`resolve` / `recheck`: real path inside the workspace, excludes, binary, size), so a tool
 * reads exactly what an attachment could, and a refused path returns a refusal sentence to the model,
 * never content. A result longer than the per-call token budget is cut at a line boundary with an
 * honest "truncated at line N of M" note.
 *
 * What a tool read is not text for the model yet: the executor returns an artifact input, and the
 * engine decides whether it becomes a full block, a new version or a reference to a block the request
 * already carries (the same id@version rules as attachments). Refusals, "nothing found" and such are
 * plain notes.
 *
 * Written as a generator of steps like the turn pipeline: a synchronous port (the replay) is driven
 * synchronously, the editor's asynchronously, by the same code. Each tool's own run is in its file
 * (see `definitions.ts`); the executor checks the arguments, runs the tool and summarizes.
 */
import { lineSpans } from '../../engine/artifacts';
import { GlobSet } from '../../common/glob';
import type { Step } from '../../common/steps';
import { callLabel, parseToolArgs, TOOL_SPECS, type ParsedToolArgs, type ToolArgsMap, type ToolCall } from './definitions';
import type { ToolWorkspacePort } from './toolPort';
import { normalizeGlob, plural, type FittedText, type ToolContext, type ToolLimits, type ToolName, type ToolOutput } from './toolSpec';

export { oneLine } from './getDiagnostics';
export { nonWorkspacePath, normalizeGlob, refusal } from './toolSpec';
export type { ToolLimits, ToolOutput } from './toolSpec';

export const DEFAULT_TOOL_LIMITS: ToolLimits = {
  maxResultTokens: 6000,
  maxListEntries: 500,
  maxSearchMatches: 50,
  maxSearchFiles: 5000,
  maxSearchFileChars: 2_000_000,
  maxMatchLineChars: 200,
};

export interface ToolResult {
  call: ToolCall;
  output: ToolOutput;
  /** One line for the panel: "src/a.ts, lines 1-40", "refused: excluded", "12 files". */
  summary: string;
}

export class ToolExecutor implements ToolContext {
  constructor(
    readonly port: ToolWorkspacePort,
    private readonly counter: { count(text: string): number },
    readonly limits: ToolLimits = DEFAULT_TOOL_LIMITS,
  ) {}

  /** The steps of one call; drive with `runSteps` / `runStepsSync` (or `yield*` from a pipeline). */
  *execute(call: ToolCall, signal?: AbortSignal): Step<ToolResult> {
    const parsed = parseToolArgs(call);
    if (typeof parsed === 'string')
      return { call, output: { kind: 'text', text: parsed, refused: 'invalid-arguments' }, summary: 'invalid arguments' };
    const output = yield* this.run(parsed.name, parsed, signal);
    return { call, output, summary: summarize(parsed, output) };
  }

  private run<K extends ToolName>(name: K, args: ToolArgsMap[K], signal?: AbortSignal): Step<ToolOutput> {
    return TOOL_SPECS[name].run(this, args, signal);
  }

  /**
   * Cuts `text` (whose first line is line `first` of a file of `total` lines) to the per-call token
   * budget at a line boundary; undefined when it fits whole.
   */
  fit(text: string, first: number, total?: number): FittedText | undefined {
    const max = this.limits.maxResultTokens;
    // Tokens are rarely longer than 8 characters: text up to that length is counted, longer is cut first.
    const charCap = max * 8;
    if (text.length <= charCap && this.counter.count(text) <= max) return undefined;
    const spans = lineSpans(text);
    const lines = spans.length;
    const fileTotal = total ?? first - 1 + lines;
    let hi = 0;
    while (hi < lines && spans[hi][1] <= charCap) hi++;
    // Largest n (lines kept) with count ≤ max; at least one line (cut by characters if it is huge).
    let lo = 0;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.counter.count(text.slice(0, spans[mid - 1][1])) <= max) lo = mid;
      else hi = mid - 1;
    }
    if (lo === 0) {
      const line = text.slice(0, spans[0][1]);
      let chars = Math.min(line.length, charCap);
      while (chars > 1 && this.counter.count(line.slice(0, chars)) > max) chars = Math.floor(chars / 2);
      return {
        content: line.slice(0, chars),
        range: { startLine: first, endLine: first },
        note: `[truncated inside line ${first} of ${fileTotal} (a single line longer than the ${max}-token limit of one tool result): only its first ${plural(chars, 'character')} were sent.]`,
      };
    }
    const last = first + lo - 1;
    return {
      content: text.slice(0, spans[lo - 1][1]),
      range: { startLine: first, endLine: last },
      note: `[truncated at line ${last} of ${fileTotal}: a tool result may take ${max} tokens. Call read_file with startLine ${last + 1} to read on.]`,
    };
  }

  /** Cuts a listing (one entry per line) to the token budget; the note counts entries. */
  fitLines(lines: string[], total: string): { text: string; note?: string } {
    const text = lines.join('\n');
    const cut = this.fit(text, 1, lines.length);
    if (!cut) return { text };
    return {
      text: cut.content,
      note: `[truncated at line ${cut.range.endLine} of ${total}: a tool result may take ${this.limits.maxResultTokens} tokens.]`,
    };
  }
}

/** One line for the panel and the log. */
function summarize(args: ParsedToolArgs, out: ToolOutput): string {
  if (out.kind === 'text') return out.refused ? `refused: ${out.refused}` : out.text.replace(/^[a-z_]+: /, '');
  const input = out.input;
  const lines = input.content.length === 0 ? 0 : lineSpans(input.content).length;
  const cut = out.note?.startsWith('[truncated') ? ' (truncated)' : '';
  return TOOL_SPECS[args.name].summary({ input, lines, cut });
}

export { callLabel };

/** An `AttachmentSpec`-free helper for tests: the glob set the memory port lists with. */
export function globMatcher(glob: string): (path: string) => boolean {
  const set = new GlobSet([normalizeGlob(glob)]);
  return (path) => set.match(path) !== undefined;
}
