'use strict';
// Two bundles: the extension (Node, `vscode` provided by the host) and the chat webview (browser).
// Type checking is tsc's job (`npm run build`, webview-ui/tsconfig.json); ts-loader only transpiles.
const fs = require('node:fs');
const path = require('node:path');

/** @param {string} configFile */
const tsRule = (configFile) => ({
  test: /\.ts$/,
  exclude: /node_modules/,
  use: [
    {
      loader: 'ts-loader',
      options: {
        configFile: path.resolve(__dirname, configFile),
        transpileOnly: true,
        onlyCompileBundledFiles: true,
        // ES modules in, so webpack can tree-shake; the bundle itself is CommonJS / an IIFE.
        compilerOptions: { module: 'es2022', moduleResolution: 'bundler', sourceMap: true },
      },
    },
  ],
});

/**
 * Copies the codicon font and its stylesheet next to the webview bundle (dist/webview/codicons/),
 * inside the webview's resource roots. Not bundled: the font is loaded by the stylesheet.
 */
class CopyCodiconsPlugin {
  /** @param {import('webpack').Compiler} compiler */
  apply(compiler) {
    compiler.hooks.afterEmit.tap('CopyCodiconsPlugin', () => {
      const from = path.dirname(require.resolve('@vscode/codicons/dist/codicon.css'));
      const to = path.join(compiler.outputPath, 'codicons');
      fs.mkdirSync(to, { recursive: true });
      for (const file of ['codicon.css', 'codicon.ttf']) {
        fs.copyFileSync(path.join(from, file), path.join(to, file));
      }
    });
  }
}

/** @type {(env: unknown, argv: {mode?: string}) => import('webpack').Configuration[]} */
module.exports = (_env, argv) => {
  const mode = argv.mode === 'development' ? 'development' : 'production';
  const common = {
    mode,
    devtool: mode === 'production' ? 'nosources-source-map' : 'source-map',
    // `.js` in a relative import (required for dynamic import() under node16 resolution) means the .ts source.
    resolve: { extensions: ['.ts', '.js'], extensionAlias: { '.js': ['.ts', '.js'] } },
    performance: { hints: false },
    infrastructureLogging: { level: 'warn' },
    stats: 'errors-warnings',
  };

  // The tokenizer's BPE ranks (3.5 MB of data) are files of their own, required synchronously on the
  // first count: the extension bundle stays small and activation does not parse them.
  const encodings = ['o200k_base', 'cl100k_base'];

  /** @type {import('webpack').Configuration} */
  const extension = {
    ...common,
    name: 'extension',
    target: 'node',
    entry: { extension: './src/extension.ts' },
    output: {
      path: path.resolve(__dirname, 'dist'),
      filename: '[name].js',
      chunkFilename: 'chunks/[name].js',
      library: { type: 'commonjs2' },
      clean: { keep: /^(webview|tokenizer)\// },
    },
    externals: {
      vscode: 'commonjs vscode',
      ...Object.fromEntries(encodings.map((e) => [`gpt-tokenizer/encoding/${e}`, `commonjs ./tokenizer/${e}.js`])),
    },
    module: { rules: [tsRule('tsconfig.json')] },
  };

  /** @type {import('webpack').Configuration} */
  const tokenizer = {
    ...common,
    devtool: false,
    name: 'tokenizer',
    target: 'node',
    entry: Object.fromEntries(encodings.map((e) => [e, `gpt-tokenizer/encoding/${e}`])),
    output: {
      path: path.resolve(__dirname, 'dist', 'tokenizer'),
      filename: '[name].js',
      library: { type: 'commonjs2' },
      clean: true,
    },
  };

  /** @type {import('webpack').Configuration} */
  const webview = {
    ...common,
    name: 'webview',
    target: 'web',
    entry: { main: './webview-ui/main.ts' },
    output: {
      path: path.resolve(__dirname, 'dist', 'webview'),
      filename: '[name].js',
      clean: true,
    },
    module: { rules: [tsRule('webview-ui/tsconfig.json')] },
    plugins: [new CopyCodiconsPlugin()],
  };

  return [extension, tokenizer, webview];
};
