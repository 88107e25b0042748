/**
 * What the composer's `@` picker and the active-editor suggestion show, and what picking one asks
 * the host to attach. The host lists and decides (isolation, excludes, refusals); the panel only
 * names what the user picked, and the host checks that name again before anything is attached.
 */
import { isObj } from '../common/guards';
import { hasOnlyKeys, isInt, isStr } from './fieldChecks';

/** What the user asks the host to attach; the host resolves it through the same path as every attachment. */
export type MentionRef =
  /** A workspace file (`<folder>/<path>` in multi-root, or `untitled:<n>`). */
  | { kind: 'file'; path: string }
  /** Lines of a file, 1-based inclusive (a symbol's range, or the selection a suggestion showed). */
  | { kind: 'range'; path: string; startLine: number; endLine: number }
  /** The active editor's selection(s), as they are when the host acts. */
  | { kind: 'selection' }
  /** The active editor's selection when it has one, else its file. */
  | { kind: 'activeEditor' }
  /** The active file, and its diagnostics as a snapshot written into the message. */
  | { kind: 'problems' }
  /** Every file open in an editor tab. */
  | { kind: 'openEditors' };

export type MentionKind = 'file' | 'editor' | 'selection' | 'problems' | 'openEditors' | 'symbol';

/** One entry of the `@` picker. */
export interface MentionView {
  kind: MentionKind;
  /** What the entry shows (a path, `selection`, `problems`, a symbol name). */
  label: string;
  /** The second line: folder, "open editor", "3 problems in a.ts", a symbol's file and line. */
  detail?: string;
  /** Indices of `label`'s characters the query matched. */
  matches?: number[];
  ref: MentionRef;
  /** Why attaching it would be refused ("20 MB (limit 8 MB)", "binary (PNG image)", "excluded"): shown, marked; picking it gives the refusal. */
  refused?: string;
}

/** What picking an entry did: the chips added, and text to put where `@query` was (problems). */
export interface MentionResult {
  labels: string[];
  insertText?: string;
}

/** The active editor, offered for the next message and not sent unless the user includes it. */
export interface SuggestionView {
  /** `file.ts` or `file.ts:12-30`. */
  label: string;
  /** The workspace path and lines, for the tooltip and screen readers. */
  detail: string;
  ref: MentionRef;
  /** False: shown with `reason` (excluded, outside the workspace) and cannot be included. */
  available: boolean;
  reason?: string;
}

export const MAX_MENTION_QUERY_CHARS = 200;
export const MAX_MENTION_PATH_CHARS = 1000;
const REF_KINDS: readonly string[] = ['file', 'range', 'selection', 'activeEditor', 'problems', 'openEditors'];
const MENTION_KINDS: readonly string[] = ['file', 'editor', 'selection', 'problems', 'openEditors', 'symbol'];

/** A mention reference as the host accepts it from the panel (a fresh object), or why not. */
export function parseMentionRef(value: unknown): MentionRef | string {
  if (!isObj(value) || typeof value.kind !== 'string' || !REF_KINDS.includes(value.kind))
    return `ref.kind must be one of ${REF_KINDS.join(', ')}`;
  switch (value.kind) {
    case 'file':
      if (!hasOnlyKeys(value, ['kind', 'path']) || !isStr(value.path, MAX_MENTION_PATH_CHARS, false))
        return `ref.path must be a non-empty string of at most ${MAX_MENTION_PATH_CHARS} characters`;
      return { kind: 'file', path: value.path };
    case 'range':
      if (!hasOnlyKeys(value, ['kind', 'path', 'startLine', 'endLine']) || !isStr(value.path, MAX_MENTION_PATH_CHARS, false))
        return `ref.path must be a non-empty string of at most ${MAX_MENTION_PATH_CHARS} characters`;
      if (!isInt(value.startLine, 1) || !isInt(value.endLine, 1) || value.endLine < value.startLine)
        return 'ref lines must be 1-based integers, startLine ≤ endLine';
      return { kind: 'range', path: value.path, startLine: value.startLine, endLine: value.endLine };
    default:
      if (!hasOnlyKeys(value, ['kind'])) return `ref of kind ${value.kind} takes no other fields`;
      return { kind: value.kind as 'selection' | 'activeEditor' | 'problems' | 'openEditors' };
  }
}

/** The `mentions` answer as the panel accepts it. */
export function parseMentionViews(value: unknown): MentionView[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const out: MentionView[] = [];
  for (const v of value) {
    if (!isObj(v) || typeof v.kind !== 'string' || !MENTION_KINDS.includes(v.kind) || typeof v.label !== 'string') return undefined;
    const ref = parseMentionRef(v.ref);
    if (typeof ref === 'string') return undefined;
    const view: MentionView = { kind: v.kind as MentionKind, label: v.label, ref };
    if (typeof v.detail === 'string') view.detail = v.detail;
    if (Array.isArray(v.matches) && v.matches.every((i) => isInt(i))) view.matches = [...(v.matches as number[])];
    if (typeof v.refused === 'string') view.refused = v.refused.slice(0, MAX_MENTION_PATH_CHARS);
    out.push(view);
  }
  return out;
}

/** The `attachMention` answer as the panel accepts it. */
export function parseMentionResult(value: unknown): MentionResult | undefined {
  if (!isObj(value) || !Array.isArray(value.labels) || !value.labels.every((l) => typeof l === 'string')) return undefined;
  if (value.insertText !== undefined && typeof value.insertText !== 'string') return undefined;
  const out: MentionResult = { labels: [...(value.labels as string[])] };
  if (typeof value.insertText === 'string') out.insertText = value.insertText;
  return out;
}

/** A `suggestion` message's payload as the panel accepts it. */
export function isSuggestionView(v: unknown): v is SuggestionView {
  return (
    isObj(v) &&
    typeof v.label === 'string' &&
    typeof v.detail === 'string' &&
    typeof v.available === 'boolean' &&
    (v.reason === undefined || typeof v.reason === 'string') &&
    typeof parseMentionRef(v.ref) !== 'string'
  );
}

/** The `/` commands the host runs (the others are the panel's own: new chat, model menu, templates). */
export type SlashHostCommand = 'compact' | 'cost';
export const SLASH_HOST_COMMANDS: readonly SlashHostCommand[] = ['compact', 'cost'];
