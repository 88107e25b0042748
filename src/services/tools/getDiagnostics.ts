/** `get_diagnostics`: the editor's errors and warnings, for one file or all, excluded files left out. */
import { normalizeRelativePath } from '../../engine/isolation';
import { wait, type Step } from '../../common/steps';
import type { DiagnosticInfo } from './toolPort';
import { nonWorkspacePath, optional, plural, refusal, stringArg, type ToolContext, type ToolOutput, type ToolSpec } from './toolSpec';

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

export interface GetDiagnosticsArgs {
  name: 'get_diagnostics';
  path?: string;
}

function* run(ctx: ToolContext, { path }: GetDiagnosticsArgs): Step<ToolOutput> {
  let target: string | undefined;
  if (path !== undefined) {
    const scheme = nonWorkspacePath('get_diagnostics', path);
    if (scheme) return scheme;
    const bad = yield* wait(ctx.port.recheck(path, path));
    if (bad) return refusal('get_diagnostics', bad);
    target = normalizeRelativePath(path.replace(/\\/g, '/')) ?? path;
  }
  const all = yield* wait(ctx.port.diagnostics(target));
  // Every path reported is checked like a read: nothing about an excluded file leaves the editor.
  const shown: DiagnosticInfo[] = [];
  for (const d of all) {
    // An editor buffer's problems quote its text: untitled buffers are the user's own, never a tool's.
    if (nonWorkspacePath('get_diagnostics', d.path)) continue;
    const bad = yield* wait(ctx.port.recheck(d.path, d.path));
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
  const fitted = ctx.fitLines(lines, String(lines.length));
  const out: ToolOutput = { kind: 'artifact', input: { kind: 'diagnostics', uri: target ?? '*', content: fitted.text } };
  if (fitted.note) out.note = fitted.note;
  return out;
}

export const getDiagnosticsTool: ToolSpec<GetDiagnosticsArgs> = {
  name: 'get_diagnostics',
  definition: {
    name: 'get_diagnostics',
    description:
      'Errors and warnings the editor reports (compiler, linter) for one workspace file, or for every file when no path is given.',
    parameters: {
      type: 'object',
      properties: { path: { type: 'string', description: 'Workspace-relative path; omit for all files' } },
      additionalProperties: false,
    },
  },
  icon: 'warning',
  parse(args) {
    const p = optional<string>(args, 'path');
    return p !== undefined ? { name: 'get_diagnostics', path: p } : { name: 'get_diagnostics' };
  },
  label: (a) => `get_diagnostics ${stringArg(a, 'path') ?? '(all files)'}`,
  run,
  summary: ({ lines, cut }) => `${plural(lines, 'problem')}${cut}`,
};
