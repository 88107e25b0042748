import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { renderPanelPage } from '../../src/host/panel/webviewPage';

/** The repository root (this file runs from out/test/webview). */
export const repoRoot = path.resolve(__dirname, '..', '..', '..');

export type ThemeKind = 'dark' | 'light' | 'hc' | 'hc-light';

/** The body's classes as VS Code sets them per theme kind (High Contrast Light carries both). */
const BODY_CLASS: Record<ThemeKind, string> = {
  dark: 'vscode-dark',
  light: 'vscode-light',
  hc: 'vscode-high-contrast',
  'hc-light': 'vscode-high-contrast vscode-high-contrast-light',
};
const THEME_KIND: Record<ThemeKind, string> = {
  dark: 'vscode-dark',
  light: 'vscode-light',
  hc: 'vscode-high-contrast',
  'hc-light': 'vscode-high-contrast-light',
};

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.ttf': 'font/ttf',
  '.map': 'application/json',
  '.html': 'text/html; charset=utf-8',
};

/** URL prefix → folder. Nothing else is served (the webview's resource roots, plus the test page). */
const ROOTS: Record<string, string> = {
  '/dist/webview/': path.join(repoRoot, 'dist', 'webview'),
  '/media/': path.join(repoRoot, 'media'),
  '/test-page/': path.join(repoRoot, 'test', 'webview', 'page'),
};

/**
 * A static server on 127.0.0.1 for the standalone panel page: the production bundle and CSS, and
 * `/panel.html?theme=dark|light|hc|hc-light`, which is the host's own page (same markup and CSP, with
 * this server as the webview's resource origin) plus VS Code's default webview styles, a theme's
 * variables, the theme's body class and the test driver (with the page's nonce).
 */
export class PanelServer {
  private server: http.Server | undefined;
  origin = '';

  async start(): Promise<void> {
    this.server = http.createServer((req, res) => this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    const { port } = this.server.address() as AddressInfo;
    this.origin = `http://127.0.0.1:${port}`;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  pageUrl(theme: ThemeKind): string {
    return `${this.origin}/panel.html?theme=${theme}`;
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const url = new URL(req.url ?? '/', this.origin);
    if (url.pathname === '/panel.html') {
      const theme = (url.searchParams.get('theme') ?? 'dark') as ThemeKind;
      if (!(theme in BODY_CLASS)) {
        res.writeHead(400).end('unknown theme');
        return;
      }
      res.writeHead(200, { 'content-type': TYPES['.html'], 'cache-control': 'no-store' }).end(this.page(theme));
      return;
    }
    for (const [prefix, dir] of Object.entries(ROOTS)) {
      if (!url.pathname.startsWith(prefix)) continue;
      const file = path.resolve(dir, decodeURIComponent(url.pathname.slice(prefix.length)));
      if (!file.startsWith(dir + path.sep) || !fs.existsSync(file) || !fs.statSync(file).isFile()) break;
      res.writeHead(200, { 'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-store' });
      fs.createReadStream(file).pipe(res);
      return;
    }
    res.writeHead(404).end('not found');
  }

  private page(theme: ThemeKind): string {
    const nonce = randomBytes(18).toString('base64');
    const html = renderPanelPage({
      cspSource: this.origin,
      nonce,
      scriptUri: `${this.origin}/dist/webview/main.js`,
      styleUri: `${this.origin}/media/webview.css`,
      codiconUri: `${this.origin}/dist/webview/codicons/codicon.css`,
      title: 'Strata Chat',
    });
    const before = `<link rel="stylesheet" href="${this.origin}/test-page/vscode-default.css">\n<link rel="stylesheet" href="${this.origin}/test-page/theme-${theme}.css">\n`;
    const driver = `<script nonce="${nonce}" src="${this.origin}/test-page/driver.js"></script>\n`;
    const out = html
      .replace('<link rel="stylesheet" id="vscode-codicon-stylesheet"', `${before}<link rel="stylesheet" id="vscode-codicon-stylesheet"`)
      .replace('<body>', `<body class="${BODY_CLASS[theme]}" data-vscode-theme-kind="${THEME_KIND[theme]}">`)
      .replace(/<script nonce=/, `${driver}<script nonce=`);
    if (out === html || !out.includes('driver.js') || !out.includes(`theme-${theme}.css`))
      throw new Error('panel page template changed: update the test server');
    return out;
  }
}
