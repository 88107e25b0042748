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
exports.webviewResourceRoots = webviewResourceRoots;
exports.renderWebviewHtml = renderWebviewHtml;
const node_crypto_1 = require("node:crypto");
const vscode = __importStar(require("vscode"));
const webviewPage_1 = require("./webviewPage");
/** Folders a Strata webview may load from: the webview bundle and media/. Nothing else. */
function webviewResourceRoots(extensionUri) {
    return [vscode.Uri.joinPath(extensionUri, 'dist', 'webview'), vscode.Uri.joinPath(extensionUri, 'media')];
}
/**
 * The chat panel's HTML: a strict CSP (scripts only with this load's nonce, no inline script or
 * style, resources only from the webview's own roots) and the bundle as the only script.
 */
function renderWebviewHtml(webview, extensionUri, title) {
    const uri = (...segments) => webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, ...segments)).toString();
    return (0, webviewPage_1.renderPanelPage)({
        cspSource: webview.cspSource,
        nonce: (0, node_crypto_1.randomBytes)(18).toString('base64'),
        scriptUri: uri('dist', 'webview', 'main.js'),
        styleUri: uri('media', 'webview.css'),
        // Copied next to the bundle by webpack.config.js (from @vscode/codicons).
        codiconUri: uri('dist', 'webview', 'codicons', 'codicon.css'),
        title,
    });
}
//# sourceMappingURL=webviewHtml.js.map