"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.panelContentSecurityPolicy = panelContentSecurityPolicy;
exports.renderPanelPage = renderPanelPage;
function escapeAttribute(value) {
    return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
/** The Content-Security-Policy of the panel: no inline script or style, resources only from `cspSource`. */
function panelContentSecurityPolicy(cspSource, nonce) {
    return [
        "default-src 'none'",
        `img-src ${cspSource} data:`,
        `font-src ${cspSource}`,
        `style-src ${cspSource}`,
        `script-src 'nonce-${nonce}'`,
    ].join('; ');
}
function renderPanelPage(parts) {
    const csp = panelContentSecurityPolicy(parts.cspSource, parts.nonce);
    // The codicon stylesheet needs the id `vscode-codicon-stylesheet`: @vscode-elements components
    // look it up to load the icon font inside their shadow roots.
    return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${escapeAttribute(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" id="vscode-codicon-stylesheet" href="${escapeAttribute(parts.codiconUri)}">
<link rel="stylesheet" href="${escapeAttribute(parts.styleUri)}">
<title>${escapeAttribute(parts.title)}</title>
</head>
<body>
<div id="app"></div>
<script nonce="${escapeAttribute(parts.nonce)}" src="${escapeAttribute(parts.scriptUri)}"></script>
</body>
</html>`;
}
//# sourceMappingURL=webviewPage.js.map