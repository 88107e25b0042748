import hljs from 'highlight.js/lib/core';
import type { LanguageFn } from 'highlight.js';

/**
 * Syntax highlighting of the code blocks in replies: highlight.js's core in the panel's bundle, each
 * grammar in a chunk of its own loaded the first time a block of its language appears (the bundle
 * stays within its budget). The token classes are coloured by the stylesheet with the theme's
 * colours (media/webview.css, "code tokens"). Highlighted HTML is kept per (language, code), so a
 * block already highlighted is not highlighted again while the reply around it streams.
 */

type Loader = () => Promise<{ default: LanguageFn }>;

/** The grammars, by highlight.js name; each is a chunk of its own (dist/webview/hl-<name>.js). */
const GRAMMARS: Record<string, Loader> = {
  typescript: () => import(/* webpackChunkName: "hl-typescript" */ 'highlight.js/lib/languages/typescript'),
  javascript: () => import(/* webpackChunkName: "hl-javascript" */ 'highlight.js/lib/languages/javascript'),
  python: () => import(/* webpackChunkName: "hl-python" */ 'highlight.js/lib/languages/python'),
  json: () => import(/* webpackChunkName: "hl-json" */ 'highlight.js/lib/languages/json'),
  bash: () => import(/* webpackChunkName: "hl-bash" */ 'highlight.js/lib/languages/bash'),
  shell: () => import(/* webpackChunkName: "hl-shell" */ 'highlight.js/lib/languages/shell'),
  powershell: () => import(/* webpackChunkName: "hl-powershell" */ 'highlight.js/lib/languages/powershell'),
  diff: () => import(/* webpackChunkName: "hl-diff" */ 'highlight.js/lib/languages/diff'),
  css: () => import(/* webpackChunkName: "hl-css" */ 'highlight.js/lib/languages/css'),
  scss: () => import(/* webpackChunkName: "hl-scss" */ 'highlight.js/lib/languages/scss'),
  xml: () => import(/* webpackChunkName: "hl-xml" */ 'highlight.js/lib/languages/xml'),
  yaml: () => import(/* webpackChunkName: "hl-yaml" */ 'highlight.js/lib/languages/yaml'),
  markdown: () => import(/* webpackChunkName: "hl-markdown" */ 'highlight.js/lib/languages/markdown'),
  ini: () => import(/* webpackChunkName: "hl-ini" */ 'highlight.js/lib/languages/ini'),
  go: () => import(/* webpackChunkName: "hl-go" */ 'highlight.js/lib/languages/go'),
  rust: () => import(/* webpackChunkName: "hl-rust" */ 'highlight.js/lib/languages/rust'),
  java: () => import(/* webpackChunkName: "hl-java" */ 'highlight.js/lib/languages/java'),
  kotlin: () => import(/* webpackChunkName: "hl-kotlin" */ 'highlight.js/lib/languages/kotlin'),
  c: () => import(/* webpackChunkName: "hl-c" */ 'highlight.js/lib/languages/c'),
  cpp: () => import(/* webpackChunkName: "hl-cpp" */ 'highlight.js/lib/languages/cpp'),
  csharp: () => import(/* webpackChunkName: "hl-csharp" */ 'highlight.js/lib/languages/csharp'),
  sql: () => import(/* webpackChunkName: "hl-sql" */ 'highlight.js/lib/languages/sql'),
  ruby: () => import(/* webpackChunkName: "hl-ruby" */ 'highlight.js/lib/languages/ruby'),
  php: () => import(/* webpackChunkName: "hl-php" */ 'highlight.js/lib/languages/php'),
  swift: () => import(/* webpackChunkName: "hl-swift" */ 'highlight.js/lib/languages/swift'),
  dockerfile: () => import(/* webpackChunkName: "hl-dockerfile" */ 'highlight.js/lib/languages/dockerfile'),
  makefile: () => import(/* webpackChunkName: "hl-makefile" */ 'highlight.js/lib/languages/makefile'),
  lua: () => import(/* webpackChunkName: "hl-lua" */ 'highlight.js/lib/languages/lua'),
};

/** Fence languages (lower case) → grammar, where the name differs. */
const ALIASES: Record<string, string> = {
  ts: 'typescript',
  tsx: 'typescript',
  mts: 'typescript',
  cts: 'typescript',
  js: 'javascript',
  jsx: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  node: 'javascript',
  py: 'python',
  python3: 'python',
  jsonc: 'json',
  json5: 'json',
  sh: 'bash',
  zsh: 'bash',
  shellscript: 'bash',
  console: 'shell',
  'shell-session': 'shell',
  ps1: 'powershell',
  pwsh: 'powershell',
  patch: 'diff',
  html: 'xml',
  xhtml: 'xml',
  svg: 'xml',
  vue: 'xml',
  yml: 'yaml',
  md: 'markdown',
  toml: 'ini',
  golang: 'go',
  rs: 'rust',
  kt: 'kotlin',
  h: 'c',
  'c++': 'cpp',
  cc: 'cpp',
  hpp: 'cpp',
  cxx: 'cpp',
  cs: 'csharp',
  'c#': 'csharp',
  rb: 'ruby',
  docker: 'dockerfile',
  make: 'makefile',
  mk: 'makefile',
};

/** The languages a fence names that run in a terminal (their blocks offer "Insert into Terminal"). */
const SHELL_GRAMMARS = new Set(['bash', 'shell', 'powershell']);

/** Longer blocks stay plain: highlighting is work on the panel's one thread for every character. */
export const MAX_HIGHLIGHT_CHARS = 20_000;

/** Highlighted HTML kept (by language and code); the oldest goes first. */
const CACHE_ENTRIES = 300;

const cache = new Map<string, string>();
const loaded = new Set<string>();
const loading = new Map<string, Promise<boolean>>();
let highlightCount = 0;

hljs.configure({ classPrefix: 'tok-', ignoreUnescapedHTML: true, throwUnescapedHTML: false });

/** The grammar for a fence's language, or undefined when there is none. */
export function grammarOf(lang: string): string | undefined {
  const key = lang.toLowerCase();
  const name = ALIASES[key] ?? key;
  return Object.prototype.hasOwnProperty.call(GRAMMARS, name) ? name : undefined;
}

/** Whether a block of this language is a shell command (Insert into Terminal rather than Apply). */
export function isShellLanguage(lang: string): boolean {
  const grammar = grammarOf(lang);
  return grammar !== undefined && SHELL_GRAMMARS.has(grammar);
}

/** Whether the grammar is loaded (highlighting is synchronous then). */
export function isGrammarLoaded(grammar: string): boolean {
  return loaded.has(grammar);
}

/** Loads a grammar once; resolves whether it is usable. */
export function loadGrammar(grammar: string): Promise<boolean> {
  if (loaded.has(grammar)) return Promise.resolve(true);
  const pending = loading.get(grammar);
  if (pending) return pending;
  const loader = GRAMMARS[grammar];
  if (!loader) return Promise.resolve(false);
  const promise = loader().then(
    (m) => {
      hljs.registerLanguage(grammar, m.default);
      loaded.add(grammar);
      return true;
    },
    () => false,
  );
  loading.set(grammar, promise);
  return promise;
}

/**
 * The highlighted HTML of `code` (text escaped by highlight.js, tokens as `<span class="tok-…">`),
 * or undefined when the grammar is not loaded yet or the block is too long.
 */
export function highlightedHtml(code: string, grammar: string): string | undefined {
  if (!loaded.has(grammar) || code.length > MAX_HIGHLIGHT_CHARS) return undefined;
  const key = `${grammar}\u0000${code}`;
  const hit = cache.get(key);
  if (hit !== undefined) {
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  let html: string;
  try {
    highlightCount++;
    html = hljs.highlight(code, { language: grammar, ignoreIllegals: true }).value;
  } catch {
    return undefined;
  }
  cache.set(key, html);
  if (cache.size > CACHE_ENTRIES) cache.delete(cache.keys().next().value as string);
  return html;
}

/** How many times a block was highlighted (not answered from the cache): the tests' measure of work. */
export function highlightRuns(): number {
  return highlightCount;
}

// A diagnostic count of real highlighting work, readable from the page (the panel's tests check it).
(globalThis as { strataHighlightRuns?: () => number }).strataHighlightRuns = highlightRuns;
