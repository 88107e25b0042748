/**
 * A file's outline as text for the model: one line per symbol (`kind name detail  Lstart-Lend`),
 * indented two spaces per level of nesting, in source order, then one line saying how to read a
 * range. It gives the structure of a file for a fraction of its tokens; the same symbols always
 * give the same bytes, so an outline sent once is referenced after.
 */
import type { CodeSymbol } from './codeIntelPort';

/** The tool an outline is recorded as (a file's, or one declaration's with its range). */
export const OUTLINE_TOOL = 'get_outline';

/** A detail longer than this is cut with `…` (a signature, not a body). */
export const OUTLINE_DETAIL_CHARS = 120;

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > OUTLINE_DETAIL_CHARS ? `${flat.slice(0, OUTLINE_DETAIL_CHARS - 1)}…` : flat;
}

function renderSymbols(symbols: readonly CodeSymbol[], depth: number, out: string[]): void {
  for (const s of symbols) {
    const detail = s.detail ? oneLine(s.detail) : '';
    // A signature or a type annotation follows its name as in the source (`f(a: A): B`, `x: number`).
    const sep = /^[(:<]/.test(detail) ? '' : ' ';
    out.push(`${'  '.repeat(depth)}${s.kind} ${s.name}${detail ? `${sep}${detail}` : ''}  L${s.startLine}-L${s.endLine}`);
    if (s.children && s.children.length > 0) renderSymbols(s.children, depth + 1, out);
  }
}

/** The outline of `path` (its symbols as the port gives them) as compact, deterministic text. */
export function renderOutline(path: string, symbols: readonly CodeSymbol[]): string {
  const out: string[] = [];
  renderSymbols(symbols, 0, out);
  out.push(`[Outline of ${path}: call read_file with path "${path}", startLine and endLine to read a symbol's lines.]`);
  return out.join('\n');
}

/** Every symbol of a tree, depth first in source order. */
export function flattenSymbols(symbols: readonly CodeSymbol[]): CodeSymbol[] {
  const out: CodeSymbol[] = [];
  const walk = (list: readonly CodeSymbol[]) => {
    for (const s of list) {
      out.push(s);
      if (s.children) walk(s.children);
    }
  };
  walk(symbols);
  return out;
}

/**
 * The smallest symbol whose range contains `line` (a method rather than its class); ties go to the
 * one that starts later (the innermost). Undefined when no symbol contains it.
 */
export function enclosingSymbol(symbols: readonly CodeSymbol[], line: number): CodeSymbol | undefined {
  let best: CodeSymbol | undefined;
  for (const s of flattenSymbols(symbols)) {
    if (s.startLine > line || s.endLine < line) continue;
    const span = s.endLine - s.startLine;
    const bestSpan = best ? best.endLine - best.startLine : Infinity;
    if (span < bestSpan || (span === bestSpan && best && s.startLine > best.startLine)) best = s;
  }
  return best;
}
