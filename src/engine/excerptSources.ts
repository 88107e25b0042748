import type { ChatState, EntryState } from './state';
import type { ArtifactKind, LineRange } from './types';

/**
 * What a chat holds of workspace files besides whole files (which `recoverableSources` re-reads):
 * selections, a range of a file a tool read, the lines `search_text`, `find_references`,
 * `find_symbol` and `get_diagnostics` returned, the names `list_files` returned, a file's outline.
 * Each names the files its content came from, so the check before every request can refuse what
 * came from a file that is now excluded, or now a link out of the workspace.
 *
 * The sources are read from what the chat already stores: a selection's or a ranged read's path,
 * and for a listing of lines (`path:line: text`, `path:line:column: message`) the path each line
 * starts with. A path may itself contain `:12: `, so every prefix a line could have been written
 * from is a candidate, and a line goes when any candidate fails: a refusal errs towards leaving
 * content out, never towards sending it.
 */
export interface ExcerptSource {
  /** The artifact id (`PromptContextEngine` removes by id). */
  id: string;
  /** How the user and the model know it: `src/a.ts#L3-L9`, `search_text "token"`. */
  label: string;
  kind: 'whole' | 'lines';
  /** The artifact's kind (a replacement is of the same kind). */
  artifactKind: ArtifactKind;
  /** `whole`: the one file it came from. */
  path?: string;
  /** `lines`: for each line of the content (split at `\n`), its candidate source paths (none: a note, kept). */
  lines?: string[][];
  /** Tool artifacts: the tool that read it (a replacement keeps it). */
  tool?: string;
  /** The artifact's `source.uri` and content, to write the replacement that keeps the lines that pass. */
  uri: string;
  content: string;
}

/** `untitled:1` and other `scheme:` names are the user's own buffers, not workspace files. */
function isWorkspacePath(uri: string): boolean {
  return uri.length > 0 && !/^[A-Za-z][A-Za-z0-9+.-]+:/.test(uri) && uri !== '*';
}

function rangeLabel(uri: string, range: LineRange | undefined): string {
  return range ? `${uri}#L${range.startLine}-L${range.endLine}` : uri;
}

/** Every prefix of `line` followed by `:<digits>:` (the search and diagnostics line formats). */
export function lineSourceCandidates(line: string): string[] {
  const out: string[] = [];
  const re = /:\d+:/g;
  for (let m = re.exec(line); m; m = re.exec(line)) {
    const path = line.slice(0, m.index);
    if (isWorkspacePath(path)) out.push(path);
    re.lastIndex = m.index + 1;
  }
  return out;
}

function sourceOf(e: EntryState): ExcerptSource | undefined {
  const a = e.artifact;
  const base = { id: a.id, artifactKind: a.kind, uri: a.source.uri, content: a.content, ...(e.tool !== undefined ? { tool: e.tool } : {}) };
  if (a.kind === 'selection' || (a.kind === 'tool' && a.source.range)) {
    if (!isWorkspacePath(a.source.uri)) return undefined;
    return { ...base, label: rangeLabel(a.source.uri, a.source.range), kind: 'whole', path: a.source.uri };
  }
  const toolIs = (name: string) => a.kind === 'tool' && (e.tool === name || a.id.startsWith(`tool:${name}@`));
  // A listing of names: each line is a workspace path (its name alone tells what the workspace holds).
  if (toolIs('list_files'))
    return { ...base, label: a.source.uri, kind: 'lines', lines: a.content.split('\n').map((l) => (isWorkspacePath(l) ? [l] : [])) };
  // An outline names its file; it tells what the file holds as surely as its text.
  if (toolIs('get_outline') && isWorkspacePath(a.source.uri)) return { ...base, label: a.source.uri, kind: 'whole', path: a.source.uri };
  const listing = a.kind === 'diagnostics' || toolIs('search_text') || toolIs('find_references') || toolIs('find_symbol');
  if (!listing) return undefined;
  return { ...base, label: a.source.uri, kind: 'lines', lines: a.content.split('\n').map(lineSourceCandidates) };
}

/** The excerpts `s` holds that a request may still carry (not removed), newest version of each id. */
export function excerptSources(s: ChatState): ExcerptSource[] {
  const out: ExcerptSource[] = [];
  for (const key of s.latest.values()) {
    const e = s.entries.get(key)!;
    if (e.presence === 'detached') continue;
    const src = sourceOf(e);
    if (src) out.push(src);
  }
  return out;
}
