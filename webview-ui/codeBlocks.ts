import { h, icon, iconButton } from './dom';
import { grammarOf, highlightedHtml, isGrammarLoaded, isShellLanguage, loadGrammar } from './highlight';

export interface CodeBlock {
  /** Exactly the code between the fences (the fence's final line break is not part of it). */
  code: string;
  lang: string;
  /** The fence's info string as written (it may name the target file: ```ts src/a.ts```). */
  info: string;
  /** The last line of the paragraph just above the block (it may name the file: "In `src/a.ts`:"). */
  lineAbove: string;
  /** Whether the closing fence is there (a streaming reply's last block may still be growing). */
  closed: boolean;
}

export interface RenderOptions {
  /** Offer Apply on code blocks (a reply's code; not the request preview's instructions). */
  apply?: boolean;
  /** The reply is still streaming: a block without its closing fence is still being written. */
  streaming?: boolean;
}

/** A file name with an extension, or a path with a directory: what a fence's info may name after the language. */
const FILE_TOKEN = /^(?:[\w@$+.-]+\/)*[\w@$+-][\w@$+.-]*$/;

/**
 * The file a fence's info string names, for the block's header only (```ts src/a.ts```,
 * ```ts title="src/a.ts"```, ```ts:src/a.ts```). The host decides the target of Apply on its own
 * reading of the same info string and checks it against the workspace.
 */
export function fenceFile(info: string): string | undefined {
  const attr = /\b(?:title|file|filename|path)="([^"]{1,300})"/.exec(info);
  const tokens = info.trim().split(/\s+/);
  const first = tokens[0] ?? '';
  const colon = first.indexOf(':');
  const candidates = [attr?.[1], colon > 0 ? first.slice(colon + 1) : undefined, ...tokens.slice(1)];
  for (const raw of candidates) {
    if (raw === undefined || raw.includes('=')) continue;
    const p = raw.replace(/^\.\//, '');
    if (p.length > 300 || !FILE_TOKEN.test(p) || p.includes('..')) continue;
    if (p.includes('/') || /\.[A-Za-z][A-Za-z0-9]{0,9}$/.test(p)) return p;
  }
  return undefined;
}

function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** Whether long lines wrap in code blocks (the user's choice; the panel's state says it at start). */
let wrapLines = false;

export function setCodeWrap(wrap: boolean): void {
  wrapLines = wrap;
  document.body.classList.toggle('code-wrap', wrap);
  document.querySelectorAll('button[data-action="wrap-code"]').forEach((b) => b.setAttribute('aria-pressed', String(wrap)));
}

export function codeWrap(): boolean {
  return wrapLines;
}

/** Blocks waiting for their grammar, by grammar (highlighted in place when it arrives). */
const waiting = new Set<string>();

function highlightInto(codeEl: Element, grammar: string, code: string): boolean {
  const html = highlightedHtml(code, grammar);
  if (html === undefined) return false;
  // highlight.js escapes the text; its markup is spans with token classes only. The fence's final
  // line break stays, so the block's text is what it was.
  codeEl.innerHTML = (codeEl.textContent ?? '').endsWith('\n') ? `${html}\n` : html;
  codeEl.classList.add('tok-done');
  return true;
}

/** Highlights the blocks on the page still waiting for `grammar` (it has just loaded). */
function highlightWaiting(grammar: string): void {
  waiting.delete(grammar);
  document.querySelectorAll(`.code-block[data-grammar="${grammar}"] pre > code:not(.tok-done)`).forEach((codeEl) => {
    const block = codeEl.closest('.code-block');
    if (block?.getAttribute('data-open') === 'true') return;
    const text = codeEl.textContent ?? '';
    highlightInto(codeEl, grammar, text.endsWith('\n') ? text.slice(0, -1) : text);
  });
}

function highlightBlock(pre: Element, block: CodeBlock, grammar: string | undefined, growing: boolean): void {
  // A block still being written stays plain: it is highlighted once, when its fence closes.
  if (!grammar || growing) return;
  const codeEl = pre.querySelector('code');
  if (!codeEl) return;
  if (isGrammarLoaded(grammar)) {
    highlightInto(codeEl, grammar, block.code);
    return;
  }
  if (waiting.has(grammar)) return;
  waiting.add(grammar);
  void loadGrammar(grammar).then((ok) => (ok ? highlightWaiting(grammar) : waiting.delete(grammar)));
}

function mainAction(block: CodeBlock, file: string | undefined, options: RenderOptions): HTMLElement | false {
  if (isShellLanguage(block.lang)) {
    return h(
      'button',
      {
        type: 'button',
        class: 'code-action',
        'data-testid': 'strata-code-terminal',
        'data-action': 'terminal-code',
        title: 'Insert into the terminal (not run: press Enter there to run it)',
      },
      icon('terminal'),
      h('span', null, 'Insert into Terminal'),
    );
  }
  if (options.apply === false) return false;
  const label = file ? `Apply to ${baseName(file)}` : 'Apply…';
  return h(
    'button',
    {
      type: 'button',
      class: 'code-action',
      'data-testid': 'strata-apply',
      'data-action': 'apply-code',
      'aria-label': file ? label : 'Apply to File',
      title: file ? `Apply to ${file} (review the diff first)` : 'Apply to File (review the diff first)',
    },
    icon('git-pull-request-go-to-changes'),
    h('span', null, label),
  );
}

/**
 * Adds the header to each code block: the file it names (else its language), then Wrap, Copy,
 * Insert at Cursor and the main action, labelled: Apply to the file, or Insert into Terminal for a
 * shell command. Closed blocks are highlighted (see highlight.ts).
 */
export function decorateCodeBlocks(root: ParentNode, codes: readonly CodeBlock[], options: RenderOptions): void {
  for (const pre of Array.from(root.querySelectorAll('pre[data-code]'))) {
    const block = codes[Number(pre.getAttribute('data-code'))];
    if (!block) continue;
    const file = fenceFile(block.info);
    const grammar = grammarOf(block.lang);
    const growing = options.streaming === true && !block.closed;
    const name = file
      ? h(
          'span',
          { class: 'code-file', 'data-testid': 'strata-code-file', title: file },
          h('span', { class: 'code-file-dir' }, file.slice(0, file.length - baseName(file).length)),
          h('span', { class: 'code-file-base' }, baseName(file)),
        )
      : h('span', { class: 'code-lang' }, block.lang);
    const wrap = iconButton({ icon: 'word-wrap', label: 'Wrap Long Lines', testid: 'strata-code-wrap', action: 'wrap-code' });
    wrap.setAttribute('aria-pressed', String(wrapLines));
    const wrapper = h(
      'div',
      { class: 'code-block', 'data-grammar': grammar, 'data-open': growing ? 'true' : undefined },
      h(
        'div',
        { class: 'code-header' },
        name,
        wrap,
        iconButton({ icon: 'copy', label: 'Copy', testid: 'strata-code-copy', action: 'copy-code' }),
        iconButton({ icon: 'insert', label: 'Insert at Cursor', testid: 'strata-code-insert', action: 'insert-code' }),
        mainAction(block, file, options),
      ),
    );
    pre.replaceWith(wrapper);
    // A block wider than the panel scrolls sideways: the keyboard must be able to scroll it too.
    pre.setAttribute('tabindex', '0');
    wrapper.append(pre);
    highlightBlock(pre, block, grammar, growing);
  }
}
