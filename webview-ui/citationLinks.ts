/**
 * Citations in a rendered reply become links, but only for paths the host vouched for (files in the
 * workspace, not excluded): the panel finds candidates, asks the host, then wraps the cited text in
 * a button that carries the path and lines as data. Nothing becomes a URL or a command; a click is
 * a typed request the host checks again.
 */
import { codeSpanCitation, findCitations, type Citation } from '../src/protocol/citations';
import { h } from './dom';

/** Where candidates are not looked for: code blocks, existing links, controls, tool steps. */
const SKIP = 'pre, a, button, .code-header, .citation, .tool-steps';

function textNodes(root: HTMLElement): Text[] {
  const out: Text[] = [];
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT, {
    acceptNode: (node) => (node.parentElement?.closest(`${SKIP}, code`) ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT),
  });
  for (let n = walker.nextNode(); n; n = walker.nextNode()) out.push(n as Text);
  return out;
}

function codeSpans(root: HTMLElement): HTMLElement[] {
  return Array.from(root.querySelectorAll<HTMLElement>('code')).filter((c) => !c.closest(SKIP));
}

/** The paths a rendered reply cites (each once, in order). */
export function citationCandidates(root: HTMLElement): string[] {
  const paths = new Set<string>();
  for (const node of textNodes(root)) for (const c of findCitations(node.data)) paths.add(c.path);
  for (const code of codeSpans(root)) {
    const c = codeSpanCitation(code.textContent ?? '');
    if (c) paths.add(c.path);
  }
  return [...paths];
}

function describe(c: Citation): string {
  if (c.startLine === undefined) return `Open ${c.path}`;
  return c.endLine !== undefined && c.endLine !== c.startLine
    ? `Open ${c.path}, lines ${c.startLine}–${c.endLine}`
    : `Open ${c.path}, line ${c.startLine}`;
}

function link(c: Citation, ...content: (Node | string)[]): HTMLButtonElement {
  return h(
    'button',
    {
      type: 'button',
      class: 'citation',
      title: describe(c),
      'data-testid': 'strata-citation',
      'data-action': 'open-citation',
      'data-path': c.path,
      'data-start': c.startLine,
      'data-end': c.endLine,
    },
    ...content,
  );
}

/** Wraps the citations of `root` whose path is in `allowed`; returns how many links it made. */
export function linkCitations(root: HTMLElement, allowed: ReadonlySet<string>): number {
  let made = 0;
  for (const node of textNodes(root)) {
    const found = findCitations(node.data).filter((c) => allowed.has(c.path));
    if (found.length === 0) continue;
    const parts: (Node | string)[] = [];
    let at = 0;
    for (const c of found) {
      if (c.start > at) parts.push(node.data.slice(at, c.start));
      parts.push(link(c, node.data.slice(c.start, c.end)));
      at = c.end;
      made++;
    }
    if (at < node.data.length) parts.push(node.data.slice(at));
    node.replaceWith(...parts);
  }
  for (const code of codeSpans(root)) {
    const c = codeSpanCitation(code.textContent ?? '');
    if (!c || !allowed.has(c.path)) continue;
    const button = link(c);
    code.replaceWith(button);
    button.append(code);
    made++;
  }
  return made;
}

/** The citation a link carries (read back from its data attributes). */
export function citationOf(el: HTMLElement): Citation | undefined {
  const path = el.getAttribute('data-path');
  if (!path) return undefined;
  const start = Number(el.getAttribute('data-start'));
  const end = Number(el.getAttribute('data-end'));
  return Number.isInteger(start) && start >= 1
    ? { path, startLine: start, endLine: Number.isInteger(end) && end >= start ? end : start }
    : { path };
}
