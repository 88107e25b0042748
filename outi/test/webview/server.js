"use strict";
var __createBinding = (this && this.__createBinding) || (Object.create ? (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    var desc = Object.getOwnPropertyDescriptor(m, k);
    if (!desc || ("get" in desc ? !m.__esModule : desc.writable || desc.configurable)) {
      desc = { enumerable: true, get: function() { return m[k]; } };
    }
    Object.defineProperty(o, k2, desc);
}) : (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    o[k2] = m[k];
}));
var __setModuleDefault = (this && this.__setModuleDefault) || (Object.create ? (function(o, v) {
    Object.defineProperty(o, "default", { enumerable: true, value: v });
}) : function(o, v) {
    o["default"] = v;
});
var __importStar = (this && this.__importStar) || (function () {
    var ownKeys = function(o) {
        ownKeys = Object.getOwnPropertyNames || function (o) {
            var ar = [];
            for (var k in o) if (Object.prototype.hasOwnProperty.call(o, k)) ar[ar.length] = k;
            return ar;
        };
        return ownKeys(o);
    };
    return function (mod) {
        if (mod && mod.__esModule) return mod;
        var result = {};
        if (mod != null) for (var k = ownKeys(mod), i = 0; i < k.length; i++) if (k[i] !== "default") __createBinding(result, mod, k[i]);
        __setModuleDefault(result, mod);
        return result;
    };
})();
Object.defineProperty(exports, "__esModule", { value: true });
exports.PanelServer = exports.repoRoot = void 0;
const node_crypto_1 = require("node:crypto");
const fs = __importStar(require("node:fs"));
const http = __importStar(require("node:http"));
const path = __importStar(require("node:path"));
const webviewPage_1 = require("../../src/host/webviewPage");
/** The repository root (this file runs from out/test/webview). */
exports.repoRoot = path.resolve(__dirname, '..', '..', '..');
const BODY_CLASS = { dark: 'vscode-dark', light: 'vscode-light', hc: 'vscode-high-contrast' };
const TYPES = {
    '.js': 'text/javascript; charset=utf-8',
    '.css': 'text/css; charset=utf-8',
    '.ttf': 'font/ttf',
    '.map': 'application/json',
    '.html': 'text/html; charset=utf-8',
};
/** URL prefix → folder. Nothing else is served (the webview's resource roots, plus the test page). */
const ROOTS = {
    '/dist/webview/': path.join(exports.repoRoot, 'dist', 'webview'),
    '/media/': path.join(exports.repoRoot, 'media'),
    '/test-page/': path.join(exports.repoRoot, 'test', 'webview', 'page'),
};
/**
 * A static server on 127.0.0.1 for the standalone panel page: the production bundle and CSS, and
 * `/panel.html?theme=dark|light|hc`, which is the host's own page (same markup and CSP, with
 * this server as the webview's resource origin) plus VS Code's default webview styles, a theme's
 * variables, the theme's body class and the test driver (with the page's nonce).
 */
class PanelServer {
    server;
    origin = '';
    async start() {
        this.server = http.createServer((req, res) => this.handle(req, res));
        await new Promise((resolve) => this.server.listen(0, '127.0.0.1', resolve));
        const { port } = this.server.address();
        this.origin = `http://127.0.0.1:${port}`;
    }
    async stop() {
        const server = this.server;
        this.server = undefined;
        if (server)
            await new Promise((resolve) => server.close(() => resolve()));
    }
    pageUrl(theme) {
        return `${this.origin}/panel.html?theme=${theme}`;
    }
    handle(req, res) {
        const url = new URL(req.url ?? '/', this.origin);
        if (url.pathname === '/panel.html') {
            const theme = (url.searchParams.get('theme') ?? 'dark');
            if (!(theme in BODY_CLASS)) {
                res.writeHead(400).end('unknown theme');
                return;
            }
            res.writeHead(200, { 'content-type': TYPES['.html'], 'cache-control': 'no-store' }).end(this.page(theme));
            return;
        }
        for (const [prefix, dir] of Object.entries(ROOTS)) {
            if (!url.pathname.startsWith(prefix))
                continue;
            const file = path.resolve(dir, decodeURIComponent(url.pathname.slice(prefix.length)));
            if (!file.startsWith(dir + path.sep) || !fs.existsSync(file) || !fs.statSync(file).isFile())
                break;
            res.writeHead(200, { 'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-store' });
            fs.createReadStream(file).pipe(res);
            return;
        }
        res.writeHead(404).end('not found');
    }
    page(theme) {
        const nonce = (0, node_crypto_1.randomBytes)(18).toString('base64');
        const html = (0, webviewPage_1.renderPanelPage)({
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
            .replace('<body>', `<body class="${BODY_CLASS[theme]}" data-vscode-theme-kind="${BODY_CLASS[theme]}">`)
            .replace(/<script nonce=/, `${driver}<script nonce=`);
        if (out === html || !out.includes('driver.js') || !out.includes(`theme-${theme}.css`))
            throw new Error('panel page template changed: update the test server');
        return out;
    }
}
exports.PanelServer = PanelServer;
//# sourceMappingURL=server.js.map