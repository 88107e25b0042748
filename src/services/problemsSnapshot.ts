/**
 * `@problems`: the active file's diagnostics as text written into the user's message. It is a
 * snapshot (the time is in its first line) that the user sees and can edit before sending, and that
 * the chat keeps verbatim as part of the message; the file itself is attached beside it as a chip,
 * so the model reads the code the problems point at. Pure: the host gives the diagnostics.
 */
import type { DiagnosticInfo, DiagnosticSeverity } from './tools/toolPort';

/** Problems listed at most; the rest are counted. */
export const MAX_SNAPSHOT_PROBLEMS = 50;

const ORDER: Record<DiagnosticSeverity, number> = { error: 0, warning: 1, info: 2, hint: 3 };

function plural(n: number, one: string): string {
  return `${n} ${one}${n === 1 ? '' : 's'}`;
}

/** How many of each severity: "2 errors, 1 warning". */
export function problemCounts(list: readonly DiagnosticInfo[]): string {
  const count = (s: DiagnosticSeverity) => list.filter((d) => d.severity === s).length;
  const parts = [
    [count('error'), 'error'],
    [count('warning'), 'warning'],
    [count('info') + count('hint'), 'note'],
  ] as const;
  const said = parts.filter(([n]) => n > 0).map(([n, word]) => plural(n, word));
  return said.length > 0 ? said.join(', ') : 'no problems';
}

/**
 * The snapshot text, or undefined when the file has no problems. `time` is the wall-clock time shown
 * (HH:MM), so a reader knows when the list was taken.
 */
export function problemsSnapshot(path: string, diagnostics: readonly DiagnosticInfo[], time: string): string | undefined {
  if (diagnostics.length === 0) return undefined;
  const sorted = [...diagnostics].sort((a, b) => ORDER[a.severity] - ORDER[b.severity] || a.line - b.line || a.column - b.column);
  const lines = [`Problems in ${path} (snapshot at ${time}: ${problemCounts(diagnostics)}):`];
  for (const d of sorted.slice(0, MAX_SNAPSHOT_PROBLEMS)) {
    const origin = [d.source, d.code].filter(Boolean).join(' ');
    const message = d.message.replace(/\s*\n\s*/g, ' ').trim();
    lines.push(`- L${d.line}:${d.column} ${d.severity}: ${message}${origin ? ` (${origin})` : ''}`);
  }
  if (sorted.length > MAX_SNAPSHOT_PROBLEMS) lines.push(`- … and ${sorted.length - MAX_SNAPSHOT_PROBLEMS} more`);
  return lines.join('\n');
}
