'use strict';
// Two bundles: the extension (Node, `vscode` provided by the host) and the chat webview (browser).
// Type checking is tsc's job (`npm run build`, webview-ui/tsconfig.json); ts-loader only transpiles.
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

  /** @type {import('webpack').Configuration} */
  const extension = {
    ...common,
    name: 'extension',
    target: 'node',
    entry: { extension: './src/extension.ts' },
    output: {
      path: path.resolve(__dirname, 'dist'),
      filename: '[name].js',
      library: { type: 'commonjs2' },
      clean: { keep: /^webview\// },
    },
    externals: { vscode: 'commonjs vscode' },
    module: { rules: [tsRule('tsconfig.json')] },
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
  };

  return [extension, webview];
};
