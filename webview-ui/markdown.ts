import DOMPurify from 'dompurify';
import type { CodeBlock, RenderOptions } from './codeBlocks';
import MarkdownIt from 'markdown-it';
import { decorateCodeBlocks } from './codeBlocks';

/**
 * Model output → DOM, safely (docs/design.md#protocol): markdown-it with raw HTML off, then
 * DOMPurify with an allowlist of the tags and attributes markdown produces. Links keep only http(s)
 * and mailto targets (no `javascript:`, no `command:` or other editor URIs; a link without a safe
 * target renders as plain text); images render as links (nothing is fetched); no event handlers, no
 * style attributes (the CSP forbids them anyway).
 */

export interface RenderedMarkdown {
  fragment: DocumentFragment;
  codes: CodeBlock[];
}

type RenderEnv = Record<PropertyKey, unknown> & { codes: CodeBlock[]; src?: string; lines?: string[] };

/** The render env carries the code blocks found so far (markdown-it types env loosely). */
function pushCode(env: unknown, block: CodeBlock): number {
  const codes = (env as Partial<RenderEnv> | undefined)?.codes;
  if (!Array.isArray(codes)) return -1;
  return codes.push(block) - 1;
}

const md = new MarkdownIt({ html: false, linkify: true, typographer: false, breaks: false });
// Only links with a scheme or `www.`: "setup.py" or "main.rs" must not become web links.
md.linkify.set({ fuzzyLink: false, fuzzyEmail: false });

const escapeHtml = md.utils.escapeHtml;

export type { CodeBlock, RenderOptions } from './codeBlocks';

function langOf(info: string): string {
  return (info.trim().split(/\s+/)[0] ?? '').replace(/[^\w+#.-]/g, '').slice(0, 32);
}

function codeOf(content: string): string {
  return content.endsWith('\n') ? content.slice(0, -1) : content;
}

/** The last line of the paragraph right before token `idx` (markdown source), or ''. */
function lineAbove(tokens: readonly { type: string; content: string }[], idx: number): string {
  const before = tokens[idx - 1]?.type === 'paragraph_close' ? tokens[idx - 2] : undefined;
  if (before?.type !== 'inline') return '';
  const lines = before.content.split('\n');
  return (lines[lines.length - 1] ?? '').slice(0, 1000);
}

/**
 * Whether a fence's closing line is there: its last source line ends with the fence's marker (an
 * unclosed fence runs to the end of its container, so its last line is code).
 */
function fenceClosed(env: unknown, map: [number, number] | null, markup: string): boolean {
  const e = env as Partial<RenderEnv> | undefined;
  if (!map || typeof e?.src !== 'string') return true;
  if (map[1] - map[0] < 2) return false;
  e.lines ??= e.src.split('\n');
  const last = (e.lines[map[1] - 1] ?? '').trimEnd();
  return last.endsWith(markup);
}

md.renderer.rules.fence = (tokens, idx, _options, env) => {
  const token = tokens[idx];
  const lang = langOf(token.info);
  const index = pushCode(env, {
    code: codeOf(token.content),
    lang,
    info: token.info.trim().slice(0, 200),
    lineAbove: lineAbove(tokens, idx),
    closed: fenceClosed(env, token.map, token.markup),
  });
  return `<pre data-code="${index}"><code${lang ? ` class="language-${escapeHtml(lang)}"` : ''}>${escapeHtml(token.content)}</code></pre>\n`;
};

md.renderer.rules.code_block = (tokens, idx, _options, env) => {
  const token = tokens[idx];
  const index = pushCode(env, { code: codeOf(token.content), lang: '', info: '', lineAbove: lineAbove(tokens, idx), closed: true });
  return `<pre data-code="${index}"><code>${escapeHtml(token.content)}</code></pre>\n`;
};

// Images become links to the image: the panel loads nothing the model names.
md.renderer.rules.image = (tokens, idx, options, env, self) => {
  const token = tokens[idx];
  const src = String(token.attrGet('src') ?? '');
  const alt = self.renderInlineAsText(token.children ?? [], options, env) || src;
  return `<a href="${escapeHtml(src)}">${escapeHtml(alt)}</a>`;
};

// Table alignment arrives as a style attribute; turn it into a class (no inline styles under the CSP).
md.core.ruler.push('strata_table_align', (state) => {
  for (const token of state.tokens) {
    if (token.type !== 'th_open' && token.type !== 'td_open') continue;
    const style = token.attrGet('style');
    if (!style) continue;
    token.attrs = (token.attrs ?? []).filter(([name]) => name !== 'style');
    const align = /text-align:\s*(left|center|right)/.exec(String(style))?.[1];
    if (align) token.attrSet('class', `md-align-${align}`);
  }
});

const SAFE_URI = /^(?:https?:|mailto:)/i;
const SAFE_CLASS = /^(?:language-[\w+#.-]{1,32}|md-align-(?:left|center|right))$/;

const PURIFY_CONFIG = {
  ALLOWED_TAGS: [
    'a',
    'p',
    'br',
    'hr',
    'h1',
    'h2',
    'h3',
    'h4',
    'h5',
    'h6',
    'em',
    'strong',
    's',
    'del',
    'code',
    'pre',
    'blockquote',
    'ul',
    'ol',
    'li',
    'table',
    'thead',
    'tbody',
    'tr',
    'th',
    'td',
    'div',
  ],
  ALLOWED_ATTR: ['href', 'title', 'class', 'start', 'data-code', 'data-md'],
  ALLOW_DATA_ATTR: false,
  ALLOW_ARIA_ATTR: false,
  // Every allowed attribute's value must match ALLOWED_URI_REGEXP unless it is "URI-safe".
  ALLOWED_URI_REGEXP: SAFE_URI,
  ADD_URI_SAFE_ATTR: ['start', 'data-code', 'data-md'],
  RETURN_DOM_FRAGMENT: true as const,
};

DOMPurify.addHook('uponSanitizeAttribute', (_node, data) => {
  if (data.attrName === 'class' && !SAFE_CLASS.test(data.attrValue)) data.keepAttr = false;
});
DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  if (node.nodeName !== 'A') return;
  const href = node.getAttribute('href');
  if (href === null) return;
  if (!SAFE_URI.test(href.trim())) {
    node.removeAttribute('href');
    return;
  }
  if (!node.hasAttribute('title')) node.setAttribute('title', href);
  node.setAttribute('rel', 'noopener noreferrer');
});

export function renderMarkdown(text: string, options: RenderOptions = {}): RenderedMarkdown {
  const env: RenderEnv = { codes: [], src: text };
  const html = md.render(text, env);
  const fragment = DOMPurify.sanitize(html, PURIFY_CONFIG);
  decorateCodeBlocks(fragment, env.codes, options);
  return { fragment, codes: env.codes };
}

/**
 * Renders many messages with one sanitizer pass (a long chat opens faster: DOMPurify's per-call
 * document parse dominates for short messages). Same output as `renderMarkdown` per text.
 */
export function renderMarkdownBatch(texts: readonly string[]): RenderedMarkdown[] {
  if (texts.length === 0) return [];
  const envs: RenderEnv[] = texts.map((src) => ({ codes: [], src }));
  const html = texts.map((text, i) => `<div data-md="${i}">${md.render(text, envs[i])}</div>`).join('');
  const all = DOMPurify.sanitize(html, PURIFY_CONFIG);
  const wrappers = Array.from(all.children);
  if (wrappers.length !== texts.length || wrappers.some((w, i) => w.getAttribute('data-md') !== String(i))) {
    return texts.map((t) => renderMarkdown(t));
  }
  return wrappers.map((wrapper, i) => {
    const fragment = document.createDocumentFragment();
    fragment.append(...Array.from(wrapper.childNodes));
    decorateCodeBlocks(fragment, envs[i].codes, {});
    return { fragment, codes: envs[i].codes };
  });
}
