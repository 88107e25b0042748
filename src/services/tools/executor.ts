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
 * synchronously, the editor's asynchronously, by the same code.
 */
import { lineSpans, sliceLines, type NewArtifactInput } from '../../engine/artifacts';
import type { Rejection } from '../../engine/isolation';
import { GlobSet, globProblem } from '../../common/glob';
import { normalizeRelativePath } from '../../engine/isolation';
import { wait, type Step } from '../../common/steps';
import { callLabel, parseToolArgs, type ParsedToolArgs, type ToolCall } from './definitions';
import type { DiagnosticInfo, ToolWorkspacePort } from './toolPort';
import { isCodeIntelPort } from '../codeIntel/codeIntelPort';
import { CodeTools } from './codeTools';

export interface ToolLimits {
  /** Tokens one result may take (`strata.tools.maxResultTokens`). */
  maxResultTokens: number;
  /** list_files: paths listed at most. */
  maxListEntries: number;
  /** search_text: matches returned at most. */
  maxSearchMatches: number;
  /** search_text: files read at most. */
  maxSearchFiles: number;
  /** search_text: files larger than this (characters) are not searched. */
  maxSearchFileChars: number;
  /** search_text: a matching line is cut to this many characters. */
  maxMatchLineChars: number;
}

export const DEFAULT_TOOL_LIMITS: ToolLimits = {
  maxResultTokens: 6000,
  maxListEntries: 500,
  maxSearchMatches: 50,
  maxSearchFiles: 5000,
  maxSearchFileChars: 2_000_000,
  maxMatchLineChars: 200,
};

/** What the model gets back for one call. */
export type ToolOutput =
  /** Content of the workspace: the engine turns it into a block or a reference. `note` follows it. */
  | {
      kind: 'artifact';
      input: NewArtifactInput;
      /**
       * A range of a file: the whole file's id and current content, so the engine can answer with a
       * reference when that exact version is already in the request.
       */
      whole?: { id: string; content: string };
      note?: string;
    }
  /** A refusal, an error in the arguments, or a result with nothing to show. */
  | { kind: 'text'; text: string; refused?: Rejection['reason'] | 'invalid-arguments' };

export interface ToolResult {
  call: ToolCall;
  output: ToolOutput;
  /** One line for the panel: "src/a.ts, lines 1-40", "refused: excluded", "12 files". */
  summary: string;
}

/**
 * A message on one line: each run of white space holding a line break becomes one space. Scanned by
 * hand: a `\s*\n\s*` pattern rescans a long run of spaces from every position in it.
 */
export function oneLine(message: string): string {
  if (!message.includes('\n')) return message;
  let out = '';
  let i = 0;
  while (i < message.length) {
    if (!/\s/.test(message[i])) {
      out += message[i++];
      continue;
    }
    let j = i;
    let breaks = false;
    while (j < message.length && /\s/.test(message[j])) breaks = message[j++] === '\n' || breaks;
    out += breaks ? ' ' : message.slice(i, j);
    i = j;
  }
  return out;
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
}

export function refusal(tool: string, r: Rejection): ToolOutput {
  return {
    kind: 'text',
    text: `${tool} refused (${r.reason}): ${r.message.replace(/ and was not attached\.$/, '; it was not read.').replace(/ was not attached\.$/, ' was not read.')}`,
    refused: r.reason,
  };
}

/**
 * Why a path a tool was given is not a workspace path, or undefined: `untitled:1` and any other
 * `scheme:` name an editor buffer or a resource outside the workspace folders. The user attaches
 * those (and `get_selection` reads the user's own selection); a tool never reads them.
 */
export function nonWorkspacePath(tool: string, path: string): ToolOutput | undefined {
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]+):/.exec(path);
  if (!scheme) return undefined;
  return {
    kind: 'text',
    text: `${tool} refused (outside-workspace): ${path} is not a file of the workspace (a ${scheme[1]}: resource); tools read only files inside this window's workspace folders.`,
    refused: 'outside-workspace',
  };
}

/** `glob` as a workspace-relative pattern ('/' separators, no leading `./` or `/`). */
export function normalizeGlob(glob: string): string {
  let g = glob.trim().replace(/\\/g, '/');
  while (g.startsWith('./')) g = g.slice(2);
  while (g.startsWith('/')) g = g.slice(1);
  return g.length === 0 ? '**/*' : g;
}

export class ToolExecutor {
  constructor(
    private readonly port: ToolWorkspacePort,
    private readonly counter: { count(text: string): number },
    private readonly limits: ToolLimits = DEFAULT_TOOL_LIMITS,
  ) {}

  /** The steps of one call; drive with `runSteps` / `runStepsSync` (or `yield*` from a pipeline). */
  *execute(call: ToolCall, signal?: AbortSignal): Step<ToolResult> {
    const parsed = parseToolArgs(call);
    if (typeof parsed === 'string')
      return { call, output: { kind: 'text', text: parsed, refused: 'invalid-arguments' }, summary: 'invalid arguments' };
    const output = yield* this.run(parsed, signal);
    return { call, output, summary: summarize(parsed, output) };
  }

  private *run(args: ParsedToolArgs, signal?: AbortSignal): Step<ToolOutput> {
    switch (args.name) {
      case 'read_file':
        return yield* this.readFile(args.path, args.startLine, args.endLine, signal);
      case 'list_files':
        return yield* this.listFiles(args.glob, signal);
      case 'search_text':
        return yield* this.searchText(args.query, args.glob, signal);
      case 'get_diagnostics':
        return yield* this.diagnostics(args.path);
      case 'get_selection':
        return yield* this.selection();
      default:
        return yield* this.codeTool(args, signal);
    }
  }

  private *codeTool(
    args: Extract<ParsedToolArgs, { name: 'get_outline' | 'find_symbol' | 'get_definition' | 'find_references' }>,
    signal?: AbortSignal,
  ): Step<ToolOutput> {
    const port = this.port;
    if (!isCodeIntelPort(port))
      return { kind: 'text', text: `${args.name}: no code intelligence in this workspace; use search_text and read_file.` };
    const tools = new CodeTools(port, {
      fit: (text, first, total) => this.fit(text, first, total),
      fitLines: (lines, total) => this.fitLines(lines, total),
      refusal,
      nonWorkspacePath,
    });
    switch (args.name) {
      case 'get_outline':
        return yield* tools.outline(args.path, signal);
      case 'find_symbol':
        return yield* tools.findSymbol(args.query, signal);
      case 'get_definition':
        return yield* tools.definition(args.path, args.line, args.symbol, signal);
      case 'find_references':
        return yield* tools.references(args.path, args.line, args.symbol, signal);
    }
  }

  private *readFile(path: string, startLine?: number, endLine?: number, signal?: AbortSignal): Step<ToolOutput> {
    const scheme = nonWorkspacePath('read_file', path);
    if (scheme) return scheme;
    const r = yield* wait(this.port.resolve({ kind: 'file', path }, signal));
    if (!r.ok) return refusal('read_file', r.rejection);
    const file = r.input;
    const content = file.content;
    const whole = { id: `file:${file.uri}`, content };
    const ranged = startLine !== undefined || endLine !== undefined;
    if (!ranged) {
      const cut = this.fit(content, 1);
      if (!cut) return { kind: 'artifact', input: file };
      return { kind: 'artifact', input: { kind: 'tool', uri: file.uri, range: cut.range, content: cut.content }, whole, note: cut.note };
    }
    const total = lineSpans(content).length;
    const from = startLine ?? 1;
    if (from > total)
      return { kind: 'text', text: `read_file: ${file.uri} has ${plural(total, 'line')}; startLine ${from} is past its end.` };
    const slice = sliceLines(content, { startLine: from, endLine: endLine ?? total })!;
    const cut = this.fit(slice.content, from, total);
    const range = cut ? cut.range : slice.range;
    const input: NewArtifactInput = { kind: 'tool', uri: file.uri, range, content: cut ? cut.content : slice.content };
    const out: ToolOutput = { kind: 'artifact', input, whole };
    if (cut) out.note = cut.note;
    else if (endLine !== undefined && slice.range.endLine < endLine) out.note = `[${file.uri} ends at line ${total}.]`;
    return out;
  }

  /**
   * Cuts `text` (whose first line is line `first` of a file of `total` lines) to the per-call token
   * budget at a line boundary; undefined when it fits whole.
   */
  private fit(
    text: string,
    first: number,
    total?: number,
  ): { content: string; range: { startLine: number; endLine: number }; note: string } | undefined {
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
  private fitLines(lines: string[], total: string): { text: string; note?: string } {
    const text = lines.join('\n');
    const cut = this.fit(text, 1, lines.length);
    if (!cut) return { text };
    return {
      text: cut.content,
      note: `[truncated at line ${cut.range.endLine} of ${total}: a tool result may take ${this.limits.maxResultTokens} tokens.]`,
    };
  }

  private *listFiles(glob: string, signal?: AbortSignal): Step<ToolOutput> {
    const pattern = normalizeGlob(glob);
    const problem = globProblem(pattern);
    if (problem) return { kind: 'text', text: `list_files: ${problem}`, refused: 'invalid-arguments' };
    const cap = this.limits.maxListEntries;
    const listing = yield* wait(this.port.listFiles(pattern, cap + 1, signal));
    const paths = listing.paths.slice(0, cap);
    if (paths.length === 0)
      return { kind: 'text', text: `list_files: no workspace file matches ${JSON.stringify(pattern)} (excluded files are never listed).` };
    const more = listing.more || listing.paths.length > cap;
    const total = more ? `more than ${cap}` : String(paths.length);
    const fitted = this.fitLines(paths, total);
    const note = fitted.note ?? (more ? `[truncated at line ${cap} of ${total}: narrow the glob to see the rest.]` : undefined);
    const out: ToolOutput = { kind: 'artifact', input: { kind: 'tool', uri: `list_files ${pattern}`, content: fitted.text } };
    if (note) out.note = note;
    return out;
  }

  private *searchText(query: string, glob: string | undefined, signal?: AbortSignal): Step<ToolOutput> {
    const pattern = glob ? normalizeGlob(glob) : '**/*';
    const problem = globProblem(pattern);
    if (problem) return { kind: 'text', text: `search_text: ${problem}`, refused: 'invalid-arguments' };
    const lim = this.limits;
    const listing = yield* wait(this.port.listFiles(pattern, lim.maxSearchFiles, signal));
    const smartCase = query === query.toLowerCase();
    const needle = smartCase ? query.toLowerCase() : query;
    const matches: string[] = [];
    let skipped = 0;
    let searched = 0;
    let moreMatches = false;
    for (const path of listing.paths) {
      if (signal?.aborted) break;
      const r = yield* wait(this.port.resolve({ kind: 'file', path }, signal));
      if (!r.ok) {
        skipped++;
        continue;
      }
      const text = r.input.content;
      if (text.length > lim.maxSearchFileChars) {
        skipped++;
        continue;
      }
      searched++;
      const hay = smartCase ? text.toLowerCase() : text;
      if (!hay.includes(needle)) continue;
      const spans = lineSpans(text);
      for (let i = 0; i < spans.length; i++) {
        const [s, e] = spans[i];
        if (!hay.slice(s, e).includes(needle)) continue;
        if (matches.length >= lim.maxSearchMatches) {
          moreMatches = true;
          break;
        }
        let line = text.slice(s, e);
        if (line.length > lim.maxMatchLineChars) line = `${line.slice(0, lim.maxMatchLineChars)}…`;
        matches.push(`${r.input.uri}:${i + 1}: ${line}`);
      }
      if (moreMatches) break;
    }
    const scope = glob ? ` in ${pattern}` : '';
    const facts = [`${plural(searched, 'file')} searched`];
    if (skipped > 0) facts.push(`${plural(skipped, 'file')} skipped (excluded, binary, too large or unreadable)`);
    if (listing.more) facts.push(`only the first ${plural(lim.maxSearchFiles, 'file')} matching the glob were searched`);
    if (matches.length === 0)
      return { kind: 'text', text: `search_text: no match for ${JSON.stringify(query)}${scope} (${facts.join('; ')}).` };
    const total = moreMatches ? `more than ${lim.maxSearchMatches}` : String(matches.length);
    const fitted = this.fitLines(matches, total);
    const notes: string[] = [];
    if (fitted.note) notes.push(fitted.note);
    else if (moreMatches)
      notes.push(`[truncated at line ${lim.maxSearchMatches} of ${total} matches: narrow the query or the glob to see the rest.]`);
    notes.push(`[${facts.join('; ')}.]`);
    return {
      kind: 'artifact',
      input: { kind: 'tool', uri: `search_text ${JSON.stringify(query)}${scope}`, content: fitted.text },
      note: notes.join('\n'),
    };
  }

  private *diagnostics(path?: string): Step<ToolOutput> {
    let target: string | undefined;
    if (path !== undefined) {
      const scheme = nonWorkspacePath('get_diagnostics', path);
      if (scheme) return scheme;
      const bad = yield* wait(this.port.recheck(path, path));
      if (bad) return refusal('get_diagnostics', bad);
      target = normalizeRelativePath(path.replace(/\\/g, '/')) ?? path;
    }
    const all = yield* wait(this.port.diagnostics(target));
    // Every path reported is checked like a read: nothing about an excluded file leaves the editor.
    const shown: DiagnosticInfo[] = [];
    for (const d of all) {
      // An editor buffer's problems quote its text: untitled buffers are the user's own, never a tool's.
      if (nonWorkspacePath('get_diagnostics', d.path)) continue;
      const bad = yield* wait(this.port.recheck(d.path, d.path));
      if (!bad) shown.push(d);
    }
    if (shown.length === 0)
      return { kind: 'text', text: `get_diagnostics: no errors or warnings ${target ? `in ${target}` : 'in the workspace'}.` };
    const order: Record<string, number> = { error: 0, warning: 1, info: 2, hint: 3 };
    shown.sort(
      (a, b) =>
        (a.path < b.path ? -1 : a.path > b.path ? 1 : 0) ||
        a.line - b.line ||
        a.column - b.column ||
        order[a.severity] - order[b.severity] ||
        (a.message < b.message ? -1 : a.message > b.message ? 1 : 0),
    );
    const lines = shown.map(
      (d) =>
        `${d.path}:${d.line}:${d.column}: ${d.severity}: ${oneLine(d.message)}${d.source ? ` (${d.source}${d.code ? ` ${d.code}` : ''})` : ''}`,
    );
    const fitted = this.fitLines(lines, String(lines.length));
    const out: ToolOutput = { kind: 'artifact', input: { kind: 'diagnostics', uri: target ?? '*', content: fitted.text } };
    if (fitted.note) out.note = fitted.note;
    return out;
  }

  private *selection(): Step<ToolOutput> {
    const sel = yield* wait(this.port.selection());
    if (!sel) return { kind: 'text', text: 'get_selection: nothing is selected in the active editor.' };
    if (sel.outsideWorkspace)
      return {
        kind: 'text',
        text: `get_selection refused (outside-workspace): the active editor shows ${sel.path}, a file outside this window's workspace folders; it was not read.`,
        refused: 'outside-workspace',
      };
    const r = yield* wait(this.port.resolve({ kind: 'selection', path: sel.path, startLine: sel.startLine, endLine: sel.endLine }));
    if (!r.ok) return refusal('get_selection', r.rejection);
    const s = r.input;
    const cut = this.fit(s.content, s.range!.startLine);
    const input: NewArtifactInput = { kind: 'tool', uri: s.uri, range: cut ? cut.range : s.range, content: cut ? cut.content : s.content };
    const out: ToolOutput = { kind: 'artifact', input };
    if (cut)
      out.note = cut.note.replace(
        / Call read_file with startLine (\d+) to read on\./,
        ` Call read_file on ${s.uri} with startLine $1 to read on.`,
      );
    return out;
  }
}

/** One line for the panel and the log. */
function summarize(args: ParsedToolArgs, out: ToolOutput): string {
  if (out.kind === 'text') return out.refused ? `refused: ${out.refused}` : out.text.replace(/^[a-z_]+: /, '');
  const i = out.input;
  const lines = i.content.length === 0 ? 0 : lineSpans(i.content).length;
  const cut = out.note?.startsWith('[truncated') ? ' (truncated)' : '';
  switch (args.name) {
    case 'read_file':
    case 'get_selection':
      return `${i.uri}${i.range ? `, lines ${i.range.startLine}-${i.range.endLine}` : `, ${plural(lines, 'line')}`}${cut}`;
    case 'list_files':
      return `${plural(lines, 'file')}${cut}`;
    case 'search_text':
      return `${plural(lines, 'match', 'matches')}${cut}`;
    case 'get_diagnostics':
      return `${plural(lines, 'problem')}${cut}`;
    case 'get_outline':
      return `${i.uri}, ${plural(lines - 1, 'symbol')}${cut}`;
    case 'find_symbol':
      return `${plural(lines, 'symbol')}${cut}`;
    case 'get_definition':
      return `${i.uri}${i.range ? `, lines ${i.range.startLine}-${i.range.endLine}` : ''}${cut}`;
    case 'find_references':
      return `${plural(lines, 'reference')}${cut}`;
  }
}

export { callLabel };

/** An `AttachmentSpec`-free helper for tests: the glob set the memory port lists with. */
export function globMatcher(glob: string): (path: string) => boolean {
  const set = new GlobSet([normalizeGlob(glob)]);
  return (path) => set.match(path) !== undefined;
}
