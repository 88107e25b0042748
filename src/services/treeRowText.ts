/**
 * The text of a Context Layers row, made to fit a narrow side bar. The workbench cuts a row's label
 * and description with an ellipsis at the end, wherever the width runs out, so a row's figure comes
 * first (in the label of an item row, at the start of the description of a layer or a request) and
 * names are short: a file's base name, its path in the tooltip. Exact figures stay in the tooltips
 * and in Show Last Request. Pure: no vscode.
 */

/** An item row's label: its figure, then its name (`412 · money.ts`), so the figure is never the part cut off. */
export function figureLabel(figure: string, name: string): string {
  return `${figure} · ${name}`;
}

/** The last segment of a workspace path (`src/a.ts` → `a.ts`); `untitled:1` stays whole. */
export function baseName(path: string): string {
  if (path.startsWith('untitled:')) return path;
  const cut = path.replace(/\/+$/, '').lastIndexOf('/');
  return cut < 0 ? path : path.slice(cut + 1);
}

/**
 * Short names for paths listed together: each path's base name, or as many trailing folders as
 * tell it apart from the others with the same base name (`src/index.ts` and `test/index.ts`).
 */
export function shortNames(paths: readonly string[]): string[] {
  const segments = paths.map((p) => (p.startsWith('untitled:') ? [p] : p.split('/').filter((s) => s.length > 0)));
  const depth = segments.map(() => 1);
  const tail = (i: number) => segments[i].slice(-depth[i]).join('/');
  for (let changed = true; changed;) {
    changed = false;
    const seen = new Map<string, number[]>();
    for (let i = 0; i < paths.length; i++) seen.set(tail(i), [...(seen.get(tail(i)) ?? []), i]);
    for (const same of seen.values()) {
      if (same.length < 2 || new Set(same.map((i) => paths[i])).size < 2) continue;
      for (const i of same) {
        if (depth[i] < segments[i].length) {
          depth[i]++;
          changed = true;
        }
      }
    }
  }
  return paths.map((_, i) => tail(i));
}
