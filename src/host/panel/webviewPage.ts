/**
 * The chat panel's HTML page, as a pure function (no `vscode` import), so the host and the
 * standalone browser tests of the panel (test/webview) serve byte-for-byte the same markup and CSP.
 */
export interface PanelPageParts {
  /** `webview.cspSource`: the origin the webview's own resources come from. */
  cspSource: string;
  /** Per-load random nonce; the only script allowed to run carries it. */
  nonce: string;
  scriptUri: string;
  styleUri: string;
  /** The codicon font stylesheet (shipped next to the bundle). */
  codiconUri: string;
  title: string;
}

function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** The Content-Security-Policy of the panel: no inline script or style, resources only from `cspSource`. */
export function panelContentSecurityPolicy(cspSource: string, nonce: string): string {
  return [
    "default-src 'none'",
    `img-src ${cspSource} data:`,
    `font-src ${cspSource}`,
    `style-src ${cspSource}`,
    `script-src 'nonce-${nonce}'`,
  ].join('; ');
}

export function renderPanelPage(parts: PanelPageParts): string {
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
