// Lint = import boundaries (ARCHITECTURE.md "Layers and their rules") + recommended rules, nothing
// stylistic. Formatting is not linted; type-aware rules are off so lint stays fast and independent
// of tsc.
import { builtinModules } from 'node:module';
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const nodeBuiltins = [...new Set(builtinModules.map((m) => m.replace(/^node:/, '')))].flatMap((m) => [m, `node:${m}`]);

const noVscode = {
  name: 'vscode',
  message: 'Only src/host/ (and src/extension.ts, the composition root) may use the VS Code API, not even its types.',
};
const noNode = (where) =>
  nodeBuiltins.map((name) => ({ name, message: `${where} is pure: pass the capability in through a port instead of importing ${name}.` }));
const noLangChain = { group: ['@langchain/*', 'langchain', 'langchain/*'], message: 'LangChain belongs in src/services/providers.' };
const layer = (names, message) => ({ group: names, message });

const looseAssert = ['assert', 'node:assert'].map((name) => ({ name, message: 'Tests use node:assert/strict.' }));

/** One no-restricted-imports rule per folder (flat config replaces, not merges, a rule's options). */
const restrict = (paths, patterns = []) => ({
  '@typescript-eslint/no-restricted-imports': ['error', { paths, patterns }],
});
/** Pure folders also may not reach around the import rule with require() or import(). */
const noDynamicLoading = {
  'no-restricted-syntax': [
    'error',
    {
      selector: "CallExpression[callee.name='require']",
      message: 'Pure code uses static imports only (checked by the import boundaries).',
    },
    { selector: 'ImportExpression', message: 'Pure code uses static imports only (checked by the import boundaries).' },
  ],
};

export default defineConfig(
  {
    // samples/: the sample user project `npm start` opens, not Strata's code.
    // test/fixtures/tanstack-query-core/: a third-party library vendored as test data, kept as published.
    ignores: [
      'node_modules/',
      'out/',
      'dist/',
      '.harness/',
      '.vscode-test/',
      'bench/results/',
      'samples/',
      'test/fixtures/tanstack-query-core/',
      '**/*.d.ts',
    ],
  },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // `import x = require()` is legitimate TypeScript (CommonJS modules, mutable module objects).
      '@typescript-eslint/no-require-imports': ['error', { allowAsImport: true }],
      // Stylistic; `const self = this` is used deliberately for closures in async generators.
      '@typescript-eslint/no-this-alias': 'off',
    },
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-require-imports': 'off',
      'no-unused-vars': ['error', { argsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    // The standalone panel test page's driver runs in the browser, as a classic script.
    files: ['test/webview/page/**/*.js'],
    languageOptions: { sourceType: 'script', globals: { ...globals.browser } },
  },
  {
    files: ['**/*.mjs'],
    languageOptions: { sourceType: 'module', globals: { ...globals.node } },
  },

  // --- Import boundaries (ARCHITECTURE.md) ---
  {
    // The engine: no editor, no Node, no LangChain, no DOM; only common/ from the rest of src.
    files: ['src/engine/**/*.ts'],
    rules: {
      ...noDynamicLoading,
      ...restrict(
        [noVscode, ...noNode('src/engine')],
        [
          noLangChain,
          layer(
            ['**/host', '**/host/**', '**/services', '**/services/**', '**/protocol', '**/protocol/**'],
            'src/engine depends on src/common only.',
          ),
        ],
      ),
    },
  },
  {
    files: ['src/common/**/*.ts'],
    rules: {
      ...noDynamicLoading,
      ...restrict(
        [noVscode, ...noNode('src/common')],
        [
          noLangChain,
          layer(
            ['**/host', '**/host/**', '**/services', '**/services/**', '**/engine', '**/engine/**', '**/protocol', '**/protocol/**'],
            'src/common depends on nothing else in src.',
          ),
        ],
      ),
    },
  },
  {
    files: ['src/protocol/**/*.ts'],
    rules: {
      ...noDynamicLoading,
      ...restrict(
        [noVscode, ...noNode('src/protocol (shared with the webview)')],
        [
          noLangChain,
          layer(['**/host', '**/host/**', '**/services', '**/services/**'], 'src/protocol may use src/common and engine types only.'),
        ],
      ),
    },
  },
  {
    files: ['src/services/**/*.ts'],
    rules: restrict([noVscode], [layer(['**/host', '**/host/**'], 'src/services must not depend on the host.')]),
  },
  {
    files: ['webview-ui/**/*.ts'],
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      // The panel loads one thing lazily: highlight.js grammars, each named by a literal path.
      'no-restricted-syntax': [
        'error',
        noDynamicLoading['no-restricted-syntax'][1],
        {
          selector: 'ImportExpression:not([source.value=/^highlight\\.js\\/lib\\/languages\\/[a-z0-9-]+$/])',
          message: 'The panel imports statically, except highlight.js grammars (webview-ui/highlight.ts).',
        },
      ],
      ...restrict(
        [noVscode, ...noNode('webview-ui (a browser bundle)')],
        [
          noLangChain,
          layer(['**/src/host/**', '**/src/services/**', '**/src/engine/**'], 'webview-ui imports src/protocol and src/common only.'),
        ],
      ),
    },
  },
  {
    // Tests compare with strict equality (CONTRIBUTING.md): the loose assert passes 1 == '1'.
    files: ['test/**/*.ts'],
    rules: restrict(looseAssert),
  },
  {
    // Unit tests run in plain Node without VS Code.
    files: ['test/unit/**/*.ts'],
    rules: restrict([noVscode, ...looseAssert]),
  },
  {
    // Size limits of the shipped code (CONTRIBUTING.md): a file over 800 lines holds more than one
    // concern; a function over 140 lines (blank lines and comments not counted) more than one step.
    // 140 is the longest function of the panel and the host today but the two below.
    files: ['src/**/*.ts', 'webview-ui/**/*.ts'],
    rules: {
      'max-lines': ['error', { max: 800, skipBlankLines: false, skipComments: false }],
      'max-lines-per-function': ['error', { max: 140, skipBlankLines: true, skipComments: true, IIFEs: true }],
    },
  },
  ...[
    // The three files split by concern, each capped at its length after the split, so it can only shrink.
    ['src/services/chatSession.ts', 666],
    ['src/services/store/chatStore.ts', 554],
    ['src/host/strataController.ts', 516],
  ].map(([file, max]) => ({
    files: [file],
    rules: { 'max-lines': ['error', { max, skipBlankLines: false, skipComments: false }] },
  })),
  ...[
    // Each capped at its longest function today, so it can only shrink: activation, the command table.
    ['src/extension.ts', 215],
    ['src/host/commands/commandHandlers.ts', 154],
  ].map(([file, max]) => ({
    files: [file],
    rules: { 'max-lines-per-function': ['error', { max, skipBlankLines: true, skipComments: true, IIFEs: true }] },
  })),
);
