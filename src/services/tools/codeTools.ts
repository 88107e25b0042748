/**
 * The code-intelligence tools: `get_outline`, `find_symbol`, `get_definition`, `find_references`.
 * Read-only, over the same port and isolation as the workspace tools: every file they show anything
 * of passes `resolve` or `recheck` first (a symbol, a reference or a definition in an excluded file
 * is left out or refused, never shown), and what they return is an artifact like `read_file`'s: a
 * definition is a ranged excerpt of its file (a reference when the request carries that file's
 * version), an outline or a listing a `tool` artifact deduplicated by content.
 *
 * The answers come from the port's `CodeIntelPort` (the editor's language features, or the replay's
 * TypeScript service); the executor offers these tools only when the port has it.
 */
import { lineSpans, sliceLines, type NewArtifactInput } from '../../engine/artifacts';
import type { Rejection } from '../../engine/isolation';
import { wait, type Step } from '../../common/steps';
import type { CodeIntelPort, CodeLocation } from '../codeIntel/codeIntelPort';
import { columnOf } from '../codeIntel/identifiers';
import { enclosingSymbol, renderOutline } from '../codeIntel/outline';
import type { ToolOutput } from './executor';
import type { ToolWorkspacePort } from './toolPort';

/** Symbols and references listed at most. */
export const MAX_CODE_RESULTS = 50;
/** A reference's line of text is cut to this many characters. */
const MAX_REFERENCE_LINE_CHARS = 200;

type Fit = (
  text: string,
  first: number,
  total?: number,
) => { content: string; range: { startLine: number; endLine: number }; note: string } | undefined;
type FitLines = (lines: string[], total: string) => { text: string; note?: string };

export interface CodeToolHelpers {
  /** Cuts content to the per-call budget at a line boundary (the executor's). */
  fit: Fit;
  fitLines: FitLines;
  refusal: (tool: string, r: Rejection) => ToolOutput;
  nonWorkspacePath: (tool: string, path: string) => ToolOutput | undefined;
}

export class CodeTools {
  constructor(
    private readonly port: ToolWorkspacePort & CodeIntelPort,
    private readonly help: CodeToolHelpers,
  ) {}

  *outline(path: string, signal?: AbortSignal): Step<ToolOutput> {
    const bad = this.help.nonWorkspacePath('get_outline', path);
    if (bad) return bad;
    const r = yield* wait(this.port.resolve({ kind: 'file', path }, signal));
    if (!r.ok) return this.help.refusal('get_outline', r.rejection);
    const uri = r.input.uri;
    const symbols = yield* wait(this.port.outline(uri, signal));
    if (!symbols)
      return {
        kind: 'text',
        text: `get_outline: no outline for ${uri}: no language support in the editor knows its language; read_file reads it.`,
      };
    if (symbols.length === 0) return { kind: 'text', text: `get_outline: ${uri} has no symbols.` };
    const text = renderOutline(uri, symbols);
    const lines = text.split('\n');
    const fitted = this.help.fitLines(lines.slice(0, -1), String(lines.length - 1));
    const out: ToolOutput = {
      kind: 'artifact',
      input: { kind: 'tool', uri, content: fitted.note ? `${fitted.text}\n${lines[lines.length - 1]}` : text },
    };
    if (fitted.note) out.note = fitted.note;
    return out;
  }

  *findSymbol(query: string, signal?: AbortSignal): Step<ToolOutput> {
    const found = yield* wait(this.port.workspaceSymbols(query, MAX_CODE_RESULTS + 1, signal));
    const lines: string[] = [];
    let hidden = 0;
    for (const s of found.slice(0, MAX_CODE_RESULTS)) {
      const bad = yield* wait(this.port.recheck(s.path, s.path));
      if (bad) {
        hidden++;
        continue;
      }
      lines.push(`${s.path}:${s.line}: ${s.kind} ${s.container ? `${s.container}.` : ''}${s.name}`);
    }
    const facts = hidden > 0 ? ` (${hidden} in excluded files left out)` : '';
    if (lines.length === 0) return { kind: 'text', text: `find_symbol: no workspace symbol matches ${JSON.stringify(query)}${facts}.` };
    const more = found.length > MAX_CODE_RESULTS;
    const fitted = this.help.fitLines(lines, more ? `more than ${MAX_CODE_RESULTS}` : String(lines.length));
    const notes: string[] = [];
    if (fitted.note) notes.push(fitted.note);
    else if (more) notes.push(`[the first ${MAX_CODE_RESULTS} symbols: a longer query narrows the list.]`);
    if (hidden > 0) notes.push(`[${hidden} in excluded files left out.]`);
    const out: ToolOutput = {
      kind: 'artifact',
      input: { kind: 'tool', uri: `find_symbol ${JSON.stringify(query)}`, content: fitted.text },
    };
    if (notes.length > 0) out.note = notes.join('\n');
    return out;
  }

  /** The column of `symbol` on `line` of `path` once the file passed isolation, or the output that says why not. */
  private *locate(
    tool: string,
    path: string,
    line: number,
    symbol: string,
    signal?: AbortSignal,
  ): Step<{ uri: string; column: number } | ToolOutput> {
    const bad = this.help.nonWorkspacePath(tool, path);
    if (bad) return bad;
    const r = yield* wait(this.port.resolve({ kind: 'file', path }, signal));
    if (!r.ok) return this.help.refusal(tool, r.rejection);
    const text = sliceLines(r.input.content, { startLine: line, endLine: line });
    if (!text || text.range.endLine !== line) return { kind: 'text', text: `${tool}: ${r.input.uri} has no line ${line}.` };
    const column = columnOf(text.content, symbol);
    if (column === undefined)
      return {
        kind: 'text',
        text: `${tool}: ${JSON.stringify(symbol)} is not on line ${line} of ${r.input.uri}: ${JSON.stringify(text.content.trim().slice(0, 120))}.`,
      };
    return { uri: r.input.uri, column };
  }

  *definition(path: string, line: number, symbol: string, signal?: AbortSignal): Step<ToolOutput> {
    const at = yield* this.locate('get_definition', path, line, symbol, signal);
    if ('kind' in at) return at;
    const locs = yield* wait(this.port.definitions(at.uri, line, at.column, signal));
    if (locs.length === 0)
      return {
        kind: 'text',
        text: `get_definition: no definition of ${symbol} in the workspace (it may come from a package or the standard library, or be unknown to the editor).`,
      };
    const loc = locs[0];
    const file = yield* wait(this.port.resolve({ kind: 'file', path: loc.path }, signal));
    if (!file.ok) return this.help.refusal('get_definition', file.rejection);
    const content = file.input.content;
    const symbols = yield* wait(this.port.outline(file.input.uri, signal));
    const decl = symbols ? enclosingSymbol(symbols, loc.line) : undefined;
    const range = decl
      ? { startLine: decl.startLine, endLine: decl.endLine }
      : { startLine: loc.line, endLine: Math.max(loc.line, loc.endLine ?? loc.line) };
    const slice = sliceLines(content, range);
    if (!slice) return { kind: 'text', text: `get_definition: ${file.input.uri} has no line ${range.startLine}.` };
    const total = lineSpans(content).length;
    const cut = this.help.fit(slice.content, slice.range.startLine, total);
    const input: NewArtifactInput = {
      kind: 'tool',
      uri: file.input.uri,
      range: cut ? cut.range : slice.range,
      content: cut ? cut.content : slice.content,
    };
    const notes = [
      `[${symbol} is defined at ${loc.path}:${loc.line}${decl ? `, in ${decl.kind} ${decl.name} (lines ${decl.startLine}-${decl.endLine})` : ''}.]`,
    ];
    if (cut) notes.push(cut.note);
    // The other definitions are named only when their files pass isolation: an excluded file's
    // path and line are not the model's to know.
    const others: CodeLocation[] = [];
    for (const l of locs.slice(1, 10)) {
      if (signal?.aborted) break;
      if (!(yield* wait(this.port.recheck(l.path, l.path)))) others.push(l);
    }
    if (others.length > 0) notes.push(`[Also defined at ${others.map((l) => `${l.path}:${l.line}`).join(', ')}.]`);
    return { kind: 'artifact', input, whole: { id: `file:${file.input.uri}`, content }, note: notes.join('\n') };
  }

  *references(path: string, line: number, symbol: string, signal?: AbortSignal): Step<ToolOutput> {
    const at = yield* this.locate('find_references', path, line, symbol, signal);
    if ('kind' in at) return at;
    const locs = yield* wait(this.port.references(at.uri, line, at.column, signal));
    const texts = new Map<string, string | null>();
    const lines: string[] = [];
    let hidden = 0;
    let more = false;
    for (const loc of locs) {
      if (signal?.aborted) break;
      if (!texts.has(loc.path)) {
        const r = yield* wait(this.port.resolve({ kind: 'file', path: loc.path }, signal));
        texts.set(loc.path, r.ok ? r.input.content : null);
      }
      const content = texts.get(loc.path);
      if (content === null || content === undefined) {
        hidden++;
        continue;
      }
      if (lines.length >= MAX_CODE_RESULTS) {
        more = true;
        continue;
      }
      let text = sliceLines(content, { startLine: loc.line, endLine: loc.line })?.content.trim() ?? '';
      if (text.length > MAX_REFERENCE_LINE_CHARS) text = `${text.slice(0, MAX_REFERENCE_LINE_CHARS)}…`;
      lines.push(`${loc.path}:${loc.line}: ${text}`);
    }
    const left = hidden > 0 ? `; ${hidden} in files that cannot be read (excluded, binary, too large) left out` : '';
    if (lines.length === 0) return { kind: 'text', text: `find_references: no reference to ${symbol} found in the workspace${left}.` };
    const fitted = this.help.fitLines(lines, more ? `more than ${MAX_CODE_RESULTS}` : String(lines.length));
    const notes: string[] = [];
    if (fitted.note) notes.push(fitted.note);
    else if (more) notes.push(`[the first ${MAX_CODE_RESULTS} references; search_text finds the rest.]`);
    if (hidden > 0) notes.push(`[${hidden} ${hidden === 1 ? 'reference' : 'references'} in files that cannot be read left out.]`);
    const out: ToolOutput = {
      kind: 'artifact',
      input: { kind: 'tool', uri: `find_references ${symbol} at ${at.uri}:${line}`, content: fitted.text },
    };
    if (notes.length > 0) out.note = notes.join('\n');
    return out;
  }
}
